"""``actloop learn``: a model studies each task's demonstration and stores its summary."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table

from actloop.cli.common import (
    DEFAULT_DEMOS,
    DEFAULT_SUMMARIES,
    TASKS_HELP,
    add_model_arguments,
    add_suite_argument,
    console,
    generation,
    model_args,
)
from actloop.core.suite import get_suite


def add_parser(sub: Any) -> None:
    p = sub.add_parser("learn", help="let a model study each task's demonstration and store its summary")
    add_suite_argument(p)
    p.add_argument("--tasks", required=True, help=TASKS_HELP)
    add_model_arguments(p)
    p.add_argument("--demos", type=Path, default=DEFAULT_DEMOS, help="demonstrations (filmed if missing)")
    p.add_argument("--summaries", type=Path, default=DEFAULT_SUMMARIES, help="summary store")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    suite = get_suite(args.suite)
    rows = suite.learn(
        suite.resolve_tasks(args.tasks),
        args.model,
        args.demos,
        args.summaries,
        model_args=model_args(args.model_arg),
        model_base_url=args.model_base_url,
        **generation(args),
    )
    table = Table(title=f"learning phase of {args.model}")
    for col in ("task", "accepted", "frames inspected", "model calls", "stop", "summary"):
        table.add_column(col)
    for row in rows:
        table.add_row(
            str(row["task"]),
            "yes" if row.get("accepted") else "no",
            str(row.get("frames_seen", [])),
            str(row.get("model_calls", "")),
            str(row.get("stop_reason", row.get("error", ""))),
            str(row.get("summary_path", "")),
        )
    console.print(table)
    return 0 if all(row.get("accepted") for row in rows) else 1
