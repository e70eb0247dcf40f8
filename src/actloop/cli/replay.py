"""``actloop replay``: re-execute recorded episodes and confirm they reproduce."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.text import Text

from actloop.cli.common import console, say
from actloop.core.suite import get_suite
from actloop.records.recorder import episode_suite


def add_parser(sub: Any) -> None:
    p = sub.add_parser("replay", help="re-execute recorded episodes and confirm they reproduce exactly")
    p.add_argument("record_dirs", type=Path, nargs="+", metavar="RECORD_DIR", help="episode record dirs")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    failures = 0
    for record_dir in args.record_dirs:
        check = get_suite(episode_suite(record_dir)).replay(record_dir)
        summary = (
            f"{check.steps} steps compared {check.mode}, success {check.replayed_success}, "
            f"max pose deviation {check.max_deviation.text()}"
        )
        if check.reproduced:
            console.print(Text.assemble(("reproduced", "green"), f" {record_dir}: {summary}"), soft_wrap=True)
            continue
        failures += 1
        verdict = "incomplete record" if check.unreadable else "differs"
        console.print(Text.assemble((verdict, "red"), f" {record_dir}: {summary}"), soft_wrap=True)
        for line in [*check.unreadable, *check.differences]:
            say(f"  {line}")
        if check.recorded_success is None:
            say(f"  final success: not recorded (no episode_end event), replayed {check.replayed_success}")
        elif check.recorded_success != check.replayed_success:
            say(f"  final success: recorded {check.recorded_success}, replayed {check.replayed_success}")
    return 1 if failures else 0
