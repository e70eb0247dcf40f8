"""The difficulty audit: measured from the instrument models, printed by ``actloop lab audit`` and kept in
each released manifest."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from actloop.cli import main
from actloop.suites.lab import audit, manifests
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.instance import draw


@dataclass(frozen=True)
class Shortcut:
    """An experiment's naive shortcut and standard design in its audit, and the nuisance the shortcut
    misses."""

    experiment: str
    naive: str
    standard: str
    max_naive_rate: float
    max_guess_rate: float
    """The largest share the card alone may guess (the midpoint and the best constant)."""
    pick: Callable[[dict[str, float]], bool]
    """Which drawn instance to probe: one whose nuisance is large."""
    without_nuisance: dict[str, float]


SHORTCUTS = (
    Shortcut(
        "black_box_resistor",
        "one reading at 10 V",
        "slope of five settings",
        0.25,
        0.05,
        lambda h: abs(h["voltmeter_zero"]) > 0.1,
        {"voltmeter_zero": 0.0, "ammeter_zero": 0.0},
    ),
    Shortcut(
        "thermistor_b",
        "two temperatures",
        "six temperatures, leads fitted",
        0.2,
        0.05,
        lambda h: h["leads"] > 40.0,
        {"leads": 0.0},
    ),
    Shortcut(
        "lens_focal_length",
        "one object distance",
        "displacement method",
        0.35,
        0.12,
        lambda h: h["f"] < 0.07,
        {"principal_offset": 0.0},
    ),
)


@pytest.mark.parametrize("case", SHORTCUTS, ids=lambda case: case.experiment)
def test_the_naive_shortcut_fails_most_instances_and_the_standard_design_solves_them(case: Shortcut) -> None:
    result = audit.audit(case.experiment, 200)
    assert result["naive_shortcut"]["name"] == case.naive
    assert result["standard_design"]["name"] == case.standard
    assert result["naive_rate"] < case.max_naive_rate
    assert result["standard_rate"] == 1.0
    assert max(result["guess_midpoint"], result["guess_best_constant"]) < case.max_guess_rate


@pytest.mark.parametrize("case", SHORTCUTS, ids=lambda case: case.experiment)
def test_without_its_nuisance_the_shortcut_solves_the_instance_again(case: Shortcut) -> None:
    """It is the nuisance, not noise, that the shortcut misses: on an instance where the nuisance is large
    the shortcut fails and the standard design succeeds; with the nuisance removed the shortcut succeeds."""
    spec = experiment(case.experiment).spec
    plan = plan_of(case.experiment)
    instance = next(i for i in (draw(spec, s) for s in range(1, 50)) if case.pick(i.hidden))
    target = plan.target(instance)
    assert not audit._within(spec, plan.naive.estimate(instance), target)
    assert audit._within(spec, plan.standard.estimate(instance), target)
    hidden = {**instance.hidden, **case.without_nuisance}
    plain = type(instance)(instance.experiment, instance.seed, instance.public, hidden)
    assert audit._within(spec, plan.naive.estimate(plain), target)


def test_the_best_constant_is_the_largest_overlap_of_the_tolerance_intervals() -> None:
    spec = experiment("hookes_law").spec  # k within 2 %
    targets = [{"k": k} for k in (20.0, 20.5, 20.7, 30.0, 40.0)]
    assert audit.best_constant_share(spec, targets) == pytest.approx(3 / 5)  # 20.3 serves the first three
    dye = experiment("dye_absorptivity").spec  # λmax within 1 nm and ε within 2 %
    pairs = [{"lambda_max": nm, "epsilon": eps} for nm, eps in ((500.0, 3e4), (501.5, 3e4), (520.0, 3e4))]
    assert audit.best_constant_share(dye, pairs) == pytest.approx(2 / 3)
    pairs[1]["epsilon"] = 4e4  # near in λmax, far in ε: no constant serves both
    assert audit.best_constant_share(dye, pairs) == pytest.approx(1 / 3)


@pytest.mark.parametrize("key", experiment_keys())
def test_every_manifest_keeps_its_audit_and_the_standard_design_meets_the_tolerance(key: str) -> None:
    kept = manifests.load(key).audit
    assert kept is not None, f"{key}: run `actloop lab audit --experiment {key} --write`"
    assert kept["instances"] == audit.AUDIT_INSTANCES and kept["tier"] == experiment(key).spec.tier
    assert kept["naive_shortcut"]["name"] and kept["standard_design"]["name"] and kept["note"]
    assert kept["standard_rate"] >= 0.95, key
    assert kept["guess_midpoint"] <= kept["guess_best_constant"] < 0.2, key


def test_the_command_prints_the_audit(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lab", "audit", "--experiment", "black_box_resistor", "--instances", "40"]) == 0
    out = capsys.readouterr().out
    assert "black_box_resistor" in out and "one reading at 10 V" in out and "slope of five" in out
