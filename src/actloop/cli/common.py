"""What the commands share: the console, argument types and the results table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from actloop.core.result import ResultRow
from actloop.core.suite import suites
from actloop.core.text import readable
from actloop.errors import ConfigError

# Wide enough for the results table when output goes to a file or CI log.
console = Console(width=None if sys.stdout.isatty() else 140)
DEFAULT_DEMOS = Path("runs/demos")
DEFAULT_SUMMARIES = Path("runs/summaries")
TASKS_HELP = (
    "comma-separated task names or tracks: all (the base families), held_out, long_horizon, everything"
)


def say(line: str) -> None:
    """Print a plain line (no markup: paths and model output may contain brackets)."""
    console.print(readable(line), markup=False, highlight=False, soft_wrap=True)


def error_line(message: str) -> None:
    console.print(Text.assemble(("error: ", "red"), readable(message)), highlight=False)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def csv(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",") if v.strip()]
    if not items:
        raise ConfigError(f"expected a comma-separated list, got {value!r}")
    return items


def add_suite_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--suite", default="vabench", help=f"suite ({', '.join(suites()) or 'none installed'})")


def add_model_arguments(
    p: argparse.ArgumentParser, model_help: str = "Inspect model, e.g. actloop/baseline, openai/gpt-4o"
) -> None:
    p.add_argument("--model", required=True, help=model_help)
    p.add_argument(
        "-M",
        "--model-arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="model argument (e.g. decisions=path.json for actloop/replay)",
    )
    p.add_argument("--model-base-url", help="provider endpoint (e.g. a local vLLM or Ollama server)")
    p.add_argument("--temperature", type=float)
    p.add_argument("--max-tokens", type=int)
    p.add_argument(
        "--max-retries", type=int, help="provider retries on rate limits and 5xx (default: Inspect's)"
    )
    p.add_argument(
        "--timeout", type=int, help="seconds one model call may take, retries included (default 600)"
    )


def model_args(pairs: list[str]) -> dict[str, Any]:
    """``-M KEY=VALUE`` pairs with values read as YAML scalars, as Inspect's own CLI reads them
    (``true``/``false``, numbers and ``null`` become those types; anything else stays a string)."""
    import yaml

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ConfigError(f"model argument {pair!r} must be KEY=VALUE")
        try:
            parsed = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed = value
        out[key] = parsed if isinstance(parsed, str | int | float | bool) or parsed is None else value
    return out


def generation(args: argparse.Namespace) -> dict[str, Any]:
    """Generation settings given on the command line (the rest stay at the provider's defaults)."""
    values = {
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "max_retries": args.max_retries,
        "timeout": args.timeout,
    }
    return {k: v for k, v in values.items() if v is not None}


def print_results(rows: list[ResultRow]) -> None:
    """A per-episode table and a success summary."""
    table = Table(title="episode results")
    for col in ("task", "seed", "run", "model", "success", "steps", "stop reason", "record"):
        table.add_column(col)
    for row in rows:
        ok = "[green]yes[/green]" if row.success else "[red]no[/red]"
        table.add_row(
            row.task,
            str(row.seed),
            str(row.run),
            row.model,
            ok,
            str(row.steps),
            row.stop_reason,
            row.record_dir or "-",
        )
    console.print(table)
    wins = sum(1 for r in rows if r.success)
    infra = sum(1 for r in rows if r.stop_reason == "infra_error")
    console.print(f"success: {wins}/{len(rows)}" + (f" ({infra} infrastructure error(s))" if infra else ""))
