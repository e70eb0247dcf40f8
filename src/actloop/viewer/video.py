"""An optional MP4 of an episode: its clean frames in step order (five-view bundles tiled)."""

from __future__ import annotations

import os
import re
import secrets
from collections import defaultdict
from pathlib import Path
from typing import Any

import imageio.v2 as imageio
import numpy as np
from PIL import Image

from actloop.errors import RecordError

VIDEO_FILE = "episode.mp4"
FRAMES_PER_STEP_S = 0.5
_FRAME = re.compile(r"step(\d+)_(.+)\.png$")


def _tile(images: list[np.ndarray]) -> np.ndarray:
    """One image per step: a single frame as is, a bundle as a grid of half-size frames (3 per row)."""
    if len(images) == 1:
        return images[0]
    height, width = images[0].shape[:2]
    small = [np.asarray(Image.fromarray(im).resize((width // 2, height // 2))) for im in images]
    columns = min(3, len(small))
    rows = -(-len(small) // columns)
    canvas = np.zeros((rows * (height // 2), columns * (width // 2), 3), dtype=np.uint8)
    for i, im in enumerate(small):
        r, c = divmod(i, columns)
        canvas[r * (height // 2) : (r + 1) * (height // 2), c * (width // 2) : (c + 1) * (width // 2)] = im
    return canvas


def write_episode_video(record_dir: Path) -> Path:
    """Write ``record_dir/episode.mp4`` from ``frames/stepNNN_<view>.png`` (those inside the record: a
    link leading out is skipped) and return its path; the file is replaced, never written through a link."""
    by_step: dict[int, list[Path]] = defaultdict(list)
    root = record_dir.resolve()
    for path in sorted((record_dir / "frames").glob("step*.png")):
        match = _FRAME.match(path.name)
        if match and path.resolve().is_relative_to(root):
            by_step[int(match.group(1))].append(path)
    if not by_step:
        raise RecordError(f"{record_dir} has no frames to make a video from")
    images: list[Any] = [
        _tile([np.asarray(Image.open(p).convert("RGB")) for p in by_step[s]]) for s in sorted(by_step)
    ]
    path = record_dir / VIDEO_FILE
    temporary = path.with_name(f".{path.stem}.{secrets.token_hex(4)}{path.suffix}")
    try:
        imageio.mimwrite(temporary, images, fps=1 / FRAMES_PER_STEP_S, macro_block_size=1)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path
