"""Built-in model backends that read the same messages a remote model reads.

``actloop/baseline`` asks the classical baseline policy for the next decision; ``actloop/replay`` plays a
recorded decision list (model arg ``decisions=PATH``). Token usage is estimated from text length and set
explicitly, so Inspect never needs a tokenizer (which it would try to download).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ContentImage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from actloop.agent.replay import load_replies, replay_reply

CHARS_PER_TOKEN = 4
TOKENS_PER_IMAGE = 765
MODELS = ("baseline", "replay")


def estimate_tokens(messages: list[ChatMessage]) -> int:
    """A rough input token count: characters / 4 plus a fixed cost per image."""
    total = 0
    for message in messages:
        if isinstance(message.content, str):
            total += len(message.content) // CHARS_PER_TOKEN
            continue
        for part in message.content:
            if isinstance(part, ContentImage):
                total += TOKENS_PER_IMAGE
            else:
                total += len(getattr(part, "text", "")) // CHARS_PER_TOKEN
    return total


def _baseline_decide(messages: list[ChatMessage]) -> str:
    # imported on first use, so the other models never load the policy's dependencies
    return importlib.import_module("actloop.agent.baseline").decide(messages)


class ActloopModelAPI(ModelAPI):
    """The ``actloop/<name>`` provider: ``name`` is ``baseline`` or ``replay``."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        decisions: str | Path | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        if model_args:
            raise ValueError(f"actloop/{model_name} got unknown model args: {', '.join(sorted(model_args))}")
        self._decide: Callable[[list[ChatMessage]], str]
        if model_name == "baseline":
            if decisions is not None:
                raise ValueError("actloop/baseline takes no 'decisions' model arg")
            self._decide = _baseline_decide
        elif model_name == "replay":
            if decisions is None:
                raise ValueError("actloop/replay needs the model arg decisions=PATH")
            replies = load_replies(Path(decisions))
            self._decide = lambda messages: replay_reply(
                replies, sum(isinstance(m, ChatMessageAssistant) for m in messages)
            )
        else:
            raise ValueError(f"unknown actloop model {model_name!r}; choose one of: {', '.join(MODELS)}")

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        text = self._decide(input)
        output = ModelOutput.from_content(model=f"actloop/{self.model_name}", content=text)
        input_tokens = estimate_tokens(input)
        output_tokens = max(1, len(text) // CHARS_PER_TOKEN)
        output.usage = ModelUsage(
            input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=input_tokens + output_tokens
        )
        return output
