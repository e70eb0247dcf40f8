"""Hooke's law with the least budget a spec may have, for tests that spend a whole budget."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

from actloop.suites.lab.experiments import experiment, unreleased
from actloop.suites.lab.spec import MIN_BUDGET_S

KEY = "least_budget_spring"


@contextmanager
def least_budget_spring() -> Iterator[str]:
    """Serve Hooke's law with a budget of MIN_BUDGET_S under its own key while the block runs; yields the
    key."""
    built = experiment("hookes_law")
    spec = dataclasses.replace(built.spec, key=KEY, budget_s=MIN_BUDGET_S)
    with unreleased(dataclasses.replace(built, spec=spec)):
        yield KEY
