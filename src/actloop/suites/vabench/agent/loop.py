"""The decision loop of one episode: observation → model → decision → environment, until it ends.

Per model reply: parse it against the episode's action space; an invalid reply, or an action the
environment refuses to dispatch, gets a repair message (the problem plus the observation text, no image),
at most ``MAX_REPAIRS`` times in a row before the episode ends with ``invalid_decisions``. Tool calls are
answered in the conversation without advancing the environment; more than
``MAX_CALLS_WITHOUT_ACTION`` model calls without a dispatched action end the episode with ``tool_loop``.
Before each model call the conversation is compacted if it nears the context limit (``compaction``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import anyio
from inspect_ai.model import ChatMessageSystem, ChatMessageUser

from actloop.agent.messages import image_message, omit_images
from actloop.agent.session import ModelSession
from actloop.core.result import StopReason
from actloop.records.recorder import EpisodeRecorder
from actloop.suites.vabench.agent.messages import observation_message, repair_message
from actloop.suites.vabench.agent.record import record_observation
from actloop.suites.vabench.protocol.decisions import Stop, ToolCall, to_json
from actloop.suites.vabench.protocol.parse import DecisionError, parse_decision
from actloop.suites.vabench.protocol.prompt import system_prompt
from actloop.suites.vabench.protocol.step import StepResult

if TYPE_CHECKING:
    from actloop.suites.vabench.agent.driver import ModelFacingEnv

MAX_REPAIRS = 2
MAX_CALLS_WITHOUT_ACTION = 20
HISTORY_TOOL = "camera.history"


class EpisodeLoop:
    """Runs one episode over ``env`` with the model of ``session`` (whose conversation is replaced)."""

    def __init__(
        self,
        env: ModelFacingEnv,
        session: ModelSession,
        recorder: EpisodeRecorder,
        summary: str | None = None,
    ) -> None:
        self.env = env
        self.session = session
        self.messages = session.messages
        self.summary = summary
        self.recorder = recorder
        self.repairs = 0

    async def run(self, start: dict[str, Any]) -> StopReason:
        """Play the episode to its end and return why it ended; ``start`` goes into ``episode_start``."""
        first = await anyio.to_thread.run_sync(self.env.reset)
        space = self.env.action_space
        prompt = system_prompt(self.env.instruction, space, self.env.budget, self.summary)
        self.recorder.event(
            "episode_start",
            {
                **start,
                "instruction": self.env.instruction,
                "budget": self.env.budget,
                "action_space": asdict(space),
                "system_prompt": prompt,
            },
        )
        self.messages[:] = [ChatMessageSystem(content=prompt)]
        self._observe(first)
        current = first
        calls_without_action = 0
        attempt = 0
        kind: str
        while not current.done:
            if calls_without_action >= MAX_CALLS_WITHOUT_ACTION:
                return "tool_loop"
            reply = await self.session.generate()
            calls_without_action += 1
            decision = parse_decision(reply, space)
            if isinstance(decision, DecisionError):
                kind, problem = decision.kind, decision.message
            else:
                self.recorder.event("decision", {"decision": to_json(decision)})
                if isinstance(decision, Stop):
                    return "stop"
                if isinstance(decision, ToolCall):
                    attempt = 0
                    self.messages.append(await self._tool(decision, current.observation.step))
                    continue
                result = await anyio.to_thread.run_sync(self.env.step, decision)
                current = result
                if result.dispatched:
                    attempt, calls_without_action = 0, 0
                    self._observe(result)
                    continue
                kind = "not_dispatched"
                problem = result.observation.feedback.message or "the environment did not execute the action"
            attempt += 1
            self.recorder.event("decision_rejected", {"kind": kind, "message": problem, "attempt": attempt})
            if attempt > MAX_REPAIRS:
                return "invalid_decisions"
            self.repairs += 1
            self.messages.append(repair_message(problem, attempt, MAX_REPAIRS, current.observation))
        if current.stop_reason is None:
            raise ValueError("the environment reported done without a stop_reason")
        return current.stop_reason

    def _observe(self, result: StepResult) -> None:
        """Record the observation and send it; earlier images become placeholders."""
        record_observation(self.recorder, result.observation)
        omit_images(self.messages)
        self.messages.append(observation_message(result.observation))

    async def _tool(self, call: ToolCall, current_step: int) -> ChatMessageUser:
        """Answer a tool call with a user message; never advances the environment."""
        data: dict[str, Any] = {"tool": call.name, "args": call.args}
        error: str
        if call.name != HISTORY_TOOL:
            error = f"the tool {call.name} is not available in this harness"
        else:
            step = call.args.get("step")
            if not isinstance(step, int) or isinstance(step, bool):
                error = f'{HISTORY_TOOL} needs {{"step": N}} with an integer step number; got {step!r}'
            else:
                frames = await anyio.to_thread.run_sync(self.env.frames_at, step)
                if frames is not None:
                    saved = self.recorder.save_frames(step, frames)
                    self.recorder.event("tool_result", {**data, "ok": True, "frames": saved})
                    return image_message(f"{HISTORY_TOOL} result: the image(s) of step {step}.", step, frames)
                error = f"no images for step {step}; steps 0 to {current_step} have been observed"
        self.recorder.event("tool_result", {**data, "ok": False, "message": error})
        return ChatMessageUser(content=f"{call.name} failed: {error}")
