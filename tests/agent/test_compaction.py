"""Context compaction: bounded requests over long episodes, digests of folded turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    ContentImage,
    ContentText,
)

from actloop.agent.compaction import DIGEST_HEADER, ContextPolicy, compact, estimate_tokens
from actloop.agent.options import HarnessOptions
from episode_rows import run_json

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")
HERE = Path(__file__).resolve().parent
MOVE = {"action": "gripper.move_world", "axis": "x", "sign": "+", "distance_mm": 5, "reason": "creep"}


def _observation(step: int, image: bool) -> ChatMessageUser:
    text = (
        f"step: {step} of budget 300\nprevious action: gripper.move_world; valid: yes; "
        f"planner success: yes; note: motion executed\nright arm:\n  gripper: open\n" + "  pose line\n" * 20
    )
    parts: list = [ContentText(text=text)]
    if image:
        parts.append(ContentImage(image="data:image/png;base64,AAAA"))
    return ChatMessageUser(content=parts)


def _conversation(turns: int) -> list[ChatMessage]:
    messages: list[ChatMessage] = [ChatMessageSystem(content="system prompt " * 50)]
    for step in range(turns):
        messages.append(_observation(step, image=step == turns - 1))
        messages.append(ChatMessageAssistant(content=json.dumps(MOVE)))
    return messages


def test_small_conversations_are_left_alone() -> None:
    messages = _conversation(3)
    before = list(messages)
    assert compact(messages, ContextPolicy(limit_tokens=100_000)) is None
    assert messages == before


def test_compaction_folds_old_turns_into_a_digest_and_keeps_recent_ones() -> None:
    messages = _conversation(120)
    policy = ContextPolicy(limit_tokens=6_000, keep_user_turns=6)
    recent = messages[-12:]
    result = compact(messages, policy)
    assert result is not None and result["tokens_after"] <= policy.trigger_tokens < result["tokens_before"]
    assert result["user_turns_kept"] == 6
    assert isinstance(messages[0], ChatMessageSystem)
    first = messages[1]
    assert isinstance(first.content, list) and isinstance(first.content[0], ContentText)
    digest = first.content[0].text
    assert digest.startswith(DIGEST_HEADER)
    assert "- step: 113 of budget 300" in digest  # the last folded observation
    assert "you answered:" in digest and "gripper.move_world" in digest
    assert messages[2:] == recent[1:]
    assert (
        sum(
            isinstance(p, ContentImage)
            for m in messages[1:]
            for p in m.content
            if not isinstance(m.content, str)
        )
        == 1
    )


def test_repeated_compaction_keeps_one_bounded_digest() -> None:
    messages = _conversation(10)
    policy = ContextPolicy(limit_tokens=5_000, keep_user_turns=4)
    for step in range(10, 400):
        messages.append(_observation(step, image=False))
        compact(messages, policy)
        assert estimate_tokens(messages) <= policy.trigger_tokens
        messages.append(ChatMessageAssistant(content=json.dumps(MOVE)))
    digests = [
        p.text
        for m in messages
        for p in (m.content if isinstance(m.content, list) else [])
        if isinstance(p, ContentText) and p.text.startswith(DIGEST_HEADER)
    ]
    assert len(digests) == 1
    carrier = next(m for m in messages if isinstance(m, ChatMessageUser))
    first_kept_step = int(carrier.content[1].text.split()[1])  # type: ignore[union-attr, index]
    assert first_kept_step > 300
    assert f"- step: {first_kept_step - 1} of budget 300" in digests[0]  # history is contiguous
    assert "- step: 10 of budget 300" not in digests[0]  # the oldest lines made room


def test_a_200_step_episode_stays_under_the_configured_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(HERE))
    decisions = tmp_path / "decisions.json"
    decisions.write_text(json.dumps([MOVE] * 200))
    limit = 6_000
    (row,) = run_json(
        "fake",
        [("pick_cube", 0, 0)],
        "actloop/replay",
        {"decisions": str(decisions)},
        tmp_path / "out",
        env_factory="fake_env:FakeEnv",
        isolation="inline",
        env_kwargs={"budget": 200},
        harness=HarnessOptions(context_limit=limit),
    )
    assert row["stop_reason"] == "budget" and row["steps"] == 200
    lines = (tmp_path / "out" / row["record_dir"] / "events.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    compactions = [r["data"] for r in records if r["type"] == "context_compacted"]
    assert compactions, "a 200-step episode under a 6k-token limit must compact"
    assert all(c["tokens_after"] <= limit for c in compactions)
    observations = [r for r in records if r["type"] == "observation"]
    assert len(observations) == 201  # the session record keeps every turn
    (info,) = list_eval_logs(str(tmp_path / "out" / "logs"))
    sample = read_eval_log(info, resolve_attachments=True).samples[0]  # type: ignore[index]
    requests = [e.input for e in sample.events if isinstance(e, ModelEvent)]
    assert len(requests) == 200
    assert max(estimate_tokens(r) for r in requests) <= limit
