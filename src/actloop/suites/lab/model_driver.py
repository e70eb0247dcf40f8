"""One lab episode with an Inspect model: the model writes Python, the bench's code-execution tool runs it.

The first message gives the task card, the workspace guide and how the tool works. Each reply with a fenced
``python`` block runs that program in the sandboxed workspace; its output and the images it saved come back
as the next message (images of earlier runs are replaced by placeholders, so each request carries only the
latest). A reply without a program ends the episode, as do the submission, the spent simulated-time budget,
the wall-clock limit and the run limit. The evaluator's verdict arrives once the episode has ended; it goes
to the row and the record and never into the conversation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import ChatMessageUser

from actloop.agent.messages import image_message, omit_images
from actloop.agent.session import ModelSession
from actloop.core.environment import Environment
from actloop.core.frames import Frame
from actloop.core.result import StopReason
from actloop.core.suite import EpisodeOutcome
from actloop.records.recorder import EpisodeRecorder
from actloop.suites.lab.agent_env import SHOW_DIR, CodeRun, LabResult, LabTransition, LabVerdict

CODE_BLOCK = re.compile(r"^```(?:python|py)[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
"""A fenced Python block; its fences stand on lines of their own."""
LAB_RECORD_FILE = "lab_record.jsonl"
LAB_SCORE_FILE = "lab_score.json"

TOOL_GUIDE = """\
## How you act
Reply with one fenced ```python code block per turn. It runs as a new Python 3.11 process (numpy, scipy,
pillow, matplotlib and httpx installed) in /workspace, beside lab_client.py: files you write there persist
between runs, variables do not. Each run may take as long as the wall-clock time left. You get back what the
program printed (stdout and stderr, the last {max_chars} characters of each). To look at an image, save it as
a PNG file under `{show}/` (for example
`open("{show}/front.png", "wb").write(lab.observe()["images"]["front"])`); up to {max_images} such images per
run come back to you. You may run at most {max_runs} programs. The episode ends when you submit (once, with
`lab.submit`), when the simulated-time budget is spent, or when you reply without a code block.
"""


def first_message(card: str, guide: str, action_space: dict[str, Any]) -> str:
    from actloop.suites.lab.agent_env import MAX_IMAGES_PER_RUN, MAX_OUTPUT_CHARS

    tool = TOOL_GUIDE.format(
        max_chars=MAX_OUTPUT_CHARS,
        show=SHOW_DIR,
        max_images=MAX_IMAGES_PER_RUN,
        max_runs=action_space["max_runs"],
    )
    intro = "You are the experimenter at a lab bench."
    return f"{intro}\n\n{card}\n{tool}\n# The workspace guide (README.md)\n{guide}"


def keep_verdict(directory: Path, verdict: LabVerdict) -> None:
    """The evaluator's side goes to the record directory: the sealed bench record and the score."""
    (directory / LAB_RECORD_FILE).write_text(verdict.record, encoding="ascii")
    body = {"score": verdict.fields, "citations": verdict.citations}
    (directory / LAB_SCORE_FILE).write_text(json.dumps(body, indent=1, default=str))


def extract_program(reply: str) -> str | None:
    """The program of a reply: its first fenced ``python`` block, or None."""
    match = CODE_BLOCK.search(reply)
    return match.group(1) if match else None


def run_message(run: CodeRun, result: LabResult, number: int) -> ChatMessageUser:
    """What the model sees after run ``number``."""
    ended = "killed at the wall-clock limit" if run.timed_out else f"exit status {run.returncode}"
    lines = [f"run {number}: {ended}, {run.wall_s:.1f} s"]
    if run.stdout:
        lines += ["stdout:", run.stdout]
    if run.stderr:
        lines += ["stderr:", run.stderr]
    if run.dropped_images:
        lines.append(f"({run.dropped_images} more images were not sent: at most the first ones per run)")
    status = f"simulated time {result.sim_time_s:.1f} s; wall-clock time left {result.wall_left_s:.0f} s"
    lines.append(status + ("; the episode has ended" if result.done else ""))
    frames = tuple(Frame(f"run{number}_{name}", png) for name, png in run.images)
    return image_message("\n".join(lines), number, frames)


class LabDriver:
    """Plays one lab episode with the model (see the module docstring)."""

    def __init__(self, env: Environment, session: ModelSession, recorder: EpisodeRecorder, task: str) -> None:
        self.env = env
        self.session = session
        self.recorder = recorder
        self.task = task
        self.runs = 0
        self.verdict: LabVerdict | None = None

    async def run(self, start: dict[str, Any]) -> StopReason:
        self.recorder.event("episode_start", start)
        transition: LabTransition = await anyio.to_thread.run_sync(self.env.reset)
        intro = first_message(self.env.instruction, transition.result.guide, self.env.action_space)
        self.session.messages.append(ChatMessageUser(content=intro))
        while not transition.result.done:
            reply = await self.session.generate()
            program = extract_program(reply)
            if program is None:
                self.recorder.event("decision", {"run": None, "ended_by_model": True})
                transition = await anyio.to_thread.run_sync(self.env.step, {"finish": True})
                break
            self.runs += 1
            self.recorder.event("decision", {"run": self.runs, "program": program})
            transition = await anyio.to_thread.run_sync(self.env.step, {"code": program})
            self._record_run(transition)
            omit_images(self.session.messages)
            if transition.result.run is not None:
                self.session.messages.append(run_message(transition.result.run, transition.result, self.runs))
        self._keep_verdict(transition.verdict)
        return self._stop_reason(transition)

    def _record_run(self, transition: LabTransition) -> None:
        run = transition.result.run
        if run is None:
            return
        frames = tuple(Frame(f"run{self.runs}_{name}", png) for name, png in run.images)
        self.recorder.event(
            "tool_result",
            {
                "run": self.runs,
                "returncode": run.returncode,
                "wall_s": round(run.wall_s, 3),
                "stdout": run.stdout,
                "stderr": run.stderr,
                "images": self.recorder.save_frames(self.runs, frames),
                "sim_time_s": transition.result.sim_time_s,
                "ended": transition.result.ended,
            },
        )

    def _keep_verdict(self, verdict: LabVerdict | None) -> None:
        if verdict is not None:
            self.verdict = verdict
            keep_verdict(self.recorder.directory, verdict)

    def _stop_reason(self, transition: LabTransition) -> StopReason:
        """``success``; ``budget`` when simulated time, wall-clock time or runs ran out; else ``stop`` (a
        failed submission, or the model ended the episode)."""
        if transition.verdict is not None and transition.verdict.fields.get("success"):
            return "success"
        return "budget" if transition.result.ended in ("budget", "wall_clock", "runs") else "stop"

    def outcome(self) -> EpisodeOutcome:
        if self.verdict is None:
            return EpisodeOutcome(steps=self.runs, budget=self.env.budget)
        fields = {k: v for k, v in self.verdict.fields.items() if k != "success"}
        scores = {**fields, "sim_time_s": round(self.verdict.sim_time_s, 3)}
        return EpisodeOutcome(bool(self.verdict.fields.get("success")), self.runs, self.env.budget, scores)
