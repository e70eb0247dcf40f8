"""Writes ``viewer.html``: one self-contained page per episode that opens from disk without a server.

The episode data is embedded as JSON (with ``<``, ``>`` and ``&`` escaped) and rendered by a small
script that only ever sets ``textContent`` and attributes, never HTML from data: decisions and reasons
come from models and are untrusted. A per-page nonce in the Content-Security-Policy lets only the page's
own script run. Frames are referenced by their relative paths inside the record directory.
"""

from __future__ import annotations

import json
import secrets
from html import escape
from pathlib import Path
from typing import Any

from actloop.viewer.steps import episode_data

VIEWER_FILE = "viewer.html"

CSS = """
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #f6f7f9; }
header { padding: 12px 20px; background: #fff; border-bottom: 1px solid #d0d7de; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 14px; margin: 0 0 6px; }
.muted { color: #57606a; }
nav { display: flex; gap: 8px; align-items: center; padding: 8px 20px; background: #fff;
      border-bottom: 1px solid #d0d7de; position: sticky; top: 0; z-index: 1; }
nav button { font: inherit; padding: 3px 10px; }
nav input[type=range] { flex: 1; }
#step-label { font-weight: 600; min-width: 150px; }
main { display: grid; grid-template-columns: minmax(320px, 1fr) minmax(360px, 1fr); gap: 14px;
       padding: 14px 20px; }
section { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px;
          margin-bottom: 12px; }
#frames { display: flex; flex-wrap: wrap; gap: 8px; }
figure { margin: 0; } figure img { max-width: 100%; border: 1px solid #ccc; display: block; }
#frames.many figure { width: calc(50% - 4px); }
figcaption { font-size: 12px; color: #57606a; }
pre { white-space: pre-wrap; word-break: break-word; margin: 0; font-size: 12px; background: #f6f8fa;
      padding: 6px; border-radius: 4px; }
table.kv { border-collapse: collapse; font-size: 12px; }
table.kv th { text-align: left; padding: 1px 10px 1px 0; color: #57606a; font-weight: 500;
               vertical-align: top; }
table.kv td { padding: 1px 0; font-variant-numeric: tabular-nums; }
ul.flags { list-style: none; padding: 0; margin: 0; columns: 2; }
.yes { color: #116329; } .no { color: #a40e26; }
.action { border-top: 1px dashed #d0d7de; padding-top: 6px; margin-top: 6px; }
.action:first-of-type { border-top: none; margin-top: 0; padding-top: 0; }
.turn { margin: 4px 0; } .turn summary { cursor: pointer; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #eaeef2; }
.badge.yes { background: #dafbe1; } .badge.no { background: #ffebe9; }
"""

BODY = """
<header>
  <h1 id="title"></h1>
  <div id="meta" class="muted"></div>
  <div id="instruction"></div>
</header>
<nav>
  <button id="first" type="button" title="first step (Home)">&#x25C0;&#x25C0; first</button>
  <button id="prev" type="button" title="previous step (ArrowLeft)">&#x25C0; prev</button>
  <span id="step-label">step <span id="step-number">&#x2013;</span>
    <span class="muted" id="step-position"></span></span>
  <button id="next" type="button" title="next step (ArrowRight)">next &#x25B6;</button>
  <button id="last" type="button" title="last step (End)">last &#x25B6;&#x25B6;</button>
  <input id="scrubber" type="range" min="0" max="0" value="0" aria-label="step">
</nav>
<main>
  <div>
    <section><h2>Frames shown to the model</h2><div id="frames"></div></section>
    <section><h2>Observation text</h2><pre id="observation"></pre></section>
  </div>
  <div>
    <section><h2>Decision and outcome</h2><div id="actions"></div></section>
    <section><h2>Checker (evaluator-only)</h2><div id="checker"></div></section>
    <section><h2>Proprioception after the action</h2><div id="proprioception"></div></section>
    <section><h2>Model turns</h2><div id="turns"></div></section>
    <section><h2>Episode result</h2><div id="result"></div></section>
  </div>
</main>
"""

