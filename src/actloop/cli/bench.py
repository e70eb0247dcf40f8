"""``actloop bench``: a suite's timing benchmarks as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from actloop.cli.common import add_suite_argument
from actloop.core.suite import get_suite


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench", help="print timing benchmarks as JSON")
    add_suite_argument(p)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--episodes", type=int, default=4, help="baseline episodes for the throughput figure")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    print(json.dumps(get_suite(args.suite).bench(args.repeats, args.episodes), indent=2))
    return 0
