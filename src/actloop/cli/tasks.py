"""``actloop tasks``: every installed suite's tasks with track, arm count, budget and verified seeds."""

from __future__ import annotations

import argparse
from typing import Any

from rich.table import Table

from actloop.cli.common import console
from actloop.core.suite import get_suite, suites
from actloop.errors import ConfigError


def add_parser(sub: Any) -> None:
    p = sub.add_parser("tasks", help="list each suite's tasks with arm count, budget and verified seeds")
    p.add_argument("--suite", help="only this suite (default: every installed suite)")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    chosen = [get_suite(args.suite)] if args.suite else list(suites().values())
    for suite in chosen:
        table = Table(title=f"{suite.name}: {suite.title} (protocols: {', '.join(suite.protocols)})")
        for col in ("task", "track", "arms", "budget", "verified seeds", "instruction"):
            table.add_column(col)
        for name in suite.resolve_tasks("everything"):
            info = suite.task_info(name)
            try:
                seeds = str(len(suite.verified_seeds(name)))
            except ConfigError:
                seeds = "none"
            budget = "-" if info.budget is None else str(info.budget)
            track = info.track if info.base is None else f"{info.track} (of {info.base})"
            table.add_row(name, track, str(info.arms), budget, seeds, info.instruction)
        console.print(table)
    return 0
