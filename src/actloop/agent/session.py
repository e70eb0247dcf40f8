"""The model's side of an episode: the conversation, its compaction, and every model call recorded.

Shared by every suite's episode driver. A provider failure becomes a
:class:`~actloop.agent.failures.ModelFailure`; a configuration failure (a wrong key or model) is
remembered, so the model's other episodes stop at their next call instead of repeating it.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessage, Model
from inspect_ai.util import LimitExceededError

from actloop.agent.compaction import ContextPolicy, compact
from actloop.agent.failures import ModelFailure, configuration_failure, note_failure
from actloop.agent.usage import TokenCount, sent_generation_settings
from actloop.records.recorder import EpisodeRecorder


class ModelSession:
    """Calls ``model`` on ``messages`` (the episode's conversation, kept in place) and records each call."""

    def __init__(
        self,
        model: Model,
        messages: list[ChatMessage],
        recorder: EpisodeRecorder,
        policy: ContextPolicy | None = None,
    ) -> None:
        self.model = model
        self.messages = messages
        self.recorder = recorder
        self.policy = policy or ContextPolicy()
        self.model_calls = 0
        self.tokens = TokenCount()

    @property
    def name(self) -> str:
        return str(self.model)

    async def generate(self) -> str:
        """One model call on the conversation (compacted first if it nears the context limit); the reply
        is appended to the conversation and its text returned."""
        stopped = configuration_failure(self.name)
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
            note_failure(self.name, failure)
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
