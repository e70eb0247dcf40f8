"""The lab episode viewer: its data from a lab record directory (programs, output, images, verdict, gates,
milestones, citations with their verdicts, the simulated-time line) and the page in headless Chromium."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from actloop.report import build_report
from actloop.suites.lab.episode_view import episode_view
from actloop.suites.lab.model_driver import LAB_RECORD_FILE, LAB_SCORE_FILE
from actloop.suites.lab.record import Record
from actloop.viewer import write_viewer

UNTRUSTED = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & done'
RECORD = "episodes/black_box_resistor__seed1__run1"
PROGRAM = "import lab_client\nlab = lab_client.Lab()\nprint(lab.observe()['robot'])\n"
CITATIONS = [
    {"instrument": "voltmeter", "observation_id": "ab-1", "value": 2.007},
    {"instrument": "ammeter", "observation_id": "ab-1", "value": 9.9},
    {"instrument": "voltmeter", "observation_id": "ab-2", "value": 4.005},
]
VERDICTS = [
    "supply on and box in circuit held at t = 17.9 s",
    "cited 9.9 A, ammeter showed 1.426 A in observation ab-1",
    "supply on and box in circuit did not hold at t = 30.2 s",
]


def png(color: tuple[int, int, int]) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), color).save(buffer, format="PNG")
    return buffer.getvalue()


def lab_result(success: bool = False) -> dict[str, Any]:
    return {
        "schema": 2, "suite": "lab", "task": "black_box_resistor", "seed": 1, "run": 1, "model": "m/a",
        "protocol": "T0", "summary": "none", "success": success, "steps": 2, "budget": 60,
        "stop_reason": "stop", "record_dir": RECORD, "duration_s": 3.0, "e": 0.4, "level": 2,
        "process_score": 20,
        "stop_stage": "first_reading", "failure_cause": "observing: reading",
        "failure_cause_evidence": "a cited value is not what the ammeter showed", "sim_time_s": 41.5,
    }  # fmt: skip


def score_fields() -> dict[str, Any]:
    return {
        "success": False, "e": 0.4, "level": 2, "process_score": 20, "stop_stage": "first_reading",
        "error_R": 0.4,
        "gate_evidence": False,
        "gate_evidence_evidence": f"2 of 3 citations match; citation 1: {VERDICTS[1]}",
        "gate_conditions": False, "gate_conditions_evidence": f"1 of 2 held; citation 1: {VERDICTS[2]}",
        "gate_restored": True, "gate_restored_evidence": "the supply is off and the box is home",
        "milestone_L1": True, "milestone_L1_evidence": "the robot touched the box",
        "milestone_L2": True, "milestone_L2_evidence": "the box was in circuit",
        "milestone_L3": False, "milestone_L3_evidence": "no observation shows both meters readable",
    }  # fmt: skip


def write_lab_record(directory: Path, citations: list[dict[str, Any]] = CITATIONS) -> Path:
    """A lab episode's record directory as the model driver writes it: two programs (the first saving an
    image to look at, its output untrusted text), then the bench record, the score and the result."""
    record_dir = directory / RECORD
    (record_dir / "frames").mkdir(parents=True)
    (record_dir / "frames" / "step001_run1_front.png").write_bytes(png((200, 30, 30)))
    result = lab_result()
    start = {k: result[k] for k in ("suite", "task", "seed", "run", "model", "protocol")}
    images = [{"view": "run1_front", "path": "frames/step001_run1_front.png"},
              {"view": "run1_out", "path": "../../outside.png"}]  # fmt: skip
    events = [
        {"type": "episode_start", "data": start},
        {"type": "model_output", "data": {"call": 1, "text": f"Look first.\n```python\n{PROGRAM}```"}},
        {"type": "decision", "data": {"run": 1, "program": PROGRAM}},
        {"type": "tool_result", "data": {"run": 1, "returncode": 0, "wall_s": 1.2, "stdout": UNTRUSTED,
                                         "stderr": "", "sim_time_s": 12.5, "ended": None,
                                         "images": images}},
        {"type": "model_output", "data": {"call": 2, "text": "```python\nlab.submit(...)\n```"}},
        {"type": "decision", "data": {"run": 2, "program": "lab.submit(...)"}},
        {"type": "tool_result", "data": {"run": 2, "returncode": 1, "wall_s": 0.5, "stdout": "",
                                         "stderr": "Traceback: boom", "sim_time_s": 41.5,
                                         "ended": "submitted", "images": []}},
        {"type": "episode_end", "data": result},
    ]  # fmt: skip
    (record_dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    (record_dir / "result.json").write_text(json.dumps(result))
    record = Record()
    record.append("instrument", {"name": "voltmeter", "unit": "V"})
    record.append("display", {"instrument": "voltmeter", "shown": 0.0, "time_s": 0.0})
    record.append("condition", {"name": "supply on and box in circuit", "start_s": 10.0, "end_s": 28.0})
    record.append("setting", {"time_s": 11.0, "volts": 2.0})
    views = [{"camera": "wrist", "instrument": "voltmeter", "readable": True},
             {"camera": "front", "instrument": "ammeter", "readable": False}]  # fmt: skip
    shown = {"voltmeter": 2.007, "ammeter": 1.426}
    record.append("observation", {"observation_id": "ab-1", "shown": shown, "time_s": 17.9, "views": views})
    record.append("observation", {"observation_id": "ab-2", "shown": shown, "time_s": 30.2, "views": views})
    record.seal({"result": {"R": 1400.0}, "citations": citations, "time_s": 41.5})
    record.save(record_dir / LAB_RECORD_FILE)
    (record_dir / LAB_SCORE_FILE).write_text(json.dumps({"score": score_fields(), "citations": VERDICTS}))
    (directory / "results.jsonl").write_text(json.dumps(result) + "\n")
    return record_dir


def panel(data: dict[str, Any], title: str) -> dict[str, Any]:
    return next(p for p in data["panels"] if p["title"].startswith(title))


def test_the_view_holds_programs_output_images_and_the_verdict(tmp_path: Path) -> None:
    data = episode_view(write_lab_record(tmp_path))
    first, second = data["runs"]
    assert first["program"] == PROGRAM and first["stdout"] == UNTRUSTED and first["reply"].startswith("Look")
    assert first["images"] == [
        {"view": "run1_front", "path": "frames/step001_run1_front.png", "exists": True},
        {"view": "run1_out", "path": None, "exists": False},  # a path leading out of the record is dropped
    ]
    assert (second["returncode"], second["stderr"], second["ended"]) == (1, "Traceback: boom", "submitted")
    assert data["record_status"] == "7 entries, hash chain intact, sealed at the submission"
    gates = {row[0]: row[1]["text"] for row in panel(data, "Gates")["rows"]}
    assert gates == {"evidence": "failed", "conditions": "failed", "restored": "passed"}
    milestones = panel(data, "Milestones")
    assert [row[:3] for row in milestones["rows"]] == [
        ["L1", "act", {"text": "passed", "tone": "yes"}],
        ["L2", "prepare", {"text": "passed", "tone": "yes"}],
        ["L3", "first_reading", {"text": "failed", "tone": "no"}],
    ]
    assert milestones["note"] == "level ℓ = 2, stopped at first_reading"
    assert panel(data, "Submitted result")["rows"] == [["R", 1400.0, 0.4]]


def test_each_citation_sits_beside_its_verdict_refused_ones_marked(tmp_path: Path) -> None:
    rows = panel(episode_view(write_lab_record(tmp_path)), "Citations")["rows"]
    assert [row[1] for row in rows] == [
        "voltmeter in observation ab-1", "ammeter in observation ab-1", "voltmeter in observation ab-2",
    ]  # fmt: skip
    # citation 1 is refused by the evidence gate, citation 2 by its conditions; citation 0 holds
    assert [(row[4]["text"], row[4]["tone"]) for row in rows] == [
        (VERDICTS[0], "yes"), (VERDICTS[1], "no"), (VERDICTS[2], "no"),
    ]  # fmt: skip


def test_verdicts_are_not_paired_when_a_citation_did_not_parse(tmp_path: Path) -> None:
    cited = [*CITATIONS, {"instrument": "voltmeter", "observation_id": "ab-2", "value": "high"}]
    citations = panel(episode_view(write_lab_record(tmp_path, cited)), "Citations")
    assert [row[4] for row in citations["rows"]] == ["–"] * 4
    assert citations["notes"] == VERDICTS and "did not parse" in citations["note"]


def test_the_simulated_time_line_orders_settings_observations_programs_and_the_submission(
    tmp_path: Path,
) -> None:
    line = episode_view(write_lab_record(tmp_path))["timeline"]
    assert [(m["time"], m["label"]) for m in line["marks"]] == [
        (11.0, "setting"), (12.5, "program 1 ended"), (17.9, "observation ab-1"), (30.2, "observation ab-2"),
        (41.5, "program 2 ended"), (41.5, "submitted"),
    ]  # fmt: skip
    assert line["marks"][2]["detail"] == "showed ammeter 1.426, voltmeter 2.007; readable in wrist: voltmeter"
    assert line["spans"] == [{"start": 10.0, "end": 28.0, "label": "supply on and box in circuit"}]
    assert (line["end"], line["displays"]) == (41.5, 1)


def test_a_changed_bench_record_is_reported_not_trusted(tmp_path: Path) -> None:
    record_dir = write_lab_record(tmp_path)
    path = record_dir / LAB_RECORD_FILE
    path.write_text(path.read_text().replace('"volts":2.0', '"volts":3.0'))
    data = episode_view(record_dir)
    assert data["record_status"].startswith(
        "the bench record is not intact: record entry 3 (setting) was changed"
    )
    assert data["timeline"]["marks"] == [m for m in data["timeline"]["marks"] if m["kind"] == "program"]


def test_an_unscored_episode_says_so(tmp_path: Path) -> None:
    record_dir = write_lab_record(tmp_path)
    (record_dir / LAB_SCORE_FILE).unlink()
    (record_dir / LAB_RECORD_FILE).unlink()
    data = episode_view(record_dir)
    assert data["scored"] is False and data["record_status"] == "no bench record (the episode was not scored)"
    assert panel(data, "Gates") == {"title": "Gates", "columns": ["gate", "verdict", "evidence"], "rows": [],
                                    "note": "not scored"}  # fmt: skip


def test_the_lab_viewer_in_chromium_shows_the_episode_as_text(browser: Any, tmp_path: Path) -> None:
    record_dir = write_lab_record(tmp_path)
    report = build_report([tmp_path], tmp_path / "report")
    assert list(report.viewers.values()) == [record_dir / "viewer.html"]
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.goto((record_dir / "viewer.html").as_uri())

    assert page.text_content("h1") == "black_box_resistor · seed 1 · run 1"
    meta = page.text_content("#meta") or ""
    assert "interface level T0" in meta and "2 program(s) run of at most 60" in meta and "41.5 s" in meta
    runs = page.text_content("#runs") or ""
    assert UNTRUSTED in runs and "lab.observe()" in runs and "Traceback: boom" in runs
    assert page.evaluate("window.__pwned") is None and page.locator("#runs script").count() == 0
    assert page.get_attribute("#runs figure img", "src") == "frames/step001_run1_front.png"
    page.wait_for_function(
        "() => document.querySelector('#runs figure img').complete"
    )  # loaded, or failed to
    assert page.evaluate("document.querySelector('#runs figure img').naturalWidth") == 16  # loaded from disk
    assert "frame missing: (unsafe path)" in runs

    verdict = page.text_content("#verdict") or ""
    assert "success: no" in verdict and "observing: reading" in verdict and "hash chain intact" in verdict
    panels = page.text_content("#panels") or ""
    assert "restoredpassedthe supply is off" in panels and "L3first_readingfailed" in panels
    assert page.locator("#panels td.no", has_text=VERDICTS[1]).count() == 1
    assert page.locator("#panels td.yes", has_text=VERDICTS[0]).count() == 1
    assert page.locator("#timeline .mark").count() == 6 and page.locator("#timeline .span").count() == 1
    left = page.get_attribute("#timeline .mark.setting", "style") or ""
    assert "left: 26.51%" in left  # 11 s of 41.5 s
    assert "0 – 41.50 s simulated; 6 events, 1 instrument display readings" in (
        page.text_content("#timeline") or ""
    )
    assert problems == []
    page.close()


@pytest.mark.parametrize("suite", ["vabench", "unknown"])
def test_other_suites_keep_the_step_viewer(tmp_path: Path, suite: str) -> None:
    record_dir = write_lab_record(tmp_path)
    events = record_dir / "events.jsonl"
    events.write_text(events.read_text().replace('"suite": "lab"', f'"suite": "{suite}"'))
    page = write_viewer(record_dir).read_text()
    assert 'id="episode-data"' in page and 'id="lab-episode"' not in page
