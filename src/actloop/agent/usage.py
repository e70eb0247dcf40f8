"""What an episode's model calls cost and which generation settings actually went over the wire."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript

# Request fields that carry the conversation or tool schemas rather than generation settings.
_PAYLOAD_FIELDS = frozenset({"messages", "input", "contents", "system", "tools", "instructions", "prompt"})


@dataclass
class TokenCount:
    """Running input/output token totals over an episode's model calls."""

    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, input_tokens: int, output_tokens: int) -> None:
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens

    def summary(self, prices_per_mtok: tuple[float, float] | None) -> dict[str, int | float | None]:
        """Totals, and the cost in USD when (input, output) prices per million tokens are known."""
        cost = None
        if prices_per_mtok is not None:
            price_in, price_out = prices_per_mtok
            cost = round((self.input_tokens * price_in + self.output_tokens * price_out) / 1e6, 6)
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
            "cost_usd": cost,
        }


def sent_generation_settings() -> dict[str, Any] | None:
    """The settings of the most recent provider request as sent (the body without the conversation).

    Providers differ in what they forward (some drop ``temperature`` for reasoning models); this is read
    from the raw request Inspect recorded, so it shows what went over the wire. None for built-in models
    that make no provider request.
    """
    event = transcript().history.find_last(lambda e: isinstance(e, ModelEvent))
    if not isinstance(event, ModelEvent) or event.call is None:
        return None
    return {k: v for k, v in event.call.request.items() if k not in _PAYLOAD_FIELDS}
