"""``actloop report`` on a synthetic 10-episode run annotated by three scripted annotators: table 28, the
criterion scores, the robustness rows and the chart against a hand computation.

Episodes (model m/a, active, run 1): E1-E4 grasp_single_cube seeds 1-4, E5-E6 place_single_cube seeds 1-2
(single-arm), E7-E9 lift_pot seeds 1-3 (dual-arm), E10 place_single_cube seed 3, a harness error nobody
annotates. Positive judgments out of 3 per applicable item (values by ann1, ann2, ann3):

gate:ambiguity  1 everywhere except E9 (1, 0, 0) -> 0: AE is NA on E9 (the AE answers there are ignored)
gate:recovery   E1-E4 (0, 0, 0); E5 (1, 1, 0) -> 1; E6 (0, 0, 1) -> 0 (ann3's ED/OC/PF there are ignored);
                E7-E9 (1, 1, 1): ED/OC/PF apply on E5, E7, E8, E9
TL  3 on every episode                      MS  3 everywhere; ann3 left MS of E4 unanswered (2 of 2)
AE  E1-E8: 3 3 3 0 0 0 2 1                   MP  E1-E3: 3, others 0
SR  3 everywhere except E9: 2                FG  E1 3, E2 2, E3 1, others 0
ED  E5 E7 E8 E9: 2 3 3 0    OC  0 0 1 0     PF  3 3 0 0
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from report_records import row, write_dir

from actloop.cli import main
from actloop.suites.vabench.diagnostics.records import Judgment, append_judgment

CUBE, PLACE, POT = "grasp_single_cube", "place_single_cube", "lift_pot"
EPISODES = {
    "E1": (CUBE, 1),
    "E2": (CUBE, 2),
    "E3": (CUBE, 3),
    "E4": (CUBE, 4),
    "E5": (PLACE, 1),
    "E6": (PLACE, 2),
    "E7": (POT, 1),
    "E8": (POT, 2),
    "E9": (POT, 3),
}
SPLIT = {3: (1, 1, 1), 2: (1, 1, 0), 1: (0, 0, 1), 0: (0, 0, 0)}
"""Positive count -> the three annotators' values."""
POSITIVES = {
    "TL": dict.fromkeys(EPISODES, 3),
    "AE": {"E1": 3, "E2": 3, "E3": 3, "E4": 0, "E5": 0, "E6": 0, "E7": 2, "E8": 1, "E9": 3},
    "SR": {**dict.fromkeys(EPISODES, 3), "E9": 2},
    "MS": dict.fromkeys(EPISODES, 3),
    "MP": {e: 3 if e in ("E1", "E2", "E3") else 0 for e in EPISODES},
    "FG": {e: {"E1": 3, "E2": 2, "E3": 1}.get(e, 0) for e in EPISODES},
    "ED": {"E5": 2, "E6": 1, "E7": 3, "E8": 3, "E9": 0},
    "OC": {"E5": 0, "E6": 1, "E7": 0, "E8": 1, "E9": 0},
    "PF": {"E5": 3, "E6": 1, "E7": 3, "E8": 0, "E9": 0},
}
GATES = {
    "gate:ambiguity": {**dict.fromkeys(EPISODES, (1, 1, 1)), "E9": (1, 0, 0)},
    "gate:recovery": {
        **dict.fromkeys(("E1", "E2", "E3", "E4"), (0, 0, 0)),
        "E5": (1, 1, 0),
        "E6": (0, 0, 1),
        **dict.fromkeys(("E7", "E8", "E9"), (1, 1, 1)),
    },
}


def record_name(episode: str) -> str:
    task, seed = EPISODES[episode]
    return f"{task}__seed{seed}__run1__active"


def annotated_run(directory: Path) -> Path:
    rows = [row(task, seed, 1, "fail" if seed % 2 else "success") for task, seed in EPISODES.values()]
    write_dir(directory, [*rows, row(PLACE, 3, 1, "error")])
    for rater_index, rater in enumerate(("ann1", "ann2", "ann3")):
        for item, per_episode in GATES.items():
            for episode, values in per_episode.items():
                value = values[rater_index]
                append_judgment(directory, Judgment(rater, "human", record_name(episode), item, value))
        for code, counts in POSITIVES.items():
            for episode, positives in counts.items():
                if (code, episode, rater) == ("MS", "E4", "ann3"):
                    continue
                value = SPLIT[positives][rater_index]
                append_judgment(directory, Judgment(rater, "human", record_name(episode), code, value))
    return directory


