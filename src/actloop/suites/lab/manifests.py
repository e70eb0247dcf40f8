"""Verified instances: each experiment's released seeds, every one solved by the reference experimenter
within half its tolerance (the seed's calibration), with the identity of the instance's inputs.

``manifests/<experiment>.json`` holds, per instance of the public set, the seed, the instance id (a hash of
the drawn values), the reference's error as a fraction of the tolerance and its simulated time, and the
experiment's difficulty audit (:mod:`~actloop.suites.lab.audit`). A private set (drawn under the
evaluator's instance key, :mod:`~actloop.suites.lab.instance`) is screened the same way into a directory
of its own, named by the key's fingerprint and never inside the package.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.suites.lab.instance import InstanceKey

MANIFEST_DIR = Path(str(resources.files("actloop.suites.lab") / "manifests"))
PRIVATE_MANIFEST_ROOT = Path.home() / ".cache" / "actloop" / "lab-private-manifests"
"""Private sets' manifests by default: ``<root>/<key fingerprint>/<experiment>.json``."""
MANIFEST_FORMAT = 1
RELEASED = 20
MAX_REFERENCE_E = 0.5


@dataclass
class InstanceManifest:
    """The verified instances of one experiment."""

    experiment: str
    instances: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    format: int = MANIFEST_FORMAT
    instance_set: str = "public"
    key_fingerprint: str | None = None
    audit: dict[str, Any] | None = None
    """The difficulty audit (:func:`actloop.suites.lab.audit.audit`), kept with the public set."""

    def seeds(self) -> list[int]:
        return [int(entry["seed"]) for entry in self.instances]

    def save(self, directory: Path = MANIFEST_DIR) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.experiment}.json"
        path.write_text(json.dumps(asdict(self), indent=1) + "\n")
        return path


def manifest_dir(key: InstanceKey | None) -> Path:
    """Where the manifests of ``key``'s private set live by default (the package's for the public set)."""
    return MANIFEST_DIR if key is None else PRIVATE_MANIFEST_ROOT / key.fingerprint


def load(experiment: str, directory: Path = MANIFEST_DIR) -> InstanceManifest:
    path = directory / f"{experiment}.json"
    if not path.exists():
        command = f"actloop verify-seeds --suite lab --task {experiment}"
        raise ConfigError(f"no verified instances of {experiment!r} in {directory}; run `{command}`")
    data = json.loads(path.read_text())
    if data.get("format") != MANIFEST_FORMAT:
        raise ConfigError(f"{path} has format {data.get('format')}; this actloop reads {MANIFEST_FORMAT}")
    return InstanceManifest(**data)


def verify_instance(experiment: str, seed: int, key: InstanceKey | None = None) -> dict[str, Any]:
    """Run the reference experimenter on one instance (of ``key``'s private set, or the public one) through
    the public client over HTTP and score it. A reference that raises is scored as it stands (it did not
    submit) and its error kept, so one failing instance is rejected without stopping the screen."""
    from actloop.suites.lab.env import LabEnv
    from actloop.suites.lab.reference import reference
    from actloop.suites.lab.server import serving
    from actloop.suites.lab.workspace_files import load_client

    env = LabEnv(experiment, seed, instance_key=key)
    failure = None
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        try:
            reference(experiment)(lab, dict(env.instance.public))
        except Exception as err:  # the reference failed on this instance: reject it, say why
            failure = f"{type(err).__name__}: {err}"
        finally:
            lab.close()
    score, _ = env.score()
    entry = {
        "seed": seed,
        "instance_id": env.instance.instance_id,
        "success": score.success,
        "reference_e": round(score.e, 4),
        "stop_stage": score.stop_stage,
        "sim_time_s": round(env.clock.time_s, 3),
    }
    return {**entry, "failure": failure} if failure else entry


def screen(
    experiment: str, released: int = RELEASED, log: Any = None, key: InstanceKey | None = None
) -> InstanceManifest:
    """Verify instances from seed 1 up until ``released`` pass (success with e ≤ MAX_REFERENCE_E), of
    ``key``'s private set or the public one."""
    fingerprint = None if key is None else key.fingerprint
    manifest = InstanceManifest(
        experiment, instance_set="public" if key is None else "private", key_fingerprint=fingerprint
    )
    seed = 0
    while len(manifest.instances) < released:
        seed += 1
        if seed > 5 * released:
            raise RuntimeError(f"{experiment}: fewer than {released} instances pass in {5 * released} seeds")
        entry = verify_instance(experiment, seed, key)
        passed = entry["success"] and entry["reference_e"] <= MAX_REFERENCE_E
        (manifest.instances if passed else manifest.rejected).append(entry)
        if log is not None:
            log(f"{experiment} seed {seed}: {'ok' if passed else 'rejected'} (e = {entry['reference_e']})")
    return manifest
