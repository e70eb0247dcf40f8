"""A catalogued experiment that no module builds: table 6 with one more row, so the paths a fully built
catalogue no longer reaches (a new module joining, the "catalogued but not built" refusals) stay tested."""

from __future__ import annotations

import dataclasses

import pytest

from actloop.suites.lab import catalog, check, experiments

SPARE = "spare_experiment"


def spare_row(monkeypatch: pytest.MonkeyPatch) -> str:
    """Catalogue :data:`SPARE` (a copy of row 1 under its own number and key) for the test; its key."""
    row = dataclasses.replace(catalog.CATALOG[0], number=len(catalog.CATALOG) + 1, key=SPARE, title="Spare")
    for module in (catalog, experiments, check):
        monkeypatch.setattr(module, "CATALOG", (*catalog.CATALOG, row))
    return SPARE
