"""A clean RGB image as the model receives it: the one observation type every suite shares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Frame:
    """One clean RGB image, PNG-encoded. ``view`` labels it in records (``active``, ``topdown``, ...)."""

    view: str
    png: bytes

    def __repr__(self) -> str:
        return f"Frame(view={self.view!r}, png=<{len(self.png)} bytes>)"
