"""The reference experimenter solves a dye-absorptivity instance end to end through the public client over
HTTP: cuvettes carried into the holder and back, keys pressed, both LCDs read from wrist-camera images, a
sealed submission scored as a success with every gate and milestone; and its analysis on known data."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.dye_absorptivity import (
    Reading,
    coarse_peak,
    corrected,
    fine_peak,
    fit_epsilon,
    solve,
)
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


def test_the_reference_solves_an_instance_within_half_its_tolerance() -> None:
    env = LabEnv("dye_absorptivity", 1)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = solve(lab, env.instance.public["stock_concentration"])
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= 0.5  # the seed's calibration: the reference error stays within half the tolerance
    assert all(v.valid for v in verdicts) and env.clock.time_s < 0.5 * env.spec.budget_s
    env.record.verify(answer["record_hash"])


def band(nm: float, centre: float = 553.3, width: float = 25.0) -> float:
    return 0.8 * math.exp(-0.5 * ((nm - centre) / width) ** 2)


def test_the_peak_is_found_from_the_baseline_corrected_spectrum() -> None:
    lamp = [Reading(f"b{nm}", nm, -0.006 * (nm - 500)) for nm in range(460, 661, 10)]
    sample = [Reading(f"s{nm}", nm, band(nm) - 0.006 * (nm - 500)) for nm in range(465, 656, 10)]
    peak, height = coarse_peak(corrected(sample, lamp))
    assert abs(peak - 553.3) <= 3 and height == pytest.approx(0.8, abs=0.01)
    fine = [(float(nm), round(band(nm), 3)) for nm in range(538, 569)]
    assert fine_peak(fine) == pytest.approx(553.3, abs=0.2)
    assert corrected([Reading("o", 500.0, math.nan)], lamp) == []  # an OL reading says nothing


def test_epsilon_is_the_least_squares_slope_through_the_origin() -> None:
    assert fit_epsilon([(1e-5, 0.5), (2e-5, 1.0)]) == pytest.approx(5e4)
