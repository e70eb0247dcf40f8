"""What pages showing episode records share: the look, the step rendering script and the page frame.

Every page built here embeds its data as JSON (with ``<``, ``>`` and ``&`` escaped, so data cannot close
the script element) and renders it with a script that only ever sets ``textContent`` and attributes: model
text is untrusted. A per-page nonce in the Content-Security-Policy lets only the page's own script run.

:data:`RENDER_SCRIPT` defines, in the page script's scope, ``el``, ``fmt``, ``badge``, ``kv``, ``flags``,
``figure``, ``renderAction``, ``renderTurn``, ``fillStep`` (one step into the ``#frames``,
``#observation``, ``#actions``, ``#proprioception`` and ``#turns`` elements) and ``renderPanels`` (extra
panels: see :func:`actloop.viewer.page.render_viewer`).
"""

from __future__ import annotations

import json
import secrets
from html import escape
from typing import Any

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
table.grid { border-collapse: collapse; font-size: 12px; width: 100%; }
table.grid th, table.grid td { text-align: left; padding: 2px 8px 2px 0; border-bottom: 1px solid #eaeef2;
                               vertical-align: top; }
table.grid th { color: #57606a; font-weight: 500; }
button.step-link { font: inherit; font-size: 12px; padding: 0 5px; margin: 0 2px 2px 0; cursor: pointer; }
ul.flags { list-style: none; padding: 0; margin: 0; columns: 2; }
.yes { color: #116329; } .no { color: #a40e26; }
.action { border-top: 1px dashed #d0d7de; padding-top: 6px; margin-top: 6px; }
.action:first-of-type { border-top: none; margin-top: 0; padding-top: 0; }
.turn { margin: 4px 0; } .turn summary { cursor: pointer; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #eaeef2; }
.badge.yes { background: #dafbe1; } .badge.no { background: #ffebe9; }
"""

STEP_HTML = """
    <section><h2>Frames shown to the model</h2><div id="frames"></div></section>
    <section><h2>Observation text</h2><pre id="observation"></pre></section>
"""
"""The left column of a step: the frames and the observation text."""

RENDER_SCRIPT = r"""
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
  function figure(frame, base) {
    const fig = el("figure");
    if (frame.path && frame.exists) {
      const img = el("img");
      img.src = (base || "") + framePath(frame.path);
      img.alt = frame.view;
      fig.append(img);
    } else {
      fig.append(el("div", "no", "frame missing: " + (frame.path || "(unsafe path)")));
    }
    fig.append(el("figcaption", null, frame.view));
    return fig;
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

  function renderTurn(turn, box, base) {
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
      for (const frame of turn.frames) frames.append(figure(frame, base));
      details.append(frames);
    }
    box.append(details);
  }

  function fillStep(data, index, base) {
    const steps = data.steps || [];
    const step = steps[index];
    const frames = byId("frames");
    frames.replaceChildren();
    frames.className = step.frames.length > 1 ? "many" : "";
    for (const frame of step.frames) frames.append(figure(frame, base));
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
    const proprio = byId("proprioception");
    proprio.replaceChildren();
    for (const arm of (last && last.proprioception) || []) {
      proprio.append(el("div", "muted", "arm " + fmt(arm.arm)));
      proprio.append(kv(Object.entries(arm).filter(([key]) => key !== "arm")));
    }
    if (!proprio.childNodes.length) proprio.append(el("div", "muted", "none recorded"));

    const turns = byId("turns");
    turns.replaceChildren();
    const all = (index === 0 ? data.before || [] : []).concat(step.turns);
    for (const turn of all) renderTurn(turn, turns, base);
    if (!all.length) turns.append(el("div", "muted", "none"));
    return last;
  }

  function panelCell(cell, jump) {
    const td = el("td");
    if (cell && typeof cell === "object" && !Array.isArray(cell)) {
      if (cell.tone) td.className = cell.tone;
      if (cell.text !== undefined && cell.text !== null) td.append(el("span", null, cell.text));
      for (const step of cell.steps || []) {
        const link = el("button", "step-link", step);
        link.type = "button";
        link.title = "show step " + step;
        link.addEventListener("click", () => jump(step));
        td.append(link);
      }
    } else {
      td.textContent = fmt(cell);
    }
    return td;
  }
  function renderPanels(panels, box, jump) {
    box.replaceChildren();
    for (const panel of panels || []) {
      const section = el("section", "panel");
      section.append(el("h2", null, panel.title));
      if (panel.note) section.append(el("div", "muted", panel.note));
      if (panel.columns && panel.rows) {
        const table = el("table", "grid");
        const head = el("tr");
        for (const column of panel.columns) head.append(el("th", null, column));
        table.append(head);
        for (const row of panel.rows) {
          const tr = el("tr");
          for (const cell of row) tr.append(panelCell(cell, jump));
          table.append(tr);
        }
        section.append(table);
      }
      for (const note of panel.notes || []) section.append(el("pre", null, note));
      box.append(section);
    }
  }
"""


def json_block(element_id: str, data: Any) -> str:
    """``data`` as a JSON script element that no string inside it can close."""
    payload = (
        json.dumps(data, ensure_ascii=False, allow_nan=False, default=str)
        .replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
    )
    return f'<script type="application/json" id="{escape(element_id)}">{payload}</script>\n'


def content_policy(nonce: str, connect: bool = False) -> str:
    """The pages' Content-Security-Policy: only the nonced script runs; ``connect`` allows requests to
    the page's own origin (a served page), else none."""
    return (
        "default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline'; "
        f"script-src 'nonce-{nonce}'" + ("; connect-src 'self'" if connect else "")
    )


def render_page(
    title: str, css: str, body: str, script: str, data: dict[str, Any], nonce: str | None = None
) -> str:
    """A whole page: ``data`` (id -> JSON data) embedded, then ``script`` run inside one strict-mode
    function scope after :data:`RENDER_SCRIPT`. A served page passes the ``nonce`` of its CSP header
    (and gets the ``connect-src 'self'`` it needs for requests); a file page gets a fresh one."""
    served = nonce is not None
    nonce = nonce or secrets.token_urlsafe(18)
    blocks = "".join(json_block(element_id, value) for element_id, value in data.items())
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{content_policy(nonce, served)}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{escape(title)} · actloop</title>\n<style>{CSS}{css}</style>\n</head>\n<body>{body}"
        f"{blocks}"
        f'<script nonce="{nonce}">\n(function () {{\n  "use strict";\n{RENDER_SCRIPT}{script}}})();\n'
        "</script>\n"
        "</body>\n</html>\n"
    )
