"""The annotation page: one episode at a time, the trajectory as the viewer shows it, then the rubric.

The page fetches the rubric, the episode list and each episode's evidence, signals and the annotator's
state from the server (:mod:`.annotate`), and posts every answer as soon as it is given. Everything is
rendered with ``textContent`` (the shared viewer script, :mod:`actloop.viewer.assets`): model text is
untrusted. Keyboard shortcuts are listed in :data:`SHORTCUTS`, shown on the page and under ``?``.
"""

from __future__ import annotations

from actloop.viewer.assets import STEP_HTML, render_page

SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("y / n", "answer the focused question yes / no, save it and move to the next open question"),
    ("x", "withdraw the focused answer"),
    ("j / k or ↓ / ↑", "next / previous question"),
    ("e", "write a justification for the focused question (Enter saves it, Esc cancels)"),
    ("] / [ or → / ←", "next / previous step of the trajectory (Home / End: first / last)"),
    ("N (Shift+n) / p", "next / previous episode"),
    ("?", "show or hide this help (Esc closes it)"),
)

CSS = """
header .bar { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
header .bar h1 { margin-right: auto; }
#save-status { font-size: 13px; padding: 1px 8px; border-radius: 8px; background: #eaeef2; }
#save-status.saving { background: #fff8c5; } #save-status.saved { background: #dafbe1; }
#save-status.failed { background: #ffebe9; color: #a40e26; font-weight: 600; }
.episodes { display: flex; gap: 8px; align-items: center; margin-top: 6px; flex-wrap: wrap; }
.episodes select { font: inherit; max-width: 460px; }
.episodes button { font: inherit; padding: 2px 8px; }
.progress { width: 220px; height: 10px; background: #eaeef2; border-radius: 5px; overflow: hidden; }
#progress-bar { height: 100%; width: 0; background: #2da44e; }
body { height: 100vh; display: flex; flex-direction: column; overflow: hidden; }
main.annotate { grid-template-columns: minmax(300px, 1.05fr) minmax(280px, 0.85fr) minmax(380px, 1.1fr);
                grid-template-rows: minmax(0, 1fr); flex: 1 1 auto; min-height: 0; }
main.annotate > div { overflow-y: auto; min-height: 0; }
#rubric h2 { margin-top: 14px; } #rubric h2:first-child { margin-top: 0; }
.module { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: #57606a;
          margin: 10px 0 4px; }
.question { border: 2px solid #d0d7de; border-radius: 6px; padding: 6px 8px; margin-bottom: 6px;
            background: #fff; }
.question.focused { border-color: #0969da; box-shadow: 0 0 0 2px #b6e3ff; }
.question .head { display: flex; gap: 8px; align-items: baseline; }
.question .code { font-weight: 700; min-width: 28px; }
.question .name { font-weight: 600; margin-right: auto; }
.question .text { margin: 3px 0; }
.question ul { margin: 2px 0 4px 18px; padding: 0; }
.question details summary { cursor: pointer; color: #57606a; font-size: 12px; }
.answer button { font: inherit; font-size: 12px; padding: 1px 10px; margin-left: 4px; cursor: pointer;
                 border: 1px solid #d0d7de; border-radius: 4px; background: #f6f8fa; }
.answer button.chosen.yes { background: #2da44e; color: #fff; border-color: #2da44e; }
.answer button.chosen.no { background: #cf222e; color: #fff; border-color: #cf222e; }
.answer button.pending { opacity: .55; }
.question:not(.focused) input.note:placeholder-shown { display: none; }
.question input.note { width: 100%; font: inherit; font-size: 12px; margin-top: 4px; padding: 2px 4px; }
.question .state { font-size: 12px; }
.question .state.failed { color: #a40e26; font-weight: 600; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; background: #ddf4ff;
       color: #0550ae; }
.inactive { font-size: 12px; color: #57606a; margin: 2px 0 6px; }
#complete { margin: 8px 0; padding: 6px 8px; border-radius: 6px; background: #dafbe1; }
#help { position: fixed; inset: 0; background: rgba(27, 31, 36, .45); display: flex;
        align-items: center; justify-content: center; z-index: 5; }
#help[hidden] { display: none; }
#help > div { background: #fff; border-radius: 8px; padding: 16px 20px; max-width: 640px; }
"""

