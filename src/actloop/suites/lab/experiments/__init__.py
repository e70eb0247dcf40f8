"""The built lab experiments, discovered by module: each module here (not starting with ``_``) is named after
its experiment's key in the catalogue and defines ``EXPERIMENT``, an
:class:`~actloop.suites.lab.experiment.Experiment`. Adding a module adds the experiment."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from actloop.errors import ConfigError, UnknownTask
from actloop.suites.lab.catalog import CATALOG
from actloop.suites.lab.experiment import Experiment


@cache
def _modules() -> tuple[str, ...]:
    """The experiment modules' names (each an experiment key)."""
    return tuple(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


@cache
def _load(key: str) -> Experiment:
    module = importlib.import_module(f"{__name__}.{key}")
    found = getattr(module, "EXPERIMENT", None)
    if not isinstance(found, Experiment):
        raise ConfigError(
            f"{module.__name__} defines no EXPERIMENT (an actloop.suites.lab.experiment.Experiment)"
        )
    if found.spec.key != key:
        raise ConfigError(
            f"{module.__name__} defines experiment {found.spec.key!r}; a module is named by its key"
        )
    return found


_UNRELEASED: dict[str, Experiment] = {}
"""Experiments served but never released (tests register examples of objectives no built one has yet)."""


@contextmanager
def unreleased(*added: Experiment) -> Iterator[None]:
    """Serve ``added`` by key while the block runs; they never join :func:`experiment_keys`."""
    clash = [e.spec.key for e in added if e.spec.key in _modules() or e.spec.key in _UNRELEASED]
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
    if key in _UNRELEASED:
        return _UNRELEASED[key]
    if key not in _modules():
        planned = "" if key not in {e.key for e in CATALOG} else f" ({key} is catalogued but not built yet)"
        built = sorted({*_modules(), *_UNRELEASED})
        raise UnknownTask(f"no lab experiment {key!r}{planned}; built: {', '.join(built)}")
    return _load(key)


def experiment_keys() -> list[str]:
    """Every implemented experiment, in table-6 order."""
    order = {e.key: e.number for e in CATALOG}
    stray = [name for name in _modules() if name not in order]
    if stray:
        raise ConfigError(f"experiment modules not named after a catalogued experiment: {stray}")
    return sorted(_modules(), key=order.__getitem__)
