"""What the bench answers a request it refuses, and the check of a request's vectors (a leaf module)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from actloop.errors import ActloopError


class LabRequestError(ActloopError):
    """A call the bench refuses before doing anything (HTTP 422): the message says what to fix."""


class EpisodeOver(ActloopError):
    """The episode has ended (submitted, or out of budget); no further action is possible (HTTP 409)."""


def request_vector(value: Any, length: int, name: str) -> list[float]:
    """``value`` as ``length`` finite floats, or a LabRequestError saying what is wrong."""
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != length:
        raise LabRequestError(f"{name} must be a list of {length} numbers")
    out = []
    for x in value:
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            raise LabRequestError(f"{name} must hold finite numbers, got {x!r}")
        out.append(float(x))
    return out
