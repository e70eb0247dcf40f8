"""Coding agents as lab subjects, without the internet: the real Claude Code and Codex CLIs run in the sandbox
against scripted loopback APIs that make them write a solver into the workspace and run it; the episode is
scored like any other, the transcript, the programs and the usage are kept, and a refused key or an
unreachable API ends the run at once as a row with one error line. The adapters' parsing and their
refusals are checked on their own.

The scripted APIs are started by the tests on 127.0.0.1 and stopped by them."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from actloop.cli import main
from actloop.errors import ConfigError
from actloop.suites.lab.agent_run import play
from actloop.suites.lab.coding_agents import (
    CLAUDE_CODE,
    CODEX,
    AgentSetupError,
    ClaudeCode,
    CommandAgent,
    coding_agent,
    read_transcript,
)
from actloop.suites.lab.episode import served_episode
from actloop.suites.lab.sandbox import Limits
from coding_agent_servers import (
    EXPERIMENT,
    KEY,
    USAGE_IN,
    USAGE_OUT,
    anthropic,
    claude_turns,
    codex_turns,
    ready,
    responses,
)


def run_agent(
    tmp_path: Path, agent: str, model: str, api: str, capsys: pytest.CaptureFixture[str], *extra: str
) -> tuple[int, dict[str, Any], str]:
    workspace, out = tmp_path / "workspace", tmp_path / "out"
    workspace.mkdir()
    code = main(["lab", "run-agent", "--experiment", EXPERIMENT, "--seed", "1", "--workspace", str(workspace),
                 "--out", str(out), "--agent", agent, "--model", model, "--model-base-url", api,
                 *extra])  # fmt: skip
    return code, json.loads((out / "run.json").read_text()), capsys.readouterr().out


def test_claude_code_writes_and_runs_a_solver_in_the_sandbox_and_its_run_is_scored_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ready(CLAUDE_CODE)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with anthropic(claude_turns(), key=KEY) as server:
        code, row, _ = run_agent(tmp_path, "claude-code", "anthropic/claude-scripted", server.origin, capsys)
        requests = server.script.requests
    out = tmp_path / "out"
    assert code == 0 and row["success"] and row["process_score"] == 100, row
    assert (row["agent"], row["agent_version"], row["agent_model"], row["reasoning"]) == (
        "claude-code", CLAUDE_CODE.version, "anthropic/claude-scripted", "medium"
    )  # fmt: skip
    assert (
        row["isolation"] == "bubblewrap"
        and row["agent_ended"] == "exited with 0"
        and row["agent_error"] == ""
    )
    assert {path for path, _, _ in requests} == {"/v1/messages?beta=true"}
    assert all(
        body["model"] == "claude-scripted" and headers.get("x-api-key") == KEY
        for _, body, headers in requests
    )
    assert requests[0][1]["output_config"] == {"effort": "medium"}
    assert (
        row["agent_usage"]["input_tokens"] == 3 * USAGE_IN
        and row["agent_usage"]["output_tokens"] == 3 * USAGE_OUT
    )
    assert row["agent_usage"]["cost_usd"] is not None and row["wire_usage"] == {
        "input": 3 * USAGE_IN,
        "output": 3 * USAGE_OUT,
    }
    events = read_transcript(out / "agent_transcript.jsonl")
    assert events[0]["type"] == "system" and events[-1]["type"] == "result"
    (program,) = [json.loads(line) for line in (out / "programs.jsonl").read_text().splitlines()]
    assert program["command"] == "python solve.py" and "'submitted': True" in program["output"]
    exchanges = [json.loads(line) for line in (out / "api_exchanges.jsonl").read_text().splitlines()]
    assert len(exchanges) == 3 and {e["status"] for e in exchanges} == {200}
    assert (tmp_path / "workspace" / "solve.py").exists() and (out / "record.jsonl").exists()


def test_codex_writes_and_runs_a_solver_in_the_sandbox_and_its_run_is_scored_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ready(CODEX)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with responses(codex_turns(), key=KEY) as server:
        code, row, _ = run_agent(tmp_path, "codex", "openai/gpt-scripted", server.origin, capsys)
        requests = server.script.requests
    out = tmp_path / "out"
    assert code == 0 and row["success"] and row["process_score"] == 100, row
    assert (row["agent"], row["agent_version"], row["reasoning"]) == ("codex", CODEX.version, "medium")
    assert {path for path, _, _ in requests} == {"/v1/responses"}
    assert all(headers.get("authorization") == f"Bearer {KEY}" for _, _, headers in requests)
    assert requests[0][1]["reasoning"]["effort"] == "medium" and requests[0][1]["model"] == "gpt-scripted"
    asked = len(requests)
    assert row["agent_usage"]["input_tokens"] == asked * USAGE_IN and row["agent_usage"]["cost_usd"] is None
    programs = [json.loads(line) for line in (out / "programs.jsonl").read_text().splitlines()]
    assert len(programs) == asked - 1 and all(p["exit_code"] == 0 for p in programs)
    assert "'submitted': True" in programs[-1]["output"]


def test_a_refused_key_ends_the_run_at_once_as_a_row_with_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ready(CLAUDE_CODE)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-wrong")
    with anthropic(claude_turns(), key=KEY) as server:
        code, row, said = run_agent(
            tmp_path, "claude-code", "anthropic/claude-scripted", server.origin, capsys
        )
    cause = f"the model API at {server.origin} refused the key (401)"
    assert (
        code == 1
        and row["agent_error"] == cause
        and row["agent_ended"] == f"stopped: {cause}"
        and not row["success"]
    )
    assert [line for line in said.splitlines() if line.startswith("error:")] == [f"error: {cause}"]
    assert row["agent_wall_s"] < 30


def test_an_unreachable_api_ends_the_run_at_once_as_a_row_with_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Codex, which waits for the network without end on its own, is stopped by the relay's verdict."""
    ready(CODEX)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    dead = f"http://127.0.0.1:{closed.getsockname()[1]}"
    closed.close()
    code, row, said = run_agent(tmp_path, "codex", "openai/gpt-scripted", dead, capsys)
    assert code == 1 and row["agent_error"].startswith(
        f"the model API at {dead} is unreachable: ConnectError"
    )
    assert [line for line in said.splitlines() if line.startswith("error:")] == [
        f"error: {row['agent_error']}"
    ]
    assert (tmp_path / "out" / "record.jsonl").exists() and row["agent_wall_s"] < 30


