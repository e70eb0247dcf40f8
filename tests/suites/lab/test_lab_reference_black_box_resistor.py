"""The reference experimenter solves a black-box-resistor instance end to end through the public client
over HTTP: the box carried into the socket and back, the supply switched and stepped by its keys, both
meters read from close-up images, a sealed submission scored as a success with every gate and milestone."""

from __future__ import annotations

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.black_box_resistor import fit_resistance, solve
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


def test_the_reference_solves_an_instance_within_half_its_tolerance() -> None:
    env = LabEnv("black_box_resistor", 3)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = solve(lab, env.instance.public["voltmeter_resistance"])
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= 0.5
    assert len(verdicts) == 30 and all(v.valid for v in verdicts)
    env.record.verify(answer["record_hash"])


def test_the_fit_cancels_zero_errors_and_corrects_for_the_voltmeter() -> None:
    ohms, voltmeter = 2200.0, 1e7
    points = [(v + 0.013, 1000 * v * (1 / ohms + 1 / voltmeter) - 0.017) for v in (2.0, 5.0, 9.0)]
    assert fit_resistance(points, voltmeter) == pytest.approx(ohms, rel=1e-12)
