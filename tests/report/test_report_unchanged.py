"""A vabench report and viewer stay exactly as they were: the Markdown, the HTML page and an episode's viewer
of a fixed set of synthetic vabench runs against golden copies (the page's time, the run's temporary paths
and the viewer's nonce replaced by placeholders). ``ACTLOOP_WRITE_GOLDEN=1`` rewrites the golden copies
after a deliberate change of the vabench report."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from report_records import lookup, row, write_dir

from actloop.report import build_report

GOLDEN = Path(__file__).parent / "golden"
OUTCOMES = {"grasp_single_cube": "success", "place_single_cube": "fail", "lift_pot": "infra_error"}


def normalised(text: str, root: Path) -> str:
    text = text.replace(str(root.resolve()), "<tmp>").replace(str(root), "<tmp>")
    text = re.sub(r"Generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", "Generated <time>", text)
    return re.sub(r"nonce-[\w-]+'|nonce=\"[\w-]+\"", "<nonce>", text)


def check(name: str, text: str) -> None:
    golden = GOLDEN / name
    if os.environ.get("ACTLOOP_WRITE_GOLDEN") == "1":
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8"), f"{name} differs from its golden copy"


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    rows = [
        row(task, seed, run, outcome if seed == 1 else "success", protocol=protocol)
        for task, outcome in OUTCOMES.items()
        for seed in (1, 2)
        for run in (1, 2)
        for protocol in ("active", "passive")
    ]
    rows += [row("grasp_single_cube_tall", 11, 1, "fail"), row("basket", 1, 1, "success")]
    write_dir(tmp_path / "run", rows)
    build_report([tmp_path / "run"], tmp_path / "out", lookup=lookup)
    return tmp_path


def test_the_vabench_report_markdown_and_page_are_unchanged(report_dir: Path) -> None:
    check("vabench_report.md", normalised((report_dir / "out" / "report.md").read_text(), report_dir))
    check("vabench_report.html", normalised((report_dir / "out" / "report.html").read_text(), report_dir))


def test_a_vabench_viewer_is_unchanged(report_dir: Path) -> None:
    viewer = report_dir / "run" / "episodes" / "place_single_cube__seed1__run1__active" / "viewer.html"
    check("vabench_viewer.html", normalised(viewer.read_text(), report_dir))


def test_the_check_sees_a_changed_page(report_dir: Path) -> None:
    page = normalised((report_dir / "out" / "report.html").read_text(), report_dir)
    with pytest.raises(AssertionError, match="differs from its golden copy"):
        check("vabench_report.html", page.replace("Single-arm", "Single arm"))
