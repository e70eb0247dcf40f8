"""Run a list of episodes with one model through Inspect and return their result rows.

Callers that use ``isolation="process"`` (the default) start spawned worker processes, which re-import
the caller's ``__main__``: a script calling :func:`run_episodes` (or :func:`actloop.evaluate`) must
guard its entry point with ``if __name__ == "__main__":``.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any, Unpack

import inspect_ai
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfigArgs, get_model
from inspect_ai.util import DisplayType
from rich.text import Text

from actloop.agent.failures import forget_failures
from actloop.agent.options import HarnessOptions
from actloop.agent.solver import RESULT_KEY, EpisodeSpec
from actloop.agent.task import env_call_timeout, episodes_task
from actloop.agent.usage import TokenCount
from actloop.core.result import ResultRow
from actloop.core.suite import get_suite
from actloop.errors import ConfigError
from actloop.records.results import write_result
from actloop.runtime.make import Isolation
from actloop.runtime.pool import EnvPool

LOGS_DIR = "logs"
DEFAULT_MODEL_TIMEOUT_S = 600
"""How long one model call may take, retries included, unless ``timeout`` is given: a provider that
is down fails the episode as an infra error after this long instead of being retried for ever."""


def check_model(model: str, model_args: dict[str, Any], base_url: str | None = None) -> None:
    """Build the model once, so a missing API key or base URL is reported before any episode starts.

    Raises :class:`~actloop.errors.ConfigError` naming what is missing (e.g. ``OPENAI_API_KEY``).
    """
    try:
        get_model(model, base_url=base_url, **model_args)
    except PrerequisiteError as err:
        lines = Text.from_markup(str(err)).plain.replace("ERROR: ", "").splitlines()
        raise ConfigError(
            f"model {model}: " + ": ".join(line.strip() for line in lines if line.strip())
        ) from None


def connection_limit(model: str, model_args: dict[str, Any], base_url: str | None = None) -> int:
    """How many calls the provider of ``model`` takes at once by default (Inspect's ``max_connections``)."""
    return int(get_model(model, base_url=base_url, **model_args).api.max_connections())


def run_episodes(
    suite: str,
    episodes: list[tuple[str, int, int]],
    model: str,
    model_args: dict[str, Any],
    out_dir: Path,
    workers: int = 1,
    protocol: str | None = None,
    env_factory: str | None = None,
    isolation: Isolation = "process",
    *,
    max_in_flight: int | None = None,
    model_base_url: str | None = None,
    env_kwargs: dict[str, Any] | None = None,
    env_timeout: float | None = None,
    harness: HarnessOptions | None = None,
    display: DisplayType = "none",
    **generate_args: Unpack[GenerateConfigArgs],
) -> list[ResultRow]:
    """Run ``episodes`` ``(task, seed, run)`` of ``suite`` with ``model``; rows in input order.

    With ``isolation="pool"`` environments live in a pool of ``workers`` host processes and up to
    ``max_in_flight`` episodes run at once (default: the model's connection limit, ``max_connections`` or
    the provider's default); otherwise each episode has an environment of its own and ``workers`` (or
    ``max_in_flight`` when given) episodes run at once. ``env_timeout`` bounds each environment call in
    seconds (default: the suite's :attr:`~actloop.core.suite.Suite.env_call_timeout_s`); a process that
    does not answer in time is taken as hung and its episodes end as errors.

    Records go to ``out_dir/episodes``, rows to ``out_dir/results.jsonl`` and Inspect logs (without
    images) to ``out_dir/logs``. An episode that produced no row (an unexpected harness failure) gets an
    ``error`` row, appended to ``results.jsonl`` as well. ``model_base_url`` overrides the provider's
    endpoint; ``harness`` sets the context limit, token prices and summaries;
    ``generate_args`` (``temperature``, ``max_tokens``, ``max_retries``, ``timeout``,
    ``max_connections``, ...) configure the model calls. ``protocol`` defaults to the suite's first.
    """
    check_model(model, model_args, model_base_url)
    forget_failures(model)
    protocol = protocol or get_suite(suite).protocols[0]
    env_timeout = env_call_timeout(suite, env_timeout)
    generate_args.setdefault("timeout", DEFAULT_MODEL_TIMEOUT_S)
    out_dir = Path(out_dir)
    options = harness or HarnessOptions()
    if max_in_flight is None and isolation != "pool":
        max_in_flight = workers
    if max_in_flight is None:
        max_in_flight = generate_args.get("max_connections") or connection_limit(
            model, model_args, model_base_url
        )
    pool = EnvPool(workers, timeout=env_timeout) if isolation == "pool" else None
    with pool or nullcontext():
        task = episodes_task(
            suite,
            episodes,
            protocol=protocol,
            out_dir=str(out_dir),
            env_factory=env_factory,
            isolation=isolation,
            env_kwargs=env_kwargs,
            env_timeout=env_timeout,
            harness=options.to_dict(),
            pool=pool.name if pool else None,
        )
        generate_args.setdefault("max_connections", max_in_flight)
        logs = inspect_ai.eval(
            task,
            model=model,
            model_base_url=model_base_url,
            model_args=model_args,
            max_samples=max_in_flight,
            log_dir=str(out_dir / LOGS_DIR),
            log_images=False,
            log_realtime=False,  # episodes are recorded as they run (records/); no live sample buffer
            display=display,
            fail_on_error=False,
            score_display=False,
            **generate_args,
        )
    specs = [EpisodeSpec(suite, name, seed, run, protocol) for name, seed, run in episodes]
    return _rows(specs, logs, model, out_dir, options.summary)


def _rows(
    specs: list[EpisodeSpec], logs: list[EvalLog], model: str, out_dir: Path, summary: str
) -> list[ResultRow]:
    found: dict[str, ResultRow] = {}
    errors: dict[str, str] = {}
    log_error = "; ".join(log.error.message for log in logs if log.error) or "the episode did not run"
    for log in logs:
        for sample in log.samples or []:
            row = sample.store.get(RESULT_KEY)
            if row is not None:
                found[str(sample.id)] = ResultRow.from_json(row)
            elif sample.error is not None:
                errors[str(sample.id)] = sample.error.message
    rows = []
    for spec in specs:
        row = found.get(spec.name)
        if row is None:
            row = ResultRow(
                suite=spec.suite,
                task=spec.task,
                seed=spec.seed,
                run=spec.run,
                model=model,
                protocol=spec.protocol,
                summary=summary,
                stop_reason="error",
                tokens=TokenCount().summary(None),
                error=errors.get(spec.name, log_error),
            )
            write_result(out_dir, row)
        rows.append(row)
    return rows