BODY = (
    """
<header>
  <div class="bar">
    <h1 id="title">loading…</h1>
    <span id="save-status">no answer given yet</span>
  </div>
  <div id="meta" class="muted"></div>
  <div id="instruction"></div>
  <div class="episodes">
    <button id="prev-episode" type="button" title="previous episode (p)">&#x25C0; episode</button>
    <select id="episode-select" aria-label="episode"></select>
    <button id="next-episode" type="button" title="next episode (Shift+n)">episode &#x25B6;</button>
    <div class="progress" title="episodes fully labelled"><div id="progress-bar"></div></div>
    <span id="progress-text" class="muted"></span>
    <button id="help-button" type="button" title="keyboard shortcuts (?)">? shortcuts</button>
  </div>
</header>
<nav>
  <button id="first" type="button" title="first step (Home)">&#x25C0;&#x25C0;</button>
  <button id="prev" type="button" title="previous step ([ or ArrowLeft)">&#x25C0; step</button>
  <span id="step-label">step <span id="step-number">&#x2013;</span>
    <span class="muted" id="step-position"></span></span>
  <button id="next" type="button" title="next step (] or ArrowRight)">step &#x25B6;</button>
  <button id="last" type="button" title="last step (End)">&#x25B6;&#x25B6;</button>
  <input id="scrubber" type="range" min="0" max="0" value="0" aria-label="step">
</nav>
<main class="annotate">
  <div>"""
    + STEP_HTML
    + """  </div>
  <div>
    <section><h2>Decision and outcome</h2><div id="actions"></div></section>
    <section><h2>Model turns</h2><div id="turns"></div></section>
    <section><h2>Proprioception after the action</h2><div id="proprioception"></div></section>
    <section><h2>Terminal outcome</h2><div id="result"></div></section>
  </div>
  <div>
    <section id="rubric">
      <h2>Judgments <span class="muted" id="rubric-version"></span></h2>
      <details id="guidance"><summary>How to judge</summary><ul id="guidance-list"></ul></details>
      <div id="complete" hidden>Every question of this episode is answered.
        <span class="muted">Shift+n: next episode.</span></div>
      <div id="questions"></div>
      <h2>Automatic signals <span class="muted">(evidence to look at, not labels)</span></h2>
      <div id="signals"></div>
      <h2>Keyboard</h2>
      <table class="kv" id="shortcuts"></table>
    </section>
  </div>
</main>
<div id="help" hidden><div><h2>Keyboard shortcuts</h2><table class="kv" id="help-table"></table>
  <p class="muted">Every answer is saved as soon as it is given; the status at the top says when a save
  failed.</p></div></div>
"""
)

