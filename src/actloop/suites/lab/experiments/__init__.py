"""The lab experiments with full specifications and benches, by key."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actloop.errors import UnknownTask
from actloop.suites.lab.catalog import CATALOG
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.platforms.base import Platform
from actloop.suites.lab.spec import ExperimentSpec

if TYPE_CHECKING:
    from actloop.suites.lab.evaluation import Evaluator
    from actloop.suites.lab.record import Record


@dataclass(frozen=True)
class Experiment:
    """An experiment's specification, how its bench is built for an instance, and its evaluator
    (``evaluator(spec, record, instance, platform)``)."""

    spec: ExperimentSpec
    platform: Callable[[Instance], Platform]
    evaluator: Callable[[ExperimentSpec, Record, Instance, Platform], Evaluator]


def _registry() -> dict[str, Experiment]:
    from actloop.suites.lab.experiments import (
        black_box_resistor,
        dye_absorptivity,
        hookes_law,
        lens_focal_length,
        thermistor_b,
    )

    return {
        e.spec.key: e
        for e in (
            hookes_law.EXPERIMENT,
            black_box_resistor.EXPERIMENT,
            thermistor_b.EXPERIMENT,
            dye_absorptivity.EXPERIMENT,
            lens_focal_length.EXPERIMENT,
        )
    }


_UNRELEASED: dict[str, Experiment] = {}
"""Experiments served but never released (tests register examples of objectives no built one has yet)."""


@contextmanager
def unreleased(*added: Experiment) -> Iterator[None]:
    """Serve ``added`` by key while the block runs; they never join :func:`experiment_keys`."""
    clash = [e.spec.key for e in added if e.spec.key in _registry() or e.spec.key in _UNRELEASED]
    if clash:
        raise ValueError(f"experiment keys already taken: {clash}")
    _UNRELEASED.update({e.spec.key: e for e in added})
    try:
        yield
    finally:
        for e in added:
            _UNRELEASED.pop(e.spec.key, None)


def experiment(key: str) -> Experiment:
    """The implemented experiment ``key``; raises UnknownTask naming what exists."""
    known = {**_registry(), **_UNRELEASED}
    if key not in known:
        planned = "" if key not in {e.key for e in CATALOG} else f" ({key} is catalogued but not built yet)"
        raise UnknownTask(f"no lab experiment {key!r}{planned}; built: {', '.join(sorted(known))}")
    return known[key]


def experiment_keys() -> list[str]:
    """Every implemented experiment, in table-6 order."""
    order = {e.key: e.number for e in CATALOG}
    return sorted(_registry(), key=order.__getitem__)
