"""The trajectory viewer's data (pure Python) and the page itself in headless Chromium from file://."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from report_records import row, write_record

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
    assert data["unreadable_lines"] == 1
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
