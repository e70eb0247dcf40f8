"""The difficulty audit: measured from the instrument models, printed by ``actloop lab audit`` and kept in
each released manifest."""

from __future__ import annotations

import pytest

from actloop.cli import main
from actloop.suites.lab import audit, manifests
from actloop.suites.lab.experiments import experiment, experiment_keys
from actloop.suites.lab.instance import draw


def test_one_reading_at_10_v_fails_most_black_boxes_and_the_slope_solves_them() -> None:
    result = audit.audit("black_box_resistor", 200)
    assert result["naive_shortcut"]["name"] == "one reading at 10 V"
    assert result["naive_rate"] < 0.25
    assert result["standard_rate"] == 1.0
    assert result["guess_midpoint"] == 0.0 and result["guess_best_constant"] < 0.05


def test_the_naive_reading_is_off_by_the_zero_errors_and_the_slope_is_not() -> None:
    """With the meters' zero errors removed, the single reading solves the instance again: it is the zero
    errors, not noise, that the shortcut misses."""
    spec = experiment("black_box_resistor").spec
    plan = audit.PLANS["black_box_resistor"]()
    instance = next(i for i in (draw(spec, s) for s in range(1, 50)) if abs(i.hidden["voltmeter_zero"]) > 0.1)
    target = plan.target(instance)
    assert not audit._within(spec, plan.naive.estimate(instance), target)
    assert audit._within(spec, plan.standard.estimate(instance), target)
    zeroed = type(instance)(
        instance.experiment,
        instance.seed,
        instance.public,
        {**instance.hidden, "voltmeter_zero": 0.0, "ammeter_zero": 0.0},
    )
    assert audit._within(spec, plan.naive.estimate(zeroed), target)


def test_two_temperatures_fail_most_thermistors_and_the_fit_with_the_leads_solves_them() -> None:
    result = audit.audit("thermistor_b", 200)
    assert result["naive_shortcut"]["name"] == "two temperatures"
    assert result["naive_rate"] < 0.2
    assert result["standard_rate"] == 1.0
    assert result["guess_midpoint"] == 0.0 and result["guess_best_constant"] < 0.05


def test_the_two_point_line_is_off_by_the_leads_and_the_three_parameter_fit_is_not() -> None:
    """With the leads' resistance removed, two temperatures solve the instance again: it is the leads in
    series, not noise, that the shortcut misses."""
    spec = experiment("thermistor_b").spec
    plan = audit.PLANS["thermistor_b"]()
    instance = next(i for i in (draw(spec, s) for s in range(1, 50)) if i.hidden["leads"] > 40.0)
    target = plan.target(instance)
    assert not audit._within(spec, plan.naive.estimate(instance), target)
    assert audit._within(spec, plan.standard.estimate(instance), target)
    hidden = {**instance.hidden, "leads": 0.0}
    no_leads = type(instance)(instance.experiment, instance.seed, instance.public, hidden)
    assert audit._within(spec, plan.naive.estimate(no_leads), target)


def test_one_object_distance_fails_most_lenses_and_the_displacement_method_solves_them() -> None:
    result = audit.audit("lens_focal_length", 200)
    assert result["naive_shortcut"]["name"] == "one object distance"
    assert result["standard_design"]["name"] == "displacement method"
    assert result["naive_rate"] < 0.35
    assert result["standard_rate"] == 1.0
    assert result["guess_midpoint"] < 0.06 and result["guess_best_constant"] < 0.12


def test_one_object_distance_is_off_by_the_principal_plane_and_the_displacement_method_is_not() -> None:
    """With the lens's principal plane on its index mark, one object distance solves the instance again: it
    is the plane's offset, not noise, that the shortcut misses."""
    spec = experiment("lens_focal_length").spec
    plan = audit.PLANS["lens_focal_length"]()
    instance = next(i for i in (draw(spec, s) for s in range(1, 50)) if i.hidden["f"] < 0.07)
    target = plan.target(instance)
    assert not audit._within(spec, plan.naive.estimate(instance), target)
    assert audit._within(spec, plan.standard.estimate(instance), target)
    hidden = {**instance.hidden, "principal_offset": 0.0}
    marked = type(instance)(instance.experiment, instance.seed, instance.public, hidden)
    assert audit._within(spec, plan.naive.estimate(marked), target)


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
