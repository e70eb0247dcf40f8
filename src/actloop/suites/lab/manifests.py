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
import multiprocessing
import signal
import tempfile
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from functools import partial
from importlib import resources
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actloop.errors import ConfigError
from actloop.suites.lab.instance import InstanceKey

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

    from actloop.suites.lab.env import LabEnv

MANIFEST_DIR = Path(str(resources.files("actloop.suites.lab") / "manifests"))
PRIVATE_MANIFEST_ROOT = Path.home() / ".cache" / "actloop" / "lab-private-manifests"
"""Private sets' manifests by default: ``<root>/<key fingerprint>/<experiment>.json``."""
MANIFEST_FORMAT = 1
RELEASED = 20
MAX_REFERENCE_E = 0.5
E_TOLERANCE = 0.02
"""How far a re-run reference's error (a fraction of the tolerance) may lie from the released one: on the
platform that screened the set it is equal; another machine's floating point may move it this far."""
SIM_TIME_TOLERANCE_S = 1.0
"""How far a re-run reference's simulated time may lie from the released one (equal on the same platform)."""
Entry = dict[str, Any]


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


def run_reference(env: LabEnv, experimenter: Callable[[Any, dict[str, float]], Any]) -> str | None:
    """Run ``experimenter(lab, public)`` against ``env`` served over HTTP, its client loaded from a temporary
    workspace written as an agent's (its exports land there; the directory is removed afterwards). Returns
    the error it raised (``"Type: message"``), or None."""
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.server import serving
    from actloop.suites.lab.workspace_files import load_client, write_workspace

    with serving(env) as server, tempfile.TemporaryDirectory(prefix="actloop-reference-") as folder:
        workspace = Path(folder)
        card = task_card(env.spec, env.instance, env.platform.instruments(), env.platform.loggers())
        write_workspace(workspace, card, server.url, server.token)
        lab = load_client(workspace).Lab(server.url, server.token, workspace=workspace)
        try:
            experimenter(lab, dict(env.instance.public))
        except Exception as err:  # the experimenter failed on this instance: say why
            return f"{type(err).__name__}: {err}"
        finally:
            lab.close()
    return None


def verify_instance(experiment: str, seed: int, key: InstanceKey | None = None) -> Entry:
    """Run the reference experimenter on one instance (of ``key``'s private set, or the public one) through
    the public client over HTTP (:func:`run_reference`) and score it. A reference that raises is scored as
    it stands (it did not submit) and its error kept, so one failing instance is rejected without stopping
    the screen."""
    from actloop.suites.lab.env import LabEnv
    from actloop.suites.lab.reference import reference

    env = LabEnv(experiment, seed, instance_key=key)
    try:
        failure = run_reference(env, reference(experiment))
        score, _ = env.score()
    finally:
        env.close()
    entry = {
        "seed": seed,
        "instance_id": env.instance.instance_id,
        "success": score.success,
        "reference_e": round(score.e, 4),
        "stop_stage": score.stop_stage,
        "sim_time_s": round(env.clock.time_s, 3),
    }
    return {**entry, "failure": failure} if failure else entry


def passes(entry: Entry) -> bool:
    """Whether the reference solved the instance within half its tolerance."""
    return bool(entry["success"]) and entry["reference_e"] <= MAX_REFERENCE_E


