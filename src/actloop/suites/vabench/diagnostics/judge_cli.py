"""``actloop judge RUN_DIR --model M``: an LLM judge labels a run's episodes on the diagnostic rubric."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from actloop.cli.common import add_model_arguments, generation, model_args, positive_int, say
from actloop.suites.vabench.diagnostics.judge_options import JudgeOptions

EXIT_FAILED = 1
"""The exit code when some episode has no complete set of votes after the run."""


def add_judge_parser(sub: Any) -> None:
    defaults = JudgeOptions()
    p = sub.add_parser(
        "judge",
        help="label a run's episodes on the trajectory-diagnostic rubric with an LLM judge",
        conflict_handler="resolve",  # --max-retries bounds the judge's own retries, not Inspect's
    )
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="an output directory of actloop run")
    add_model_arguments(p, model_help="the judge, an Inspect model, e.g. openai/gpt-4o")
    p.add_argument(
        "--votes", type=positive_int, default=defaults.votes, help="votes per episode (default: %(default)s)"
    )
    p.add_argument("--name", help="the judge's rater name (default: derived from --model)")
    p.add_argument("--episodes", metavar="GLOB", help="only episodes whose record name matches GLOB")
    p.add_argument(
        "--max-connections",
        type=positive_int,
        default=defaults.max_connections,
        help="episodes judged at once (default: %(default)s)",
    )
    p.add_argument(
        "--max-repairs",
        type=int,
        default=defaults.max_repairs,
        help="repair turns for a malformed or inconsistent answer (default: %(default)s)",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=defaults.max_retries,
        help="retries of a model call after a provider failure such as a rate limit, 5xx or timeout "
        "(default: %(default)s)",
    )
    p.add_argument(
        "--backoff",
        type=float,
        default=defaults.backoff_s,
        help="seconds before the first retry, doubled for each further one (default: %(default)s)",
    )
    p.add_argument(
        "--max-frames",
        type=positive_int,
        default=defaults.max_frames,
        help="images per request; more frames are subsampled evenly (default: %(default)s)",
    )
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from inspect_ai.model import GenerateConfig, get_model

    from actloop.runs.inspect_run import DEFAULT_MODEL_TIMEOUT_S, check_model
    from actloop.suites.vabench.diagnostics.judge import judge_run, rater_name, select_episodes
    from actloop.suites.vabench.diagnostics.records import check_rater_name

    options = JudgeOptions(
        votes=args.votes,
        max_connections=args.max_connections,
        max_repairs=args.max_repairs,
        max_retries=args.max_retries,
        backoff_s=args.backoff,
        max_frames=args.max_frames,
    )
    rater = check_rater_name(args.name) if args.name else rater_name(args.model)
    episodes = select_episodes(args.run_dir, args.episodes)
    settings = {**generation(args), "max_retries": 0, "max_connections": args.max_connections}
    settings.setdefault("timeout", DEFAULT_MODEL_TIMEOUT_S)
    extra = model_args(args.model_arg)
    check_model(args.model, extra, args.model_base_url)
    config = GenerateConfig(**settings)
    model = get_model(args.model, base_url=args.model_base_url, config=config, memoize=False, **extra)
    say(f"judging {len(episodes)} episode(s) of {args.run_dir} with {model} as {rater}, {args.votes} vote(s)")
    summary = asyncio.run(judge_run(args.run_dir, model, rater, episodes, options, progress=say))
    for note in summary.notes:
        say(f"note: {note}")
    tokens = summary.tokens.summary(None)
    say(
        f"judged {len(summary.judged)}, already complete {len(summary.skipped)}, failed "
        f"{len(summary.failed)}; {tokens['input_tokens']} input and {tokens['output_tokens']} output tokens"
    )
    say(f"labels: {summary.records}")
    say(f"log: {summary.log}")
    if summary.failed:
        say(f"{len(summary.failed)} episode(s) failed (see the log); run the command again to retry them")
        return EXIT_FAILED
    return 0
