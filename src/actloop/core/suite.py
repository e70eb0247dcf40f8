"""The suite interface and registry.

A suite (vabench, lab) owns its tasks, verified seeds, environment, prompt and decision protocol, and the
fields it adds to result rows. The shared layers know suites only through :class:`Suite` and the
registry: suites register through the ``actloop.suites`` entry point of their distribution (or
:func:`register` at run time), so nothing shared imports a suite.
"""

from __future__ import annotations

import importlib.metadata
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from actloop.core.environment import Environment
from actloop.core.result import NO_SUMMARY, ResultRow, StopReason
from actloop.errors import ConfigError, UnknownSuite, UnknownTask

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage

    from actloop.agent.session import ModelSession
    from actloop.records.compare import ManifestCheck, ReplayCheck
    from actloop.records.recorder import EpisodeRecorder
    from actloop.report.analysis import Analysis
    from actloop.report.charts import BarChart
    from actloop.report.tables import Table

ENTRY_POINT_GROUP = "actloop.suites"
Group = Literal["single", "dual", "unknown"]
BuiltinModel = Callable[["list[ChatMessage]"], str]
"""A built-in model: the next reply, from the same messages a remote model reads."""


@dataclass(frozen=True)
class BenchOptions:
    """What ``actloop bench`` measures: ``repeats`` per timed operation; for suites that run episodes,
    ``in_flight`` scripted episodes at once against a model answering after ``latency_s`` (0: skip; None:
    the suite's own scenario) and the baseline over every base task with ``suite_seeds`` seeds each (0:
    skip)."""

    repeats: int = 10
    in_flight: int | None = None
    latency_s: float | None = None
    suite_seeds: int = 2


@dataclass(frozen=True)
class TaskInfo:
    """What a suite says about one task."""

    name: str
    arms: int | None
    """Number of arms the task uses (2 = dual-arm); None when it could not be found out."""
    budget: int | None
    """Step budget; None when unknown."""
    base: str | None = None
    """The base family of a held-out variant; None for a base task."""
    instruction: str = ""
    track: str = "base"
    """``base`` for the tasks in the headline score; suites may name others (vabench: ``held_out``,
    ``long_horizon``), which ``all`` leaves out and reports keep apart."""

    @property
    def group(self) -> Group:
        if self.arms is None:
            return "unknown"
        return "dual" if self.arms >= 2 else "single"


@dataclass(frozen=True)
class EpisodeOutcome:
    """What an episode driver reports at the end: the checker's verdict and the suite's row fields."""

    success: bool = False
    steps: int = 0
    budget: int | None = None
    scores: dict[str, Any] | None = None


class EpisodeDriver(Protocol):
    """Plays one episode of a suite: turns the environment's outcomes into model messages and the model's
    replies into actions. Built by :meth:`Suite.episode_driver`."""

    async def run(self, start: dict[str, Any]) -> StopReason:
        """Play to the end and return why it ended; ``start`` goes into the ``episode_start`` event."""
        ...

    def outcome(self) -> EpisodeOutcome:
        """The verdict so far (also after a failure mid-episode)."""
        ...


class Player(Protocol):
    """What plays a suite's episodes instead of a model called through Inspect: a lab coding agent with
    its model. ``label`` is its condition's model name in the rows."""

    @property
    def label(self) -> str: ...

    def check(self) -> None:
        """Raise :class:`~actloop.errors.ConfigError` when it cannot play (a missing key); make it ready."""
        ...

    def settings(self) -> dict[str, Any]:
        """What its condition records besides the run's settings."""
        ...

    def play(self, episodes: list[tuple[str, int, int]], out_dir: Path, how: PlayOptions) -> list[ResultRow]:
        """Play ``episodes`` ``(task, seed, run)``; the rows of those that ran (a configuration failure
        leaves the rest unstarted)."""
        ...


@dataclass(frozen=True)
class PlayOptions:
    """How a :class:`Player`'s episodes run: protocol, environment processes and isolation, episodes at
    once, the environment call timeout and factory, and token prices (USD per million in and out)."""

    protocol: str
    workers: int = 1
    isolation: str = "pool"
    max_in_flight: int | None = None
    env_timeout: float | None = None
    env_factory: str | None = None
    prices: tuple[float, float] | None = None