def _serve(conn: Connection) -> None:
    """A verifier process: run each ``(verify, seed)`` it is sent and send back ``("ok", entry)`` or
    ``("error", message)``, until the parent closes the pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when verifiers stop
    while True:
        try:
            verify, seed = conn.recv()
        except EOFError:
            return
        try:
            answer = ("ok", verify(seed))
        except Exception as err:
            answer = ("error", f"{type(err).__name__}: {err}")
        conn.send(answer)


def verified_in_order(
    verify: Callable[[int], Entry], seeds: Sequence[int], workers: int = 1, what: str = "instance"
) -> Generator[Entry, None, None]:
    """``verify(seed)`` of each of ``seeds``, yielded in their order. With ``workers`` > 1 the seeds are
    verified that many at once in spawned processes (a forked one would share MuJoCo's and EGL's state;
    ``verify`` must pickle), ahead of the one awaited; closing the iterator stops them. A seed whose
    process dies, or whose verification raises, raises RuntimeError naming ``what`` and the seed."""
    if workers <= 1:
        yield from map(verify, seeds)
        return
    context = multiprocessing.get_context("spawn")
    verifiers: list[tuple[Connection, BaseProcess]] = []
    busy: dict[Connection, tuple[int, BaseProcess]] = {}
    done: dict[int, Entry] = {}
    waiting = iter(seeds)
    try:
        for _ in range(min(workers, len(seeds))):
            parent_end, child_end = context.Pipe(duplex=True)
            verifier = context.Process(target=_serve, args=(child_end,), name="actloop-verifier", daemon=True)
            verifier.start()
            child_end.close()
            verifiers.append((parent_end, verifier))
        idle = list(verifiers)
        for seed in seeds:
            while seed not in done:
                while idle and (upcoming := next(waiting, None)) is not None:
                    conn, process = idle.pop()
                    conn.send((verify, upcoming))
                    busy[conn] = (upcoming, process)
                for ready in wait(list(busy)):
                    assert isinstance(ready, Connection)
                    finished, process = busy.pop(ready)
                    done[finished] = _answer(ready, process, f"{what} seed {finished}")
                    idle.append((ready, process))
            yield done.pop(seed)
    finally:
        for conn, process in verifiers:
            process.terminate()
            process.join()
            conn.close()


def _answer(conn: Connection, process: BaseProcess, name: str) -> Entry:
    """What a verifier process sent back for ``name``; RuntimeError when it died or verifying raised."""
    try:
        status, answer = conn.recv()
    except EOFError:
        process.join()
        raise RuntimeError(f"{name}: the process verifying it died (exit code {process.exitcode})") from None
    if status != "ok":
        raise RuntimeError(f"{name}: {answer}")
    return dict(answer)


def screen(
    experiment: str,
    released: int = RELEASED,
    log: Any = None,
    key: InstanceKey | None = None,
    workers: int = 1,
) -> InstanceManifest:
    """Verify instances from seed 1 up until ``released`` pass (success with e ≤ MAX_REFERENCE_E), of
    ``key``'s private set or the public one; at most 5 × ``released`` seeds. With ``workers`` > 1 later
    seeds are verified ahead in spawned processes, and the manifest is the serial screen's: the first
    ``released`` passing seeds and the rejected ones below the last of them."""
    fingerprint = None if key is None else key.fingerprint
    manifest = InstanceManifest(
        experiment, instance_set="public" if key is None else "private", key_fingerprint=fingerprint
    )
    seeds = range(1, 5 * released + 1)
    verify = partial(verify_instance, experiment, key=key)
    with closing(verified_in_order(verify, seeds, workers, experiment)) as entries:
        for entry in entries:
            passed = passes(entry)
            (manifest.instances if passed else manifest.rejected).append(entry)
            if log is not None:
                verdict = "ok" if passed else "rejected"
                log(f"{experiment} seed {entry['seed']}: {verdict} (e = {entry['reference_e']})")
            if len(manifest.instances) == released:
                return manifest
    raise RuntimeError(f"{experiment}: fewer than {released} instances pass in {5 * released} seeds")


def differences(released: Entry, rerun: Entry) -> list[str]:
    """How a re-run of the reference departs from its released entry: it must still pass, draw the same
    instance, succeed and stop at the same stage, and lie within E_TOLERANCE and SIM_TIME_TOLERANCE_S
    (empty: it matches)."""
    found = [f"the reference raised {rerun['failure']}"] if "failure" in rerun else []
    if not passes(rerun):
        found.append(
            f"the reference no longer passes (success {rerun['success']}, e = {rerun['reference_e']})"
        )
    for name in ("instance_id", "success", "stop_stage"):
        if rerun[name] != released[name]:
            found.append(f"{name} {rerun[name]!r} here, {released[name]!r} released")
    for name, tolerance in (("reference_e", E_TOLERANCE), ("sim_time_s", SIM_TIME_TOLERANCE_S)):
        if abs(rerun[name] - released[name]) > tolerance:
            found.append(f"{name} {rerun[name]} here, {released[name]} released (tolerance {tolerance:g})")
    return found


def check_references(
    manifest: InstanceManifest, key: InstanceKey | None = None, workers: int = 1, log: Any = None
) -> list[str]:
    """Re-run the reference on every released instance of ``manifest`` (``workers`` at once) and compare
    each with its entry (:func:`differences`); one line per instance goes to ``log``. Returns the
    problems, each naming its seed."""
    experiment = manifest.experiment
    verify = partial(verify_instance, experiment, key=key)
    problems = []
    with closing(verified_in_order(verify, manifest.seeds(), workers, experiment)) as reruns:
        for released, rerun in zip(manifest.instances, reruns, strict=True):
            found = differences(released, rerun)
            problems += [f"{experiment} seed {released['seed']}: {problem}" for problem in found]
            if log is not None:
                verdict = "; ".join(found) or "matches"
                log(
                    f"{experiment} seed {released['seed']}: e = {rerun['reference_e']} "
                    f"(released {released['reference_e']}), {rerun['sim_time_s']} s simulated "
                    f"(released {released['sim_time_s']}): {verdict}"
                )
    return problems
