"""Building blocks of evaluators: what the robot touches, how long a condition has held, whether a value has
settled, a quantity's history, the first observation that shows something, and the standard restore checks.

They read the true physics state (the evaluator's side, never served to the agent) and keep no state of
their own beyond what one episode needs.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeVar

import mujoco
import numpy as np

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.instruments import InstrumentLog, Observation
from actloop.suites.lab.record import Record
from actloop.suites.lab.rig import ROBOT_PREFIX

BENCH_GEOMS = ("table", "floor")
"""What the robot may rest on or brush at the end of a run without holding anything."""

T = TypeVar("T")


class ContactWatch:
    """The robot's contacts in one model: which geoms it touches now, and which touch each other without it.
    The robot's geoms are those named with :data:`~actloop.suites.lab.rig.ROBOT_PREFIX`."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        names = [model.geom(i).name for i in range(model.ngeom)]
        self.robot = np.array([name.startswith(ROBOT_PREFIX) for name in names], dtype=bool)
        self.bench = frozenset(model.geom(name).id for name in BENCH_GEOMS)

    def geoms(self, *names: str) -> frozenset[int]:
        """The ids of the geoms ``names``."""
        return frozenset(self.model.geom(name).id for name in names)

    def geoms_of_bodies(self, *names: str) -> frozenset[int]:
        """The ids of every geom of the bodies ``names``."""
        bodies = {self.model.body(name).id for name in names}
        return frozenset(i for i in range(self.model.ngeom) if int(self.model.geom_bodyid[i]) in bodies)

    def touched(self, data: mujoco.MjData) -> set[int]:
        """The geoms the robot touches now (a mask over the contacts: this runs every physics step)."""
        first, second = data.contact.geom1, data.contact.geom2
        by_robot = self.robot[first] != self.robot[second]
        return set(np.where(self.robot[first[by_robot]], second[by_robot], first[by_robot]).tolist())

    def links(self, data: mujoco.MjData) -> list[tuple[int, int]]:
        """The contacts between two geoms neither of which is the robot's."""
        first, second = data.contact.geom1, data.contact.geom2
        free = ~(self.robot[first] | self.robot[second])
        return list(zip(first[free].tolist(), second[free].tolist(), strict=True))

    def held(self, data: mujoco.MjData) -> set[int]:
        """What the robot touches besides the table and the floor."""
        return self.touched(data) - self.bench

    def names(self, geoms: Iterable[int]) -> list[str]:
        return sorted(self.model.geom(g).name for g in geoms)


class HeldFor:
    """How long a condition has held without a break."""

    def __init__(self, since: float | None = None) -> None:
        self.since = since

    def update(self, time_s: float, holds: bool) -> float:
        """Note whether the condition holds at ``time_s``; the seconds it has held since it last began
        (0 when it does not hold)."""
        if not holds:
            self.since = None
            return 0.0
        if self.since is None:
            self.since = time_s
        return time_s - self.since


class Settled:
    """Whether values have each stayed within ``tolerance`` over the last ``window_s``, sampled every
    ``sample_s`` (at least one full window of samples is needed)."""

    def __init__(self, window_s: float, tolerance: float, sample_s: float) -> None:
        self.window_s = window_s
        self.tolerance = tolerance
        self.sample_s = sample_s
        self._samples: deque[tuple[float, tuple[float, ...]]] = deque()
        self.settled = False

    def due(self, time_s: float) -> bool:
        """Whether a new sample is due at ``time_s``."""
        return not self._samples or time_s - self._samples[-1][0] >= self.sample_s - 1e-9

    def sample(self, time_s: float, values: Sequence[float]) -> bool:
        """Add a sample; whether the values are settled now."""
        samples = self._samples
        samples.append((time_s, tuple(values)))
        while len(samples) > 1 and time_s - samples[1][0] >= self.window_s - 1e-9:
            samples.popleft()
        if time_s - samples[0][0] < self.window_s - 1e-9:
            self.settled = False
        else:
            spans = (
                max(s[i] for _, s in samples) - min(s[i] for _, s in samples) for i in range(len(values))
            )
            self.settled = all(span < self.tolerance for span in spans)
        return self.settled


class Timeline(Generic[T]):
    """A quantity's value over the episode (a weight count, a setting, the cuvette in a holder): its value at
    every change, each change written to the record as an entry of ``kind`` with the value under ``field``."""

    def __init__(self, record: Record, kind: str, field: str, initial: T) -> None:
        self.record = record
        self.kind = kind
        self.field = field
        self.changes: list[tuple[float, T]] = [(0.0, initial)]

    @property
    def now(self) -> T:
        return self.changes[-1][1]

    def update(self, time_s: float, value: T) -> None:
        if value != self.changes[-1][1]:
            self.changes.append((time_s, value))
            self.record.append(self.kind, {"time_s": time_s, self.field: value})

    def at(self, time_s: float) -> T:
        """The value at ``time_s``."""
        return next(v for t, v in reversed(self.changes) if t <= time_s)


def first_observation(
    log: InstrumentLog, when: Callable[[float], bool], readable: Sequence[str]
) -> Observation | None:
    """The first observation served at a time ``when`` holds that shows every instrument of ``readable``
    readably (in some image)."""
    return next(
        (o for o in log.observations.values()
         if when(o.time_s) and all(any(v.readable for v in o.views_of(name)) for name in readable)),
        None,
    )  # fmt: skip


# --- restore checks: each returns the problems found, in words ---
def robot_holds_nothing(watch: ContactWatch, data: mujoco.MjData) -> list[str]:
    held = watch.held(data)
    return ["the robot is touching " + ", ".join(watch.names(held))] if held else []


def switched_off(on: bool, what: str) -> list[str]:
    return [f"the {what} is on"] if on else []


def tilt_rad(data: mujoco.MjData, body: str) -> float:
    """The angle between a body's z axis and the vertical."""
    return math.acos(max(-1.0, min(1.0, float(data.body(body).xmat[8]))))


def back_in_place(
    data: mujoco.MjData,
    body: str,
    home: Sequence[float],
    place: str,
    tolerance_m: float,
    height_tolerance_m: float,
    upright_rad: float,
) -> list[str]:
    """Whether ``body``'s origin is back at ``home`` (x, y within ``tolerance_m``, z within
    ``height_tolerance_m``) and upright within ``upright_rad``; ``place`` names home in the problem."""
    x, y, z = (float(v) for v in data.body(body).xpos)
    drift = math.hypot(x - home[0], y - home[1])
    if drift > tolerance_m or abs(z - home[2]) > height_tolerance_m:
        return [f"{body} is {1000 * drift:.0f} mm from {place}"]
    tilt = tilt_rad(data, body)
    return [f"{body} is tipped by {math.degrees(tilt):.0f} degrees"] if tilt > upright_rad else []


def on_the_bench(data: mujoco.MjData, body: str) -> list[str]:
    """Whether ``body`` is still above the table top (not fallen off the bench)."""
    return [f"{body} is off the bench"] if float(data.body(body).xpos[2]) < TABLE_TOP_Z else []


def carried_by(base: int, loads: Iterable[int], links: Sequence[tuple[int, int]]) -> set[int]:
    """The geoms of ``loads`` resting on geom ``base``, directly or on other loads resting on it."""
    movable = set(loads)
    carried: set[int] = set()
    frontier = {base}
    while frontier:
        reached = {b if a in frontier else a for a, b in links if (a in frontier) != (b in frontier)}
        frontier = (reached & movable) - carried
        carried |= frontier
    return carried
