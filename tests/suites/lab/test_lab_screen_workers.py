"""Screening lab instances in worker processes gives the serial screen's manifest; a dying worker names its
seed; a re-run reference is compared with its released entry."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from actloop.cli import main
from actloop.suites.lab import manifests


def _scripted_entry(experiment: str, seed: int, key: Any = None) -> dict[str, Any]:
    """A verification without an episode: every third seed fails, e grows with the seed."""
    success = seed % 3 != 0
    return {
        "seed": seed,
        "instance_id": f"{experiment}-{seed}",
        "success": success,
        "reference_e": round(seed / 100, 4),
        "stop_stage": "submitted" if success else "time budget",
        "sim_time_s": 60.0 + seed,
    }


def _never_passes(experiment: str, seed: int, key: Any = None) -> dict[str, Any]:
    return {**_scripted_entry(experiment, seed), "success": False}


def _dies_at_seed_two(seed: int) -> dict[str, Any]:
    if seed == 2:
        os._exit(3)
    return {"seed": seed}


def _raises_at_seed_two(seed: int) -> dict[str, Any]:
    if seed == 2:
        raise ValueError("no bench")
    return {"seed": seed}


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manifests, "verify_instance", _scripted_entry)


@pytest.mark.usefixtures("scripted")
def test_a_screen_in_workers_keeps_the_serial_screens_seeds_and_rejections_in_order() -> None:
    serial = manifests.screen("bench", released=5)
    assert serial.seeds() == [1, 2, 4, 5, 7]
    assert [entry["seed"] for entry in serial.rejected] == [3, 6]  # none above the last kept seed
    for workers in (2, 3):
        assert manifests.screen("bench", released=5, workers=workers) == serial


def test_a_screen_stops_after_five_times_the_released_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    probed: list[int] = []

    def rejects(experiment: str, seed: int, key: Any = None) -> dict[str, Any]:
        probed.append(seed)
        return _never_passes(experiment, seed)

    monkeypatch.setattr(manifests, "verify_instance", rejects)
    with pytest.raises(RuntimeError, match="fewer than 2 instances pass in 10 seeds"):
        manifests.screen("bench", released=2)
    assert probed == list(range(1, 11))


def test_a_screen_in_workers_stops_after_five_times_the_released_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(manifests, "verify_instance", _never_passes)
    with pytest.raises(RuntimeError, match="fewer than 2 instances pass in 10 seeds"):
        manifests.screen("bench", released=2, workers=2)


def test_a_worker_that_dies_is_an_error_naming_its_seed() -> None:
    with pytest.raises(RuntimeError, match=r"bench seed 2: the process verifying it died \(exit code 3\)"):
        list(manifests.verified_in_order(_dies_at_seed_two, [1, 2, 3], workers=2, what="bench"))


def test_a_verification_that_raises_in_a_worker_names_its_seed_and_error() -> None:
    with pytest.raises(RuntimeError, match="bench seed 2: ValueError: no bench"):
        list(manifests.verified_in_order(_raises_at_seed_two, [1, 2, 3], workers=2, what="bench"))


RELEASED = _scripted_entry("bench", 4)


@pytest.mark.parametrize(
    ("change", "problems"),
    [
        ({}, []),
        ({"reference_e": 0.059, "sim_time_s": 64.9}, []),  # another machine's floating point
        ({"reference_e": 0.07}, ["reference_e 0.07 here, 0.04 released (tolerance 0.02)"]),
        ({"sim_time_s": 65.5}, ["sim_time_s 65.5 here, 64.0 released (tolerance 1)"]),
        ({"stop_stage": "time budget"}, ["stop_stage 'time budget' here, 'submitted' released"]),
        ({"instance_id": "other"}, ["instance_id 'other' here, 'bench-4' released"]),
        (
            {"success": False},
            ["the reference no longer passes (success False, e = 0.04)", "success False here, True released"],
        ),
        (
            {"failure": "LabError: refused"},
            ["the reference raised LabError: refused"],
        ),
    ],
)
def test_a_rerun_matches_its_released_entry_within_the_stated_tolerances(
    change: dict[str, Any], problems: list[str]
) -> None:
    assert manifests.differences(RELEASED, {**RELEASED, **change}) == problems


def test_a_rerun_above_half_the_tolerance_no_longer_passes_even_when_released_so() -> None:
    released = {**RELEASED, "reference_e": 0.49}
    assert manifests.differences(released, {**released, "reference_e": 0.505}) == [
        "the reference no longer passes (success True, e = 0.505)"
    ]


def _released_but_seed_three_drifted(experiment: str, seed: int, key: Any = None) -> dict[str, Any]:
    entry = next(e for e in manifests.load(experiment).instances if e["seed"] == seed)
    return {**entry, "reference_e": entry["reference_e"] + 0.1} if seed == 3 else dict(entry)


def test_the_check_reruns_every_reference_prints_a_line_each_and_fails_on_a_drift(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(manifests, "verify_instance", _released_but_seed_three_drifted)
    assert main(["verify-instances", "--suite", "lab", "--check", "--task", "hookes_law"]) == 1
    out = capsys.readouterr().out
    seeds = manifests.load("hookes_law").seeds()
    assert sum(f"hookes_law seed {seed}: e = " in out for seed in seeds) == len(seeds)
    assert out.count(": matches") == len(seeds) - 1
    assert "hookes_law seed 3: reference_e" in out and "1 problem(s) in the expert runs" in out


def test_the_check_passes_when_every_rerun_matches(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = manifests.load("hookes_law")
    manifest.save(tmp_path)
    entries = {entry["seed"]: entry for entry in manifest.instances}
    monkeypatch.setattr(manifests, "verify_instance", lambda _, seed, key=None: dict(entries[seed]))
    arguments = [
        "verify-instances",
        "--suite",
        "lab",
        "--check",
        "--task",
        "hookes_law",
        "--out",
        str(tmp_path),
    ]
    assert main(arguments) == 0
    assert "every expert run of 1 task(s) matches its manifest" in capsys.readouterr().out


def test_ids_only_reruns_no_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    def must_not_run(*_: Any, **__: Any) -> dict[str, Any]:
        raise AssertionError("a reference ran under --ids-only")

    monkeypatch.setattr(manifests, "verify_instance", must_not_run)
    assert main(["verify-instances", "--suite", "lab", "--check", "--ids-only", "--task", "hookes_law"]) == 0
