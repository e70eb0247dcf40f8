"""``actloop run --suite lab --agent ...``: the real coding agents' CLIs play lab episodes through the
harness against scripted loopback APIs (pooled environments, and Ray); rows carry the agent, its version,
model and usage, records keep the transcript; a refused key stops the run with one error line and a recorded
row, and the rerun runs that episode again while a finished one is not rerun.

The scripted APIs are started by the tests on 127.0.0.1 and stopped by them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from actloop.errors import ConfigError
from actloop.runs.plan import RunPlan
from actloop.suites.lab.agent_env import LabAgentEnv
from actloop.suites.lab.coding_agents import CLAUDE_CODE, CODEX
from coding_agent_servers import (
    EXPERIMENT,
    KEY,
    USAGE_IN,
    USAGE_OUT,
    ScriptedServer,
    anthropic,
    claude_turns,
    codex_turns,
    ready,
    responses,
)

Run = tuple[int, str, list[dict[str, Any]]]


def actloop_run(out: Path, agent: str, model: str, api: str, key: tuple[str, str], *extra: str) -> Run:
    """``actloop run`` of the experiment's first verified seed; (exit code, output, the rows)."""
    command = [sys.executable, "-m", "actloop.cli", "run", "--suite", "lab", "--tasks", EXPERIMENT,
               "--seeds", "1", "--agent", agent, "--model", model, "--model-base-url", api, "--out", str(out),
               "--workers", "1", *extra]  # fmt: skip
    env = {**os.environ, key[0]: key[1]}
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    return done.returncode, done.stdout + done.stderr, rows


def claude(server: ScriptedServer, out: Path, key: str, *extra: str) -> Run:
    key_env = ("ANTHROPIC_API_KEY", key)
    return actloop_run(out, "claude-code", "anthropic/claude-scripted", server.origin, key_env, *extra)


def test_claude_code_plays_through_the_harness_a_finished_run_is_not_played_again_and_ray_agrees(
    tmp_path: Path,
) -> None:
    ready(CLAUDE_CODE)
    with anthropic(claude_turns() * 2, key=KEY) as server:
        pooled = tmp_path / "pool"
        code, said, rows = claude(server, pooled, KEY)
        asked = len(server.script.requests)
        assert code == 0, said
        (row,) = rows
        assert (
            row["success"]
            and row["model"] == "claude-code:anthropic/claude-scripted"
            and row["error"] is None
        )
        assert (row["agent"], row["agent_version"], row["agent_model"], row["reasoning"]) == (
            "claude-code", CLAUDE_CODE.version, "anthropic/claude-scripted", "medium"
        )  # fmt: skip
        assert (
            row["tokens"]["input_tokens"] == row["wire_usage"]["input"] == asked * 1000
            and row["programs"] == 1
        )
        record = pooled / row["record_dir"]
        assert {"agent_transcript.jsonl", "programs.jsonl", "api_exchanges.jsonl", "lab_record.jsonl"} <= {
            p.name for p in record.iterdir()
        }
        condition = json.loads((pooled / "condition.json").read_text())
        assert (condition["agent"], condition["agent_version"], condition["reasoning"]) == (
            "claude-code", CLAUDE_CODE.version, "medium"
        )  # fmt: skip
        code, said, again = claude(server, pooled, KEY)
        assert code == 0 and len(server.script.requests) == asked and again == rows
        assert "1 episode(s) already recorded" in said
        code, said, remote = claude(server, tmp_path / "ray", KEY, "--ray", "local")
        assert code == 0, said
    same = ("success", "e", "stop_stage", "process_score", "steps", "agent", "agent_version", "tokens")
    assert [{k: r[k] for k in same} for r in rows] == [{k: r[k] for k in same} for r in remote]


def test_codex_plays_through_the_harness_priced_by_its_tokens(tmp_path: Path) -> None:
    """Codex's transcript states no cost: the run's prices give it."""
    ready(CODEX)
    with responses(codex_turns(), key=KEY) as server:
        prices = ("--price-in", "2", "--price-out", "8")
        key_env = ("OPENAI_API_KEY", KEY)
        code, said, rows = actloop_run(
            tmp_path, "codex", "openai/gpt-scripted", server.origin, key_env, *prices
        )
        asked = len(server.script.requests)
    assert code == 0, said
    (row,) = rows
    assert (
        row["success"]
        and row["model"] == "codex:openai/gpt-scripted"
        and row["agent_version"] == CODEX.version
    )
    assert row["tokens"]["cost_usd"] == round(asked * (USAGE_IN * 2 + USAGE_OUT * 8) / 1e6, 6)


def test_a_refused_key_stops_the_run_with_a_row_and_the_rerun_plays_it_again(tmp_path: Path) -> None:
    ready(CLAUDE_CODE)
    with anthropic(claude_turns(), key=KEY) as server:
        code, said, rows = claude(server, tmp_path, "sk-wrong")
        (row,) = rows
        assert code == 1 and [line for line in said.splitlines() if line.startswith("error:")] == [
            f"error: claude-code:anthropic/claude-scripted: {row['error']}"
        ]
        assert row["error_kind"] == "configuration" and row["error"].endswith("refused the key (401)")
        assert not row["success"] and (tmp_path / row["record_dir"] / "events.jsonl").exists()
        code, said, rows = claude(server, tmp_path, KEY)
        assert code == 0 and rows[-1]["success"], said


def test_a_playing_agent_leaves_its_bench_free_and_closing_the_bench_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The agent plays in a thread of the bench's process: polls answer at once while it plays, and a bench
    closed mid-play (its run killed, its process going away) takes the agent's sandbox down with it."""
    ready(CLAUDE_CODE)  # the sandbox
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    env = LabAgentEnv(EXPERIMENT, 1)
    env.reset()
    marker = f"sleep {1000 + os.getpid() % 1000}"
    how = {
        "agent": f"command:{marker}",
        "model": "anthropic/any",
        "api": "http://127.0.0.1:9",
        "reasoning": "",
    }
    assert not env.step({"agent": how}).result.done
    time.sleep(1.0)
    polled = time.monotonic()
    assert not env.step({"agent_poll": True}).result.done and time.monotonic() - polled < 0.5
    assert _running(marker)
    closed = time.monotonic()
    env.close()
    assert time.monotonic() - closed < 10 and not _running(marker)


def _running(command: str) -> bool:
    listed = subprocess.run(["pgrep", "-f", command], capture_output=True, text=True)
    return bool(listed.stdout.strip())


def test_agents_models_and_levels_make_a_matrix_and_only_the_lab_runs_agents(tmp_path: Path) -> None:
    plan = RunPlan(["anthropic/a", "openai/b"], tmp_path, suite="lab", agents=["claude-code", "codex"],
                   protocols=["T0", "T1"])  # fmt: skip
    models = sorted({c.model for c in plan.conditions()})
    assert models == [
        "claude-code:anthropic/a",
        "claude-code:openai/b",
        "codex:anthropic/a",
        "codex:openai/b",
    ]
    assert len(plan.conditions()) == 8 and {c.protocol for c in plan.conditions()} == {"T0", "T1"}
    with pytest.raises(ConfigError, match="no coding agent 'aider'"):
        RunPlan(["anthropic/a"], tmp_path, suite="lab", agents=["aider"]).conditions()
    with pytest.raises(ConfigError, match="the vabench suite runs models only"):
        RunPlan(["anthropic/a"], tmp_path, suite="vabench", agents=["codex"]).conditions()
