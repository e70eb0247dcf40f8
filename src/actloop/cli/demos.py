"""``actloop demos``: film each task's expert on its demonstration seed (MP4 + frames)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from actloop.cli.common import DEFAULT_DEMOS, TASKS_HELP, add_suite_argument, say
from actloop.core.suite import get_suite


def add_parser(sub: Any) -> None:
    p = sub.add_parser("demos", help="film each task's expert on its demonstration seed (MP4 + frames)")
    add_suite_argument(p)
    p.add_argument("--tasks", default="all", help=TASKS_HELP)
    p.add_argument("--out", type=Path, default=DEFAULT_DEMOS, help="demonstrations directory")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    suite = get_suite(args.suite)
    for task in suite.resolve_tasks(args.tasks):
        say(f"{task}: {suite.record_demonstration(task, args.out)}")
    return 0
