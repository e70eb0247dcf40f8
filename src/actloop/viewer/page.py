"""Writes ``viewer.html``: one self-contained page per episode that opens from disk without a server.

A suite may view its episodes its own way (:meth:`~actloop.core.suite.Suite.episode_page`); every other
episode gets the step viewer here. The episode data is embedded as JSON and rendered by a script that only
sets ``textContent`` and attributes (see :mod:`actloop.viewer.assets`): decisions and reasons come from
models and are untrusted. Frames are referenced by their relative paths inside the record directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from actloop.core.suite import suites
from actloop.core.text import write_text
from actloop.viewer.assets import STEP_HTML, render_page
from actloop.viewer.steps import episode_data

VIEWER_FILE = "viewer.html"

BODY = (
    """
<header>
  <h1 id="title"></h1>
  <div id="meta" class="muted"></div>
  <div id="unreadable"></div>
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
  <div>"""
    + STEP_HTML
    + """    <div id="panels"></div>
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
)

SCRIPT = r"""
  const data = JSON.parse(document.getElementById("episode-data").textContent);
  const steps = data.steps || [];
  let index = 0;

  function renderHeader() {
    const ep = data.episode || {};
    const result = data.result || {};
    byId("title").textContent = (ep.task || result.task || "episode") + " · seed " +
      fmt(ep.seed ?? result.seed) + " · run " + fmt(ep.run ?? result.run);
    byId("meta").textContent = "model " + fmt(ep.model ?? result.model) + " · protocol " +
      fmt(ep.protocol ?? result.protocol) + " · budget " + fmt(data.budget ?? result.budget);
    for (const line of data.unreadable_lines || []) {
      byId("unreadable").append(el("div", "no", "left out of this viewer: " + line));
    }
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
    const last = fillStep(data, index, "");

    const checker = byId("checker");
    checker.replaceChildren();
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
    if (history.replaceState) history.replaceState(null, "", "#step-index=" + index);
  }
  function showStepNumber(number) {
    const found = steps.findIndex((step) => step.step === number);
    if (found >= 0) show(found);
  }

  renderHeader();
  const panels = byId("panel-data");
  if (panels) renderPanels(JSON.parse(panels.textContent), byId("panels"), showStepNumber);
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
"""

Panel = dict[str, Any]
"""An extra panel: ``title``, optional ``note``, optional ``columns`` and ``rows`` (a table whose cells are
text, numbers, null or ``{"text", "tone": "yes"|"no", "steps": [step numbers shown as links]}``) and
optional ``notes`` (preformatted text)."""


def render_viewer(data: dict[str, Any], panels: list[Panel] | None = None) -> str:
    """The viewer page for :func:`actloop.viewer.steps.episode_data` output, with optional extra panels
    (for example a suite's labels of the episode) under the frames."""
    episode = data.get("episode") or {}
    title = f"{episode.get('task') or 'episode'} seed {episode.get('seed')} run {episode.get('run')}"
    blocks = {"episode-data": data, **({"panel-data": panels} if panels else {})}
    return render_page(title, "", BODY, SCRIPT, blocks)


def write_viewer(
    record_dir: Path, panels: list[Panel] | None = None, data: dict[str, Any] | None = None
) -> Path:
    """Write ``record_dir/viewer.html`` and return its path: the page of the record's suite when it has
    its own, else the step viewer of the record (or of its :func:`episode_data` when given) and ``panels``."""
    record_dir = Path(record_dir)
    data = episode_data(record_dir) if data is None else data
    suite = suites().get(str((data.get("episode") or {}).get("suite")))
    page = suite.episode_page(record_dir) if suite is not None else None
    return write_text(record_dir / VIEWER_FILE, render_viewer(data, panels) if page is None else page)
