"""``actloop demo``: the built-in baseline on a few seeds of one task, with a results table."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from actloop.cli.common import positive_int, print_results, say

DEMO_TASK = "grasp_single_cube"


def add_parser(sub: Any) -> None:
    p = sub.add_parser("demo", help=f"run the built-in baseline on {DEMO_TASK} and print a table")
    p.add_argument("--seeds", type=positive_int, default=3)
    p.add_argument("--workers", type=positive_int, default=2)
    p.add_argument("--out", type=Path, default=Path("runs/demo"))
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from actloop.runs.plan import RunPlan, evaluate

    plan = RunPlan(
        models=["actloop/baseline"], out=args.out, tasks=[DEMO_TASK], seeds=args.seeds, workers=args.workers
    )
    print_results(evaluate(plan, log=say).rows)
    return 0