SCRIPT = r"""
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("episode-data").textContent);
  const steps = data.steps || [];
  let index = 0;
  const byId = (id) => document.getElementById(id);

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(value) {
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
    if (Array.isArray(value)) return "[" + value.map(fmt).join(", ") + "]";
    if (value === null || value === undefined) return "–";
    if (typeof value === "object") {
      return Object.entries(value).map(([key, item]) => key + " " + fmt(item)).join("; ");
    }
    return String(value);
  }
  function yesNo(value) { return value === true ? "yes" : value === false ? "no" : "–"; }
  function badge(label, value) {
    const cls = value === true ? "yes" : value === false ? "no" : "";
    return el("span", "badge " + cls, label + ": " + yesNo(value));
  }
  function kv(rows) {
    const table = el("table", "kv");
    for (const [key, value] of rows) {
      const tr = el("tr");
      tr.append(el("th", null, key), el("td", null, fmt(value)));
      table.append(tr);
    }
    return table;
  }
  function flags(title, obj) {
    const box = el("div");
    box.append(el("div", "muted", title));
    const keys = Object.keys(obj || {});
    if (!keys.length) { box.append(el("div", "muted", "none recorded")); return box; }
    const list = el("ul", "flags");
    for (const key of keys) list.append(el("li", obj[key] ? "yes" : "no", (obj[key] ? "✓ " : "✗ ") + key));
    box.append(list);
    return box;
  }
  function framePath(path) { return path.split("/").map(encodeURIComponent).join("/"); }
  function figure(frame) {
    const fig = el("figure");
    if (frame.path && frame.exists) {
      const img = el("img");
      img.src = framePath(frame.path);
      img.alt = frame.view;
      fig.append(img);
    } else {
      fig.append(el("div", "no", "frame missing: " + (frame.path || "(unsafe path)")));
    }
    fig.append(el("figcaption", null, frame.view));
    return fig;
  }

  function renderHeader() {
    const ep = data.episode || {};
    const result = data.result || {};
    byId("title").textContent = (ep.task || result.task || "episode") + " · seed " +
      fmt(ep.seed ?? result.seed) + " · run " + fmt(ep.run ?? result.run);
    byId("meta").textContent = "model " + fmt(ep.model ?? result.model) + " · protocol " +
      fmt(ep.protocol ?? result.protocol) + " · budget " + fmt(data.budget ?? result.budget) +
      (data.unreadable_lines ? " · " + data.unreadable_lines + " unreadable event line(s)" : "");
    byId("instruction").textContent = data.instruction ? "Instruction: " + data.instruction : "";
    const box = byId("result");
    if (!data.result) {
      box.append(el("div", "muted", "no result recorded (the episode may not have finished)"));
      return;
    }
    box.append(badge("success", result.success));
    box.append(kv([
      ["stop reason", result.stop_reason], ["steps", fmt(result.steps) + " / " + fmt(result.budget)],
      ["failed conditions", (result.failed_conditions || []).join(", ") || "none"],
      ["paper-literal verdict", result.paper_success === undefined ? "not recorded"
        : result.paper_success ? "success at step " + result.paper_success_step
        : "failure (" + ((result.paper_failed_conditions || []).join(", ") || "none") + ")"],
      ["model calls", result.model_calls], ["repairs", result.repairs], ["duration s", result.duration_s],
    ]));
    box.append(flags("checkpoints (latched)", result.checkpoints));
    if (result.error) box.append(el("pre", "no", result.error));
    if (result.traceback) {
      const details = el("details");
      details.append(el("summary", null, "traceback"), el("pre", null, result.traceback));
      box.append(details);
    }
  }

  function renderAction(action, box) {
    const wrap = el("div", "action");
    wrap.append(badge("dispatched", action.dispatched), document.createTextNode(" "),
      badge("valid", action.valid), document.createTextNode(" "), badge("planner", action.planner_success));
    wrap.append(el("pre", "decision", JSON.stringify(action.decision, null, 2)));
    wrap.append(kv([["reason", action.reason], ["planner note", action.planner_reason],
      ["step after", action.step], ["done", yesNo(action.done)], ["stop reason", action.stop_reason]]));
    box.append(wrap);
  }

  function renderTurn(turn, box) {
    const details = el("details", "turn");
    const d = turn.data || {};
    let summary = turn.type;
    if (turn.type === "model_output") summary += " #" + fmt(d.call);
    if (turn.type === "decision_rejected") summary += " (" + fmt(d.kind) + ")";
    if (turn.type === "decision" && d.decision && typeof d.decision === "object") {
      summary += ": " + fmt(d.decision.action || d.decision.tool || ("stop" in d.decision ? "stop" : ""));
    }
    if (turn.type === "tool_result") summary += " " + fmt(d.tool) + (d.ok ? " ok" : " failed");
    details.append(el("summary", null, summary));
    const text = turn.type === "model_output" ? d.text : turn.type === "decision_rejected" ? d.message
      : JSON.stringify(d, null, 2);
    details.append(el("pre", null, text));
    if (turn.frames && turn.frames.length) {
      const frames = el("div", null);
      for (const frame of turn.frames) frames.append(figure(frame));
      details.append(frames);
    }
    box.append(details);
  }

  function show(i) {
    if (!steps.length) {
      byId("step-number").textContent = "–";
      byId("step-position").textContent = "(no observation recorded)";
      return;
    }
    index = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[index];
    byId("step-number").textContent = fmt(step.step);
    byId("step-position").textContent =
      "(" + (index + 1) + " / " + steps.length + ", budget " + fmt(step.budget) + ")";
    byId("scrubber").value = String(index);
    const frames = byId("frames");
    frames.replaceChildren();
    frames.className = step.frames.length > 1 ? "many" : "";
    for (const frame of step.frames) frames.append(figure(frame));
    byId("observation").textContent = step.text || "";

    const actions = byId("actions");
    actions.replaceChildren();
    if (!step.actions.length) {
      const end = data.result ? " (" + fmt(data.result.stop_reason) + ")" : "";
      actions.append(el("div", "muted", "no environment action after this observation" +
        (index === steps.length - 1 ? ": the episode ended" + end : "")));
    }
    for (const action of step.actions) renderAction(action, actions);

    const last = step.actions.length ? step.actions[step.actions.length - 1] : null;
    const checker = byId("checker");
    checker.replaceChildren();
    const proprio = byId("proprioception");
    proprio.replaceChildren();
    if (last && last.evaluation) {
      const ev = last.evaluation;
      checker.append(badge("success", ev.success));
      checker.append(flags("conditions", ev.conditions), flags("checkpoints", ev.checkpoints));
      if (ev.paper_conditions && Object.keys(ev.paper_conditions).length) {
        checker.append(flags("paper-literal conditions", ev.paper_conditions));
      }
      if (ev.metrics && Object.keys(ev.metrics).length) checker.append(kv(Object.entries(ev.metrics)));
    } else {
      checker.append(el("div", "muted", "no checker state (no action after this observation)"));
    }
    for (const arm of (last && last.proprioception) || []) {
      proprio.append(el("div", "muted", "arm " + fmt(arm.arm)));
      proprio.append(kv(Object.entries(arm).filter(([key]) => key !== "arm")));
    }
    if (!proprio.childNodes.length) proprio.append(el("div", "muted", "none recorded"));

    const turns = byId("turns");
    turns.replaceChildren();
    const all = (index === 0 ? data.before || [] : []).concat(step.turns);
    for (const turn of all) renderTurn(turn, turns);
    if (!all.length) turns.append(el("div", "muted", "none"));
    if (history.replaceState) history.replaceState(null, "", "#step-index=" + index);
  }

  renderHeader();
  const scrubber = byId("scrubber");
  scrubber.max = String(Math.max(0, steps.length - 1));
  scrubber.addEventListener("input", () => show(Number(scrubber.value)));
  byId("first").addEventListener("click", () => show(0));
  byId("prev").addEventListener("click", () => show(index - 1));
  byId("next").addEventListener("click", () => show(index + 1));
  byId("last").addEventListener("click", () => show(steps.length - 1));
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: steps.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      show(moves[event.key]);
    }
  });
  const match = /step-index=(\d+)/.exec(location.hash);
  show(match ? Number(match[1]) : 0);
})();
"""


def render_viewer(data: dict[str, Any]) -> str:
    """The viewer page for :func:`actloop.viewer.steps.episode_data` output."""
    nonce = secrets.token_urlsafe(18)
    payload = (
        json.dumps(data, ensure_ascii=False, allow_nan=False, default=str)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
    )
    episode = data.get("episode") or {}
    title = f"{episode.get('task') or 'episode'} seed {episode.get('seed')} run {episode.get('run')}"
    policy = (
        "default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; "
        f"script-src 'nonce-{nonce}'"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)} · actloop</title>\n<style>{CSS}</style>\n</head>\n<body>{BODY}"
        f'<script type="application/json" id="episode-data">{payload}</script>\n'
        f'<script nonce="{nonce}">{SCRIPT}</script>\n</body>\n</html>\n'
    )


def write_viewer(record_dir: Path) -> Path:
    """Write ``record_dir/viewer.html`` from the record and return its path."""
    record_dir = Path(record_dir)
    path = record_dir / VIEWER_FILE
    path.write_text(render_viewer(episode_data(record_dir)), encoding="utf-8")
    return path
