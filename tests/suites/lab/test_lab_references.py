"""Every registered experiment's reference experimenter solves a released instance end to end through the
public client over HTTP: a sealed submission scored as a success with every gate and milestone, its error
within half the tolerance (the seed's calibration), every citation valid and the record intact."""

from __future__ import annotations

import pytest

from actloop.suites.lab import manifests
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.reference import reference
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client


@pytest.mark.parametrize("key", experiment_keys())
def test_the_reference_solves_a_released_instance_within_half_its_tolerance(key: str) -> None:
    seed = manifests.load(key).seeds()[1]
    env = LabEnv(key, seed)
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        answer = reference(key)(lab, dict(env.instance.public))
        lab.close()
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= manifests.MAX_REFERENCE_E
    assert verdicts and all(v.valid for v in verdicts)
    env.record.verify(answer["record_hash"])
