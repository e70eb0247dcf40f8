"""Annotation records: one append-only file per rater, the latest answer wins, nothing is dropped silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actloop.errors import RecordError
from actloop.suites.vabench.diagnostics.records import (
    Judgment,
    append_judgment,
    read_judgments,
    record_path,
)

EPISODE = "grasp_single_cube__seed0__run1"


def test_latest_answer_wins_and_every_line_is_kept(tmp_path: Path) -> None:
    append_judgment(tmp_path, Judgment("ann1", "human", EPISODE, "TL", 1))
    append_judgment(tmp_path, Judgment("ann1", "human", EPISODE, "TL", 0, justification="missed the cube"))
    append_judgment(tmp_path, Judgment("ann1", "human", EPISODE, "gate:recovery", 1))
    append_judgment(tmp_path, Judgment("ann1", "human", EPISODE, "gate:recovery", None))
    found = read_judgments(tmp_path)
    assert found.problems == []
    assert len(found.judgments) == 4
    assert found.current() == {("human", "ann1", 0): {EPISODE: {"TL": 0}}}
    assert found.justifications() == {("human", "ann1", 0): {EPISODE: {"TL": "missed the cube"}}}
    lines = record_path(tmp_path, "human", "ann1").read_text().splitlines()
    assert [json.loads(line)["value"] for line in lines] == [1, 0, 1, None]


def test_judge_votes_are_kept_apart(tmp_path: Path) -> None:
    for vote, value in enumerate((1, 0, 1)):
        append_judgment(tmp_path, Judgment("judge-a", "judge", EPISODE, "MP", value, vote=vote))
    current = read_judgments(tmp_path).current()
    assert {key: v[EPISODE]["MP"] for key, v in current.items()} == {
        ("judge", "judge-a", 0): 1,
        ("judge", "judge-a", 1): 0,
        ("judge", "judge-a", 2): 1,
    }
    assert read_judgments(tmp_path).raters("judge") == ["judge-a"]
    assert read_judgments(tmp_path).raters("human") == []


@pytest.mark.parametrize(
    "kwargs",
    [
        {"item": "XX"},
        {"value": 2},
        {"value": True},
        {"value": 1.0},
        {"value": "1"},
        {"rater": "../evil"},
        {"rater": ""},
        {"rater": "alice\n"},
        {"rater": "a" * 65},
        {"episode": "../x"},
        {"episode": []},
        {"item": ["TL"]},
        {"justification": 7},
        {"vote": 1.0},
        {"kind": "robot"},
        {"vote": -1},
    ],
)
def test_malformed_judgments_are_refused(kwargs: dict) -> None:
    fields = {"rater": "ann1", "kind": "human", "episode": EPISODE, "item": "TL", "value": 1} | kwargs
    with pytest.raises(RecordError):
        Judgment(**fields)


def test_torn_foreign_and_stale_lines_are_reported_not_used(tmp_path: Path) -> None:
    path = append_judgment(tmp_path, Judgment("ann1", "human", EPISODE, "TL", 1))
    stale = Judgment("ann1", "human", EPISODE, "SR", 1).to_json() | {"rubric_digest": "0" * 64}
    foreign = Judgment("ann2", "human", EPISODE, "SR", 1).to_json()
    with path.open("a") as f:
        f.write(json.dumps(stale) + "\n" + json.dumps(foreign) + "\n" + '{"rater": "ann1", "item"\n')
    found = read_judgments(tmp_path)
    assert [(j.item, j.value) for j in found.judgments] == [("TL", 1)]
    assert len(found.problems) == 3
    assert any("another rubric" in p for p in found.problems)
    assert any("ann2" in p for p in found.problems)
