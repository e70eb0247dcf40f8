"""The lab suite as a :class:`~actloop.core.suite.Suite`: quantitative experiments on simulated apparatus,
operated by coding agents through a Python client. Its instances are verified by the reference
experimenter. An Inspect model plays an episode by writing programs that a code-execution tool runs in the
sandboxed workspace (:mod:`actloop.suites.lab.model_driver`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from actloop.core.environment import Environment
from actloop.core.suite import BenchOptions, BuiltinModel, EpisodeDriver, Player, SeedScreen, Suite, TaskInfo
from actloop.errors import ConfigError
from actloop.records.compare import ManifestCheck
from actloop.suites.lab.levels import LEVELS

if TYPE_CHECKING:
    from actloop.agent.session import ModelSession
    from actloop.records.recorder import EpisodeRecorder
    from actloop.report.analysis import Analysis
    from actloop.report.charts import BarChart
    from actloop.report.tables import Table


class Lab(Suite):
    """EmbodiedLab: act to know (see ``actloop.suites.lab``)."""

    name: ClassVar[str] = "lab"
    title: ClassVar[str] = "EmbodiedLab science experiments"
    env_factory: ClassVar[str] = "actloop.suites.lab.agent_env:LabAgentEnv"
    protocols: ClassVar[tuple[str, ...]] = LEVELS
    screens_candidates_at_once: ClassVar[bool] = True
    env_call_timeout_s: ClassVar[float] = 3900.0
    """A step runs the agent's program for up to the episode's wall-clock limit (3600 s by default)."""

    def task_names(self) -> list[str]:
        from actloop.suites.lab.experiments import experiment_keys

        return experiment_keys()

    def task_info(self, task: str) -> TaskInfo:
        from actloop.suites.lab.experiments import experiment

        spec = experiment(task).spec
        return TaskInfo(task, 1, None, None, spec.question)

    def use_instance_key(self, key_file: Path) -> str:
        """Put the key file in this process's environment (``$ACTLOOP_LAB_INSTANCE_KEY_FILE``, inherited by
        workers) once it reads as a key, so instances come from its private set."""
        import os

        from actloop.suites.lab.instance import INSTANCE_KEY_ENV, INSTANCE_KEY_FILE_ENV, InstanceKey

        key = InstanceKey.from_file(key_file)
        os.environ.pop(INSTANCE_KEY_ENV, None)
        os.environ[INSTANCE_KEY_FILE_ENV] = str(key_file.resolve())
        return key.fingerprint

    def verified_seeds(self, task: str) -> list[int]:
        """The seeds of the verified set: the private set of the evaluator's instance key when its
        environment holds one (``$ACTLOOP_LAB_INSTANCE_KEY`` or ``..._FILE``), else the public set."""
        from actloop.suites.lab.instance import environment_instance_key
        from actloop.suites.lab.manifests import load, manifest_dir

        self.task_info(task)
        return load(task, manifest_dir(environment_instance_key())).seeds()

    def check_seeds(self, task: str, directory: Path | None = None) -> ManifestCheck:
        """Every verified instance must draw the same inputs here (their hash is the instance id); the
        draws are exact arithmetic on SHA-256 (or HMAC) quantiles, so this holds bit for bit on every
        machine. With an instance key in the environment, its private set is checked."""
        from actloop.suites.lab import manifests
        from actloop.suites.lab.experiments import experiment
        from actloop.suites.lab.instance import draw, environment_instance_key

        spec = experiment(task).spec
        key = environment_instance_key()
        manifest = manifests.load(task, directory or manifests.manifest_dir(key))
        check = ManifestCheck(task, bitwise=True, scenes=len(manifest.instances))
        if manifest.key_fingerprint != (None if key is None else key.fingerprint):
            check.problems.append(
                f"{task}: the manifest is of the {manifest.instance_set} set "
                f"(key {manifest.key_fingerprint or 'none'}), the instance key here is "
                f"{'none' if key is None else key.fingerprint}"
            )
            return check
        for entry in manifest.instances:
            drawn = draw(spec, int(entry["seed"]), key).instance_id
            if drawn != entry["instance_id"]:
                recorded = entry["instance_id"]
                check.problems.append(
                    f"{task} seed {entry['seed']}: instance {drawn} here, {recorded} released"
                )
        return check

    def check_expert_runs(
        self,
        task: str,
        directory: Path | None = None,
        workers: int = 1,
        log: Callable[[str], None] | None = None,
    ) -> list[str]:
        """Re-run the reference on every verified instance (``manifests.check_references``); a manifest of
        another instance set than the key here is left to :meth:`check_seeds`, which names it."""
        from actloop.suites.lab import manifests
        from actloop.suites.lab.instance import environment_instance_key

        key = environment_instance_key()
        manifest = manifests.load(task, directory or manifests.manifest_dir(key))
        if manifest.key_fingerprint != (None if key is None else key.fingerprint):
            return []
        return manifests.check_references(manifest, key, workers, log)

    def screen_seeds(
        self,
        task: str,
        directory: Path | None = None,
        log: Callable[[str], None] | None = None,
        workers: int = 1,
    ) -> SeedScreen:
        from actloop.suites.lab import manifests
        from actloop.suites.lab.audit import keep_audit
        from actloop.suites.lab.instance import environment_instance_key

        self.task_info(task)
        key = environment_instance_key()
        out = directory or manifests.manifest_dir(key)
        if key is not None and out.resolve() == manifests.MANIFEST_DIR.resolve():
            raise ConfigError("a private set's manifests never go into the package (the released public set)")
        manifest = manifests.screen(task, log=log, key=key, workers=workers)
        if key is None:
            keep_audit(manifest)
        path = manifest.save(out)
        probed = len(manifest.instances) + len(manifest.rejected)
        return SeedScreen(task, probed, len(manifest.instances), None, path)

    def add_commands(self, commands: Any) -> None:
        from actloop.suites.lab.cli import add_commands

        add_commands(commands)

    def bench(self, options: BenchOptions) -> dict[str, Any]:
        from actloop.suites.lab.bench import run_benchmarks
        from actloop.suites.lab.bench_flight import AGENTS, THINK_S

        agents = AGENTS if options.in_flight is None else options.in_flight
        think_s = THINK_S if options.latency_s is None else options.latency_s
        return run_benchmarks(max(1, options.repeats), agents, think_s)

    step_report: ClassVar[bool] = False
    """A lab episode is programs run on a bench, reported in the lab's own tables, charts and viewer."""

    def report_tables(self, analysis: Analysis) -> list[Table]:
        from actloop.suites.lab.report import report_tables

        return report_tables(analysis)

    def report_charts(self, analysis: Analysis) -> list[BarChart]:
        from actloop.suites.lab.report import report_charts

        return report_charts(analysis)

    def episode_page(self, record_dir: Path) -> str:
        from actloop.suites.lab.episode_view import render_episode_page

        return render_episode_page(record_dir)

    def builtin_models(self) -> dict[str, BuiltinModel]:
        from actloop.suites.lab.reference_model import lab_reference

        return {"lab-reference": lab_reference}

    def players(
        self, agents: list[str], models: list[str], api: str | None, reasoning: str | None
    ) -> list[Player]:
        """Coding agents (:mod:`actloop.suites.lab.agent_episodes`): each agent with each model."""
        from actloop.suites.lab.agent_episodes import players

        return list(players(agents, models, api, reasoning))

    def episode_driver(
        self,
        env: Environment,
        session: ModelSession,
        recorder: EpisodeRecorder,
        task: str,
        summary: str | None,
    ) -> EpisodeDriver:
        from actloop.suites.lab.model_driver import LabDriver

        return LabDriver(env, session, recorder, task)
