"""Failure attribution (§4.5): synthetic runs labelled by hand, one rule at a time, and in the report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from actloop.report import build_report
from actloop.suites.lab.attribution import CAUSES, RULES, RunFacts, attribute
from actloop.suites.lab.scoring import Check, Score, score
from actloop.suites.lab.spec import Quantity

STIFFNESS = Quantity("k", "spring stiffness", "N/m", 0.02)
MINIMUM = "the run must contain ruler readings at 4 or more different loads: valid readings of ruler at [1]"
EV = ("evidence",)


@dataclass(frozen=True)
class Run:
    """A synthetic run: what happened, in words, and the cause a person assigns it."""

    story: str
    label: str | None
    value: float = 10.0
    passed: int = 4
    """Milestones L1..L4 passed (nested)."""
    failed_gates: tuple[str, ...] = ()
    evidence: str = "evidence"
    moved: bool = True
    submitted: bool = True
    evidence_failures: int = 0
    condition_failures: int = 0

    def score(self) -> Score:
        gates = [
            Check(name, name not in self.failed_gates, self.evidence if name == "evidence" else name)
            for name in ("evidence", "conditions", "restored", "refit")
        ]
        milestones = [Check(f"L{i}", i <= self.passed, f"L{i} evidence") for i in range(1, 5)]
        return score({"k": self.value}, {"k": 10.0}, [STIFFNESS], gates, milestones)

    def facts(self) -> RunFacts:
        return RunFacts(self.moved, self.submitted, self.evidence_failures, self.condition_failures)


RUNS = (
    Run("never moved the arm, budget spent", "acting: motion", passed=0, moved=False, submitted=False),
    Run("waved the arm about, never touched the apparatus", "observing: locating", passed=0),
    Run("knocked a weight off the tray, never loaded it", "acting: contact", passed=1),
    Run("cited a misread digit, nothing else valid", "observing: reading", passed=2, evidence_failures=1),
    Run("loaded the spring, never looked at the ruler readably", "observing: locating", passed=2),
    Run("read a swinging tray", "knowing: procedure", passed=3, condition_failures=2),
    Run("submitted one valid reading", "knowing: stopping", passed=3),
    Run("ran out of budget with one valid reading", "knowing: procedure", passed=3, submitted=False),
    Run("valid readings at two loads only", "knowing: stopping", failed_gates=EV, evidence=MINIMUM),
    Run("one misread digit among good ones", "observing: reading", 10.1, 4, EV, evidence_failures=1),
    Run("fitted the wrong line", "knowing: analysis", value=10.5, failed_gates=("refit",)),
    Run("read a moving tray once", "knowing: procedure", failed_gates=("conditions",), condition_failures=1),
    Run("accurate, weights left on the tray", "restoring", failed_gates=("restored",)),
    Run("accurate and tidy", None),
)


@pytest.mark.parametrize("run", RUNS, ids=[r.story for r in RUNS])
def test_each_hand_labelled_run_gets_its_label(run: Run) -> None:
    attribution = attribute(run.score(), run.facts())
    assert (attribution.cause if attribution else None) == run.label
    if attribution:
        assert attribution.group == run.label.split(":")[0]  # type: ignore[union-attr]
        assert attribution.evidence.endswith(")") and "(L" in attribution.evidence


def test_every_level_of_a_failed_run_has_a_rule_and_every_cause_is_known() -> None:
    assert {rule.level for rule in RULES} == set(range(6))
    assert {rule.cause for rule in RULES} == set(CAUSES)
    for level in range(6):
        last = [rule for rule in RULES if rule.level == level][-1]
        assert last.holds(Run("", None).score(), RunFacts(True, True)), f"level {level} has no catch-all"


def lab_row(seed: int, run: Run, protocol: str = "T0") -> dict[str, Any]:
    scored = run.score()
    cause = attribute(scored, run.facts())
    fields = {**scored.to_fields(), "failure_cause": cause.cause if cause else None}
    return {
        "schema": 2, "suite": "lab", "task": "hookes_law", "seed": seed, "run": 1, "model": "m/a",
        "protocol": protocol, "summary": "none", "success": scored.success, "steps": 3, "budget": 60,
        "stop_reason": "success" if scored.success else "stop", "record_dir": None, "duration_s": 1.0,
        **{k: v for k, v in fields.items() if k in ("level", "process_score", "stop_stage", "e",
                                                    "failure_cause")},
    }  # fmt: skip


def test_the_report_counts_causes_per_condition_against_the_hand_labels(tmp_path: Path) -> None:
    rows = [lab_row(seed, run) for seed, run in enumerate(RUNS, 1)]
    rows.append(lab_row(1, RUNS[-2], protocol="T1"))
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    tables = build_report([out], tmp_path / "report", viewers=False).tables
    causes = next(t for t in tables if t.key == "lab_failure_causes")
    t0 = next(r.cells for r in causes.rows if r.cells[1] == "T0")
    labels = [run.label for run in RUNS if run.label]
    assert t0[2] == str(len(labels)) == "13"
    assert t0[3:-1] == [str(labels.count(cause)) for cause in CAUSES]
    assert t0[3:-1] == ["1", "1", "2", "2", "3", "1", "2", "1"]
    assert t0[-1] == "0"
    t1 = next(r.cells for r in causes.rows if r.cells[1] == "T1")
    assert t1[2:] == ["1", *(["0"] * 7), "1", "0"]
    episodes = next(t for t in tables if t.key == "lab_episodes")
    cause = episodes.columns.index("Cause")
    by_seed = {r.cells[3]: r.cells[cause] for r in episodes.rows if r.cells[1] == "T0"}
    assert by_seed == {str(seed): run.label or "–" for seed, run in enumerate(RUNS, 1)}
    stages = [t.key for t in tables]
    assert stages.index("lab_failure_causes") == stages.index("lab_stage_pass_rates") + 1
