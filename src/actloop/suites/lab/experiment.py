"""What an experiment module provides: its specification, how its bench is built for an instance, and its
evaluator. Each module of :mod:`actloop.suites.lab.experiments` defines one as ``EXPERIMENT``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