SCRIPT = r"""
  const config = JSON.parse(byId("annotate-config").textContent);
  const GATE_TITLES = {
    "gate:ambiguity": ["ambiguity gate", "decides AE"],
    "gate:recovery": ["recovery gate", "decides ED, OC and PF"],
  };
  let rubric = null, list = null, current = null, stepIndex = 0, loading = false;
  let questions = [], focusIndex = 0;
  const pending = {}, failed = {}, drafts = {};
  let queue = Promise.resolve();

  async function getJson(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(body.error || "HTTP " + response.status);
    return body;
  }

  function setStatus(kind, text) {
    const status = byId("save-status");
    status.className = kind;
    status.textContent = text;
  }

  // --- episodes and progress ---
  function renderList() {
    const select = byId("episode-select");
    select.replaceChildren();
    list.episodes.forEach((episode, i) => {
      const option = el("option", null, (episode.complete ? "✓ " : "· ") + (i + 1) + ". " + episode.task +
        " · seed " + episode.seed + " (" + episode.answered + "/" + episode.required + ")");
      option.value = episode.name;
      select.append(option);
    });
    if (current) select.value = current.name;
    const progress = list.progress;
    byId("progress-bar").style.width = (progress.total ? 100 * progress.complete / progress.total : 0) + "%";
    byId("progress-text").textContent =
      progress.complete + " / " + progress.total + " episodes fully labelled";
  }
  function episodeIndex() { return list.episodes.findIndex((e) => current && e.name === current.name); }
  function updateListEntry(state, progress) {
    const entry = list.episodes.find((e) => e.name === state.episode);
    if (entry) {
      entry.complete = state.complete;
      entry.required = state.required.length;
      entry.answered = state.required.filter((item) => item in state.answers).length;
    }
    list.progress = progress;
    renderList();
  }

  async function openEpisode(name, step) {
    loading = true;
    try {
      const loaded = await getJson("/api/episodes/" + encodeURIComponent(name));
      current = loaded;
      for (const key of [pending, failed, drafts]) for (const item in key) delete key[item];
      renderEpisode(step);
    } catch (err) {
      setStatus("failed", "could not load episode " + name + ": " + err.message);
    }
    loading = false;
  }
  function moveEpisode(delta) {
    const i = episodeIndex() + delta;
    if (i >= 0 && i < list.episodes.length) openEpisode(list.episodes[i].name, 0);
  }

  // --- the trajectory ---
  function frameBase() { return "/frames/" + encodeURIComponent(current.name) + "/"; }
  function renderEpisode(step) {
    const data = current.evidence;
    const ep = data.episode || {};
    byId("title").textContent = (episodeIndex() + 1) + " / " + list.episodes.length + " · " +
      (ep.task || "episode") + " · seed " + fmt(ep.seed) + " · run " + fmt(ep.run);
    byId("meta").textContent = "model " + fmt(ep.model) + " · protocol " + fmt(ep.protocol) + " · budget " +
      fmt(data.budget) + " · annotator " + config.annotator + " · " + current.name;
    byId("instruction").textContent = data.instruction ? "Instruction: " + data.instruction : "";
    const result = data.result || {};
    const box = byId("result");
    box.replaceChildren(badge("success", result.success));
    box.append(kv([["stop reason", result.stop_reason],
      ["steps", fmt(result.steps) + " / " + fmt(result.budget)]]));
    if (result.error) box.append(el("pre", "no", result.error));
    const scrubber = byId("scrubber");
    scrubber.max = String(Math.max(0, (data.steps || []).length - 1));
    renderList();
    renderSignals();
    showStep(step || 0);
    buildQuestions();
    const open = questions.findIndex((q) => !answered(q.item));
    focusQuestion(open >= 0 ? open : 0);
  }
  function showStep(i) {
    const steps = current.evidence.steps || [];
    if (!steps.length) {
      byId("step-number").textContent = "–";
      byId("step-position").textContent = "(no observation recorded)";
      return;
    }
    stepIndex = Math.max(0, Math.min(steps.length - 1, i));
    const step = steps[stepIndex];
    byId("step-number").textContent = fmt(step.step);
    byId("step-position").textContent = "(" + (stepIndex + 1) + " / " + steps.length + ")";
    byId("scrubber").value = String(stepIndex);
    fillStep(current.evidence, stepIndex, frameBase());
    saveHash();
  }
  function showStepNumber(number) {
    const found = (current.evidence.steps || []).findIndex((step) => step.step === number);
    if (found >= 0) showStep(found);
  }
  function renderSignals() {
    const box = byId("signals");
    box.replaceChildren();
    const table = el("table", "grid");
    const head = el("tr");
    for (const column of ["signal", "value", "steps", "detail"]) head.append(el("th", null, column));
    table.append(head);
    for (const signal of current.signals) {
      const tr = el("tr");
      const name = el("td", null, signal.name);
      name.title = signal.description;
      const steps = el("td");
      for (const number of signal.steps) {
        const link = el("button", "step-link", number);
        link.type = "button";
        link.title = "show step " + number;
        link.addEventListener("click", () => showStepNumber(number));
        steps.append(link);
      }
      tr.append(name, el("td", signal.value ? "" : "muted", signal.value), steps,
        el("td", "muted", signal.detail));
      table.append(tr);
    }
    box.append(table);
  }

  // --- the questions ---
  function answerOf(item) { return item in pending ? pending[item] : current.state.answers[item]; }
  function answered(item) { const value = answerOf(item); return value === 0 || value === 1; }
  function activation(code) {
    const kind = rubric.criteria.find((c) => c.code === code).gate.kind;
    const why = current.state.activated[code];
    const gate = "gate:" + kind;
    if (kind === "always" || !(gate in pending)) return why;
    return pending[gate] === 1 ? "own" : why === "majority" ? "majority" : null;
  }
  function buildQuestions() {
    const keep = questions.length ? questions[focusIndex].item : null;
    questions = [];
    const box = byId("questions");
    box.replaceChildren();
    box.append(el("div", "module", "applicability gates (answer first)"));
    for (const item of ["gate:ambiguity", "gate:recovery"]) {
      const kind = item.slice(5);
      addQuestion(box, { item, code: "gate", name: GATE_TITLES[item][0] + " · " + GATE_TITLES[item][1],
        text: rubric.gates[kind] });
    }
    for (const [module, title] of Object.entries(rubric.modules)) {
      box.append(el("div", "module", module + " · " + title));
      for (const c of rubric.criteria.filter((c) => c.module === module)) {
        const why = activation(c.code);
        if (why === null) {
          const said = answerOf("gate:" + c.gate.kind);
          box.append(el("div", "inactive", c.code + " · " + c.name + ": " + (said === 0
            ? "not applicable (you answered the " + c.gate.kind + " gate no)"
            : "applies when the " + c.gate.kind + " gate is answered yes")));
          continue;
        }
        addQuestion(box, { item: c.code, code: c.code, name: c.name, text: c.definition, criterion: c, why });
      }
    }
    const again = questions.findIndex((q) => q.item === keep);
    focusIndex = again >= 0 ? again : Math.min(focusIndex, questions.length - 1);
    renderFocus();
    byId("complete").hidden = !questions.every((q) => answered(q.item));
  }
  function addQuestion(box, q) {
    const node = el("div", "question");
    node.dataset.item = q.item;
    const head = el("div", "head");
    head.append(el("span", "code", q.code), el("span", "name", q.name));
    const answer = el("span", "answer");
    for (const [label, value] of [["yes (y)", 1], ["no (n)", 0]]) {
      const button = el("button", value ? "yes" : "no", label);
      button.type = "button";
      const chosen = answerOf(q.item) === value;
      if (chosen) button.classList.add("chosen");
      if (chosen && q.item in pending) button.classList.add("pending");
      button.addEventListener("click", () => { focusQuestion(questions.indexOf(q)); answer_(value); });
      answer.append(button);
    }
    head.append(answer);
    node.append(head);
    if (q.why === "majority") {
      node.append(el("span", "tag", "activated by the majority of annotators"));
    }
    node.append(el("div", "text", q.text));
    if (q.criterion) {
      const details = el("details");
      details.append(el("summary", null, "evidence rules"));
      const rules = [["positive evidence", q.criterion.positive], ["negative evidence", q.criterion.negative],
        ["notes", q.criterion.notes]];
      for (const [title, items] of rules) {
        if (!items.length) continue;
        details.append(el("div", "muted", title));
        const ul = el("ul");
        for (const text of items) ul.append(el("li", null, text));
        details.append(ul);
      }
      node.append(details);
    }
    const note = el("input", "note");
    note.type = "text";
    note.maxLength = 500;
    note.placeholder = "justification (optional; e to write, Enter to save)";
    note.value = q.item in drafts ? drafts[q.item] : current.state.justifications[q.item] || "";
    note.addEventListener("input", () => { drafts[q.item] = note.value; });
    note.addEventListener("keydown", (event) => {
      if (event.key === "Enter") { event.preventDefault(); saveNote(q.item); note.blur(); }
      if (event.key === "Escape") {
        event.preventDefault();
        delete drafts[q.item];
        note.value = current.state.justifications[q.item] || "";
        note.blur();
      }
      event.stopPropagation();
    });
    node.append(note);
    const state = el("div", q.item in failed ? "state failed" : "state muted");
    if (q.item in failed) state.textContent = "not saved: " + failed[q.item];
    else if (q.item in pending) state.textContent = "saving…";
    else if (answered(q.item)) state.textContent = "saved";
    node.append(state);
    node.addEventListener("click", (event) => {
      if (event.target.tagName !== "BUTTON") focusQuestion(questions.indexOf(q));
    });
    box.append(node);
    q.node = node;
    q.note = note;
    questions.push(q);
  }
  function focusQuestion(i) {
    if (!questions.length) return;
    focusIndex = Math.max(0, Math.min(questions.length - 1, i));
    renderFocus();
    questions[focusIndex].node.scrollIntoView({ block: "nearest" });
  }
  function renderFocus() {
    questions.forEach((q, i) => q.node.classList.toggle("focused", i === focusIndex));
  }
  function saveHash() {
    if (!current || !history.replaceState) return;
    history.replaceState(null, "", "#episode=" + encodeURIComponent(current.name) + "&step=" + stepIndex);
  }

  // --- answers ---
  function post(item, value, justification) {
    const episode = current.name;
    pending[item] = value;
    delete failed[item];
    setStatus("saving", "saving " + item + "…");
    const body = JSON.stringify({ episode, item, value, justification });
    queue = queue.then(async () => {
      try {
        const response = await fetch("/api/judgments", {
          method: "POST", headers: { "Content-Type": "application/json" }, body,
        });
        const reply = await response.json().catch(() => ({}));
        if (!response.ok) throw new Error(reply.error || "HTTP " + response.status);
        if (current.name === episode) {
          current.state = reply.state;
          if (pending[item] === value) delete pending[item];
          if (drafts[item] === (reply.saved.justification || "")) delete drafts[item];
        }
        updateListEntry(reply.state, reply.progress);
        setStatus("saved", "saved " + item + (value === null ? " (withdrawn)" : value ? ": yes" : ": no") +
          " · " + reply.progress.complete + "/" + reply.progress.total + " episodes complete");
      } catch (err) {
        if (current.name === episode) { delete pending[item]; failed[item] = err.message; }
        setStatus("failed", "save failed for " + item + ": " + err.message);
      }
      if (current.name === episode) buildQuestions();
    });
    buildQuestions();
    return queue;
  }
  function noteOf(item) {
    return item in drafts ? drafts[item] : current.state.justifications[item] || "";
  }
  function answer_(value) {
    const q = questions[focusIndex];
    if (!q) return;
    post(q.item, value, noteOf(q.item) || null);
    if (value === null) return;
    const next = questions.findIndex((other, i) => i > focusIndex && !answered(other.item));
    const first = questions.findIndex((other) => !answered(other.item));
    focusQuestion(next >= 0 ? next : first >= 0 ? first : focusIndex);
  }
  function saveNote(item) {
    const value = answerOf(item);
    if (value === 0 || value === 1) post(item, value, noteOf(item) || null);
    else setStatus("", "the justification of " + item + " is saved with its answer");
  }

  // --- keyboard ---
  function toggleHelp(show) {
    const help = byId("help");
    help.hidden = show === undefined ? !help.hidden : !show;
  }
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !current || loading) return;
    const tag = event.target.tagName;
    if (tag === "INPUT" && event.target.type === "text" || tag === "TEXTAREA") return;
    if (tag === "SELECT" && !["?", "Escape"].includes(event.key)) return;
    const steps = (current.evidence.steps || []).length;
    const actions = {
      y: () => answer_(1), n: () => answer_(0), x: () => answer_(null),
      j: () => focusQuestion(focusIndex + 1), ArrowDown: () => focusQuestion(focusIndex + 1),
      k: () => focusQuestion(focusIndex - 1), ArrowUp: () => focusQuestion(focusIndex - 1),
      "]": () => showStep(stepIndex + 1), ArrowRight: () => showStep(stepIndex + 1),
      "[": () => showStep(stepIndex - 1), ArrowLeft: () => showStep(stepIndex - 1),
      Home: () => showStep(0), End: () => showStep(steps - 1),
      N: () => moveEpisode(1), p: () => moveEpisode(-1),
      e: () => { const q = questions[focusIndex]; if (q) q.note.focus(); },
      "?": () => toggleHelp(), Escape: () => toggleHelp(false),
    };
    const action = actions[event.key];
    if (action) { event.preventDefault(); action(); }
  });

  function renderShortcuts() {
    for (const id of ["shortcuts", "help-table"]) {
      const table = byId(id);
      for (const [keys, what] of config.shortcuts) {
        const tr = el("tr");
        tr.append(el("th", null, keys), el("td", null, what));
        table.append(tr);
      }
    }
  }

  async function start() {
    renderShortcuts();
    byId("help-button").addEventListener("click", () => toggleHelp());
    byId("help").addEventListener("click", () => toggleHelp(false));
    byId("prev-episode").addEventListener("click", () => moveEpisode(-1));
    byId("next-episode").addEventListener("click", () => moveEpisode(1));
    byId("episode-select").addEventListener("change", (event) => {
      event.target.blur();
      openEpisode(event.target.value, 0);
    });
    byId("first").addEventListener("click", () => showStep(0));
    byId("prev").addEventListener("click", () => showStep(stepIndex - 1));
    byId("next").addEventListener("click", () => showStep(stepIndex + 1));
    byId("last").addEventListener("click", () => showStep((current.evidence.steps || []).length - 1));
    byId("scrubber").addEventListener("input", (event) => showStep(Number(event.target.value)));
    try {
      [rubric, list] = await Promise.all([getJson("/api/rubric"), getJson("/api/episodes")]);
    } catch (err) {
      setStatus("failed", "could not reach the annotation server: " + err.message);
      return;
    }
    byId("rubric-version").textContent = "rubric " + rubric.version;
    const earlier = list.episodes.reduce((sum, e) => sum + e.answered, 0);
    if (earlier) setStatus("saved", "resumed: " + earlier + " answer(s) saved earlier");
    for (const line of rubric.guidance) byId("guidance-list").append(el("li", null, line));
    const hash = new URLSearchParams(location.hash.slice(1));
    const wanted = list.episodes.find((e) => e.name === hash.get("episode"));
    const open = wanted || list.episodes.find((e) => !e.complete) || list.episodes[0];
    await openEpisode(open.name, wanted ? Number(hash.get("step")) || 0 : 0);
    document.body.dataset.ready = "1";
  }
  start();
"""


def render_annotate_page(annotator: str, nonce: str) -> str:
    """The page for ``annotator``, its script allowed by ``nonce`` (the CSP header's)."""
    config = {"annotator": annotator, "shortcuts": [list(pair) for pair in SHORTCUTS]}
    return render_page(f"annotate · {annotator}", CSS, BODY, SCRIPT, {"annotate-config": config}, nonce)
