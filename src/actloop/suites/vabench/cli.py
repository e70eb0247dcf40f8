"""vabench's own commands: ``actloop annotate`` (label trajectory diagnostics in the browser) and
``actloop judge`` (an LLM judge labels the same criteria)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from actloop.suites.vabench.diagnostics.judge_cli import add_judge_parser


def add_commands(commands: Any) -> None:
    add_annotate(commands)
    add_judge_parser(commands)


def add_annotate(commands: Any) -> None:
    p = commands.add_parser(
        "annotate",
        help="label a run's episodes with the nine trajectory criteria in the browser (served on 127.0.0.1)",
        description="Serves the run's episodes, the rubric and the automatic signals on 127.0.0.1 and "
        "appends every answer at once to RUN_DIR/diagnostics/human/NAME.jsonl; a reopened page resumes "
        "where the annotator left off. Ctrl-C stops the server.",
    )
    p.add_argument("run_dir", type=Path, metavar="RUN_DIR", help="a run's output directory")
    p.add_argument("--annotator", required=True, metavar="NAME", help="the annotator's name (names the file)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="print the address without opening a browser")
    p.set_defaults(handler=annotate_command)


def annotate_command(args: argparse.Namespace) -> int:
    from actloop.cli.common import say
    from actloop.suites.vabench.diagnostics.annotate import AnnotationServer

    server = AnnotationServer(args.run_dir, args.annotator, args.port)
    say(f"annotating {len(server.episodes)} episode(s) of {args.run_dir} as {args.annotator} at {server.url}")
    if not args.no_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        say("stopped; every answer is already saved")
    finally:
        server.close()
    return 0
