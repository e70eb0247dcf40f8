"""The reference experimenter solves a Hooke's-law instance end to end through the public client over
HTTP: readings from close-up images, weights carried and put back, a sealed submission scored as a
success with every gate and milestone."""

from __future__ import annotations

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.reference.hookes_law import fit_k, solve
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


def test_the_reference_solves_an_instance_within_half_its_tolerance() -> None:
    env = LabEnv("hookes_law", 5)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = solve(lab, env.instance.public["weight_mass"])
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= 0.5  # the seed's calibration: the reference error stays within half the tolerance
    assert len(verdicts) == 8 and all(v.valid for v in verdicts)  # two agreeing reads at each of 4 loads
    env.record.verify(answer["record_hash"])


def test_the_fit_recovers_a_known_stiffness() -> None:
    k, mass = 30.0, 0.025
    readings = [(n * mass, 150.0 - 1000 * 9.81 * n * mass / k) for n in range(4)]
    assert abs(fit_k(readings) - k) < 1e-9
