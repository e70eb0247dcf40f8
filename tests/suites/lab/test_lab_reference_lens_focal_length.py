"""The reference experimenter solves a lens focal-length instance end to end through the public client
over HTTP: the lens carried into its holder and back, the screen focused from wrist views of its back,
index marks read from close-ups, a sealed submission scored as a success with every gate and milestone."""

from __future__ import annotations

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.lens_focal_length import focus, solve
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


def test_the_reference_solves_an_instance_within_half_its_tolerance() -> None:
    env = LabEnv("lens_focal_length", 2)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = solve(lab)
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= 0.5  # the seed's calibration: the reference error stays within half the tolerance
    assert len(verdicts) == 7 and all(v.valid for v in verdicts)
    env.record.verify(answer["record_hash"])


def test_the_focus_is_midway_between_the_half_maximum_crossings() -> None:
    peak = [(x / 1000, max(0.0, 1.0 - abs(x - 3.3) / 4)) for x in range(-6, 13)]
    assert abs(focus(peak) - 0.0033) < 1e-9
    lopsided = [(x, m) for x, m in peak if x < 0.007]  # the scan stopped short on one side
    assert abs(focus(lopsided) - 0.0033) < 0.002
