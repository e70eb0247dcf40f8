"""Instances: an experiment's parameters drawn from its seed, the same in any process on any machine.

Every draw is a quantile of a hash of (experiment, seed, parameter), so adding a parameter never shifts
another's value and no random-number generator state is involved. Two sets of instances exist:

- the **public** (development) set: quantiles of SHA-256 of the key alone, so anyone with the code can draw
  them; the manifests release 20 of them per experiment;
- a **private** (evaluation) set: quantiles of HMAC-SHA-256 under an instance key that only the evaluator
  holds (``$ACTLOOP_LAB_INSTANCE_KEY``, or a file named by ``$ACTLOOP_LAB_INSTANCE_KEY_FILE``). The same
  seed gives other values under another key, so the public code narrows nothing down.

The key lives only in the evaluator's process: an instance keeps its fingerprint (a short HMAC, which says
which key drew it without revealing it) and a noise key derived from it (so the readings of a private
instance cannot be computed either); never the key. The instance identity hashes the experiment, the seed,
the drawn values and (private instances only) the fingerprint; it is what a manifest records per instance.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from actloop.errors import ConfigError
from actloop.suites.lab.spec import ExperimentSpec

QUANTILE_BITS = 53
INSTANCE_KEY_ENV = "ACTLOOP_LAB_INSTANCE_KEY"
INSTANCE_KEY_FILE_ENV = "ACTLOOP_LAB_INSTANCE_KEY_FILE"
KEY_VARIABLES = (INSTANCE_KEY_ENV, INSTANCE_KEY_FILE_ENV)
"""Environment variables that carry the instance key: never passed to an agent."""
MIN_KEY_BYTES = 16
InstanceSet = Literal["public", "private"]


def _unit(digest: bytes) -> float:
    """53 bits of ``digest`` as a uniform quantile in [0, 1) (every double in the range is exact)."""
    return (int.from_bytes(digest[:8], "big") >> (64 - QUANTILE_BITS)) / float(1 << QUANTILE_BITS)


def _message(key: tuple[str | int, ...]) -> bytes:
    return "\x1f".join(str(part) for part in key).encode("utf-8")


def quantile(*key: str | int) -> float:
    """A uniform quantile in [0, 1) from ``key`` (53 bits of SHA-256): the public set's draws."""
    return _unit(hashlib.sha256(_message(key)).digest())


@dataclass(frozen=True)
class InstanceKey:
    """The secret behind the private set. Its repr shows only the fingerprint."""

    secret: bytes = field(repr=False)

    def __post_init__(self) -> None:
        if len(self.secret) < MIN_KEY_BYTES:
            raise ConfigError(
                f"an instance key needs at least {MIN_KEY_BYTES} bytes (e.g. `openssl rand -hex 32`), "
                f"got {len(self.secret)}"
            )

    def __repr__(self) -> str:
        return f"InstanceKey(fingerprint={self.fingerprint!r})"

    def _mac(self, *key: str | int) -> bytes:
        return hmac.new(self.secret, _message(key), hashlib.sha256).digest()

    @property
    def fingerprint(self) -> str:
        """12 hex digits of an HMAC of a fixed label: names the key in rows and manifests, reveals nothing."""
        return self._mac("actloop lab instance key fingerprint").hex()[:12]

    def quantile(self, *key: str | int) -> float:
        """A uniform quantile in [0, 1) from ``key`` under this key (53 bits of HMAC-SHA-256)."""
        return _unit(self._mac(*key))

    def noise_key(self, experiment: str, seed: int) -> str:
        """The noise key of a private instance: unpredictable without the key."""
        return f"{experiment}:{seed}:{self._mac('noise', experiment, seed).hex()[:32]}"

    @classmethod
    def from_file(cls, path: Path) -> InstanceKey:
        """The key held in ``path`` (its bytes, surrounding whitespace stripped)."""
        try:
            return cls(path.read_bytes().strip())
        except OSError as err:
            raise ConfigError(f"cannot read the instance key file {path}: {err.strerror}") from err

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> InstanceKey | None:
        """The key from ``$ACTLOOP_LAB_INSTANCE_KEY`` or the file ``$ACTLOOP_LAB_INSTANCE_KEY_FILE`` names;
        None (the public set) when neither is set. Setting both is refused."""
        environ = os.environ if environ is None else environ
        value, path = environ.get(INSTANCE_KEY_ENV), environ.get(INSTANCE_KEY_FILE_ENV)
        if value and path:
            raise ConfigError(f"set {INSTANCE_KEY_ENV} or {INSTANCE_KEY_FILE_ENV}, not both")
        if path:
            return cls.from_file(Path(path))
        return cls(value.strip().encode("utf-8")) if value else None


def environment_instance_key() -> InstanceKey | None:
    """The evaluator's instance key from its environment (None: the public set)."""
    return InstanceKey.from_environment()


@dataclass(frozen=True)
class Instance:
    """One instance of an experiment: its seed, its public values (shown on the card) and its hidden
    values (evaluator-only: never in a server response, a workspace file or a card), the set it belongs to
    and, for a private instance, its key's fingerprint."""

    experiment: str
    seed: int
    public: dict[str, float]
    hidden: dict[str, float]
    key_fingerprint: str | None = None
    noise_key: str = ""
    """Keys every instrument's noise (:mod:`~actloop.suites.lab.physics.noise`): ``experiment:seed`` for a
    public instance, with an HMAC under the instance key appended for a private one."""

    def __post_init__(self) -> None:
        if not self.noise_key:
            object.__setattr__(self, "noise_key", f"{self.experiment}:{self.seed}")

    @property
    def instance_set(self) -> InstanceSet:
        return "public" if self.key_fingerprint is None else "private"

    @property
    def instance_id(self) -> str:
        """SHA-256 of the experiment, seed and every drawn value (floats by their shortest repr), and the
        key's fingerprint for a private instance."""
        payload: dict[str, object] = {
            "experiment": self.experiment,
            "seed": self.seed,
            "public": self.public,
            "hidden": self.hidden,
        }
        if self.key_fingerprint is not None:
            payload["key"] = self.key_fingerprint
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw(spec: ExperimentSpec, seed: int, key: InstanceKey | None = None) -> Instance:
    """The instance of ``spec`` for ``seed``: of the public set, or of the private set of ``key``."""
    q = quantile if key is None else key.quantile
    public = {p.name: p.distribution.value(q(spec.key, seed, p.name)) for p in spec.public}
    hidden = {p.name: p.distribution.value(q(spec.key, seed, p.name)) for p in spec.hidden}
    if key is None:
        return Instance(spec.key, seed, public, hidden)
    return Instance(spec.key, seed, public, hidden, key.fingerprint, key.noise_key(spec.key, seed))
