"""Instances: an experiment's parameters drawn from its seed, the same in any process on any machine.

Every draw is a quantile from SHA-256 of (experiment, seed, parameter), so adding a parameter never shifts
another's value and no random-number generator state is involved. The instance identity hashes the
experiment, the seed and the drawn values; it is what a manifest records per instance.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from actloop.suites.lab.spec import ExperimentSpec

QUANTILE_BITS = 53


def quantile(*key: str | int) -> float:
    """A uniform quantile in [0, 1) from ``key`` (53 bits of SHA-256: every double in the range is exact)."""
    digest = hashlib.sha256("\x1f".join(str(part) for part in key).encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "big") >> (64 - QUANTILE_BITS)) / float(1 << QUANTILE_BITS)


@dataclass(frozen=True)
class Instance:
    """One instance of an experiment: its seed, its public values (shown on the card) and its hidden
    values (evaluator-only: never in a server response, a workspace file or a card)."""

    experiment: str
    seed: int
    public: dict[str, float]
    hidden: dict[str, float]

    @property
    def instance_id(self) -> str:
        """SHA-256 of the experiment, seed and every drawn value (floats by their shortest repr)."""
        payload = {
            "experiment": self.experiment,
            "seed": self.seed,
            "public": self.public,
            "hidden": self.hidden,
        }
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw(spec: ExperimentSpec, seed: int) -> Instance:
    """The instance of ``spec`` for ``seed``."""
    public = {p.name: p.distribution.value(quantile(spec.key, seed, p.name)) for p in spec.public}
    hidden = {p.name: p.distribution.value(quantile(spec.key, seed, p.name)) for p in spec.hidden}
    return Instance(spec.key, seed, public, hidden)
