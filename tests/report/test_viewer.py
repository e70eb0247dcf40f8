"""The trajectory viewer's data (pure Python) and the page itself in headless Chromium from file://."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from report_records import lookup, row, write_dir, write_record

from actloop.cli import main
from actloop.report import build_report
from actloop.viewer import episode_data, write_viewer
from actloop.viewer.page import render_viewer

UNTRUSTED = '</script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & done'


def test_episode_data_groups_events_by_observation(tmp_path: Path) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "success"), steps=3)
    data = episode_data(record)
    assert [s["step"] for s in data["steps"]] == [0, 1, 2]
    assert [len(s["actions"]) for s in data["steps"]] == [1, 1, 0]
    assert [t["type"] for t in data["steps"][0]["turns"]] == ["model_output", "decision"]
    assert data["steps"][1]["frames"] == [
        {"view": "active", "path": "frames/step001_active.png", "exists": True}
    ]
    assert data["result"]["success"] is True and data["episode"]["task"] == "grasp_single_cube"


def test_episode_data_drops_unsafe_frame_paths_and_survives_a_torn_last_line(tmp_path: Path) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"), steps=1)
    (record / "result.json").unlink()
    events = record / "events.jsonl"
    lines = events.read_text().splitlines()
    observation = json.loads(lines[1])
    observation["data"]["frames"] += [
        {"view": "up", "path": "../../etc/passwd"},
        {"view": "js", "path": "javascript:alert(1)"},
    ]
    lines[1] = json.dumps(observation)
    events.write_text("\n".join(lines) + '\n{"type": "obs')
    data = episode_data(record)
    assert [f["path"] for f in data["steps"][0]["frames"]] == ["frames/step000_active.png", None, None]
    assert data["unreadable_lines"] == [
        f"{events}:4: unreadable line, cut off without a line end, so the file is incomplete: "
        "not JSON (Unterminated string starting at: column 10)"
    ]
    assert data["result"]["stop_reason"] == "budget"  # from episode_end when result.json is gone


def test_embedded_data_cannot_close_the_script_element(tmp_path: Path) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"), reason=UNTRUSTED)
    page = render_viewer(episode_data(record))
    assert "window.__pwned" in page and "<script>window.__pwned" not in page
    assert page.count("</script>") == 2  # the data block and the page's own script


def test_viewer_in_chromium_steps_with_keys_and_shows_untrusted_text_as_text(
    browser: Any, tmp_path: Path
) -> None:
    record = write_record(
        tmp_path / "ep", row("grasp_single_cube", 1, 1, "success"), steps=4, reason=UNTRUSTED
    )
    viewer = write_viewer(record)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    page.goto(viewer.as_uri())

    def step() -> str:
        return page.text_content("#step-number") or ""

    assert step() == "0"
    page.keyboard.press("ArrowRight")
    assert step() == "1"
    page.keyboard.press("ArrowRight")
    assert step() == "2"
    page.keyboard.press("ArrowLeft")
    assert step() == "1"
    page.keyboard.press("End")
    assert step() == "3"
    page.keyboard.press("ArrowRight")
    assert step() == "3"  # stays on the last step
    assert "the episode ended (success)" in (page.text_content("#actions") or "")
    page.keyboard.press("Home")
    assert step() == "0"
    page.click("#next")
    assert step() == "1"

    src = page.get_attribute("#frames img", "src")
    assert src == "frames/step001_active.png" and (record / unquote(src)).is_file()
    page.wait_for_function("() => document.querySelector('#frames img').complete")  # loaded, or failed to
    assert page.evaluate("document.querySelector('#frames img').naturalWidth") == 16  # loaded from disk

    actions = page.text_content("#actions") or ""
    assert UNTRUSTED in actions and '"distance_mm": 20' in actions
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#actions script, #actions img").count() == 0
    assert "planner: no" in actions and "target unreachable" in actions  # step 1's move failed to plan
    assert "lifted_gt_50mm" in (page.text_content("#checker") or "")
    assert problems == []
    page.close()


def test_extra_panels_show_tables_notes_and_step_links_as_text(browser: Any, tmp_path: Path) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"), steps=4)
    panels = [
        {
            "title": "Labels",
            "note": "majority of 2",
            "columns": ["item", "label", "steps"],
            "rows": [
                ["TL", {"text": "yes (2 of 2)", "tone": "yes"}, {"steps": [2, 3]}],
                [UNTRUSTED, None, 7],
            ],
            "notes": [f"alice · TL: {UNTRUSTED}"],
        }
    ]
    page = browser.new_page()
    page.goto(write_viewer(record, panels).as_uri())
    assert page.text_content("#panels h2") == "Labels"
    cells = page.eval_on_selector_all("#panels td", "cells => cells.map(c => c.textContent)")
    assert cells == ["TL", "yes (2 of 2)", "23", UNTRUSTED, "–", "7"]
    assert page.get_attribute("#panels td.yes", "class") == "yes"
    assert UNTRUSTED in (page.text_content("#panels pre") or "")
    assert (
        page.evaluate("window.__pwned") is None and page.locator("#panels script, #panels img").count() == 0
    )
    page.click("#panels button.step-link >> text=3")
    assert page.text_content("#step-number") == "3"
    page.close()
    assert 'id="panel-data"' not in write_viewer(record).read_text()  # no panels: no block


def _damaged_run(tmp_path: Path) -> tuple[Path, Path]:
    """A run of one episode whose model reply holds a lone surrogate (escaped in the record, as the
    recorder writes it), whose third event line is not UTF-8 and whose last line was cut off."""
    run = write_dir(tmp_path / "run", [row("grasp_single_cube", 1, 1, "fail")])
    events = run / "episodes" / "grasp_single_cube__seed1__run1__active" / "events.jsonl"
    lines = events.read_bytes().splitlines()
    reply = json.loads(lines[2])
    assert reply["type"] == "model_output"
    reply["data"]["text"] = "I see \ud800 a cube"
    lines[2] = json.dumps(reply).encode()
    assert b"\\ud800" in lines[2]
    lines.insert(3, b'{"type": "caf\xe9"}')
    events.write_bytes(b"\n".join(lines) + b'\n{"type": "env_step", "data": {"st')
    return run, events


def test_view_and_report_name_each_unreadable_event_line_and_render_a_lone_surrogate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run, events = _damaged_run(tmp_path)
    last = len(events.read_bytes().split(b"\n"))
    assert main(["view", str(events.parent)]) == 0
    printed = capsys.readouterr().out
    assert f"note: left out of the viewer: {events}:4: unreadable line, not text ('utf-8' codec" in printed
    torn = f"{events}:{last}: unreadable line, cut off without a line end, so the file is incomplete"
    assert f"note: left out of the viewer: {torn}" in printed
    page = (events.parent / "viewer.html").read_bytes().decode("utf-8")  # strictly valid UTF-8
    assert "I see \ufffd a cube" in page and torn in page

    report = build_report([run], tmp_path / "report", lookup=lookup)
    assert list(report.viewers.values()) == [events.parent / "viewer.html"]
    assert not [note for note in report.analysis.notes if note.startswith("no viewer")]
    assert any(note.startswith(f"left out of a viewer: {torn}: not JSON") for note in report.analysis.notes)
    assert main(["report", str(run), "--out", str(tmp_path / "cli")]) == 0
    assert f"note: left out of a viewer: {events}:4: " in capsys.readouterr().out


def test_the_viewer_page_names_unreadable_lines_and_shows_a_lone_surrogate(
    browser: Any, tmp_path: Path
) -> None:
    _, events = _damaged_run(tmp_path)
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda err: problems.append(str(err)))
    page.goto(write_viewer(events.parent).as_uri())
    shown = page.text_content("#unreadable") or ""
    assert f"left out of this viewer: {events}:4: unreadable line" in shown and "cut off" in shown
    assert "I see \ufffd a cube" in (page.text_content("#turns") or "")
    assert problems == []
    page.close()


def test_a_viewer_file_linked_out_of_the_record_is_replaced_not_written_through(tmp_path: Path) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"))
    elsewhere = tmp_path / "elsewhere.html"
    elsewhere.write_text("kept")
    (record / "viewer.html").symlink_to(elsewhere)
    viewer = write_viewer(record)
    assert (
        elsewhere.read_text() == "kept"
        and not viewer.is_symlink()
        and "<!DOCTYPE html>" in viewer.read_text()
    )


def test_the_video_reads_only_frames_inside_the_record_and_never_writes_through_a_link(
    tmp_path: Path,
) -> None:
    record = write_record(tmp_path / "ep", row("grasp_single_cube", 1, 1, "fail"), steps=3)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "step009_active.png").write_bytes(b"not an image")  # would break the video if read
    (record / "frames" / "step009_active.png").symlink_to(elsewhere / "step009_active.png")
    (record / "episode.mp4").symlink_to(elsewhere / "kept.mp4")
    (elsewhere / "kept.mp4").write_text("kept")
    assert main(["view", str(record), "--mp4"]) == 0
    video = record / "episode.mp4"
    assert (
        not video.is_symlink()
        and video.stat().st_size > 100
        and (elsewhere / "kept.mp4").read_text() == "kept"
    )
