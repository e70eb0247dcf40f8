"""Following a path that a record names: records are input, so such a path never leads out of its root."""

from __future__ import annotations

from pathlib import Path, PurePath

from actloop.errors import RecordError


def inside(root: Path, relative: str) -> Path:
    """``root / relative`` resolved (links followed), when ``relative`` is a relative path that stays
    inside ``root``; otherwise a RecordError saying why (an absolute path, ``..`` or a link leading out)."""
    if not relative or PurePath(relative).is_absolute():
        raise RecordError(f"{relative!r} is not a path relative to {root}")
    base = Path(root).resolve()
    path = (base / relative).resolve()
    if not path.is_relative_to(base):
        raise RecordError(f"{relative!r} leads outside {base} (to {path})")
    return path
