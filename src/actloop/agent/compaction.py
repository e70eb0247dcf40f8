"""Bounding the model-visible conversation of an episode.

One conversation is kept per episode. Before each model call its size is estimated; when it passes
``trigger_fraction`` of the model's context limit, the turns older than the last ``keep_user_turns``
observations are folded into a deterministic digest (one line per folded observation and decision:
step, previous action, validity, planner outcome, and the decision sent), placed at the head of the
oldest kept turn. The digest is built from the conversation text itself, without an extra model call,
so compaction is reproducible. The episode record (``events.jsonl``) is append-only and keeps everything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
)

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1_000
"""A conservative per-image estimate (a 640×480 image costs roughly 300–1,100 tokens by provider)."""
DIGEST_KEY = "actloop_digest"
DIGEST_HEADER = "Summary of earlier turns (compacted; the images of those turns are no longer shown):"
_KEPT_LINES = re.compile(r"^(step: .*|previous action: .*|note: .*)$", re.M)


@dataclass(frozen=True)
class ContextPolicy:
    """When and how much of the conversation is compacted."""

    limit_tokens: int = 262_144
    trigger_fraction: float = 0.8
    keep_user_turns: int = 6
    decision_chars: int = 240
    """Each folded decision is kept up to this many characters."""

    @property
    def trigger_tokens(self) -> int:
        return int(self.limit_tokens * self.trigger_fraction)


def estimate_tokens(messages: list[ChatMessage]) -> int:
    """A provider-independent estimate of a request's size in tokens."""
    chars, images = 0, 0
    for message in messages:
        if isinstance(message.content, str):
            chars += len(message.content)
            continue
        for part in message.content:
            if isinstance(part, ContentImage):
                images += 1
            elif isinstance(part, ContentText):
                chars += len(part.text)
    return chars // CHARS_PER_TOKEN + images * IMAGE_TOKENS


def compact(messages: list[ChatMessage], policy: ContextPolicy) -> dict[str, Any] | None:
    """Compact ``messages`` in place if they pass the trigger; returns what was done, or None.

    Fewer turns are kept when keeping ``keep_user_turns`` would still not fit the trigger.
    """
    before = estimate_tokens(messages)
    if before <= policy.trigger_tokens:
        return None
    user_indices = [i for i, m in enumerate(messages) if isinstance(m, ChatMessageUser)]
    for keep in range(policy.keep_user_turns, 0, -1):
        if len(user_indices) <= keep:
            continue
        start = user_indices[-keep]
        candidate = _fold(messages, start, policy)
        if estimate_tokens(candidate) <= policy.trigger_tokens or keep == 1:
            folded = start - 1
            messages[:] = candidate
            return {
                "tokens_before": before,
                "tokens_after": estimate_tokens(messages),
                "messages_folded": folded,
                "user_turns_kept": keep,
            }
    return None


def _fold(messages: list[ChatMessage], start: int, policy: ContextPolicy) -> list[ChatMessage]:
    """The system prompt, then messages[start:] with a digest of messages[1:start] on the first one."""
    head = [m for m in messages[:1] if isinstance(m, ChatMessageSystem)]
    lines: list[str] = []
    for message in messages[len(head) : start]:
        lines += _digest_lines(message, policy)
    budget_chars = policy.trigger_tokens * CHARS_PER_TOKEN // 4
    while lines and sum(len(line) + 1 for line in lines) > budget_chars:
        lines.pop(0)  # the digest itself stays bounded: the oldest lines go first
    first = messages[start]
    digest = "\n".join([DIGEST_HEADER, *lines])
    kept_parts = _content(first)
    if (first.metadata or {}).get(DIGEST_KEY):
        kept_parts = kept_parts[1:]  # replace the digest this message already carries
    content: list[Content] = [ContentText(text=digest), *kept_parts]
    metadata = {**(first.metadata or {}), DIGEST_KEY: True}
    kept = first.model_copy(update={"content": content, "metadata": metadata})
    return [*head, kept, *messages[start + 1 :]]


def _digest_lines(message: ChatMessage, policy: ContextPolicy) -> list[str]:
    if isinstance(message, ChatMessageAssistant):
        text = " ".join(message.text.split())
        return [f"  you answered: {text[: policy.decision_chars]}"]
    parts = _content(message)
    if (message.metadata or {}).get(DIGEST_KEY) and parts:
        earlier = parts[0].text if isinstance(parts[0], ContentText) else ""
        rest = parts[1:]
        lines = earlier.splitlines()[1:]
    else:
        rest, lines = parts, []
    text = "\n".join(p.text for p in rest if isinstance(p, ContentText))
    found = [line.strip() for line in _KEPT_LINES.findall(text)]
    if not found and text.strip():
        found = [" ".join(text.split())[: policy.decision_chars]]
    return lines + [f"- {line}" for line in found]


def _content(message: ChatMessage) -> list[Content]:
    return [ContentText(text=message.content)] if isinstance(message.content, str) else list(message.content)
