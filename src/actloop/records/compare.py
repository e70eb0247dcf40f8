"""Comparing recorded object poses across runs: the tolerances, the deviation measure, and the outcomes of
checking a seed manifest's scenes and of re-executing an episode record.

On one platform (matching fingerprints) states are compared bit for bit through their hashes. Across
platforms the C maths library and CPU-dispatched kernels change the last bits, so poses are compared
within tolerances: tight ones for a freshly reset scene, looser ones after a whole episode, where tiny
differences are amplified by contacts (measured between machines with different maths libraries:
median 4e-11 m, worst 5.5 mm at the end of full expert episodes, with identical outcomes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SCENE_POSITION_TOLERANCE_M = 1e-6
SCENE_ROTATION_TOLERANCE_RAD = 1e-6
"""A settled scene right after reset must match its manifest this closely on any machine."""
EPISODE_POSITION_TOLERANCE_M = 0.01
EPISODE_ROTATION_TOLERANCE_RAD = 0.1
"""A replayed episode's poses may drift this far from the record across platforms."""

Poses = Mapping[str, Sequence[float]]
"""Body name -> (x, y, z, qw, qx, qy, qz)."""


@dataclass(frozen=True)
class PoseDeviation:
    """The largest position (m) and rotation (rad) difference over bodies, and the bodies involved."""

    position_m: float = 0.0
    rotation_rad: float = 0.0
    position_body: str | None = None
    rotation_body: str | None = None
    missing: tuple[str, ...] = ()
    """Bodies present in only one of the two pose sets."""

    def worst(self, other: PoseDeviation) -> PoseDeviation:
        """The larger position and the larger rotation deviation of the two (for running maxima)."""
        pos = self if self.position_m >= other.position_m else other
        rot = self if self.rotation_rad >= other.rotation_rad else other
        missing = tuple(sorted(set(self.missing) | set(other.missing)))
        return PoseDeviation(pos.position_m, rot.rotation_rad, pos.position_body, rot.rotation_body, missing)

    def within(self, position_m: float, rotation_rad: float) -> bool:
        return not self.missing and self.position_m <= position_m and self.rotation_rad <= rotation_rad

    def text(self) -> str:
        parts = [
            f"position {self.position_m * 1000:.3g} mm"
            + (f" ({self.position_body})" if self.position_body else ""),
            f"rotation {math.degrees(self.rotation_rad):.3g}°"
            + (f" ({self.rotation_body})" if self.rotation_body else ""),
        ]
        if self.missing:
            parts.append(f"missing bodies: {', '.join(self.missing)}")
        return ", ".join(parts)


def rotation_between(q1: Sequence[float], q2: Sequence[float]) -> float:
    """Angle (rad) of the rotation taking unit quaternion ``q1`` to ``q2``.

    Uses ``|q1 - q2| = 2 sin(angle / 4)`` (``q2`` sign-aligned with ``q1``), which stays exact for tiny
    angles where ``acos`` of the dot product would round to about 1e-8 rad.
    """
    sign = 1.0 if sum(a * b for a, b in zip(q1, q2, strict=True)) >= 0 else -1.0
    chord = math.dist(q1, [sign * b for b in q2])
    return 4.0 * math.asin(min(1.0, chord / 2.0))


def pose_deviation(a: Poses, b: Poses) -> PoseDeviation:
    """The worst position and rotation difference between two pose sets, body by body."""
    worst_pos, worst_rot = 0.0, 0.0
    pos_body: str | None = None
    rot_body: str | None = None
    for body in sorted(set(a) & set(b)):
        pa, pb = a[body], b[body]
        position = math.dist(pa[:3], pb[:3])
        rotation = rotation_between(pa[3:7], pb[3:7])
        if position > worst_pos:
            worst_pos, pos_body = position, body
        if rotation > worst_rot:
            worst_rot, rot_body = rotation, body
    missing = tuple(sorted(set(a) ^ set(b)))
    return PoseDeviation(worst_pos, worst_rot, pos_body, rot_body, missing)


@dataclass
class ManifestCheck:
    """How a manifest's scenes reproduce on this machine.

    ``bitwise`` is True when this platform's fingerprint matches the manifest's, so settled states were
    required to be bit-identical; otherwise they were compared within the scene tolerances and
    ``deviation`` is the largest difference seen.
    """

    task: str
    bitwise: bool
    scenes: int = 0
    problems: list[str] = field(default_factory=list)
    deviation: PoseDeviation = field(default_factory=PoseDeviation)

    @property
    def mode(self) -> str:
        return "bitwise" if self.bitwise else "within tolerance"


@dataclass
class ReplayCheck:
    """The outcome of re-executing one record.

    ``bitwise`` says how states were compared: True when the record's platform fingerprint matches this
    machine's (state hashes must be equal), False when poses were compared within tolerance.
    """

    record_dir: Path
    bitwise: bool = False
    steps: int = 0
    differences: list[str] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)
    """``events.jsonl:line: why`` for every line of the record that could not be read: the record is
    incomplete or damaged, so it cannot count as reproduced."""
    max_deviation: PoseDeviation = field(default_factory=PoseDeviation)
    recorded_success: bool | None = None
    replayed_success: bool | None = None
    final_state_hash: str | None = None

    @property
    def reproduced(self) -> bool:
        return not (self.differences or self.unreadable) and self.recorded_success == self.replayed_success

    @property
    def mode(self) -> str:
        return "bitwise" if self.bitwise else "within tolerance"