def markdown_section(text: str, title_start: str) -> list[list[str]]:
    """The data rows of the Markdown table whose title starts with ``title_start``."""
    section = text[text.index(f"### {title_start}") :].split("\n### ")[0]
    lines = [line for line in section.splitlines() if line.startswith("|")][2:]
    return [[cell.strip().strip("*") for cell in line.strip("|").split("|")] for line in lines]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = annotated_run(tmp_path_factory.mktemp("diagnostics") / "run")
    out = run.parent / "report"
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["report", str(run), "--out", str(out), "--no-viewers"]) == 0
    (out / "printed.md").write_text(printed.getvalue())
    return out


@pytest.mark.parametrize("source", ["report.md", "printed.md"])
def test_table28_equals_the_hand_computation(report: Path, source: str) -> None:
    """The written report and what ``actloop report`` prints hold the same table 28."""
    rows = {r[1]: r for r in markdown_section((report / source).read_text(), "Agreement among the 3")}
    # TL, MS: every judgment positive -> unanimity 100 %, Fleiss kappa undefined (chance agreement 1), AC1 1
    # AE (8 items, E9 NA): P = (6 + 2/3)/8 = 5/6, p1 = 12/24 -> kappa = AC1 = (5/6 - 1/2)/(1/2) = 2/3
    # SR: P = (8 + 1/3)/9 = 25/27, p1 = 26/27 -> kappa = (675 - 677)/(729 - 677) = -1/26,
    #     AC1 p_e = 2 (26/27)(1/27) = 52/729 -> AC1 = (675 - 52)/(729 - 52) = 623/677
    # MP: unanimous, p1 = 1/3 -> kappa = AC1 = 1
    # FG: P = (7 + 2/3)/9 = 69/81, p1 = 6/27 = 2/9 -> P_e = 53/81 -> kappa = 16/28; AC1 = (69 - 28)/(81 - 28)
    # ED (E5 E7 E8 E9: 2 3 3 0): P = 5/6, p1 = 2/3 -> kappa = (5/6 - 5/9)/(4/9) = 5/8; AC1 = (5/6 - 4/9)/(5/9)
    # OC (0 0 1 0): P = 5/6, p1 = 1/12 -> kappa = -1/11, AC1 = 49/61;  PF (3 3 0 0): kappa = AC1 = 1
    expected = {
        "TL": ["SPU", "TL", "9", "100.00%", "1.000", "NA", "1.000"],
        "AE": ["SPU", "AE", "8", "75.00%", "0.500", f"{2 / 3:.3f}", f"{2 / 3:.3f}"],
        "SR": ["SPU", "SR", "9", f"{100 * 8 / 9:.2f}%", "1.000", f"{-1 / 26:.3f}", f"{623 / 677:.3f}"],
        "MS": ["RM", "MS", "8", "100.00%", "1.000", "NA", "1.000"],
        "MP": ["RM", "MP", "9", "100.00%", f"{1 / 3:.3f}", "1.000", "1.000"],
        "FG": ["RM", "FG", "9", f"{100 * 7 / 9:.2f}%", f"{2 / 9:.3f}", f"{16 / 28:.3f}", f"{41 / 53:.3f}"],
        "ED": ["ER", "ED", "4", "75.00%", "0.750", f"{5 / 8:.3f}", f"{7 / 10:.3f}"],
        "OC": ["ER", "OC", "4", "75.00%", "0.000", f"{-1 / 11:.3f}", f"{49 / 61:.3f}"],
        "PF": ["ER", "PF", "4", "100.00%", "0.500", "1.000", "1.000"],
        # pooled: 64 items (MS of E4 is incomplete), 7 split; 119 of 192 judgments positive;
        # P = (57 + 7/3)/64 = 178/192; kappa = (178*192 - (119^2 + 73^2))/(192^2 - (119^2 + 73^2))
        # = (34176 - 19490)/(36864 - 19490); AC1 = (34176 - 2*119*73)/(36864 - 2*119*73); 40 majority 1s
        "All criteria": ["SPU, RM, ER", "All criteria", "64", f"{100 * 57 / 64:.2f}%", f"{40 / 64:.3f}",
                         f"{14686 / 17374:.3f}", f"{16802 / 19490:.3f}"],
        # without FG: 55 items, 5 split, 113 of 165 positive: P = (50 + 5/3)/55 = 155/165;
        # kappa = (155*165 - (113^2 + 52^2))/(165^2 - (113^2 + 52^2)); AC1 with 2*113*52; 38 majority 1s
        "All except FG": ["SPU, RM, ER", "All except FG", "55", f"{100 * 50 / 55:.2f}%", f"{38 / 55:.3f}",
                          f"{10102 / 11752:.3f}", f"{13823 / 15473:.3f}"],
    }  # fmt: skip
    assert rows == expected
    with (report / "table28_agreement.csv").open() as handle:
        pooled = {r["criterion"]: r for r in csv.DictReader(handle)}["All criteria"]
    assert float(pooled["fleiss_kappa"]) == pytest.approx(14686 / 17374, abs=1e-6)
    assert float(pooled["gwet_ac1"]) == pytest.approx(16802 / 19490, abs=1e-6)
    assert pooled["incomplete"] == "1" and pooled["raters"] == "3"
    notes = (report / "report.md").read_text()
    assert "Fleiss κ of TL: every judgment is the same: chance agreement is 1" in notes
    assert "1 applicable item(s) left out" in notes


