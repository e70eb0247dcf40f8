"""Coding agents as lab subjects: each model developer's own command-line agent (Claude Code, Codex CLI),
or any command, run on a lab episode as the seed evaluates models.

An agent's program is installed from its registry at a pinned version into a tool directory (under
:func:`tools_dir`) that the sandbox mounts read-only; Node comes from the system. It starts
non-interactively in the workspace, its task the card and the guide, at the reasoning setting the seed uses
(the middle one, ``medium``; stated and recorded), its key in its usual variable and its API reached only
through the model API relay (:mod:`.api_relay`): inside the sandbox the API answers on 127.0.0.1. Its own
transcript (a JSON event stream on standard output) is kept; :meth:`CodingAgent.usage` and
:meth:`CodingAgent.programs` read the tokens, the cost and every program it ran with its output from it.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from actloop.errors import ConfigError
from actloop.suites.lab.api_relay import API_PORT

TOOLS_ENV = "ACTLOOP_CODING_AGENTS_DIR"
REASONING = "medium"
"""The seed's setting: each agent at its middle reasoning setting."""
LOCAL_API = f"http://127.0.0.1:{API_PORT}"
"""The model API as the agent sees it inside the sandbox (the relay)."""
INSTALL_TIMEOUT_S = 600.0
AGENT_HOME = "/tmp/home"
"""The agent's home inside the sandbox (on its private /tmp)."""
AT_HOME = [
    "sh",
    "-c",
    'mkdir -p "$HOME" "${CODEX_HOME:-$HOME}" && printf \'export PATH="%s"\\n\' "$PATH" > "$HOME/.profile" '
    '&& exec "$0" "$@"',
]
"""What starts an agent: its home made, with a profile keeping the sandbox's PATH (the agents' Python first)
for the login shells agents run commands in; then the agent."""
Event = dict[str, Any]


class AgentSetupError(RuntimeError):
    """The agent's program could not be made ready (not installed, the install failed): the run's row says
    so."""


@dataclass(frozen=True)
class Provider:
    """A model API: its origin, the variable holding its key, and the variable a client reads its address
    from, with the path clients append to it."""

    name: str
    origin: str
    key_env: str
    base_env: str
    base_path: str = ""

    def local_base(self) -> str:
        return LOCAL_API + self.base_path


PROVIDERS = {
    "anthropic": Provider(
        "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"
    ),
    "openai": Provider("openai", "https://api.openai.com", "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"),
}


