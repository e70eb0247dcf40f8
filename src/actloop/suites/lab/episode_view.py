"""The viewer page (``viewer.html``) of a lab episode record.

A lab episode is not a sequence of observations and actions: the model writes programs that act on the
bench through its client. The page shows each program the model ran with what it printed and the images it
saved to look at; the verdict (success, e, level ℓ, process score, where the run stopped, the failure cause);
the gates and the milestones L1–L6 with their evidence; each citation of the submission with the
evaluator's verdict on it; and the simulated-time line of the sealed bench record (the settings made, the
observations served, the measurement conditions while they held, where each program ended, the submission).

What it reads: ``events.jsonl`` (the model's replies, programs and their output), ``result.json``,
``lab_score.json`` (the score fields and one verdict per parsed citation) and ``lab_record.jsonl`` (the bench
record, whose hash chain is checked and reported). Model text is untrusted: the page renders it as text only
(see :mod:`actloop.viewer.assets`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from actloop.errors import RecordError
from actloop.records.recorder import read_events
from actloop.suites.lab.model_driver import LAB_RECORD_FILE, LAB_SCORE_FILE
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import GATES, MILESTONES, STAGES
from actloop.viewer.assets import render_page
from actloop.viewer.steps import episode_result, recorded_frame

Panel = dict[str, Any]
"""A viewer panel (see :data:`actloop.viewer.page.Panel`)."""

FAILED_CITATION = re.compile(r"(?:^|; )citation (\d+): ")
"""How the evidence gate names a citation it refused (``citation <index>: <why>``)."""
TIMELINE_KINDS = ("setting", "observation", "condition")
"""Record entries placed on the simulated-time line (instrument displays are counted, not listed)."""


def episode_view(record_dir: Path) -> dict[str, Any]:
    """Everything the lab viewer shows, JSON-ready; raises RecordError without ``events.jsonl``."""
    events, unreadable = read_events(record_dir)
    start: dict[str, Any] = {}
    end: dict[str, Any] | None = None
    runs: dict[int, dict[str, Any]] = {}
    reply: str | None = None
    ended_by_model = False
    for event in events:
        kind, data = event.get("type"), event.get("data")
        if not isinstance(data, dict):
            continue
        if kind == "episode_start":
            start = data
        elif kind == "episode_end":
            end = data
        elif kind == "model_output":
            reply = str(data.get("text") or "")
        elif kind == "decision" and isinstance(data.get("run"), int):
            runs[data["run"]] = {"run": data["run"], "program": data.get("program"), "reply": reply}
            reply = None
        elif kind == "decision":
            ended_by_model = bool(data.get("ended_by_model"))
        elif kind == "tool_result" and data.get("run") in runs:
            images = [recorded_frame(record_dir, f) for f in data.get("images") or [] if isinstance(f, dict)]
            output = {
                k: data.get(k) for k in ("returncode", "wall_s", "stdout", "stderr", "sim_time_s", "ended")
            }
            runs[data["run"]].update(output, images=images)
    score, verdicts = _score(record_dir)
    record, record_status = _record(record_dir)
    submission = _submission(record)
    return {
        "episode": {key: start.get(key) for key in ("suite", "task", "seed", "run", "model", "protocol")},
        "result": episode_result(record_dir, end),
        "runs": [runs[n] for n in sorted(runs)],
        "ended_by_model": ended_by_model,
        "last_reply": reply,
        "scored": score is not None,
        "panels": [
            gates_panel(score or {}),
            milestones_panel(score or {}),
            errors_panel(score or {}, submission.get("result")),
            citations_panel(submission.get("citations"), verdicts, score or {}),
        ],
        "timeline": timeline(record, runs.values(), submission.get("time_s")),
        "record_status": record_status,
        "unreadable_lines": unreadable,
    }


def _score(record_dir: Path) -> tuple[dict[str, Any] | None, list[str]]:
    """The score's fields and the verdict on each parsed citation; (None, []) for an unscored episode."""
    try:
        body = json.loads((record_dir / LAB_SCORE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, []
    score = body.get("score") if isinstance(body, dict) else None
    citations = body.get("citations") if isinstance(body, dict) else None
    return (score if isinstance(score, dict) else None), [str(c) for c in citations or []]


def _record(record_dir: Path) -> tuple[Record | None, str]:
    """The bench record and what checking its hash chain found."""
    path = record_dir / LAB_RECORD_FILE
    if not path.is_file():
        return None, "no bench record (the episode was not scored)"
    try:
        record = Record.load(path)
        record.verify(sealed=False)
    except RecordError as err:
        return None, f"the bench record is not intact: {err}"
    sealed = "sealed at the submission" if record.sealed else "not sealed (nothing was submitted)"
    return record, f"{len(record.entries)} entries, hash chain intact, {sealed}"


def _submission(record: Record | None) -> dict[str, Any]:
    return record.submission if record is not None and record.sealed else {}


def _cell(passed: object) -> dict[str, str]:
    if passed is None:
        return {"text": "not checked"}
    return {"text": "passed" if passed else "failed", "tone": "yes" if passed else "no"}


def gates_panel(score: dict[str, Any]) -> Panel:
    """Each gate the score holds, with its verdict and evidence."""
    rows = [
        [gate, _cell(score[f"gate_{gate}"]), score.get(f"gate_{gate}_evidence", "")]
        for gate in GATES
        if f"gate_{gate}" in score
    ]
    return {"title": "Gates", "columns": ["gate", "verdict", "evidence"], "rows": rows,
            **({} if rows else {"note": "not scored"})}  # fmt: skip


def milestones_panel(score: dict[str, Any]) -> Panel:
    """Milestones L1–L6 (what stage each asks for), with the verdict and evidence."""
    rows = [
        [name, stage, _cell(score.get(f"milestone_{name}")), score.get(f"milestone_{name}_evidence", "")]
        for name, stage in zip(MILESTONES, STAGES, strict=True)
        if f"milestone_{name}" in score
    ]
    note = (
        f"level ℓ = {score['level']}, stopped at {score.get('stop_stage')}"
        if "level" in score
        else "not scored"
    )
    return {"title": "Milestones", "note": note, "columns": ["milestone", "stage", "verdict", "evidence"],
            "rows": rows}  # fmt: skip


def errors_panel(score: dict[str, Any], submitted: object) -> Panel:
    """The submitted values and each scored quantity's error as a fraction of its tolerance."""
    values = submitted if isinstance(submitted, dict) else {}
    names = list(
        dict.fromkeys([*values, *(k.removeprefix("error_") for k in score if k.startswith("error_"))])
    )
    rows = [[name, values.get(name), score.get(f"error_{name}")] for name in names]
    note = "e (largest error as a fraction of its tolerance) = " + (
        f"{score['e']:.4f}" if isinstance(score.get("e"), int | float) else "–"
    )
    columns = ["quantity", "submitted", "error / tolerance"]
    return {"title": "Submitted result", "note": note, "columns": columns, "rows": rows}


def citations_panel(cited: object, verdicts: list[str], score: dict[str, Any]) -> Panel:
    """Each citation of the submission beside the evaluator's verdict on it.

    The verdicts come in the order of the citations that parsed; a citation is refused when the evidence
    gate names it (``citation i: …``) or its measurement conditions did not hold. When some citation did
    not parse, the verdicts cannot be paired by position and are listed on their own.
    """
    citations = [c for c in cited if isinstance(c, dict)] if isinstance(cited, list) else []
    refused = {int(i) for i in FAILED_CITATION.findall(str(score.get("gate_evidence_evidence", "")))}
    paired = len(citations) == len(verdicts)
    rows = []
    for i, citation in enumerate(citations):
        verdict: Any = "–"
        if paired:
            valid = i not in refused and "did not hold" not in verdicts[i]
            verdict = {"text": verdicts[i], "tone": "yes" if valid else "no"}
        rows.append([i, _source(citation), citation.get("value"), citation.get("quantity"), verdict])
    panel: Panel = {"title": f"Citations ({len(citations)})", "columns": ["#", "reading", "value", "quantity",
                    "verdict"], "rows": rows}  # fmt: skip
    if not citations:
        panel["note"] = "nothing was submitted" if not verdicts else ""
    if not paired and verdicts:
        panel["note"] = "some citations did not parse: the verdicts on those that did, in order"
        panel["notes"] = verdicts
    return panel


def _source(citation: dict[str, Any]) -> str:
    if "file" in citation:
        return f"{citation.get('column')} of row {citation.get('row')} of {citation.get('file')}"
    return f"{citation.get('instrument')} in observation {citation.get('observation_id')}"


def timeline(record: Record | None, runs: Any, submitted_at: object) -> dict[str, Any]:
    """The simulated-time line: marks (settings, observations, program ends, the submission) and spans (the
    measurement conditions while they held), in time order, with the count of instrument display readings."""
    marks: list[dict[str, Any]] = []
    spans: list[dict[str, Any]] = []
    displays = 0
    for kind, data in record.events() if record is not None else []:
        if kind == "display":
            displays += 1
        elif kind == "condition":
            spans.append({"start": data.get("start_s"), "end": data.get("end_s"), "label": data.get("name")})
        elif kind == "observation":
            readable = sorted({f"{v.get('camera')}: {v.get('instrument')}" for v in data.get("views") or []
                               if isinstance(v, dict) and v.get("readable")})  # fmt: skip
            shown = ", ".join(f"{k} {v}" for k, v in (data.get("shown") or {}).items())
            detail = f"showed {shown or 'nothing'}; readable in {', '.join(readable) or 'no view'}"
            label = f"observation {data.get('observation_id')}"
            marks.append(
                {"time": data.get("time_s"), "kind": "observation", "label": label, "detail": detail}
            )
        elif kind in TIMELINE_KINDS:
            detail = ", ".join(f"{k} {v}" for k, v in data.items() if k != "time_s")
            marks.append({"time": data.get("time_s"), "kind": kind, "label": kind, "detail": detail})
    for run in runs:
        if isinstance(run.get("sim_time_s"), int | float):
            label, detail = f"program {run['run']} ended", str(run.get("ended") or "")
            marks.append({"time": run["sim_time_s"], "kind": "program", "label": label, "detail": detail})
    if isinstance(submitted_at, int | float):
        marks.append({"time": submitted_at, "kind": "submission", "label": "submitted", "detail": ""})
    marks = sorted((m for m in marks if isinstance(m["time"], int | float)), key=lambda m: m["time"])
    times = [m["time"] for m in marks] + [s["end"] for s in spans if isinstance(s["end"], int | float)]
    return {"end": max(times, default=0.0), "marks": marks, "spans": spans, "displays": displays}


BODY = """
<header>
  <h1 id="title"></h1>
  <div id="meta" class="muted"></div>
  <div id="unreadable"></div>
</header>
<main>
  <div>
    <section><h2>Programs the model ran</h2><div id="runs"></div></section>
  </div>
  <div>
    <section><h2>Verdict</h2><div id="verdict"></div></section>
    <div id="panels"></div>
    <section><h2>Simulated time</h2><div id="timeline"></div></section>
  </div>
</main>
"""

CSS = """
.run { border-top: 1px dashed #d0d7de; padding-top: 8px; margin-top: 8px; }
.run:first-child { border-top: none; margin-top: 0; padding-top: 0; }
.run h3 { font-size: 13px; margin: 0 0 4px; }
.run .images { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 6px; }
.run .images figure { width: calc(50% - 4px); }
.line { position: relative; height: 34px; margin: 6px 0 10px; border-bottom: 1px solid #444; }
.line .span { position: absolute; bottom: 0; height: 10px; background: #dafbe1; border: 1px solid #4c9a5a; }
.line .mark { position: absolute; bottom: 0; width: 2px; height: 22px; background: #4c78a8; }
.line .mark.submission { background: #a40e26; height: 30px; } .line .mark.program { background: #f58518; }
.line .mark.setting { background: #72b7b2; height: 14px; }
"""

SCRIPT = r"""
  const data = JSON.parse(byId("lab-episode").textContent);
  const ep = data.episode || {};
  const result = data.result || {};
  const runs = data.runs || [];
  byId("title").textContent =
    (ep.task || "lab episode") + " · seed " + fmt(ep.seed) + " · run " + fmt(ep.run);
  byId("meta").textContent = "model " + fmt(ep.model) + " · interface level " + fmt(ep.protocol) + " · " +
    runs.length + " program(s) run of at most " + fmt(result.budget) + " · simulated time " +
    (typeof result.sim_time_s === "number" ? result.sim_time_s.toFixed(1) + " s" : "–");
  for (const line of data.unreadable_lines || []) {
    byId("unreadable").append(el("div", "no", "left out of this viewer: " + line));
  }

  const OPEN_PROGRAM_LINES = 60, OPEN_PROGRAM_CHARS = 4000;  // a longer program starts folded
  const box = byId("runs");
  for (const run of runs) {
    const wrap = el("div", "run");
    const ended = run.returncode === undefined ? "no output recorded"
      : "exit status " + fmt(run.returncode) + ", " + fmt(run.wall_s) + " s wall clock, simulated time " +
        fmt(run.sim_time_s) + " s" + (run.ended ? ", the episode ended: " + run.ended : "");
    wrap.append(el("h3", null, "program " + run.run), el("div", "muted", ended));
    if (run.reply) {
      const details = el("details");
      details.append(el("summary", null, "the model's reply"), el("pre", "reply", run.reply));
      wrap.append(details);
    }
    const program = el("details", "program");
    const lines = (run.program || "").split("\n").length;
    program.open = lines <= OPEN_PROGRAM_LINES && (run.program || "").length <= OPEN_PROGRAM_CHARS;
    program.append(el("summary", null, "program (" + lines + " lines)"), el("pre", null, run.program || ""));
    wrap.append(program);
    wrap.append(el("div", "muted", "stdout"), el("pre", "stdout", run.stdout || "(nothing)"));
    if (run.stderr) wrap.append(el("div", "muted", "stderr"), el("pre", "stderr", run.stderr));
    if ((run.images || []).length) {
      const images = el("div", "images");
      for (const image of run.images) images.append(figure(image, ""));
      wrap.append(el("div", "muted", "images the model saw"), images);
    }
    box.append(wrap);
  }
  if (!runs.length) box.append(el("div", "muted", "the model ran no program"));
  if (data.ended_by_model) {
    box.append(el("div", "muted", "the model replied without a program: the episode ended"));
  }
  if (data.last_reply) {
    const details = el("details");
    details.append(el("summary", null, "the model's last reply"), el("pre", "reply", data.last_reply));
    box.append(details);
  }

  const verdict = byId("verdict");
  verdict.append(badge("success", result.success));
  verdict.append(kv([
    ["stop reason", result.stop_reason], ["e", result.e], ["level ℓ", result.level],
    ["process score", result.process_score], ["stopped at", result.stop_stage],
    ["failure cause",
      result.failure_cause ? result.failure_cause + ": " + result.failure_cause_evidence : "–"],
    ["instance set", result.instance_set], ["model calls", result.model_calls],
    ["duration s", result.duration_s], ["bench record", data.record_status],
  ]));
  if (!data.scored) verdict.append(el("div", "no", "no score recorded (the episode was not scored)"));
  if (result.error) verdict.append(el("pre", "no", result.error));
  renderPanels(data.panels, byId("panels"), () => {});

  const time = data.timeline || { marks: [], spans: [], end: 0 };
  const secs = (t) => (typeof t === "number" ? t.toFixed(2) : "–");
  const line = byId("timeline");
  const end = time.end || 1;
  const bar = el("div", "line");
  const place = (node, t) => { node.style.left = (100 * Math.max(0, t) / end).toFixed(2) + "%"; };
  for (const span of time.spans) {
    const node = el("div", "span");
    place(node, span.start);
    node.style.width = (100 * Math.max(0, span.end - span.start) / end).toFixed(2) + "%";
    node.title = span.label + ": " + secs(span.start) + "–" + secs(span.end) + " s";
    bar.append(node);
  }
  for (const mark of time.marks) {
    const node = el("div", "mark " + mark.kind);
    place(node, mark.time);
    node.title = secs(mark.time) + " s: " + mark.label;
    bar.append(node);
  }
  line.append(el("div", "muted", "0 – " + secs(end) + " s simulated; " + time.marks.length + " events, " +
    fmt(time.displays) + " instrument display readings"), bar, el("div", "muted",
    "marks: observations (blue), settings (teal), program ends (orange), the submission (red); green: " +
    "a measurement condition held"));
  const table = el("table", "grid");
  const head = el("tr");
  for (const column of ["t (s)", "event", "detail"]) head.append(el("th", null, column));
  table.append(head);
  const rows = time.marks.map((m) => [m.time, m.label, m.detail])
    .concat(time.spans.map((s) => [s.start, s.label + " (until " + secs(s.end) + " s)", "condition held"]))
    .sort((a, b) => a[0] - b[0]);
  for (const row of rows) {
    const tr = el("tr");
    row.forEach((cell, i) => tr.append(el("td", null, i === 0 ? secs(cell) : fmt(cell))));
    table.append(tr);
  }
  line.append(table);
"""


def render_episode_page(record_dir: Path) -> str:
    """The lab viewer page of ``record_dir``."""
    data = episode_view(record_dir)
    episode = data["episode"]
    title = f"{episode.get('task') or 'lab episode'} seed {episode.get('seed')} run {episode.get('run')}"
    return render_page(title, CSS, BODY, SCRIPT, {"lab-episode": data})