def test_scores_gates_and_coverage(report: Path) -> None:
    text = (report / "report.md").read_text()
    (pooled,) = markdown_section(text, "Trajectory diagnostics (%), base tasks pooled")
    # majority labels: AE 1 1 1 0 0 0 1 0 (E9 NA); ED on E5 E7 E8 E9: 1 1 1 0; MS of E4: 2 of 2 -> 1
    assert pooled == [
        "m/a (active)", "human (3)", "9/10", "100.0 (9/9)", "50.0 (4/8)", "100.0 (9/9)", "100.0 (9/9)",
        "33.3 (3/9)", "22.2 (2/9)", "75.0 (3/4)", "0.0 (0/4)", "50.0 (2/4)", "1",
    ]  # fmt: skip
    (er,) = markdown_section(text, "Base-task error recovery")
    # single-arm: only E5 has an error (E6's gate is 0); dual-arm: E7 E8 E9
    assert er[2:] == ["100.0 (1/1)", "0.0 (0/1)", "100.0 (1/1)", "66.7 (2/3)", "0.0 (0/3)", "33.3 (1/3)"]
    assert "episodes without a label, out of the denominators" in text  # the unannotated error episode
    (robust,) = markdown_section(text, "Robustness to the label rule")
    majority = (1 + 4 / 8 + 1 + 1 + 3 / 9 + 2 / 9 + 3 / 4 + 0 + 2 / 4) / 9
    strict = (1 + 3 / 8 + 8 / 9 + 1 + 3 / 9 + 1 / 9 + 2 / 4 + 0 + 2 / 4) / 9
    permissive = (1 + 5 / 8 + 1 + 1 + 3 / 9 + 3 / 9 + 3 / 4 + 1 / 4 + 2 / 4) / 9
    assert robust[2:5] == [f"{100 * v:.1f}" for v in (majority, strict, permissive)]
    assert robust[7] == f"{100 * (permissive - strict):.2f}"
    (modules,) = markdown_section(text, "Module-level diagnostics")
    assert "all annotated episodes" in text and modules[2] == f"{100 * (1 + 0.5 + 1) / 3:.1f} (n 9/8/9)"


def test_html_has_the_criteria_chart(report: Path) -> None:
    html = (report / "report.html").read_text()
    chart = html[html.index('<svg xmlns="http://www.w3.org/2000/svg" class="chart diagnostics"') :]
    chart = chart[: chart.index("</svg>")]
    assert len(re.findall(r'<rect class="bar"', chart)) == 9  # one condition; OC, at 0 %, has a zero bar
    assert "m/a (active) · AE: 50.0 % (4/8)" in chart
    assert html.index('id="table11_diagnostics"') < html.index("Trajectory diagnostics by criterion")


def majority(positives: int) -> int:
    return int(positives >= 2)


def judge_labels(directory: Path) -> None:
    """judge-a: the human majority everywhere except AE on E4 (1) and the ambiguity gate and AE on E9 (1);
    TL on E1 gets three votes, 1 0 1, that collapse to 1."""

    def judge(episode: str, item: str, value: int, vote: int = 0) -> None:
        append_judgment(directory, Judgment("judge-a", "judge", record_name(episode), item, value, vote=vote))

    for item, per_episode in GATES.items():
        for episode, values in per_episode.items():
            judge(episode, item, 1 if (item, episode) == ("gate:ambiguity", "E9") else majority(sum(values)))
    for code, counts in POSITIVES.items():
        for episode, positives in counts.items():
            judge(
                episode, code, 1 if (code, episode) in (("AE", "E4"), ("AE", "E9")) else majority(positives)
            )
    for vote, value in enumerate((1, 0, 1)):
        judge("E1", "TL", value, vote=vote)


