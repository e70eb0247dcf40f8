"""``actloop run``: evaluate models on verified seeds (a thin shell over :func:`actloop.evaluate`).

Like every command module it imports the run machinery (Inspect) only when it runs: spawned environment
workers re-import the command line's entry module, and must not pay for it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from actloop.cli.common import (
    DEFAULT_SUMMARIES,
    TASKS_HELP,
    add_model_arguments,
    add_suite_argument,
    csv,
    error_line,
    generation,
    model_args,
    positive_int,
    print_results,
    say,
)
from actloop.core.suite import suites

if TYPE_CHECKING:
    from actloop.runs.plan import RunPlan


def add_parser(sub: Any) -> None:
    p = sub.add_parser("run", help="evaluate models on verified seeds (resumes an earlier run)")
    add_suite_argument(p)
    p.add_argument("--tasks", required=True, help=TASKS_HELP)
    p.add_argument(
        "--seeds", type=positive_int, default=20, help="use the first N verified seeds of each task"
    )
    p.add_argument("--seed-list", help="comma-separated explicit seeds (must be verified seeds)")
    p.add_argument("--runs", type=positive_int, default=1, help="independent runs over the same seeds")
    add_model_arguments(p, "Inspect model(s), comma-separated, e.g. actloop/baseline,openai/gpt-4o")
    p.add_argument("--protocol", help="observation protocol(s), comma-separated (default: the suite's first)")
    p.add_argument(
        "--summary",
        default="none",
        metavar="own|shared:MODEL|none",
        help="demonstration summary in the prompt (comma-separated for several conditions)",
    )
    p.add_argument(
        "--retry-errors", action="store_true", help="on resume, also rerun episodes that ended in an error"
    )
    p.add_argument("--summaries", type=Path, default=DEFAULT_SUMMARIES, help="summary store (see learn)")
    p.add_argument("--context-limit", type=int, help="the model's context size in tokens (default 262144)")
    p.add_argument("--price-in", type=float, help="USD per million input tokens, for the recorded cost")
    p.add_argument("--price-out", type=float, help="USD per million output tokens")
    p.add_argument(
        "--workers",
        type=positive_int,
        help="environment processes, each hosting many episodes (default: one per core; with --ray: "
        "episodes at once, default 1)",
    )
    p.add_argument(
        "--max-episodes-in-flight",
        type=positive_int,
        metavar="N",
        help="episodes run at once (default: the provider's connection limit, 10 for most); with a pool "
        "of environment processes this may far exceed --workers while models think",
    )
    p.add_argument(
        "--env-timeout",
        type=float,
        metavar="SECONDS",
        help="how long one environment call (build, reset, step) may take before the process hosting it "
        "is taken as hung: its episodes end as errors and the process is replaced (default: the suite's, "
        f"{_suite_timeouts()})",
    )
    p.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run environments as actors on the Ray cluster at ADDRESS ('local' starts one on this machine)",
    )
    p.add_argument(
        "--agent",
        metavar="AGENT",
        help="lab: coding agent(s) that play with each --model, comma-separated: claude-code, codex or "
        'command:"PROGRAM ARGS" (installed at a pinned version, run in the sandbox, their API reached only '
        "through the evaluator's relay; keys from ANTHROPIC_API_KEY / OPENAI_API_KEY)",
    )
    p.add_argument(
        "--reasoning", help="the coding agents' reasoning setting (default medium, the middle one)"
    )
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.set_defaults(handler=command)


def plan_from(args: argparse.Namespace) -> RunPlan:
    from actloop.runs.plan import RunPlan

    seeds: int | list[int] = args.seeds
    if args.seed_list:
        seeds = [int(s) for s in csv(args.seed_list)]
    return RunPlan(
        models=csv(args.model),
        out=args.out,
        suite=args.suite,
        tasks=args.tasks,
        seeds=seeds,
        runs=args.runs,
        protocols=csv(args.protocol) if args.protocol else None,
        summaries=csv(args.summary),
        workers=args.workers,
        max_in_flight=args.max_episodes_in_flight,
        model_args=model_args(args.model_arg),
        model_base_url=args.model_base_url,
        generation=generation(args),
        **({"context_limit": args.context_limit} if args.context_limit else {}),
        price_in=args.price_in,
        price_out=args.price_out,
        summary_store=args.summaries,
        retry_errors=args.retry_errors,
        ray=args.ray,
        env_timeout=args.env_timeout,
        agents=_agents(args.agent),
        reasoning=args.reasoning,
    )


def _agents(given: str | None) -> list[str]:
    """``--agent``'s agents: comma-separated, a ``command:"..."`` taken whole."""
    if not given:
        return []
    return [given] if given.startswith("command:") else csv(given)


def _suite_timeouts() -> str:
    return ", ".join(f"{name} {suite.env_call_timeout_s:g} s" for name, suite in suites().items())


def command(args: argparse.Namespace) -> int:
    from actloop.records.table import EPISODES_TABLE, write_episode_table
    from actloop.runs.plan import evaluate

    outcome = evaluate(plan_from(args), log=say)
    if outcome.stopped is not None:
        error_line(f"{outcome.stopped.model}: {outcome.stopped.error}")
        say("fix the configuration and rerun: these episodes will run again")
        return 1
    print_results(outcome.rows)
    table = args.out / EPISODES_TABLE
    say(f"episode table ({write_episode_table(outcome.dirs, table)} rows): {table}")
    return 0