class Suite(ABC):
    """A benchmark suite. Subclasses set the class attributes and implement the abstract methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    env_factory: ClassVar[str]
    """Import path ``"module:Callable"`` of the environment, built in worker processes and Ray actors."""
    protocols: ClassVar[tuple[str, ...]]
    """Observation protocols; the first is the default."""
    screens_candidates_at_once: ClassVar[bool] = False
    """Whether :meth:`screen_seeds` verifies ``workers`` candidates of one task at once (then tasks are
    screened one after another); otherwise whole tasks are screened at once, each in its own process."""
    env_call_timeout_s: ClassVar[float] = 300.0
    """How long one environment call (build, reset, step) may take by default before the process hosting
    it is taken as hung: the call's episode, and any other whose environment that process held, ends as
    an error and the process is replaced. Far above a healthy call; ``actloop run --env-timeout`` sets it."""

    @abstractmethod
    def task_names(self) -> list[str]:
        """Every task of the suite, in its canonical order."""

    @abstractmethod
    def task_info(self, task: str) -> TaskInfo:
        """Metadata of ``task``; raises :class:`~actloop.errors.UnknownTask`."""

    @abstractmethod
    def verified_seeds(self, task: str) -> list[int]:
        """The task's released seeds, each verified by a full expert execution, in order."""

    @abstractmethod
    def episode_driver(
        self,
        env: Environment,
        session: ModelSession,
        recorder: EpisodeRecorder,
        task: str,
        summary: str | None,
    ) -> EpisodeDriver:
        """The driver of one episode on ``env``; ``summary`` is the demonstration summary for the prompt."""

    # Maintenance a suite may offer; the defaults say it does not.

    def use_instance_key(self, key_file: Path) -> str:
        """Draw this process's instances, and its workers', from the private set of the key in
        ``key_file``; return the key's fingerprint (never the key)."""
        raise ConfigError(f"suite {self.name} has no private instances to draw with an instance key")

    def check_seeds(self, task: str, directory: Path | None = None) -> ManifestCheck:
        """Rebuild every released scene of ``task`` and compare it with its manifest."""
        raise ConfigError(f"{self.name} has no seed manifests to check")

    def check_expert_runs(
        self,
        task: str,
        directory: Path | None = None,
        workers: int = 1,
        log: Callable[[str], None] | None = None,
    ) -> list[str] | None:
        """Re-run the expert on every released seed of ``task`` (``workers`` at once) and compare each run
        with its manifest entry; the problems found, one line per seed to ``log``. None (the default) when
        the suite has no expert runs to repeat beyond what :meth:`check_seeds` checks."""
        return None

    def screen_seeds(
        self,
        task: str,
        directory: Path | None = None,
        log: Callable[[str], None] | None = None,
        workers: int = 1,
    ) -> SeedScreen:
        """Screen candidate seeds of ``task`` by full expert executions and write its manifest; a suite that
        :attr:`screens_candidates_at_once` verifies ``workers`` of them at once, with the serial manifest."""
        raise ConfigError(f"{self.name} has no seed screening")

    def record_demonstration(self, task: str, out: Path) -> str:
        """Film the task's demonstration into ``out``; returns a one-line description."""
        raise ConfigError(f"{self.name} has no demonstrations")

    def learn(
        self, tasks: list[str], model: str, demos: Path, store: Path, **call: Any
    ) -> list[dict[str, Any]]:
        """Let ``model`` study each task's demonstration and store its summary; one outcome per task.
        ``call`` holds ``model_args``, ``model_base_url`` and generation settings."""
        raise ConfigError(f"{self.name} has no learning phase")

    def replay(self, record_dir: Path) -> ReplayCheck:
        """Re-execute an episode record and compare every step with what was recorded."""
        raise ConfigError(f"{self.name} cannot re-execute records")

    def bench(self, options: BenchOptions) -> dict[str, Any]:
        """Timing benchmarks of the suite's environment and harness."""
        raise ConfigError(f"{self.name} has no benchmarks")

    step_report: ClassVar[bool] = True
    """Whether the report's shared step-episode sections describe the suite's episodes: success by arm
    subset, the task matrix with step budgets, subtask progress, their charts and the episode index. A
    suite whose episodes are not steps (lab) sets False and is reported only through :meth:`report_tables`,
    :meth:`report_charts` and :meth:`episode_page`."""

    def report_tables(self, analysis: Analysis) -> list[Table]:
        """The suite's own report tables, after the shared ones (success, task matrix, progress);
        ``analysis`` holds the suite's episodes only. A table row may name its episode
        (:attr:`~actloop.report.tables.Row.episode`): the page links it to the episode's viewer."""
        return []

    def report_charts(self, analysis: Analysis) -> list[BarChart]:
        """The suite's charts on the report page, each placed after the table it names; none by default."""
        return []

    def viewer_panels(self, run_dir: Path) -> dict[str, list[dict[str, Any]]]:
        """Extra panels for the viewers of a run's episodes, by record directory name (for example their
        annotation labels); see :data:`actloop.viewer.page.Panel`. None by default."""
        return {}

    def episode_page(self, record_dir: Path) -> str | None:
        """The whole viewer page (``viewer.html``) of one of the suite's episode records; None (the
        default) for the shared step viewer with :meth:`viewer_panels`."""
        return None

    def add_commands(self, commands: Any) -> None:  # noqa: B027  (optional hook)
        """Add the suite's own commands to the command line (``commands`` is argparse's sub-parsers);
        each sets ``handler`` to a function of the parsed arguments returning the exit code."""

    def check_runnable(self) -> None:  # noqa: B027  (optional hook)
        """Raise :class:`~actloop.errors.ConfigError` when the suite cannot run model episodes (yet), so a
        run fails before any episode starts."""

    def builtin_models(self) -> dict[str, BuiltinModel]:
        """Models ``actloop/<name>`` the suite ships (for example a vision baseline)."""
        return {}

    def players(
        self, agents: list[str], models: list[str], api: str | None, reasoning: str | None
    ) -> list[Player]:
        """Each of ``agents`` playing with each of ``models`` (``actloop run --agent``)."""
        raise ConfigError(f"coding agents play lab episodes; the {self.name} suite runs models only")

    def summaries(self, condition: str, model: str, tasks: list[str], store: Path) -> dict[str, str]:
        """The demonstration-summary prompt text per task under a summary ``condition`` (``none``: no
        summary) for the evaluated ``model``, read from ``store``."""
        if condition != NO_SUMMARY:
            raise ConfigError(f"{self.name} has no demonstration summaries; use the summary condition 'none'")
        return {}

    def env_kwargs(self, task: str, seed: int, protocol: str | None = None, **options: Any) -> dict[str, Any]:
        """Arguments of :attr:`env_factory` for one episode; unknown tasks and protocols fail here."""
        self.task_info(task)
        protocol = protocol or self.protocols[0]
        if protocol not in self.protocols:
            raise ConfigError(f"{self.name} has no protocol {protocol!r}; choose {', '.join(self.protocols)}")
        return {"task": task, "seed": seed, "protocol": protocol, **options}

    def make(self, task: str, seed: int, protocol: str | None = None, **options: Any) -> Environment:
        """Build one environment in this process."""
        from actloop.core.factory import resolve_factory

        return resolve_factory(self.env_factory)(**self.env_kwargs(task, seed, protocol, **options))

    def select_seeds(
        self, task: str, count: int | None = None, explicit: list[int] | None = None
    ) -> list[int]:
        """The first ``count`` verified seeds of ``task``, or ``explicit`` seeds that must all be verified."""
        verified = self.verified_seeds(task)
        if explicit is not None:
            unknown = sorted(set(explicit) - set(verified))
            if unknown:
                raise UnknownTask(f"seeds {unknown} are not verified seeds of {self.name}/{task}")
            return list(explicit)
        if count is None:
            return verified
        if not 1 <= count <= len(verified):
            raise ConfigError(f"seeds must be between 1 and {len(verified)} for {self.name}/{task}")
        return verified[:count]

    def resolve_tasks(self, names: str | list[str]) -> list[str]:
        """Task names from a list or a comma-separated string.

        ``all`` means every base task (the headline score), ``everything`` every task, and a track's
        name (vabench: ``held_out``, ``long_horizon``) that track's tasks; these may be mixed with names.
        """
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        names = [task for name in names for task in self._expand(name)]
        if not names:
            raise ConfigError("no tasks given")
        for task in names:
            self.task_info(task)
        return list(dict.fromkeys(names))

    def _expand(self, name: str) -> list[str]:
        if name == "everything":
            return self.task_names()
        track = "base" if name == "all" else name
        members = [t for t in self.task_names() if self.task_info(t).track == track]
        return members or [name]


@dataclass(frozen=True)
class SeedScreen:
    """What screening one task's candidate seeds produced."""

    task: str
    probed: int
    accepted: int
    """Released seeds, the demonstration seed included."""
    demo_seed: int | None
    manifest: Path


_registered: dict[str, Suite] = {}
_entry_points_loaded = False


def register(suite: Suite) -> Suite:
    """Make ``suite`` available by its name (the entry point does this for installed suites)."""
    _registered[suite.name] = suite
    return suite


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in _registered:
            suite = entry.load()
            register(suite() if isinstance(suite, type) else suite)


def suites() -> dict[str, Suite]:
    """Every registered suite by name."""
    _load_entry_points()
    return dict(sorted(_registered.items()))


def get_suite(name: str) -> Suite:
    """The suite called ``name``; raises :class:`~actloop.errors.UnknownSuite` listing the known ones."""
    known = suites()
    if name not in known:
        raise UnknownSuite(f"unknown suite {name!r}; installed suites: {', '.join(known) or 'none'}")
    return known[name]