def test_chart_renders_in_chromium(report: Path, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto((report / "report.html").resolve().as_uri())
    bars = page.locator("svg.diagnostics rect.bar")
    assert bars.count() == 9
    heights = [bars.nth(i).bounding_box()["height"] for i in range(9)]
    # TL 100 %, AE 50 %, ..., OC 0 %: drawn heights follow the rates on the 220-pixel axis
    rates = [100, 50, 100, 100, 100 / 3, 200 / 9, 75, 0, 50]
    assert heights == pytest.approx([2.2 * r for r in rates], abs=0.6)
    assert page.locator("svg.diagnostics").bounding_box()["width"] > 400 and errors == []
    page.close()


def test_human_judge_agreement_and_judge_only_runs(tmp_path: Path) -> None:
    both = annotated_run(tmp_path / "both")
    judge_labels(both)
    assert main(["report", str(both), "--out", str(tmp_path / "r1"), "--no-viewers"]) == 0
    text = (tmp_path / "r1" / "report.md").read_text()
    rows = {r[0]: r for r in markdown_section(text, "Human majority vs judge labels")}
    # AE applies on E1-E8 under both (the humans' gate is 0 on E9): human 1 1 1 0 0 0 1 0, judge adds E4
    # p_o = 7/8; p_e = (4/8)(5/8) + (4/8)(3/8) = 1/2 -> kappa = (7/8 - 1/2)/(1/2) = 3/4
    assert rows["AE"][1:] == ["8", "4", "0", "1", "3", "0.875", "0.750"]
    # the ambiguity gate: both 1 on E1-E8, judge only on E9: p_o = 8/9 = p_e -> kappa 0
    assert rows["gate:ambiguity"][1:] == ["9", "8", "0", "1", "0", f"{8 / 9:.3f}", "0.000"]
    # TL: every label 1 on both sides (the judge's E1 votes 1 0 1 collapse to 1): kappa undefined
    assert rows["TL"][1:] == ["9", "9", "0", "0", "0", "1.000", "NA"]
    (pooled,) = markdown_section(text, "Trajectory diagnostics (%), base tasks pooled")
    assert pooled[1] == "human (3)"  # humans take precedence over the judge
    assert "Agreement among the 3 human annotators" in text and "Agreement among the 1" not in text

    alone = write_dir(
        tmp_path / "judge_only", [row(task, seed, 1, "fail") for task, seed in EPISODES.values()]
    )
    judge_labels(alone)
    assert main(["report", str(alone), "--out", str(tmp_path / "r2"), "--no-viewers"]) == 0
    text = (tmp_path / "r2" / "report.md").read_text()
    (pooled,) = markdown_section(text, "Trajectory diagnostics (%), base tasks pooled")
    # judge AE: 1 1 1 1 0 0 1 0 1 over all nine episodes (its own gate is 1 on E9)
    assert pooled[1:5] == ["judge (1)", "9/9", "100.0 (9/9)", "66.7 (6/9)"]
    assert "Judge labels, not human annotation: m/a (active)." in text
    assert "Agreement among" not in text and "Human majority vs judge" not in text


def test_no_diagnostics_no_tables(tmp_path: Path) -> None:
    run = write_dir(tmp_path / "plain", [row(CUBE, 1, 1, "success")])
    assert main(["report", str(run), "--out", str(tmp_path / "r"), "--no-viewers"]) == 0
    assert "Trajectory diagnostics" not in (tmp_path / "r" / "report.md").read_text()
    assert not (tmp_path / "r" / "table11_diagnostics.csv").exists()


def test_problems_become_report_notes_and_na_is_drawn(tmp_path: Path) -> None:
    run = write_dir(tmp_path / "run", [row(CUBE, 1, 1, "success")])
    name = record_name("E1")
    for rater in ("ann1", "ann2"):
        append_judgment(run, Judgment(rater, "human", name, "gate:recovery", 0))
        append_judgment(run, Judgment(rater, "human", name, "TL", 1))
    append_judgment(run, Judgment("ann1", "human", "no_such_episode", "TL", 1))
    append_judgment(run, Judgment("ann2", "human", name, "SR", 1, rubric_digest="0" * 16))
    assert main(["report", str(run), "--out", str(tmp_path / "r"), "--no-viewers"]) == 0
    text = (tmp_path / "r" / "report.md").read_text()
    assert "judgments of 1 episode(s) the report does not hold, left out: no_such_episode" in text
    assert "left out 1 judgment(s) made under another rubric" in text
    (pooled,) = markdown_section(text, "Trajectory diagnostics (%), base tasks pooled")
    # neither rater answered the ambiguity gate or SR, MS, MP, FG: 2 x 5 missing judgments; AE (gate
    # undecided) and those four are unlabeled, ED/OC/PF are NA (gate 0); all print NA
    assert pooled[3:] == ["100.0 (1/1)", "NA", "NA", "NA", "NA", "NA", "NA", "NA", "NA", "10"]
    html = (tmp_path / "r" / "report.html").read_text()
    chart = html[html.index('class="chart diagnostics"') :].split("</svg>")[0]
    assert chart.count('<rect class="bar"') == 1 and chart.count('<text class="na"') == 8