@dataclass(frozen=True)
class Launch:
    """How to start an agent in the sandbox: its command, its environment, the host paths it reads."""

    argv: list[str]
    env: dict[str, str]
    read_only: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Usage:
    """Tokens and cost as the agent's transcript states them (cost None when it states none)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class Program:
    """A command the agent ran, its output (the transcript's) and its exit status when stated."""

    command: str
    output: str
    exit_code: int | None = None


def tools_dir() -> Path:
    """Where agents' programs are installed: ``$ACTLOOP_CODING_AGENTS_DIR`` or
    ``~/.cache/actloop/coding-agents``."""
    return Path(os.environ.get(TOOLS_ENV) or Path.home() / ".cache" / "actloop" / "coding-agents")


def split_model(model: str) -> tuple[Provider, str]:
    """``provider/name`` -> (the provider, the model's name)."""
    prefix, _, name = model.partition("/")
    if prefix not in PROVIDERS or not name:
        raise ConfigError(f"a coding agent's model is provider/name with provider one of {sorted(PROVIDERS)}")
    return PROVIDERS[prefix], name


@dataclass(frozen=True)
class CodingAgent(ABC):
    """One kind of coding agent."""

    name: str
    providers: tuple[str, ...] = ()
    """The model providers it talks to (empty: any)."""

    @property
    @abstractmethod
    def version(self) -> str:
        """The version run (recorded in the row)."""

    def prepare(self) -> tuple[Path, ...]:
        """Make the agent's program ready (install it when it is not); the host paths the sandbox must
        mount read-only for it."""
        return ()

    @abstractmethod
    def launch(self, model: str, provider: Provider, task: str, reasoning: str) -> Launch:
        """The command that runs the agent on ``task`` with ``model`` at ``reasoning``, its key taken from
        the caller's environment."""

    def usage(self, events: list[Event]) -> Usage:
        """Tokens and cost from the transcript's events."""
        return Usage()

    def programs(self, events: list[Event]) -> list[Program]:
        """The commands the agent ran, with their output, from the transcript's events."""
        return []

    def check_model(self, model: str) -> tuple[Provider, str]:
        provider, name = split_model(model)
        if self.providers and provider.name not in self.providers:
            raise ConfigError(f"{self.name} talks to {', '.join(self.providers)} models, not {model}")
        if not os.environ.get(provider.key_env):
            raise ConfigError(f"{self.name} needs the {provider.name} key in ${provider.key_env}")
        return provider, name


@dataclass(frozen=True)
class NpmAgent(CodingAgent):
    """An agent published on the npm registry: ``package`` at ``pinned``, its program ``binary``."""

    package: str = ""
    pinned: str = ""
    binary: str = ""

    @property
    def version(self) -> str:
        return self.pinned

    @property
    def home(self) -> Path:
        return tools_dir() / f"{self.name}-{self.pinned}"

    @property
    def program(self) -> Path:
        return self.home / "node_modules" / ".bin" / self.binary

    def prepare(self) -> tuple[Path, ...]:
        """Install ``package@pinned`` with npm into its own directory, once (a stamp marks it complete;
        a lock keeps processes preparing at once from installing over each other)."""
        stamp = self.home / ".complete"
        if stamp.exists():
            return (self.home,)
        self.home.parent.mkdir(parents=True, exist_ok=True)
        with (self.home.parent / f".{self.home.name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not stamp.exists():
                self._install()
                stamp.touch()
        return (self.home,)

    def _install(self) -> None:
        npm = shutil.which("npm")
        if npm is None or shutil.which("node") is None:
            raise AgentSetupError(f"{self.name} needs Node and npm to install {self.package}; neither found")
        shutil.rmtree(self.home, ignore_errors=True)
        self.home.mkdir(parents=True)
        target = f"{self.package}@{self.pinned}"
        quiet = ["--no-audit", "--no-fund", "--loglevel=error"]
        try:
            done = subprocess.run(
                [npm, "install", "--prefix", str(self.home), *quiet, target],
                capture_output=True,
                text=True,
                timeout=INSTALL_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            raise AgentSetupError(f"installing {target} took over {INSTALL_TIMEOUT_S:g} s") from None
        if done.returncode != 0 or not self.program.exists():
            said = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no program installed"]
            raise AgentSetupError(f"installing {target} failed: {said[0]}")


@dataclass(frozen=True)
class ClaudeCode(NpmAgent):
    """Anthropic's Claude Code: ``claude -p TASK --output-format stream-json``; the agent's sandbox is
    ours, so its own permission prompts are off (``IS_SANDBOX``), and its calls to its vendor's hosts
    besides the API are turned off."""

    QUIET: ClassVar[dict[str, str]] = {
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "IS_SANDBOX": "1",
    }

    def launch(self, model: str, provider: Provider, task: str, reasoning: str) -> Launch:
        argv = [*AT_HOME, str(self.program), "-p", task, "--output-format", "stream-json", "--verbose",
                "--model", model, "--effort", reasoning, "--dangerously-skip-permissions"]  # fmt: skip
        env = {
            **self.QUIET,
            provider.key_env: os.environ[provider.key_env],
            provider.base_env: provider.local_base(),
            "HOME": AGENT_HOME,
            "CLAUDE_CONFIG_DIR": f"{AGENT_HOME}/.claude",
        }
        return Launch(argv, env, self.prepare())

    def usage(self, events: list[Event]) -> Usage:
        """From the final ``result`` event: its ``usage`` and ``total_cost_usd``."""
        result = next((e for e in reversed(events) if e.get("type") == "result"), None)
        if result is None:
            return Usage()
        used = result.get("usage") or {}
        cost = result.get("total_cost_usd")
        return Usage(
            int(used.get("input_tokens") or 0),
            int(used.get("output_tokens") or 0),
            int(used.get("cache_read_input_tokens") or 0),
            int(used.get("cache_creation_input_tokens") or 0),
            float(cost) if isinstance(cost, int | float) else None,
        )

    def programs(self, events: list[Event]) -> list[Program]:
        """Each Bash tool call with its tool result."""
        calls: dict[str, str] = {}
        ran: list[Program] = []
        for event in events:
            content = (event.get("message") or {}).get("content")
            if not isinstance(content, list):
                continue
            for block in content:
                if block.get("type") == "tool_use" and block.get("name") == "Bash":
                    calls[str(block.get("id"))] = str((block.get("input") or {}).get("command", ""))
                elif block.get("type") == "tool_result" and str(block.get("tool_use_id")) in calls:
                    ran.append(Program(calls.pop(str(block["tool_use_id"])), _text(block.get("content"))))
        return ran + [Program(command, "") for command in calls.values()]


@dataclass(frozen=True)
class Codex(NpmAgent):
    """OpenAI's Codex CLI: ``codex exec --json``, its provider the relay (no login), its own sandbox off
    (ours holds), its analytics and update check off."""

    def launch(self, model: str, provider: Provider, task: str, reasoning: str) -> Launch:
        relay = (f'{{name="relay", base_url="{provider.local_base()}", env_key="{provider.key_env}", '
                 'wire_api="responses", request_max_retries=2, stream_max_retries=2}')  # fmt: skip
        settings = [f"model_providers.relay={relay}", 'model_provider="relay"',
                    f'model_reasoning_effort="{reasoning}"', "analytics.enabled=false",
                    "check_for_update_on_startup=false"]  # fmt: skip
        argv = [*AT_HOME, str(self.program), "exec", "--json", "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox", "-m", model,
                *(arg for setting in settings for arg in ("-c", setting)), task]  # fmt: skip
        env = {
            provider.key_env: os.environ[provider.key_env],
            "HOME": "/tmp/home",
            "CODEX_HOME": "/tmp/home/.codex",
        }
        return Launch(argv, env, self.prepare())

    def usage(self, events: list[Event]) -> Usage:
        """Summed over its ``turn.completed`` events (the transcript states no cost)."""
        totals = {
            "input_tokens": 0,
            "output_tokens": 0,
            "cached_input_tokens": 0,
            "cache_write_input_tokens": 0,
        }
        for event in events:
            if event.get("type") == "turn.completed":
                for name in totals:
                    totals[name] += int((event.get("usage") or {}).get(name) or 0)
        return Usage(
            totals["input_tokens"],
            totals["output_tokens"],
            totals["cached_input_tokens"],
            totals["cache_write_input_tokens"],
        )

    def programs(self, events: list[Event]) -> list[Program]:
        """Each completed ``command_execution`` item."""
        return [
            Program(
                str(item.get("command", "")), str(item.get("aggregated_output", "")), item.get("exit_code")
            )
            for event in events
            if event.get("type") == "item.completed"
            and (item := event.get("item") or {}).get("type") == "command_execution"
        ]


@dataclass(frozen=True)
class CommandAgent(CodingAgent):
    """Any command (``command:"..."``), run in the workspace with the task in ``task.md`` (and in
    ``$ACTLOOP_TASK_FILE``), the model's name in ``$ACTLOOP_MODEL``, its key in the provider's variable
    and the relayed API's address in the provider's base URL variable and in ``$ACTLOOP_MODEL_BASE_URL``."""

    command: tuple[str, ...] = field(default_factory=tuple)

    @property
    def version(self) -> str:
        return "command"

    def launch(self, model: str, provider: Provider, task: str, reasoning: str) -> Launch:
        env = {
            provider.key_env: os.environ[provider.key_env],
            provider.base_env: provider.local_base(),
            "ACTLOOP_MODEL_BASE_URL": provider.local_base(),
            "ACTLOOP_MODEL": model,
            "ACTLOOP_REASONING": reasoning,
            "ACTLOOP_TASK_FILE": "/workspace/task.md",
        }
        return Launch(list(self.command), env)


CLAUDE_CODE = ClaudeCode("claude-code", ("anthropic",), "@anthropic-ai/claude-code", "2.1.332", "claude")
CODEX = Codex("codex", ("openai",), "@openai/codex", "0.171.0", "codex")
AGENTS: dict[str, CodingAgent] = {agent.name: agent for agent in (CLAUDE_CODE, CODEX)}


def coding_agent(spec: str) -> CodingAgent:
    """The agent ``spec`` names: ``claude-code``, ``codex`` or ``command:"PROGRAM ARGS..."``."""
    if spec.startswith("command:"):
        argv = tuple(shlex.split(spec.removeprefix("command:")))
        if not argv:
            raise ConfigError('--agent command: needs the command, e.g. command:"python my_agent.py"')
        return CommandAgent("command", (), argv)
    if spec not in AGENTS:
        raise ConfigError(f'no coding agent {spec!r}: {", ".join(AGENTS)} or command:"..."')
    return AGENTS[spec]


def read_transcript(path: Path) -> list[Event]:
    """The JSON events of a transcript file, one per line (other lines skipped)."""
    events: list[Event] = []
    for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _text(content: Any) -> str:
    """A tool result's text (a string, or a list of text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""
