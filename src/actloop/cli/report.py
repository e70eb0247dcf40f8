"""``actloop report``: a paper-style report (Markdown, CSV, HTML) from output directories."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from actloop.cli.common import say
from actloop.records.jsonl import RESULTS_FILE
from actloop.records.results import unreadable_note
from actloop.records.table import EPISODES_TABLE, write_episode_table


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "report", help="write a paper-style report (Markdown, CSV, HTML) from output directories"
    )
    p.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="output directories of actloop run")
    p.add_argument("--out", type=Path, help="report directory (default: the first DIR/report)")
    p.add_argument("--no-viewers", action="store_true", help="do not write viewer.html into episode records")
    p.set_defaults(handler=command)


def result_dirs(dirs: list[Path]) -> list[Path]:
    """Output directories, with a run matrix's parent directory expanded into its condition directories."""
    expanded = []
    for directory in dirs:
        nested = sorted(p.parent for p in directory.glob(f"*/{RESULTS_FILE}"))
        expanded += nested if not (directory / RESULTS_FILE).exists() and nested else [directory]
    return expanded


def command(args: argparse.Namespace) -> int:
    from actloop.report import build_report

    dirs = result_dirs(args.dirs)
    report = build_report(dirs, args.out, viewers=not args.no_viewers)
    write_episode_table(dirs, report.out_dir / EPISODES_TABLE)
    say(report.summary_markdown)
    for note in report.analysis.notes:
        say(f"note: {note}")
    for problem in report.records.unreadable:
        say(f"note: {unreadable_note(problem)}")
    say(f"wrote {len(report.files)} report files and {len(report.viewers)} viewer(s) to {report.out_dir}")
    say(str(report.out_dir / "report.html"))
    return 0
