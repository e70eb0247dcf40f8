"""vabench as a :class:`~actloop.core.suite.Suite`: 14 tabletop task families under the active-camera
or passive five-view protocol, each with 20 verified seeds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from actloop.core.environment import Environment
from actloop.core.suite import BenchOptions, BuiltinModel, EpisodeDriver, SeedScreen, Suite, TaskInfo
from actloop.records.compare import ManifestCheck, ReplayCheck

if TYPE_CHECKING:
    from actloop.agent.session import ModelSession
    from actloop.records.recorder import EpisodeRecorder
    from actloop.report.analysis import Analysis
    from actloop.report.tables import Table


class VABench(Suite):
    """The spatial-action suite: learn from an RGB demonstration, gather evidence with the camera, act."""

    name: ClassVar[str] = "vabench"
    title: ClassVar[str] = "VA-Bench tabletop manipulation"
    env_factory: ClassVar[str] = "actloop.suites.vabench.env:SpatialEnv"
    protocols: ClassVar[tuple[str, ...]] = ("active", "passive")

    def task_names(self) -> list[str]:
        from actloop.suites.vabench.task import task_names

        return task_names()

    def task_info(self, task: str) -> TaskInfo:
        from actloop.suites.vabench.task import get_task

        cls = get_task(task)
        return TaskInfo(task, len(cls.arms), int(cls.budget), cls.base_task, cls.instruction, cls.track)

    def verified_seeds(self, task: str) -> list[int]:
        from actloop.suites.vabench.seeds import load_manifest

        self.task_info(task)
        return load_manifest(task).seed_list()

    def episode_driver(
        self,
        env: Environment,
        session: ModelSession,
        recorder: EpisodeRecorder,
        task: str,
        summary: str | None,
    ) -> EpisodeDriver:
        from actloop.suites.vabench.agent.driver import VabenchDriver

        return VabenchDriver(env, session, recorder, summary)

    def summaries(self, condition: str, model: str, tasks: list[str], store: Path) -> dict[str, str]:
        from actloop.suites.vabench.agent.summaries import resolve_summaries

        return resolve_summaries(condition, model, {t: self.task_info(t).base or t for t in tasks}, store)

    def check_seeds(self, task: str, directory: Path | None = None) -> ManifestCheck:
        from actloop.suites.vabench import seeds

        return seeds.check_manifest(seeds.load_manifest(task, directory or seeds.MANIFEST_DIR))

    def screen_seeds(
        self,
        task: str,
        directory: Path | None = None,
        log: Callable[[str], None] | None = None,
        workers: int = 1,  # candidates are probed in order; tasks are what runs at once
    ) -> SeedScreen:
        from actloop.suites.vabench import seeds

        def report(probe: seeds.Probe) -> None:
            if log is not None:
                log(f"{task} seed {probe.seed}: " + ("ok" if probe.accepted else f"rejected: {probe.reason}"))

        manifest = seeds.screen(task, on_probe=report)
        path = manifest.save(directory or seeds.MANIFEST_DIR)
        accepted = manifest.retained + (manifest.demo_seed is not None)
        return SeedScreen(task, manifest.probed, accepted, manifest.demo_seed, path)

    def record_demonstration(self, task: str, out: Path) -> str:
        from actloop.suites.vabench.demonstration import record_demonstration

        base = self.task_info(task).base
        if base is not None:
            return f"held-out variant: no video of its own, it reuses {base}'s demonstration summary"
        demo = record_demonstration(task, out)
        return f"seed {demo.seed}, {demo.video_frames} video frames -> {out / task}"

    def learn(
        self, tasks: list[str], model: str, demos: Path, store: Path, **call: Any
    ) -> list[dict[str, Any]]:
        from actloop.suites.vabench.agent.learn_run import learn
        from actloop.suites.vabench.demonstration import load_demonstration, record_demonstration

        tasks = list(dict.fromkeys(self.task_info(t).base or t for t in tasks))  # variants learn nothing
        for task in tasks:
            try:
                load_demonstration(demos, task)
            except FileNotFoundError:
                record_demonstration(task, demos)
        model_args = call.pop("model_args", {})
        return learn(tasks, model, model_args, demos, store, **call)

    def add_commands(self, commands: Any) -> None:
        from actloop.suites.vabench.cli import add_commands

        add_commands(commands)

    def replay(self, record_dir: Path) -> ReplayCheck:
        from actloop.suites.vabench.replay import reexecute

        return reexecute(record_dir)

    def bench(self, options: BenchOptions) -> dict[str, Any]:
        from actloop.suites.vabench.bench import run_benchmarks

        return run_benchmarks(options)

    def report_tables(self, analysis: Analysis) -> list[Table]:
        from actloop.suites.vabench.report import report_tables

        return report_tables(analysis)

    def viewer_panels(self, run_dir: Path) -> dict[str, list[dict[str, Any]]]:
        from actloop.suites.vabench.diagnostics.viewer_labels import label_panels

        return label_panels(run_dir)

    def builtin_models(self) -> dict[str, BuiltinModel]:
        def baseline(messages: list) -> str:  # imported on first use: the policy loads scipy
            from actloop.suites.vabench.baseline import decide

            return decide(messages)

        return {"baseline": baseline}
