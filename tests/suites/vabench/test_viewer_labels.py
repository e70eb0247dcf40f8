"""Labels in the episode viewer: the majority per criterion (NA behind an inactive gate), every rater's
answer and justification, the signals; written by ``actloop report`` when the run holds judgments."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from actloop.report.build import build_report
from actloop.suites.vabench.diagnostics.records import Judgment, append_judgment
from actloop.suites.vabench.diagnostics.viewer_labels import label_panels

sys.path.insert(0, str(Path(__file__).parents[2] / "report"))
from report_records import lookup, row, write_dir

FIRST, SECOND = (f"grasp_single_cube__seed{seed}__run1__active" for seed in (1, 2))
NOTE = "</script><script>window.__pwned = 1</script> the cube is centred"


def annotated_run(tmp_path: Path) -> Path:
    """Two episodes; three annotators and one judge (two votes) on the first only."""
    run = write_dir(tmp_path / "run", [row("grasp_single_cube", s, 1, "fail") for s in (1, 2)])
    answers = {
        "alice": {"gate:ambiguity": 0, "gate:recovery": 1, "TL": 1, "ED": 1},
        "bob": {"gate:ambiguity": 0, "gate:recovery": 1, "TL": 1, "ED": 0},
        "carol": {"gate:ambiguity": 1, "gate:recovery": 0, "TL": 0, "AE": 1},
    }
    for rater, items in answers.items():
        for item, value in items.items():
            note = NOTE if (rater, item) == ("alice", "TL") else None
            append_judgment(run, Judgment(rater, "human", FIRST, item, value, justification=note))
    for vote, value in enumerate((1, 1)):
        append_judgment(run, Judgment("judge-a", "judge", FIRST, "TL", value, vote=vote, justification="ok"))
    return run


def cells(panel: dict, item: str) -> list:
    row = next(r for r in panel["rows"] if r[0].startswith(item))
    return [cell if not isinstance(cell, dict) else cell.get("text", cell.get("steps")) for cell in row[1:]]


def test_the_panels_of_a_judged_episode(tmp_path: Path) -> None:
    panels = label_panels(annotated_run(tmp_path))
    assert list(panels) == [FIRST]  # the second episode was never judged
    human, judge, signals = panels[FIRST]
    assert human["columns"] == ["item", "label", "alice", "bob", "carol"]
    assert cells(human, "recovery gate") == ["yes (2 of 3)", "yes", "yes", "no"]
    assert cells(human, "ambiguity gate") == ["no (1 of 3)", "no", "no", "yes"]
    assert cells(human, "AE") == ["NA", "–", "–", "yes"]  # the majority gate is inactive
    assert cells(human, "TL") == ["yes (2 of 3)", "yes", "yes", "no"]
    assert cells(human, "ED") == ["no (1 of 2)", "yes", "no", "–"]  # carol's gate said no: not asked
    assert cells(human, "SR") == ["–", "–", "–", "–"]  # applies, nobody judged it: no label
    assert human["notes"] == [f"alice · TL: {NOTE}"] and "answer(s) missing" in human["note"]
    assert judge["title"].endswith("LLM judges") and cells(judge, "TL") == ["yes (1 of 1)", "yes"]
    assert judge["notes"] == ["judge-a vote 0 · TL: ok", "judge-a vote 1 · TL: ok"]
    assert signals["rows"][0] == ["refused_actions", 0, {"steps": []}, "none"]
    assert signals["rows"][4][:3] == ["camera_before_contact", 0, {"steps": []}]


def test_a_run_without_judgments_has_no_panels(tmp_path: Path) -> None:
    run = write_dir(tmp_path / "run", [row("grasp_single_cube", 1, 1, "fail")])
    assert label_panels(run) == {}


def test_the_report_writes_the_labels_into_the_viewer(tmp_path: Path) -> None:
    run = annotated_run(tmp_path)
    build_report([run], tmp_path / "out", lookup=lookup)
    page = (run / "episodes" / FIRST / "viewer.html").read_text()
    marker = '<script type="application/json" id="panel-data">'
    start = page.index(marker) + len(marker)
    panels = json.loads(page[start : page.index("</script>", start)])
    assert [p["title"] for p in panels] == [
        "Trajectory labels · human annotators",
        "Trajectory labels · LLM judges",
        "Automatic signals",
    ]
    assert "<script>window.__pwned" not in page  # the justification stays inside the data block
    assert 'id="panel-data"' not in (run / "episodes" / SECOND / "viewer.html").read_text()
