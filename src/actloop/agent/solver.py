"""The Inspect solver: one embodied episode per sample, recorded, with its result row.

The sample's metadata names the episode (``suite``, ``task``, ``seed``, ``run``, ``protocol``). The suite
builds the environment's arguments; the environment runs in a spawned worker process
(``isolation="process"``), a Ray actor or inline, and the suite's episode driver plays it with the
current model. The result row (:class:`~actloop.core.result.ResultRow`, as JSON) is stored in
``state.store`` under :data:`RESULT_KEY` and appended to ``out_dir/results.jsonl``; the episode's record
goes to ``out_dir/episodes/<task>__seed<seed>__run<run>/``.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from actloop.agent.failures import ModelFailure
from actloop.agent.options import HarnessOptions
from actloop.agent.session import ModelSession
from actloop.core.result import ResultRow, StopReason
from actloop.core.suite import EpisodeDriver, EpisodeOutcome, Suite, get_suite
from actloop.records.recorder import EpisodeRecorder, fresh_dir
from actloop.records.results import write_result
from actloop.runtime.make import Isolation, ManagedEnv, make_env

logger = logging.getLogger(__name__)

RESULT_KEY = "actloop_result"
EPISODES_DIR = "episodes"


@dataclass(frozen=True)
class EpisodeSpec:
    """Which episode a sample runs."""

    suite: str
    task: str
    seed: int
    run: int
    protocol: str

    @classmethod
    def from_metadata(cls, metadata: dict[str, Any]) -> EpisodeSpec:
        return cls(
            metadata["suite"], metadata["task"], metadata["seed"], metadata["run"], metadata["protocol"]
        )

    @property
    def name(self) -> str:
        return f"{self.task}__seed{self.seed}__run{self.run}"


@solver
def episode_solver(
    out_dir: str,
    env_factory: str | None = None,
    isolation: Isolation = "process",
    env_kwargs: dict[str, Any] | None = None,
    env_timeout: float | None = None,
    harness: dict[str, Any] | None = None,
    pool: str | None = None,
) -> Solver:
    """Run the sample's episode with the current model.

    ``env_factory`` replaces the suite's environment (tests); ``env_timeout`` bounds each worker call (s);
    ``harness`` holds :class:`HarnessOptions` values; ``pool`` names the open environment pool that
    ``isolation="pool"`` borrows from.
    """
    options = HarnessOptions.from_dict(harness)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = EpisodeSpec.from_metadata(state.metadata)
        suite = get_suite(spec.suite)
        kwargs = suite.env_kwargs(spec.task, spec.seed, spec.protocol, **(env_kwargs or {}))
        factory = env_factory or suite.env_factory
        episode = _Episode(suite, spec, Path(out_dir), get_model(), state.messages, options)
        start = {"env_factory": factory, "env_kwargs": kwargs, "isolation": isolation}
        row = await episode.run(
            lambda: make_env(factory, kwargs, isolation, timeout=env_timeout, pool=pool), start
        )
        state.store.set(RESULT_KEY, row.to_json())
        return state

    return solve


class _Episode:
    """Owns the record, environment and outcome of one episode; always leaves a result row behind."""

    def __init__(
        self,
        suite: Suite,
        spec: EpisodeSpec,
        out_dir: Path,
        model: Model,
        messages: list[ChatMessage],
        options: HarnessOptions,
    ) -> None:
        self.suite = suite
        self.spec = spec
        self.options = options
        self.out_dir = out_dir
        self.recorder = EpisodeRecorder(fresh_dir(out_dir / EPISODES_DIR / spec.name))
        self.session = ModelSession(model, messages, self.recorder, options.context_policy)
        self.started = time.monotonic()

    async def run(self, build_env: Callable[[], ManagedEnv], start: dict[str, Any]) -> ResultRow:
        """Build the environment with ``build_env()`` (off the event loop), play, record, clean up.

        ``start`` (how the environment is built) is recorded in the ``episode_start`` event.
        """
        env: ManagedEnv | None = None
        driver: EpisodeDriver | None = None
        try:
            env = await anyio.to_thread.run_sync(build_env)
            summary = self.options.summaries.get(self.spec.task)
            driver = self.suite.episode_driver(env, self.session, self.recorder, self.spec.task, summary)
            stop_reason = await driver.run({**asdict(self.spec), "model": self.session.name, **start})
            return self._finish(driver, stop_reason)
        except ModelFailure as exc:
            return self._finish(driver, "infra_error", exc)
        except Exception as exc:
            return self._finish(driver, "error", exc)
        except BaseException as exc:  # cancelled (e.g. a time limit): record it, then let it propagate
            self._finish(driver, "error", exc)
            raise
        finally:
            if env is not None:
                await _close(env)

    def _finish(
        self, driver: EpisodeDriver | None, stop_reason: StopReason, exc: BaseException | None = None
    ) -> ResultRow:
        outcome = driver.outcome() if driver else EpisodeOutcome()
        row = ResultRow(
            suite=self.spec.suite,
            task=self.spec.task,
            seed=self.spec.seed,
            run=self.spec.run,
            model=self.session.name,
            protocol=self.spec.protocol,
            summary=self.options.summary,
            success=outcome.success,
            steps=outcome.steps,
            budget=outcome.budget,
            stop_reason=stop_reason,
            record_dir=str(self.recorder.directory.relative_to(self.out_dir)),
            model_calls=self.session.model_calls,
            tokens=self.session.tokens.summary(self.options.prices_per_mtok),
            duration_s=round(time.monotonic() - self.started, 3),
            error=_error_text(exc),
            error_kind=exc.kind if isinstance(exc, ModelFailure) else None,
            scores=outcome.scores or {},
        )
        details = None if exc is None else {"traceback": _traceback_text(exc)}
        self.recorder.finish(row.to_json(), details)
        write_result(self.out_dir, row)
        return row


async def _close(env: ManagedEnv) -> None:
    """Close the environment even when cancelled; a failure here cannot change the recorded result."""
    with anyio.CancelScope(shield=True):
        try:
            await anyio.to_thread.run_sync(env.close)
        except Exception:
            logger.warning("closing the environment failed", exc_info=True)


def _error_text(exc: BaseException | None) -> str | None:
    if exc is None:
        return None
    return str(exc) if isinstance(exc, ModelFailure) else f"{type(exc).__name__}: {exc}"


def _traceback_text(exc: BaseException) -> str:
    """The local traceback, plus the worker's traceback when the error came from a worker process."""
    text = "".join(traceback.format_exception(exc))
    remote = getattr(exc, "remote_traceback", "")
    return f"{text}\nRemote traceback (environment worker):\n{remote}" if remote else text
