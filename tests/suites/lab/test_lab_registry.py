"""Experiments and references are discovered by module: a module named after a catalogued experiment adds
it; a module that names another experiment, defines none, or is not catalogued is refused with the reason."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.errors import ConfigError, UnknownTask
from actloop.suites.lab import experiments
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.reference import reference
from catalog_scaffold import SPARE, spare_row


@pytest.fixture
def extra_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A second directory of experiment modules, searched after the package's own, with :data:`SPARE`
    catalogued."""
    spare_row(monkeypatch)
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(tmp_path)])
    experiments._modules.cache_clear()
    experiments._load.cache_clear()
    yield tmp_path
    experiments._modules.cache_clear()
    experiments._load.cache_clear()
    for module in tmp_path.glob("*.py"):
        sys.modules.pop(f"{experiments.__name__}.{module.stem}", None)


def test_the_built_experiments_are_the_modules_in_table_6_order() -> None:
    assert experiment_keys() == [
        "hookes_law",
        "pendulum_g",
        "coupled_oscillators",
        "spring_oscillation",
        "torsion_pendulum",
        "air_track_collision",
        "incline_friction",
        "rc_capacitance",
        "black_box_resistor",
        "led_wavelength",
        "lens_focal_length",
        "grating_wavelength",
        "centroid_inertia",
        "spring_launcher",
        "cantilever",
        "three_terminal_box",
        "rectifier_supply",
        "spectro_calibration",
        "strong_acid_titration",
        "two_dye_mixture",
        "weak_acid_titration",
        "crystal_violet_kinetics",
        "two_lens_relay",
        "specific_heat",
        "single_slit",
        "plate_index",
        "battery_emf",
        "thermistor_b",
        "thermal_expansion",
        "dye_absorptivity",
    ]
    assert all(experiment(key).spec.key == key for key in experiment_keys())


def test_a_catalogued_module_joins_the_experiments(extra_modules: Path) -> None:
    source = "from actloop.suites.lab.experiments.hookes_law import EXPERIMENT as HOOKE\n"
    (extra_modules / f"{SPARE}.py").write_text(
        source + "from dataclasses import replace\n"
        f"EXPERIMENT = replace(HOOKE, spec=replace(HOOKE.spec, key={SPARE!r}))\n"
    )
    assert SPARE in experiment_keys()
    assert experiment(SPARE).spec.key == SPARE


def test_a_module_naming_another_experiment_is_refused(extra_modules: Path) -> None:
    (extra_modules / f"{SPARE}.py").write_text(
        "from actloop.suites.lab.experiments.hookes_law import EXPERIMENT\n"
    )
    with pytest.raises(ConfigError, match="defines experiment 'hookes_law'; a module is named by its key"):
        experiment(SPARE)


def test_a_module_without_an_experiment_is_refused(extra_modules: Path) -> None:
    (extra_modules / f"{SPARE}.py").write_text("SPEC = None\n")
    with pytest.raises(ConfigError, match="defines no EXPERIMENT"):
        experiment(SPARE)


def test_a_module_not_in_the_catalogue_is_refused(extra_modules: Path) -> None:
    (extra_modules / "hookes_law_again.py").write_text("")
    with pytest.raises(ConfigError, match=r"not named after a catalogued experiment: \['hookes_law_again'\]"):
        experiment_keys()


def test_an_unbuilt_experiment_is_named_as_catalogued(monkeypatch: pytest.MonkeyPatch) -> None:
    spare_row(monkeypatch)
    with pytest.raises(UnknownTask, match=f"{SPARE} is catalogued but not built yet"):
        experiment(SPARE)
    with pytest.raises(UnknownTask, match=r"no lab experiment 'no_such_thing'; built: "):
        experiment("no_such_thing")


def test_every_experiment_has_a_reference_of_one_signature() -> None:
    for key in experiment_keys():
        assert list(inspect.signature(reference(key)).parameters)[:2] == ["lab", "public"], key


def test_a_tool_module_is_no_reference() -> None:
    with pytest.raises(KeyError, match="motion has no solve"):
        reference("motion")
    with pytest.raises(KeyError, match=f"no reference experimenter for '{SPARE}'"):
        reference(SPARE)


def test_every_experiment_has_a_difficulty_audit_module() -> None:
    from actloop.suites.lab.audits import Plan, audited, plan_of

    assert audited() == sorted(experiment_keys())
    assert all(isinstance(plan_of(key), Plan) for key in experiment_keys())
    with pytest.raises(ValueError, match=f"no difficulty audit for '{SPARE}'; audited: "):
        plan_of(SPARE)
