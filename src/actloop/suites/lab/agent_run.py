"""One lab episode played by a coding agent (:mod:`.coding_agents`): the bench served, the agent's program
run in the sandbox with the model API relay as its only way out, the episode scored, and what the run
keeps written beside the record.

The run keeps the agent's own transcript (``agent_transcript.jsonl``, its JSON events as it wrote them) and
standard error, every program it ran with its output (``programs.jsonl``), the relay's exchanges with the
usage read off the wire (``api_exchanges.jsonl``), and ``run.json``: the score, the agent, its version,
model and reasoning setting, the API it reached, tokens and cost, and how the agent ended. Failures end as
that row, never as a hang: the program missing or failing to install, the API unreachable or refusing the
key (the agent is stopped at once), the agent exiting early, the wall-clock limit.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actloop.suites.lab.api_relay import relaying
from actloop.suites.lab.coding_agents import (
    REASONING,
    AgentSetupError,
    CodingAgent,
    CommandAgent,
    Launch,
    Usage,
    read_transcript,
)
from actloop.suites.lab.episode import EpisodeScore, ServedEpisode
from actloop.suites.lab.sandbox import Limits, Sandbox, SandboxRun, agent_python_dir
from actloop.suites.lab.workspace_files import CARD, GUIDE_FILE

TRANSCRIPT_FILE = "agent_transcript.jsonl"
STDERR_FILE = "agent_stderr.txt"
PROGRAMS_FILE = "programs.jsonl"
EXCHANGES_FILE = "api_exchanges.jsonl"
WIRE_USAGE_FILE = "wire_usage.json"
TASK_FILE = "task.md"


@dataclass(frozen=True)
class AgentRun:
    """A coding agent's run: who, against which API, and how it ended (``error``: why the agent could not
    work, "" when it could)."""

    agent: str
    version: str
    model: str
    reasoning: str
    api: str
    ended: str
    error: str
    sandbox: SandboxRun | None
    usage: Usage = field(default_factory=Usage)
    """Tokens and cost as the transcript states them."""
    wire_usage: dict[str, int] = field(default_factory=dict)
    """Tokens as the relay counted them on the wire."""
    programs: int = 0
    """Commands the agent ran."""


def task_text(workspace: Path) -> str:
    """The agent's task: the card and the guide from its workspace."""
    card = (workspace / CARD).read_text()
    guide = (workspace / GUIDE_FILE.name).read_text()
    return (
        "You are the experimenter at a lab bench; your working directory is its workspace.\n\n"
        f"{card}\n\n# The workspace guide (README.md)\n{guide}"
    )


def play(
    agent: CodingAgent,
    model: str,
    episode: ServedEpisode,
    out: Path,
    wall_limit_s: float,
    limits: Limits,
    api: str | None = None,
    reasoning: str = REASONING,
    stop_when: Callable[[], str] = lambda: "",
) -> AgentRun:
    """Run ``agent`` with ``model`` (``provider/name``) on the served ``episode`` in its sandbox, its API
    ``api`` (default: the provider's) reached only through the relay; keep its transcript and what it ran
    in ``out``. The agent is stopped once the relay finds the API unusable or ``stop_when`` gives a reason.
    The caller checks the model and key first (:meth:`CodingAgent.check_model`)."""
    provider, name = agent.check_model(model)
    upstream = api or provider.origin
    base = AgentRun(agent.name, agent.version, model, reasoning, upstream, "", "", None)
    task = task_text(episode.workspace)
    if isinstance(agent, CommandAgent):
        (episode.workspace / TASK_FILE).write_text(task)
    try:
        launch: Launch = agent.launch(name, provider, task, reasoning)
    except AgentSetupError as err:
        return dataclasses.replace(base, ended="not started", error=str(err))
    out.mkdir(parents=True, exist_ok=True)
    with (
        relaying(upstream) as relay,
        (out / TRANSCRIPT_FILE).open("wb") as transcript,
        (out / STDERR_FILE).open("wb") as stderr,
    ):
        sandbox = Sandbox(
            episode.workspace,
            agent_python_dir(),
            read_only=launch.read_only,
            env=launch.env,
            limits=limits,
            bench_socket=episode.server.socket_path,
            api_relay=relay.directory,
        )
        ran = sandbox.run(
            launch.argv,
            wall_limit_s,
            transcript.fileno(),
            stderr.fileno(),
            lambda: relay.problem() or stop_when(),
        )
        problem = relay.problem()
        exchanges = relay.summary()
        wire_usage = relay.usage()
    events = read_transcript(out / TRANSCRIPT_FILE)
    programs = agent.programs(events)
    _write_lines(out / PROGRAMS_FILE, [dataclasses.asdict(p) for p in programs])
    _write_lines(out / EXCHANGES_FILE, exchanges)
    (out / WIRE_USAGE_FILE).write_text(json.dumps(wire_usage))
    return dataclasses.replace(
        base,
        ended=ran.ended(),
        error=problem,
        sandbox=ran,
        usage=agent.usage(events),
        wire_usage=wire_usage,
        programs=len(programs),
    )


def run_fields(run: AgentRun) -> dict[str, Any]:
    """Who ran and how it ended: the agent, its version, model, reasoning setting and API, the tokens and
    cost its transcript states and the relay's count, and the programs it ran."""
    ran = run.sandbox
    return {
        "agent": run.agent,
        "agent_version": run.version,
        "agent_model": run.model,
        "reasoning": run.reasoning,
        "model_api": run.api,
        "agent_ended": run.ended,
        "agent_error": run.error,
        "agent_usage": dataclasses.asdict(run.usage),
        "wire_usage": run.wire_usage,
        "programs": run.programs,
        "limits_hit": list(ran.limits_hit) if ran else [],
        "agent_wall_s": round(ran.wall_s, 1) if ran else None,
        "isolation": ran.isolation if ran else None,
        "network": "model API relay only",
    }


def run_row(run: AgentRun, scored: EpisodeScore, limits: Limits) -> dict[str, Any]:
    """``run.json``'s body: the score, then :func:`run_fields` and the sandbox's limits."""
    return {**scored.summary(), **run_fields(run), "limits": dataclasses.asdict(limits)}


def kept_files(out: Path) -> dict[str, str]:
    """The text of every file a run kept in ``out``, by name."""
    names = (TRANSCRIPT_FILE, STDERR_FILE, PROGRAMS_FILE, EXCHANGES_FILE, WIRE_USAGE_FILE)
    return {name: (out / name).read_text(errors="replace") for name in names if (out / name).exists()}


def _write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row, default=str) + "\n" for row in rows))
