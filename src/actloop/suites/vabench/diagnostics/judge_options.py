"""The bounds of a judge run (light to import: the command line reads its defaults)."""

from __future__ import annotations

from dataclasses import dataclass

from actloop.errors import ConfigError

MAX_FRAMES = 40
"""Images per judge request by default: every frame of an episode with at most this many, else this
many evenly spaced ones (a 50-step episode with one view per step is shown nearly whole)."""
MAX_BACKOFF_S = 120.0
"""The longest wait before a retry."""


@dataclass(frozen=True)
class JudgeOptions:
    """``votes`` per episode; ``max_connections`` episodes at once; per vote up to ``max_repairs`` repair
    turns and, per model call, ``max_retries`` retries after a provider failure, waiting ``backoff_s``
    doubled each time (at most :data:`MAX_BACKOFF_S`); ``max_frames`` images per request."""

    votes: int = 3
    max_connections: int = 4
    max_repairs: int = 2
    max_retries: int = 3
    backoff_s: float = 5.0
    max_frames: int = MAX_FRAMES

    def __post_init__(self) -> None:
        for name in ("votes", "max_connections", "max_frames"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("max_repairs", "max_retries", "backoff_s"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name} must not be negative, got {getattr(self, name)}")

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first)."""
        return min(self.backoff_s * 2**retry, MAX_BACKOFF_S)