@pytest.mark.parametrize(
    ("command", "extra", "ended"),
    [
        ('command:sh -c "test -s task.md && exit 3"', (), "exited with 3"),
        ("command:sleep 30", ("--wall-limit-s", "1"), "killed at the wall-clock limit"),
    ],
)
def test_any_command_plays_and_an_early_exit_or_the_wall_clock_limit_ends_as_a_row(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    extra: tuple[str, ...],
    ended: str,
) -> None:
    """A command agent gets its task in task.md; it exits early (3) or is killed at the limit: a row."""
    ready(CLAUDE_CODE)  # the sandbox
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with anthropic([], key=KEY) as server:
        code, row, _ = run_agent(tmp_path, command, "anthropic/any", server.origin, capsys, *extra)
    assert code == 1 and row["agent_ended"] == ended and row["agent"] == "command" and not row["success"]
    assert row["agent_error"] == "" and row["stop_stage"] != "success"


def test_a_cli_that_cannot_be_installed_ends_the_run_as_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ACTLOOP_CODING_AGENTS_DIR", str(tmp_path / "tools"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "npm" else real(name))
    ghost = ClaudeCode("ghost", ("anthropic",), "@actloop-nonexistent/ghost-agent", "0.0.1", "ghost")
    with served_episode(EXPERIMENT, 1, tmp_path / "workspace", None) as episode:
        run = play(ghost, "anthropic/any", episode, tmp_path / "out", 60.0, Limits())
        scored = episode.finish(None)
    assert run.ended == "not started" and not scored.score.success
    assert run.error == "ghost needs Node and npm to install @actloop-nonexistent/ghost-agent; neither found"


def test_a_configuration_error_stops_before_anything_is_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"claude-code needs the anthropic key in \$ANTHROPIC_API_KEY"):
        CLAUDE_CODE.check_model("anthropic/m")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(ConfigError, match="claude-code talks to anthropic models, not openai/m"):
        CLAUDE_CODE.check_model("openai/m")
    with pytest.raises(ConfigError, match="provider/name"):
        CODEX.check_model("gpt-5")
    with pytest.raises(ConfigError, match="no coding agent 'aider'"):
        coding_agent("aider")
    assert coding_agent('command:"python agent.py" --fast') == CommandAgent(
        "command", (), ("python agent.py", "--fast")
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    args = ["lab", "run-agent", "--experiment", EXPERIMENT, "--seed", "1", "--workspace", str(workspace)]
    args += ["--agent", "codex"]
    assert main([*args, "--model", "anthropic/m"]) == 2  # a user's mistake: nothing served, nothing written
    assert "error: codex talks to openai models, not anthropic/m" in capsys.readouterr().out
    assert not any(workspace.iterdir())


def test_a_cli_that_cannot_be_installed_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTLOOP_CODING_AGENTS_DIR", str(tmp_path))
    ghost = ClaudeCode("ghost", ("anthropic",), "@actloop-nonexistent/ghost-agent", "0.0.1", "ghost")
    with pytest.raises(AgentSetupError, match=r"installing @actloop-nonexistent/ghost-agent@0.0.1 failed: "):
        ghost.prepare()  # the registry has no such package
    assert not (ghost.home / ".complete").exists()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(AgentSetupError, match="ghost needs Node and npm"):
        ghost.prepare()


def test_the_transcripts_give_tokens_cost_and_programs() -> None:
    claude = [
        {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                       "input": {"command": "ls"}}]}},
        {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1",
                                                  "content": [{"type": "text", "text": "card.md"}]}]}},
        {"type": "result", "total_cost_usd": 0.25, "usage": {"input_tokens": 10, "output_tokens": 4,
                                                            "cache_read_input_tokens": 7}},
    ]  # fmt: skip
    used = CLAUDE_CODE.usage(claude)
    assert (used.input_tokens, used.output_tokens, used.cache_read_tokens, used.cost_usd) == (10, 4, 7, 0.25)
    assert [(p.command, p.output) for p in CLAUDE_CODE.programs(claude)] == [("ls", "card.md")]
    codex = [
        {"type": "item.completed",
         "item": {"type": "command_execution", "command": "ls", "aggregated_output": "x\n", "exit_code": 0}},
        {"type": "turn.completed",
         "usage": {"input_tokens": 5, "cached_input_tokens": 2, "output_tokens": 1}},
        {"type": "turn.completed", "usage": {"input_tokens": 6, "output_tokens": 2}},
    ]  # fmt: skip
    used = CODEX.usage(codex)
    assert (used.input_tokens, used.output_tokens, used.cache_read_tokens, used.cost_usd) == (11, 3, 2, None)
    assert [(p.command, p.exit_code) for p in CODEX.programs(codex)] == [("ls", 0)]
