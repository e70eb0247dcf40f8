"""Built-in model backends that read the same messages a remote model reads.

``actloop/replay`` plays a recorded decision list (model arg ``decisions=PATH``); every other name is a
model a suite ships (:meth:`~actloop.core.suite.Suite.builtin_models`, e.g. vabench's ``baseline``).
Token usage is estimated as compaction estimates it (text length plus a fixed cost per image) and set
explicitly, so Inspect never needs a tokenizer (which it would try to download).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from actloop.agent.compaction import CHARS_PER_TOKEN, estimate_tokens
from actloop.agent.replay import load_replies, replay_reply
from actloop.core.suite import BuiltinModel, suites
from actloop.errors import ConfigError


def builtin_models() -> dict[str, BuiltinModel]:
    """The models the installed suites ship, by name."""
    return {name: model for suite in suites().values() for name, model in suite.builtin_models().items()}


class ActloopModelAPI(ModelAPI):
    """The ``actloop/<name>`` provider: ``replay`` or a suite's built-in model such as ``baseline``."""

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
            raise ConfigError(f"actloop/{model_name} got unknown model args: {', '.join(sorted(model_args))}")
        self._decide: Callable[[list[ChatMessage]], str]
        shipped = builtin_models()
        if model_name in shipped:
            if decisions is not None:
                raise ConfigError(f"actloop/{model_name} takes no 'decisions' model arg")
            self._decide = shipped[model_name]
        elif model_name == "replay":
            if decisions is None:
                raise ConfigError("actloop/replay needs the model arg decisions=PATH")
            replies = load_replies(Path(decisions))
            self._decide = lambda messages: replay_reply(
                replies, sum(isinstance(m, ChatMessageAssistant) for m in messages)
            )
        else:
            names = ", ".join(sorted([*shipped, "replay"]))
            raise ConfigError(f"unknown actloop model {model_name!r}; choose one of: {names}")

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
