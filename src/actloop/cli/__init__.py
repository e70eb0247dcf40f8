"""The ``actloop`` command line: a thin shell over the Python API, one module per command."""

from __future__ import annotations

import argparse
import sys

from actloop.cli import bench, demo, demos, learn, replay, report, run, tasks, verify_seeds, view
from actloop.cli.common import error_line
from actloop.core.suite import suites
from actloop.errors import ActloopError

COMMANDS = (tasks, verify_seeds, demos, learn, run, demo, bench, report, replay, view)


def main(argv: list[str] | None = None) -> int:
    """Run one command. A user mistake (:class:`~actloop.errors.ActloopError`) prints one ``error:`` line
    and exits 2; anything else is a bug and keeps its traceback."""
    args = parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ActloopError as err:
        error_line(str(err))
        return 2


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="actloop", description="Evaluate multimodal models as embodied agents in MuJoCo."
    )
    sub = root.add_subparsers(required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub)
    for suite in suites().values():
        suite.add_commands(sub)
    return root


if __name__ == "__main__":
    sys.exit(main())
