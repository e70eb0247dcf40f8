"""``actloop bench``: a suite's benchmarks as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from actloop.cli.common import add_suite_argument
from actloop.core.suite import BenchOptions, get_suite


def add_parser(sub: Any) -> None:
    defaults = BenchOptions()
    p = sub.add_parser("bench", help="print benchmarks as JSON (each figure beside its raw limit)")
    add_suite_argument(p)
    p.add_argument("--repeats", type=int, default=defaults.repeats, help="timed repeats per operation")
    p.add_argument(
        "--in-flight",
        type=int,
        default=defaults.in_flight,
        metavar="N",
        help="scripted episodes at once against a loopback model server (0: skip; default: the suite's, "
        "vabench 100, lab 20 agents)",
    )
    p.add_argument(
        "--latency",
        type=float,
        default=defaults.latency_s,
        help="the loopback server's reply latency, a lab agent's think time per program (s; default: the "
        "suite's, vabench 2, lab 5)",
    )
    p.add_argument(
        "--suite-seeds",
        type=int,
        default=defaults.suite_seeds,
        metavar="N",
        help="baseline over every base task with N seeds each, before and after the pool (0: skip)",
    )
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    options = BenchOptions(args.repeats, args.in_flight, args.latency, args.suite_seeds)
    print(json.dumps(get_suite(args.suite).bench(options), indent=2))
    return 0
