"""Lab episodes played by a coding agent, many at once: ``actloop run --suite lab --agent ...``.

Each episode's environment comes from the long-lived pool of host processes (or a Ray actor, a process of its
own, inline), and the agent plays it in one step (:meth:`.agent_env.LabAgentEnv.step` with ``agent``): its
program runs in that environment's sandbox, its model's API reached only through the relay. Up to
``max_in_flight`` episodes run at once, each waiting on its agent, so far more episodes than processes may be
in flight while the agents think. Every episode leaves a record (the agent's transcript, its programs, the
relay's exchanges, the bench's sealed record and score) and a row in ``results.jsonl``; a configuration
failure (the API unreachable, the key refused, the agent's program not installable) ends its episode as a row
with ``error_kind`` ``configuration`` and the episodes not yet started are left for the next run.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

from actloop.agent.solver import EPISODES_DIR, EpisodeSpec
from actloop.agent.task import env_call_timeout
from actloop.agent.usage import TokenCount
from actloop.core.result import ResultRow
from actloop.core.suite import PlayOptions, get_suite
from actloop.records.recorder import EpisodeRecorder, fresh_dir
from actloop.records.results import write_result
from actloop.runtime.make import Isolation, ManagedEnv, make_env
from actloop.runtime.pool import EnvPool
from actloop.suites.lab.agent_env import LabTransition
from actloop.suites.lab.coding_agents import REASONING, AgentSetupError, coding_agent
from actloop.suites.lab.model_driver import keep_verdict
from actloop.suites.lab.sandbox import Sandbox

Episode = tuple[str, int, int]
POLL_S = 1.0
"""How often a playing agent's environment is asked whether it has ended."""


@dataclass(frozen=True)
class AgentCondition:
    """Who plays: the agent (as ``--agent`` names it), its model (``provider/name``), the API the relay
    reaches (None: the provider's) and the reasoning setting; ``label`` is the condition's model name in
    the rows (``agent:provider/name``)."""

    agent: str
    model: str
    api: str | None
    reasoning: str

    @property
    def label(self) -> str:
        return f"{self.agent}:{self.model}"

    def check(self) -> None:
        """Its key is there (else ConfigError) and its program installed now, once, before episodes start
        in parallel (a failure is left to the episodes, whose rows then say why). Agents run sandboxed
        only: without bubblewrap this refuses."""
        Sandbox(Path(".")).isolation  # noqa: B018
        agent = coding_agent(self.agent)
        agent.check_model(self.model)
        with contextlib.suppress(AgentSetupError):
            agent.prepare()

    def settings(self) -> dict[str, Any]:
        agent = coding_agent(self.agent)
        return {"agent": agent.name, "agent_version": agent.version, "agent_model": self.model,
                "reasoning": self.reasoning, "model_api": self.api}  # fmt: skip

    def play(self, episodes: list[Episode], out_dir: Path, how: PlayOptions) -> list[ResultRow]:
        return run_agent_episodes(
            episodes,
            self,
            out_dir,
            how.protocol,
            workers=how.workers,
            isolation=cast(Isolation, how.isolation),
            max_in_flight=how.max_in_flight,
            env_timeout=how.env_timeout,
            env_factory=how.env_factory,
            prices=how.prices,
        )


def players(
    agents: list[str], models: list[str], api: str | None, reasoning: str | None
) -> list[AgentCondition]:
    """Each coding agent with each model (unknown agents fail here)."""
    for agent in agents:
        coding_agent(agent)
    return [AgentCondition(a, m, api, reasoning or REASONING) for a in agents for m in models]


def run_agent_episodes(
    episodes: list[Episode],
    condition: AgentCondition,
    out_dir: Path,
    protocol: str,
    *,
    workers: int = 1,
    isolation: Isolation = "pool",
    max_in_flight: int | None = None,
    env_timeout: float | None = None,
    env_factory: str | None = None,
    prices: tuple[float, float] | None = None,
) -> list[ResultRow]:
    """Run ``episodes`` ``(task, seed, run)`` with the coding agent of ``condition``; the rows of those that
    ran, in input order (a configuration failure leaves the rest unstarted). ``prices`` (USD per million
    input and output tokens) give the cost where the agent's transcript states none."""
    suite = get_suite("lab")
    timeout = env_call_timeout("lab", env_timeout)
    at_once = max_in_flight or workers
    pool = EnvPool(workers, timeout=timeout) if isolation == "pool" else None
    stop = threading.Event()
    with pool or nullcontext(), ThreadPoolExecutor(at_once, thread_name_prefix="lab-agent") as threads:
        played = [
            threads.submit(
                _play,
                EpisodeSpec("lab", task, seed, run, protocol),
                condition,
                out_dir,
                env_factory or suite.env_factory,
                isolation,
                timeout,
                pool.name if pool else None,
                stop,
                prices,
            )
            for task, seed, run in episodes
        ]
        rows = [future.result() for future in played]
    return [row for row in rows if row is not None]


