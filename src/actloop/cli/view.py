"""``actloop view``: the trajectory viewer (and optionally an MP4) of one episode record."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from actloop.cli.common import say
from actloop.records.recorder import read_start


def add_parser(sub: Any) -> None:
    p = sub.add_parser("view", help="write the trajectory viewer (viewer.html) of one episode record")
    p.add_argument("record_dir", type=Path, metavar="RECORD_DIR", help="an episode's record directory")
    p.add_argument("--mp4", action="store_true", help="also write episode.mp4 of the clean frames")
    p.set_defaults(handler=command)


def command(args: argparse.Namespace) -> int:
    from actloop.viewer import episode_data, write_viewer

    read_start(args.record_dir)  # fails clearly when it is not an episode record
    data = episode_data(args.record_dir)
    for line in data["unreadable_lines"]:
        say(f"note: left out of the viewer: {line}")
    say(str(write_viewer(args.record_dir, data=data)))
    if args.mp4:
        from actloop.viewer.video import write_episode_video

        say(str(write_episode_video(args.record_dir)))
    return 0
