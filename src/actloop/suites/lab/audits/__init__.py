"""The difficulty audits' building blocks and their discovery: the audit of an experiment is the module here
named after its key, whose ``plan()`` gives the :class:`Plan` (y* of an instance, the naive shortcut, the
standard design). :mod:`actloop.suites.lab.audit` runs them."""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import OVERLOAD, Instrument, InstrumentSpec

Estimate = dict[str, float | str]
"""A value for every scored quantity (a label for a categorical one)."""


@dataclass(frozen=True)
class Design:
    """A way to estimate y* from simulated readings: its name, what it does, and the estimator."""

    name: str
    description: str
    estimate: Callable[[Instance], Estimate]


@dataclass(frozen=True)
class Plan:
    """What the audit simulates for one experiment: y* of an instance, the naive shortcut, the standard
    design."""

    target: Callable[[Instance], Estimate]
    naive: Design
    standard: Design
    note: str
    """Why the shortcut fails or succeeds: which nuisance it misses, or that none is there to miss."""


class Meter:
    """Readings of one instrument as its display shows them, each taken once the display has settled on
    a true value held long enough for its lag to die out (twenty time constants)."""

    def __init__(self, spec: InstrumentSpec, noise_key: str) -> None:
        self.instrument = Instrument(spec, noise_key)
        self.time_s = 0.0

    def read(self, true_value: float) -> float:
        """What the display shows once settled on ``true_value`` (NaN for ``OL``)."""
        spec = self.instrument.spec
        self.time_s += 20.0 * spec.time_constant_s + 1.0 / spec.refresh_hz
        self.instrument.step(self.time_s, true_value)
        shown = self.instrument.shown
        return math.nan if shown is None or shown == OVERLOAD else float(shown)


def read_scale(value: float, resolution: float) -> float:
    """A scale read to its reading resolution: the nearest multiple of it."""
    return resolution * math.floor(value / resolution + 0.5)


def slope(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares (slope, intercept) of y against x."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    sxx = sum((x - mean_x) ** 2 for x, _ in points)
    b = sum((x - mean_x) * (y - mean_y) for x, y in points) / sxx
    return b, mean_y - b * mean_x


def audited() -> list[str]:
    """The experiments with a difficulty audit (their modules here)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def plan_of(experiment: str) -> Plan:
    """The audit plan of ``experiment``; ValueError naming the audited ones when it has none."""
    if experiment not in audited():
        raise ValueError(f"no difficulty audit for {experiment!r}; audited: {', '.join(audited())}")
    made = importlib.import_module(f"{__name__}.{experiment}").plan()
    if not isinstance(made, Plan):
        raise TypeError(f"{__name__}.{experiment}.plan() gives no Plan")
    return made
