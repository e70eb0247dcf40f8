"""The trajectory diagnostics of a run's episodes as extra panels of their viewers (``viewer.html``).

For every episode some rater judged: per kind of rater (human annotators, then LLM judges) the majority
label of each criterion (NA when its gate is inactive) and gate, every rater's answer and
justification; then the episode's automatic signals, with links to the steps that support them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from actloop.suites.vabench.diagnostics.aggregate import (
    EpisodeLabels,
    RaterValues,
    label_values,
    rater_values,
)
from actloop.suites.vabench.diagnostics.evidence import episode_evidence, run_episodes
from actloop.suites.vabench.diagnostics.records import GATE_ITEMS, RATER_KINDS, RaterKind, read_judgments
from actloop.suites.vabench.diagnostics.rubric import CRITERIA
from actloop.suites.vabench.diagnostics.signals import episode_signals

Panel = dict[str, Any]
"""A viewer panel (see :data:`actloop.viewer.page.Panel`)."""

KIND_TITLES: dict[RaterKind, str] = {"human": "human annotators", "judge": "LLM judges"}
ITEM_NAMES = {
    "gate:ambiguity": "ambiguity gate (AE)",
    "gate:recovery": "recovery gate (ED, OC, PF)",
    **{c.code: f"{c.code} {c.name}" for c in CRITERIA},
}


def label_panels(run_dir: Path) -> dict[str, list[Panel]]:
    """The panels of every judged episode of ``run_dir``, by record directory name (none without records)."""
    judgments = read_judgments(run_dir)
    notes = judgments.justifications()
    panels: dict[str, list[Panel]] = {}
    for kind in RATER_KINDS:
        values = rater_values(judgments, kind)
        kind_notes = {(rater, vote): found for (k, rater, vote), found in sorted(notes.items()) if k == kind}
        for episode, labels in label_values(values).items():
            panel = labels_panel(kind, episode, labels, values, kind_notes)
            panels.setdefault(episode, []).append(panel)
    for recorded in run_episodes(run_dir):
        if recorded.name in panels:
            panels[recorded.name].append(signals_panel(episode_evidence(recorded.record_dir)))
    return panels


def labels_panel(
    kind: RaterKind,
    episode: str,
    labels: EpisodeLabels,
    values: RaterValues,
    notes: dict[tuple[str, int], dict[str, dict[str, str]]],
) -> Panel:
    """One kind of rater's labels of one episode: the label per item (NA when its gate is inactive), each
    rater's answer (``values``: :func:`rater_values`) and justification (``notes``: by rater and vote)."""
    raters = sorted(values)
    rows = []
    for item in (*GATE_ITEMS, *(c.code for c in CRITERIA)):
        if item in GATE_ITEMS:
            shown = _label(labels.gates[item], labels.positives[item], labels.raters[item])
        elif labels.applies(item) is False:
            shown = "NA"
        else:
            shown = _label(labels.labels[item], labels.positives[item], labels.raters[item])
        answers = [_answer(values[rater].get(episode, {}).get(item)) for rater in raters]
        rows.append([ITEM_NAMES[item], shown, *answers])
    lines = [
        f"{rater}{f' vote {vote}' if kind == 'judge' else ''} · {item}: {text}"
        for (rater, vote), episodes in notes.items()
        for item, text in episodes.get(episode, {}).items()
    ]
    incomplete = sum(labels.missing.values())
    return {
        "title": f"Trajectory labels · {KIND_TITLES[kind]}",
        "note": f"majority of {len(raters)} rater(s); NA: the gate is inactive"
        + (f"; {incomplete} answer(s) missing" if incomplete else ""),
        "columns": ["item", "label", *raters],
        "rows": rows,
        "notes": lines,
    }


def signals_panel(evidence: dict[str, Any]) -> Panel:
    return {
        "title": "Automatic signals",
        "note": "computed from the record: evidence to look at, never labels",
        "columns": ["signal", "value", "steps", "detail"],
        "rows": [[s.name, s.value, {"steps": list(s.steps)}, s.detail] for s in episode_signals(evidence)],
    }


def _label(label: int | None, positive: int, total: int) -> Any:
    if label is None:
        return "–"
    return {"text": f"{'yes' if label else 'no'} ({positive} of {total})", "tone": "yes" if label else "no"}


def _answer(value: int | None) -> Any:
    if value is None:
        return "–"
    return {"text": "yes" if value else "no", "tone": "yes" if value else "no"}
