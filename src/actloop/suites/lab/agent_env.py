"""A lab episode as the evaluation harness runs it: the bench served on 127.0.0.1, the agent's workspace, and
a code-execution tool that runs the model's Python in the sandbox.

Each step runs one program the model wrote, as a fresh ``python`` process in ``/workspace`` (files persist
between steps, variables do not), under the time left of the episode's wall-clock limit. What it prints
comes back, and every PNG it saves under ``show/`` comes back as an image (then moves to ``shown/``). The
episode ends when the agent submits, the simulated-time budget is spent, the wall-clock limit passes, or the
driver finishes it. Every transition carries the model-facing result and, once the episode has ended, the
evaluator's verdict separately.

A coding agent plays the whole episode in one step (``{"agent": ...}``, :mod:`.agent_run`): its program runs
in the same sandbox with the model API relay as its only way out, and the step ends the episode; what the run
kept (its transcript, programs, the relay's exchanges, usage) comes back as the result's ``agent`` report.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.sim.fingerprint import platform_fingerprint
from actloop.suites.lab.episode import EpisodeScore, ServedEpisode, served_episode
from actloop.suites.lab.levels import LEVELS
from actloop.suites.lab.sandbox import Sandbox, ensure_agent_python
from actloop.suites.lab.workspace_files import CARD, GUIDE_FILE, own_directory, own_file

SHOW_DIR = "show"
SHOWN_DIR = "shown"
MAX_IMAGES_PER_RUN = 6
MAX_OUTPUT_CHARS = 12_000
MAX_RUNS = 60
"""Programs a model may run in one episode (its step budget)."""


@dataclass(frozen=True)
class CodeRun:
    """What one program run gives back to the model."""

    stdout: str
    stderr: str
    returncode: int | None
    wall_s: float
    images: list[tuple[str, bytes]] = field(default_factory=list)
    dropped_images: int = 0

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


@dataclass(frozen=True)
class AgentReport:
    """A coding agent's run as it comes back from the environment: ``row`` its fields (who ran, how it ended,
    tokens and cost, :func:`.agent_run.run_fields`), ``error`` why it could not work ("" when it could) and
    the text of each file the run kept, by name."""

    row: dict[str, Any]
    error: str
    files: dict[str, str]


@dataclass(frozen=True)
class LabResult:
    """The model-facing side of a transition: the run's output and where the episode stands. ``ended`` says
    why the episode ended (``submitted``, ``budget`` of simulated time, ``wall_clock``, ``runs`` used up,
    ``finished`` by the driver) or is empty while it goes on; the first transition carries the guide."""

    run: CodeRun | None
    ended: str
    sim_time_s: float
    wall_left_s: float
    guide: str = ""
    agent: AgentReport | None = None

    @property
    def done(self) -> bool:
        return bool(self.ended)


@dataclass(frozen=True)
class LabVerdict:
    """The evaluator's side once the episode has ended: the score's row fields, the citation verdicts and
    the sealed record's lines."""

    fields: dict[str, Any]
    citations: list[str]
    record: str
    sim_time_s: float


@dataclass(frozen=True)
class LabTransition:
    result: LabResult
    verdict: LabVerdict | None


