"""The reference experimenter solves a released instance end to end through the public client over HTTP: a
sealed submission scored as a success with every gate and milestone, its error within half the tolerance
(the seed's calibration), every citation valid and the record intact.

Each run costs 5-45 s, so a test run covers a rotating sample: :data:`SAMPLE` experiments a day, the next
ones in table-6 order each UTC day, wrapping round, so every experiment runs within ``ceil(n / SAMPLE)``
days. ``ACTLOOP_LAB_REFERENCE_TESTS=all`` runs every one; a comma-separated list of keys runs those. The
others are skipped, saying which ran. Every experiment's reference still runs on every released instance
under ``actloop verify-seeds --suite lab --check``, and every experiment passes the cheap checks of
``actloop lab check`` in test_lab_check."""

from __future__ import annotations

import datetime
import os

import pytest

from actloop.suites.lab import manifests
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment_keys
from actloop.suites.lab.reference import reference

SAMPLE = 2
CHOICE_ENV = "ACTLOOP_LAB_REFERENCE_TESTS"


def sampled(keys: list[str], day: int, choice: str = "") -> list[str]:
    """The experiments whose reference runs today: ``choice`` (``all`` or comma-separated keys) when
    given, else :data:`SAMPLE` of ``keys`` starting at ``day * SAMPLE``, wrapping round."""
    if choice.strip() == "all":
        return list(keys)
    if choice.strip():
        chosen = [key.strip() for key in choice.split(",") if key.strip()]
        unknown = sorted(set(chosen) - set(keys))
        if unknown:
            raise ValueError(f"{CHOICE_ENV} names no built experiment: {unknown}; built: {keys}")
        return chosen
    start = day * SAMPLE % len(keys)
    return [keys[(start + i) % len(keys)] for i in range(min(SAMPLE, len(keys)))]


TODAY = sampled(
    experiment_keys(), datetime.datetime.now(datetime.UTC).date().toordinal(), os.environ.get(CHOICE_ENV, "")
)


@pytest.mark.parametrize("key", experiment_keys())
def test_the_reference_solves_a_released_instance_within_half_its_tolerance(key: str) -> None:
    if key not in TODAY:
        pytest.skip(f"references run today: {', '.join(TODAY)} (set {CHOICE_ENV}=all for every one)")
    seed = manifests.load(key).seeds()[1]
    env = LabEnv(key, seed)
    answers = []
    failure = manifests.run_reference(env, lambda lab, public: answers.append(reference(key)(lab, public)))
    assert failure is None
    answer = answers[0]
    assert answer["submitted"]
    score, verdicts = env.score()
    assert score.success and score.process_score == 100, {n: g.evidence for n, g in score.gates.items()}
    assert score.e <= manifests.MAX_REFERENCE_E
    assert verdicts and all(v.valid for v in verdicts)
    env.record.verify(answer["record_hash"])


def test_the_sample_rotates_through_every_experiment_and_can_be_chosen() -> None:
    keys = ["a", "b", "c", "d", "e"]
    days = [sampled(keys, day) for day in range(100, 103)]
    assert all(len(day) == SAMPLE for day in days)
    assert {key for day in days for key in day} == set(keys)  # ceil(5 / 2) days cover all
    assert sampled(keys, 100) == sampled(keys, 100) != sampled(keys, 101)
    assert sampled(keys, 7, "all") == keys
    assert sampled(keys, 7, " c, a ") == ["c", "a"]
    with pytest.raises(ValueError, match="names no built experiment"):
        sampled(keys, 7, "a,zz")
    assert sampled(["only"], 3) == ["only"]
