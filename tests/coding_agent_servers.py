"""Scripted model APIs for the coding agents' command-line programs, on 127.0.0.1 only.

:func:`anthropic` speaks the Anthropic Messages API as Claude Code calls it (``POST /v1/messages``,
streamed as server-sent events); :func:`responses` the OpenAI Responses API as Codex calls it
(``POST /v1/responses``, streamed). Each answers the agent's turns from a script of tool calls (a turn is a
list of :class:`Call`, or a final text); requests that carry no tools (a title, a token count) get a short
text without using the script. Every request is kept. ``key`` set, a request without it is refused (401).

Also the scripts the tests play (:func:`claude_turns`, :func:`codex_turns`: the reference experimenter
written into the workspace and run) and :func:`ready`, which installs an agent's CLI or says why not.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from actloop.suites.lab.coding_agents import AgentSetupError, NpmAgent
from actloop.suites.lab.reference_model import workspace_program
from actloop.suites.lab.sandbox import agent_python_dir
from loopback import served

USAGE_IN, USAGE_OUT = 1000, 50


@dataclass(frozen=True)
class Call:
    """One tool call of a scripted turn: the tool's name and its input."""

    tool: str
    input: dict[str, Any]


Reply = list[Call] | str
Turn = Reply | Callable[[dict[str, Any]], Reply]
"""A scripted turn: tool calls, a final text, or what to answer given the request's body."""


