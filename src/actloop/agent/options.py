"""Run-wide settings of the harness around the model (the environment has its own)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from actloop.agent.compaction import ContextPolicy
from actloop.errors import ConfigError

DEFAULT_CONTEXT_LIMIT = 262_144


@dataclass(frozen=True)
class HarnessOptions:
    """``context_limit``: the model's context size in tokens, which the conversation is compacted to stay
    under; ``price_in``/``price_out``: USD per million input/output tokens, for the recorded cost;
    ``summary``: the demonstration-summary condition (``own``, ``shared:<model>`` or ``none``) and
    ``summaries`` the prompt text it gives each task."""

    context_limit: int = DEFAULT_CONTEXT_LIMIT
    price_in: float | None = None
    price_out: float | None = None
    summary: str = "none"
    summaries: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.context_limit < 1_000:
            raise ConfigError(f"context_limit must be at least 1000 tokens, got {self.context_limit}")
        if (self.price_in is None) != (self.price_out is None):
            raise ConfigError("give both price_in and price_out (USD per million tokens), or neither")
        if self.summary == "none" and self.summaries:
            raise ConfigError("summary texts were given for the 'none' summary condition")

    @property
    def context_policy(self) -> ContextPolicy:
        return ContextPolicy(limit_tokens=self.context_limit)

    @property
    def prices_per_mtok(self) -> tuple[float, float] | None:
        if self.price_in is None or self.price_out is None:
            return None
        return (self.price_in, self.price_out)

    def to_dict(self) -> dict[str, Any]:
        """Plain values, as an Inspect task argument."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> HarnessOptions:
        return cls(**(values or {}))
