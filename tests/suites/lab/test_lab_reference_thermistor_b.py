"""The reference experimenter solves a thermistor instance end to end through the public client over HTTP:
the probe carried into the block's well and back, the heater switched by its rocker and stepped by its
key, both meters read from close-ups of their LCDs once settled, a sealed submission scored as a success
with every gate and milestone."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.thermistor_b import fit_b_r25, solve
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


def test_the_reference_solves_an_instance_within_half_its_tolerance() -> None:
    env = LabEnv("thermistor_b", 2)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = solve(lab)
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= 0.5
    assert len(verdicts) == 10 and all(v.valid for v in verdicts)
    env.record.verify(answer["record_hash"])


def test_the_fit_recovers_b_and_r25_from_the_b_law() -> None:
    b, r25 = 3650.0, 12_345.0
    points = [(t, r25 * math.exp(b * (1 / (t + 273.15) - 1 / 298.15))) for t in (30.0, 45.0, 70.0)]
    assert fit_b_r25(points) == pytest.approx((b, r25), rel=1e-12)