class LabAgentEnv:
    """One served lab episode with a code-execution tool (see the module docstring)."""

    def __init__(self, task: str, seed: int, protocol: str = "T0", max_runs: int = MAX_RUNS) -> None:
        if protocol not in LEVELS:
            raise ConfigError(f"lab level {protocol!r} is not available; levels: {', '.join(LEVELS)}")
        self._stack = ExitStack()
        self._root = Path(tempfile.mkdtemp(prefix="actloop-lab-"))
        self._stack.callback(shutil.rmtree, self._root, True)
        workspace = self._root / "workspace"
        try:
            self._episode: ServedEpisode = self._stack.enter_context(
                served_episode(task, seed, workspace, out=None, level=protocol)
            )
        except BaseException:
            self._stack.close()
            raise
        self.task = task
        self.level = protocol
        self.workspace = workspace
        self.sandbox = Sandbox(
            workspace, ensure_agent_python(), bench_socket=self._episode.server.socket_path
        )
        self.started = time.monotonic()
        self.wall_limit_s = self._episode.env.spec.wall_clock_s
        self.max_runs = max_runs
        self.runs = 0
        self._verdict: LabVerdict | None = None
        self._agents = ThreadPoolExecutor(1, thread_name_prefix="lab-coding-agent")
        self._agent: Future[AgentReport] | None = None
        self._closing = threading.Event()
        self._stack.callback(self._agents.shutdown)
        self._stack.callback(self._closing.set)  # first: a playing agent is stopped before the rest closes

    # --- the Environment protocol ---
    @property
    def action_space(self) -> dict[str, Any]:
        return {"tool": "python", "level": self.level, "max_runs": self.max_runs}

    @property
    def instruction(self) -> str:
        return (self.workspace / CARD).read_text()

    @property
    def budget(self) -> int:
        return self.max_runs

    def reset(self) -> LabTransition:
        first = self._transition(None)
        guide = (self.workspace / GUIDE_FILE.name).read_text()
        return LabTransition(replace(first.result, guide=guide), first.verdict)

    def step(self, action: dict[str, Any]) -> LabTransition:
        """``{"code": "..."}`` runs a program; ``{"finish": true}`` ends the episode as it stands;
        ``{"agent": {"agent": ..., "model": ..., "api": ..., "reasoning": ...}}`` starts a coding agent on the
        whole episode and returns at once; ``{"agent_poll": true}`` says whether it is still playing, and
        once it has ended, ends the episode with its report (the process hosting the bench stays free for
        its other benches meanwhile)."""
        if self._verdict is not None:
            raise ConfigError("the episode has ended")
        if action.get("finish"):
            return self._transition(None, finish=True)
        if isinstance(action.get("agent"), dict):
            if self._agent is not None:
                raise ConfigError("a coding agent is already playing this episode")
            self._agent = self._agents.submit(self._play, action["agent"])
            return self._playing()
        if action.get("agent_poll"):
            if self._agent is None:
                raise ConfigError("no coding agent is playing this episode")
            if not self._agent.done():
                return self._playing()
            report = self._agent.result()
            ended = self._transition(None, finish=True)
            return replace(ended, result=replace(ended.result, agent=report))
        code = action.get("code")
        if not isinstance(code, str) or not code.strip():
            raise ConfigError("a lab action is {'code': '<python program>'} or {'finish': true}")
        self.runs += 1
        return self._transition(self._run(code))

    def frames_at(self, step: int) -> None:
        return None

    def provenance(self) -> dict[str, Any]:
        instance = self._episode.env.instance
        return {
            "scene_id": instance.instance_id,
            "platform": platform_fingerprint(),
            "sandbox": self.sandbox.isolation,
            "sandbox_network": self.sandbox.network,
        }

    def close(self) -> None:
        self._stack.close()

    # --- internals ---
    def _playing(self) -> LabTransition:
        """A coding agent's episode still being played."""
        sim_time_s = self._episode.env.clock.time_s
        return LabTransition(LabResult(None, "", sim_time_s, self._wall_left_s()), None)

    def _play(self, how: dict[str, Any]) -> AgentReport:
        """Run the coding agent ``how`` names on the episode (see :func:`.agent_run.play`); closing the
        environment stops it."""
        from actloop.suites.lab.agent_run import kept_files, play, run_fields
        from actloop.suites.lab.coding_agents import REASONING, coding_agent

        agent = coding_agent(str(how["agent"]))
        out = self._root / "agent"
        reasoning = str(how.get("reasoning") or REASONING)
        stopped = "the environment was closed (the run was stopped)"
        run = play(agent, str(how["model"]), self._episode, out, self._wall_left_s(), self.sandbox.limits,
                   how.get("api"), reasoning, lambda: stopped if self._closing.is_set() else "")  # fmt: skip
        return AgentReport(run_fields(run), run.error, kept_files(out))

    def _wall_left_s(self) -> float:
        return max(0.0, self.wall_limit_s - (time.monotonic() - self.started))

    def _run(self, code: str) -> CodeRun:
        program = own_file(self.workspace, f"run_{self.runs:03d}.py", code)
        own_directory(self.workspace, SHOW_DIR)
        out, err = self._root / "stdout", self._root / "stderr"
        with out.open("wb") as stdout, err.open("wb") as stderr:
            ran = self.sandbox.run(
                ["python", program.name], self._wall_left_s(), stdout=stdout.fileno(), stderr=stderr.fileno()
            )
        images, dropped = self._collect_images()
        said = _tail(err) + "".join(f"\n[sandbox] {hit}" for hit in ran.limits_hit)
        return CodeRun(_tail(out), said, ran.returncode, ran.wall_s, images, dropped)

    def _collect_images(self) -> tuple[list[tuple[str, bytes]], int]:
        # never read or move through a link the agent made: one in place of a directory is removed
        shown = own_directory(self.workspace, SHOWN_DIR)
        show = own_directory(self.workspace, SHOW_DIR)
        pngs = sorted(p for p in show.glob("*.png") if p.is_file() and not p.is_symlink())
        images: list[tuple[str, bytes]] = []
        for path in pngs:
            data = path.read_bytes()
            if len(images) < MAX_IMAGES_PER_RUN and data.startswith(b"\x89PNG"):
                images.append((path.stem, data))
            path.replace(shown / f"{self.runs:03d}_{path.name}")
        return images, len(pngs) - len(images)

    def _ended(self, finish: bool) -> str:
        env = self._episode.env
        reasons = (
            ("submitted", env.submission is not None),
            ("budget", env.done),
            ("wall_clock", self._wall_left_s() == 0),
            ("runs", self.runs >= self.max_runs),
            ("finished", finish),
        )
        return next((reason for reason, holds in reasons if holds), "")

    def _transition(self, run: CodeRun | None, finish: bool = False) -> LabTransition:
        ended = self._episode.server.run(lambda: {"ended": self._ended(finish)})["ended"]
        if ended and self._verdict is None:
            self._verdict = _verdict(self._episode.finish(None), self._episode)
        sim_time_s = self._episode.env.clock.time_s
        return LabTransition(LabResult(run, ended, sim_time_s, self._wall_left_s()), self._verdict)


def _verdict(scored: EpisodeScore, episode: ServedEpisode) -> LabVerdict:
    record = episode.server.run(lambda: {"text": episode.env.record.text()})["text"]
    instance = episode.env.instance  # which set the row comes from: the key's fingerprint, never the key
    fields = {**scored.score.to_fields(), "instance_set": instance.instance_set,
              "instance_key": instance.key_fingerprint}  # fmt: skip
    return LabVerdict(fields, scored.citations, record, scored.sim_time_s)


def _tail(path: Path) -> str:
    """The file's text, keeping its end when it is longer than :data:`MAX_OUTPUT_CHARS`."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return f"[... {len(text) - MAX_OUTPUT_CHARS} characters cut ...]\n" + text[-MAX_OUTPUT_CHARS:]