@dataclass
class Script:
    turns: list[Turn]
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: int = 0

    def next(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self.lock:
            self.requests.append((path, body, headers))
            if not body.get("tools") or self.used >= len(self.turns):
                return "Done."
            self.used += 1
            turn = self.turns[self.used - 1]
        return turn(body) if callable(turn) else turn


class ScriptedServer(ThreadingHTTPServer):
    """The scripted API on 127.0.0.1 (an ephemeral port); :attr:`origin` is its address."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], turns: Sequence[Turn], key: str | None) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.script = Script(list(turns))
        self.key = key

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedServer

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._json(200, {"data": []})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if self.server.key is not None and self.server.key not in (self._key() or ""):
            self.server.script.requests.append((self.path, body, dict(self.headers)))
            self._json(
                401, {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
            )
            return
        self.answer(self.server.script.next(self.path, body, dict(self.headers)), body)

    def _key(self) -> str | None:
        return self.headers.get("x-api-key") or self.headers.get("authorization")

    def answer(self, turn: Reply, body: dict[str, Any]) -> None:
        raise NotImplementedError

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _events(self, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Anthropic(_Handler):
    def answer(self, turn: Reply, body: dict[str, Any]) -> None:
        if self.path.startswith("/v1/messages/count_tokens"):
            self._json(200, {"input_tokens": USAGE_IN})
            return
        blocks: list[dict[str, Any]] = (
            [{"type": "text", "text": turn}]
            if isinstance(turn, str)
            else [{"type": "tool_use", "id": f"toolu_{i}", "name": c.tool, "input": c.input} for i, c in
                  enumerate(turn)]
        )  # fmt: skip
        stop = "end_turn" if isinstance(turn, str) else "tool_use"
        message = {
            "id": "msg_1", "type": "message", "role": "assistant", "model": body.get("model", ""),
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": USAGE_IN, "output_tokens": 1},
        }  # fmt: skip
        if not body.get("stream"):
            self._json(200, {**message, "content": blocks, "stop_reason": stop,
                             "usage": {"input_tokens": USAGE_IN, "output_tokens": USAGE_OUT}})  # fmt: skip
            return
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": message})
        ]
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                start = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": block["text"]}
            else:
                start = {**block, "input": {}}
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events += [
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                ),
                ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": index}),
            ]
        events += [
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                               "usage": {"output_tokens": USAGE_OUT}}),
            ("message_stop", {"type": "message_stop"}),
        ]  # fmt: skip
        self._events(events)


class _Responses(_Handler):
    def answer(self, turn: Reply, body: dict[str, Any]) -> None:
        if isinstance(turn, str):
            items: list[dict[str, Any]] = [{
                "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": turn, "annotations": []}],
            }]  # fmt: skip
        else:
            asked = len(self.server.script.requests)
            items = [
                {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{asked}_{i}", "name": c.tool,
                 "arguments": json.dumps(c.input), "status": "completed"}
                for i, c in enumerate(turn)
            ]  # fmt: skip
        usage = {"input_tokens": USAGE_IN, "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": USAGE_OUT, "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": USAGE_IN + USAGE_OUT}  # fmt: skip
        response = {"id": "resp_1", "object": "response", "status": "completed",
                    "model": body.get("model", ""), "output": items, "usage": usage}  # fmt: skip
        started = {**response, "status": "in_progress", "output": []}
        events: list[tuple[str, dict[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": started})
        ]
        events += [
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": i, "item": item},
            )
            for i, item in enumerate(items)
        ]
        events.append(("response.completed", {"type": "response.completed", "response": response}))
        self._events(events)


def anthropic(turns: Sequence[Turn], key: str | None = None) -> AbstractContextManager[ScriptedServer]:
    """The scripted Anthropic Messages API, served for a ``with`` block."""
    return served(ScriptedServer(_Anthropic, turns, key))


def responses(turns: Sequence[Turn], key: str | None = None) -> AbstractContextManager[ScriptedServer]:
    """The scripted OpenAI Responses API, served for a ``with`` block."""
    return served(ScriptedServer(_Responses, turns, key))


EXPERIMENT = "air_track_collision"
"""The quickest reference to run (17 s simulated)."""
KEY = "sk-scripted-key"


def ready(agent: NpmAgent) -> None:
    """The agent's CLI installed, bubblewrap and the agents' Python present (``make test`` sets them up)."""
    try:
        agent.prepare()
        missing = (
            "" if shutil.which("bwrap") and (agent_python_dir() / ".complete").exists() else "the sandbox"
        )
    except AgentSetupError as err:
        missing = str(err)
    if missing:
        if os.environ.get("ACTLOOP_REQUIRE_SANDBOX") == "1":
            pytest.fail(f"{missing}: scripts/setup-coding-agents.sh and scripts/setup-lab-sandbox.sh")
        pytest.skip(f"not here: {missing}")


def claude_turns(experiment: str = EXPERIMENT) -> list[Turn]:
    """Write the reference program with the Write tool, run it with Bash, stop."""
    return [
        [Call("Write", {"file_path": "/workspace/solve.py", "content": workspace_program(experiment)})],
        [Call("Bash", {"command": "python solve.py", "description": "run the solver", "timeout": 600000})],
        "Submitted.",
    ]


def codex_turns(experiment: str = EXPERIMENT) -> list[Turn]:
    """The reference program in base64 pieces (one command's arguments hold at most 128 KiB), decoded and
    run; while it runs past a command's 30 s, its session is polled until it ends."""
    data = base64.b64encode(workspace_program(experiment).encode()).decode()
    pieces = [data[i : i + 60000] for i in range(0, len(data), 60000)]
    run = "base64 -d solve.b64 > solve.py && python solve.py"
    return [
        *([Call("exec_command", {"cmd": f"printf %s '{piece}' >> solve.b64"})] for piece in pieces),
        [Call("exec_command", {"cmd": run, "yield_time_ms": 30000})],
        *([until_exited] * 20),
    ]


RUNNING = re.compile(r"Process running with session ID (\d+)")


def until_exited(body: dict[str, Any]) -> Reply:
    """Poll the command still running (its session named in the last tool output), else stop."""
    outputs = [item for item in body.get("input", []) if item.get("type") == "function_call_output"]
    running = RUNNING.search(str(outputs[-1].get("output", ""))) if outputs else None
    if running is None:
        return "Submitted."
    return [Call("write_stdin", {"session_id": int(running.group(1)), "chars": "", "yield_time_ms": 300000})]
