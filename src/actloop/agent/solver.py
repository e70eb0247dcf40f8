"""The Inspect solver: one embodied episode per sample, recorded, with its result row.

The sample's metadata names the episode (``suite``, ``task``, ``seed``, ``run``, ``protocol``); the
environment is built with ``env_factory(task=, seed=, protocol=, **env_kwargs)`` in a spawned worker
process (``isolation="process"``) or inline. The result row is stored in ``state.store`` and
``state.metadata`` under :data:`RESULT_KEY` and appended to ``out_dir/results.jsonl``; the episode's
record goes to ``out_dir/episodes/<task>__seed<seed>__run<run>/``.
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

from actloop.agent.episode import EpisodeLoop
from actloop.agent.failures import ModelFailure
from actloop.agent.options import HarnessOptions
from actloop.agent.usage import TokenCount
from actloop.protocol.step import StopReason
from actloop.records.jsonl import append_result
from actloop.records.recorder import EpisodeRecorder, fresh_dir
from actloop.runtime.make import Isolation, ManagedEnv, make_env

logger = logging.getLogger(__name__)

RESULT_KEY = "actloop_result"
DEFAULT_ENV_FACTORY = "actloop.vabench.env:SpatialEnv"
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
    env_factory: str = DEFAULT_ENV_FACTORY,
    isolation: Isolation = "process",
    env_kwargs: dict[str, Any] | None = None,
    env_timeout: float | None = None,
    harness: dict[str, Any] | None = None,
) -> Solver:
    """Run the sample's episode with the current model.

    ``env_timeout`` bounds each worker call (s); ``harness`` holds :class:`HarnessOptions` values.
    """
    options = HarnessOptions.from_dict(harness)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = EpisodeSpec.from_metadata(state.metadata)
        kwargs = {"task": spec.task, "seed": spec.seed, "protocol": spec.protocol, **(env_kwargs or {})}
        episode = _Episode(spec, Path(out_dir), get_model(), state.messages, options)
        start = {"env_factory": env_factory, "env_kwargs": kwargs, "isolation": isolation}
        row = await episode.run(lambda: make_env(env_factory, kwargs, isolation, timeout=env_timeout), start)
        state.metadata[RESULT_KEY] = row
        state.store.set(RESULT_KEY, row)
        return state

    return solve


class _Episode:
    """Owns the record, environment and outcome of one episode; always leaves a result row behind."""

    def __init__(
        self,
        spec: EpisodeSpec,
        out_dir: Path,
        model: Model,
        messages: list[ChatMessage],
        options: HarnessOptions,
    ) -> None:
        self.spec = spec
        self.options = options
        self.out_dir = out_dir
        self.model = model
        self.messages = messages
        self.recorder = EpisodeRecorder(fresh_dir(out_dir / EPISODES_DIR / spec.name))
        self.started = time.monotonic()

    async def run(self, build_env: Callable[[], ManagedEnv], start: dict[str, Any]) -> dict[str, Any]:
        """Build the environment with ``build_env()`` (off the event loop), play, record, clean up.

        ``start`` (how the environment is built) is recorded in the ``episode_start`` event.
        """
        env: ManagedEnv | None = None
        loop: EpisodeLoop | None = None
        try:
            env = await anyio.to_thread.run_sync(build_env)
            loop = EpisodeLoop(
                env,
                self.model,
                self.messages,
                self.recorder,
                self.options.context_policy,
                self.options.summaries.get(self.spec.task),
            )
            stop_reason: StopReason = await loop.run({**asdict(self.spec), "model": str(self.model), **start})
            return self._finish(loop, stop_reason)
        except ModelFailure as exc:
            return self._finish(loop, "infra_error", exc)
        except Exception as exc:
            return self._finish(loop, "error", exc)
        except BaseException as exc:  # cancelled (e.g. a time limit): record it, then let it propagate
            self._finish(loop, "error", exc)
            raise
        finally:
            if env is not None:
                await _close(env)

    def _finish(
        self, loop: EpisodeLoop | None, stop_reason: StopReason, exc: BaseException | None = None
    ) -> dict[str, Any]:
        last = loop.last if loop else None
        failed = [name for name, ok in last.evaluation.conditions.items() if not ok] if last else []
        paper_step = loop.paper_success_step if loop else None
        paper_failed = (
            [name for name, ok in last.evaluation.paper_conditions.items() if not ok]
            if last and paper_step is None
            else []
        )
        row = {
            "suite": self.spec.suite,
            "task": self.spec.task,
            "seed": self.spec.seed,
            "run": self.spec.run,
            "model": str(self.model),
            "protocol": self.spec.protocol,
            "summary": self.options.summary,
            "success": bool(last and last.evaluation.success),
            "steps": last.observation.step if last else 0,
            "budget": last.observation.budget if last else None,
            "stop_reason": stop_reason,
            "failed_conditions": failed,
            "paper_success": paper_step is not None,
            "paper_success_step": paper_step,
            "paper_failed_conditions": paper_failed,
            "checkpoints": dict(last.evaluation.checkpoints) if last else {},
            "record_dir": str(self.recorder.directory.relative_to(self.out_dir)),
            "repairs": loop.repairs if loop else 0,
            "model_calls": loop.model_calls if loop else 0,
            "tokens": (loop.tokens if loop else TokenCount()).summary(self.options.prices_per_mtok),
            "duration_s": round(time.monotonic() - self.started, 3),
            "error": _error_text(exc),
            "error_kind": exc.kind if isinstance(exc, ModelFailure) else None,
        }
        details = None if exc is None else {"traceback": _traceback_text(exc)}
        self.recorder.finish(row, details)
        append_result(self.out_dir, row)
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
