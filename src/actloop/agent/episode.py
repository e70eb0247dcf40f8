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
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, Model
from inspect_ai.util import LimitExceededError

from actloop.agent.compaction import ContextPolicy, compact
from actloop.agent.failures import ModelFailure, configuration_failure, note_failure
from actloop.agent.messages import image_message, observation_message, omit_images, repair_message
from actloop.agent.usage import TokenCount, sent_generation_settings
from actloop.protocol.decisions import Stop, ToolCall, to_json
from actloop.protocol.parse import DecisionError, parse_decision
from actloop.protocol.prompt import system_prompt
from actloop.protocol.step import StepResult, StopReason
from actloop.records.recorder import EpisodeRecorder
from actloop.runtime.make import ManagedEnv

MAX_REPAIRS = 2
MAX_CALLS_WITHOUT_ACTION = 20
HISTORY_TOOL = "camera.history"


class EpisodeLoop:
    """Runs one episode over ``env``, keeping the conversation in ``messages`` (replaced on start)."""

    def __init__(
        self,
        env: ManagedEnv,
        model: Model,
        messages: list[ChatMessage],
        recorder: EpisodeRecorder,
        policy: ContextPolicy | None = None,
        summary: str | None = None,
    ) -> None:
        self.env = env
        self.policy = policy or ContextPolicy()
        self.summary = summary
        self.model = model
        self.messages = messages
        self.recorder = recorder
        self.last: StepResult | None = None
        self.paper_success_step: int | None = None
        """First step whose state met the paper's literal predicate (where the paper's episode ends)."""
        self.repairs = 0
        self.model_calls = 0
        self.tokens = TokenCount()

    async def run(self, start: dict[str, Any]) -> StopReason:
        """Play the episode to its end and return why it ended; ``start`` goes into ``episode_start``."""
        first = await anyio.to_thread.run_sync(self.env.reset)
        space = self.env.action_space
        prompt = system_prompt(self.env.instruction, space, self.env.budget, self.summary)
        self.recorder.event(
            "episode_start",
            {
                **start,
                **await anyio.to_thread.run_sync(self.env.provenance),
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
            reply = await self._generate()
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
                self.recorder.env_step(decision, result)
                current = result
                if result.dispatched:
                    attempt, calls_without_action = 0, 0
                    self._observe(result)
                    continue
                self.last = result
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
        self.last = result
        if result.evaluation.paper_success and self.paper_success_step is None:
            self.paper_success_step = result.observation.step
        self.recorder.observation(result.observation)
        omit_images(self.messages)
        self.messages.append(observation_message(result.observation))

    async def _generate(self) -> str:
        stopped = configuration_failure(str(self.model))
        if stopped is not None:
            raise ModelFailure(
                f"not run: an earlier episode of this model failed: {stopped}", configuration=True
            )
        self.model_calls += 1
        compacted = compact(self.messages, self.policy)
        if compacted is not None:
            self.recorder.event("context_compacted", {"call": self.model_calls, **compacted})
        try:
            output = await self.model.generate(self.messages)
        except LimitExceededError:
            raise
        except Exception as exc:
            failure = ModelFailure.from_exception(exc)
            note_failure(str(self.model), failure)
            raise failure from exc
        self.messages.append(output.message)
        usage = output.usage.model_dump(exclude_none=True) if output.usage else None
        if output.usage:
            self.tokens.add(output.usage.input_tokens, output.usage.output_tokens)
        self.recorder.event(
            "model_output",
            {
                "call": self.model_calls,
                "text": output.completion,
                "stop_reason": output.stop_reason,
                "error": output.error,
                "usage": usage,
                "request_settings": sent_generation_settings(),
            },
        )
        return output.completion

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