def _play(
    spec: EpisodeSpec,
    condition: AgentCondition,
    out_dir: Path,
    factory: str,
    isolation: Isolation,
    timeout: float,
    pool: str | None,
    stop: threading.Event,
    prices: tuple[float, float] | None,
) -> ResultRow | None:
    """One episode, always leaving its record and row (None: not started, a configuration failure
    stopped the run)."""
    if stop.is_set():
        return None
    started = time.monotonic()
    recorder = EpisodeRecorder(fresh_dir(out_dir / EPISODES_DIR / spec.name))
    kwargs = get_suite("lab").env_kwargs(spec.task, spec.seed, spec.protocol)
    how = {"agent": condition.agent, "agent_model": condition.model, "model_api": condition.api,
           "reasoning": condition.reasoning, "env_factory": factory, "env_kwargs": kwargs,
           "isolation": isolation}  # fmt: skip
    recorder.event("episode_start", {**asdict(spec), "model": condition.label, **how})
    env: ManagedEnv | None = None
    details: dict[str, Any] | None = None
    try:
        env = make_env(factory, kwargs, isolation, timeout=timeout, pool=pool)
        env.reset()
        action = {"agent": {"agent": condition.agent, "model": condition.model, "api": condition.api,
                            "reasoning": condition.reasoning}}  # fmt: skip
        transition: LabTransition = env.step(action)
        while not transition.result.done:  # the agent plays in the bench's process, which stays free
            time.sleep(POLL_S)
            transition = env.step({"agent_poll": True})
        row = _row(spec, condition, transition, recorder, out_dir, started, prices)
    except Exception as exc:
        details = {"traceback": "".join(traceback.format_exception(exc))}
        error = f"{type(exc).__name__}: {exc}"
        row = _episode_row(spec, condition, recorder, out_dir, started, stop_reason="error", error=error)
    finally:
        if env is not None:
            env.close()
    recorder.finish(row.to_json(), details)
    write_result(out_dir, row)
    if row.error_kind == "configuration":
        stop.set()
    return row


def _row(
    spec: EpisodeSpec,
    condition: AgentCondition,
    transition: LabTransition,
    recorder: EpisodeRecorder,
    out_dir: Path,
    started: float,
    prices: tuple[float, float] | None,
) -> ResultRow:
    report, verdict = transition.result.agent, transition.verdict
    if report is None or verdict is None:
        raise RuntimeError("the environment ended the agent's episode without its report or verdict")
    for name, text in report.files.items():
        (recorder.directory / name).write_text(text)
    keep_verdict(recorder.directory, verdict)
    recorder.event("tool_result", {"agent": report.row, "ended": transition.result.ended})
    usage = report.row["agent_usage"]
    count = TokenCount(usage["input_tokens"], usage["output_tokens"])
    tokens = (
        count.summary(prices)
        if usage["cost_usd"] is None
        else {**count.summary(None), "cost_usd": usage["cost_usd"]}
    )
    success = bool(verdict.fields.get("success"))
    scores = {**{k: v for k, v in verdict.fields.items() if k != "success"},
              "sim_time_s": round(verdict.sim_time_s, 3), **report.row}  # fmt: skip
    return _episode_row(
        spec,
        condition,
        recorder,
        out_dir,
        started,
        success=success,
        steps=int(report.row["programs"]),
        stop_reason="success" if success else "infra_error" if report.error else "stop",
        tokens=tokens,
        error=report.error or None,
        error_kind="configuration" if report.error else None,
        scores=scores,
    )


def _episode_row(
    spec: EpisodeSpec, condition: AgentCondition, recorder: EpisodeRecorder, out_dir: Path, started: float,
    **outcome: Any,
) -> ResultRow:  # fmt: skip
    """The row of an episode that ``outcome`` ended (the fields of :class:`ResultRow` it sets)."""
    return ResultRow(
        suite="lab",
        task=spec.task,
        seed=spec.seed,
        run=spec.run,
        model=condition.label,
        protocol=spec.protocol,
        record_dir=str(recorder.directory.relative_to(out_dir)),
        duration_s=round(time.monotonic() - started, 3),
        **outcome,
    )
