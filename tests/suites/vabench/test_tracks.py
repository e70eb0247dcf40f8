"""The suite's tracks: ``all`` is the headline base suite; held-out variants and the long-horizon track are
selected by name and point at real base families."""

from __future__ import annotations

import pytest

from actloop.core.suite import get_suite
from actloop.errors import UnknownTask
from actloop.suites.vabench.task import BASE_CANDIDATES, HELD_OUT_CANDIDATES, get_task, task_names

SUITE = get_suite("vabench")


def _track(track: str) -> list[str]:
    return [t for t in task_names() if get_task(t).track == track]


def test_all_means_the_base_families_and_everything_means_every_task() -> None:
    base = _track("base")
    assert SUITE.resolve_tasks("all") == base
    assert sorted(SUITE.resolve_tasks("everything")) == task_names()
    assert all(SUITE.task_info(t).base is None for t in base)


def test_track_names_select_their_tasks_and_mix_with_task_names() -> None:
    for track in ("held_out", "long_horizon"):
        members = _track(track)
        if members:
            assert SUITE.resolve_tasks(track) == members
    mixed = SUITE.resolve_tasks("grasp_single_cube,all")
    assert mixed[0] == "grasp_single_cube" and len(mixed) == len(set(mixed)) == len(_track("base"))


def test_an_unknown_name_is_an_unknown_task() -> None:
    with pytest.raises(UnknownTask):
        SUITE.resolve_tasks("held_oot")


def test_variants_name_a_base_family_and_screen_a_disjoint_candidate_pool() -> None:
    for variant in _track("held_out"):
        cls = get_task(variant)
        assert cls.base_task is not None and get_task(cls.base_task).track == "base"
        assert cls.first_candidate == HELD_OUT_CANDIDATES
    for base in _track("base"):
        assert get_task(base).first_candidate == BASE_CANDIDATES
