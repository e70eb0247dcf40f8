"""``actloop lab ...``: serve one lab episode to an agent of any kind.

``actloop lab serve --experiment E --seed N --workspace DIR`` builds the bench for instance N, writes the
workspace (card, client, guide, address and token), serves the bench on 127.0.0.1 until the agent submits
or the budget is spent (or Ctrl-C), then scores the run from its sealed record and writes the record and
the score outside the workspace.

``actloop lab card EXPERIMENT --seed N`` prints the card of instance N as the workspace's card.md holds it;
``actloop lab check EXPERIMENT...`` checks an experiment before it joins the suite (:mod:`.check`).

``actloop lab run-agent --experiment E --seed N -- COMMAND...`` does the same around one command (a coding
agent, a script) run in the workspace inside the sandbox under a wall-clock limit and the sandbox's limits;
``--agent claude-code|codex|command:"..." --model PROVIDER/NAME`` runs a coding agent instead, installed
and started by its adapter, its model's API reached only through the relay (:mod:`.agent_run`).

SIGTERM ends either like Ctrl-C: the agent is stopped and the run is scored and written as it stands.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.suites.lab.coding_agents import REASONING
from actloop.suites.lab.levels import LEVELS

POLL_S = 0.5


def add_commands(commands: Any) -> None:
    lab = commands.add_parser("lab", help="serve lab episodes to agents (the lab suite)")
    sub = lab.add_subparsers(required=True, metavar="LAB_COMMAND")
    serve = sub.add_parser("serve", help="serve one instance of an experiment to an agent on 127.0.0.1")
    _episode_arguments(serve)
    serve.set_defaults(handler=serve_command)
    from actloop.suites.lab.sandbox import LIMIT_OPTIONS, Limits
    from actloop.suites.lab.sandbox_namespaces import NETWORKS

    defaults = Limits()
    run = sub.add_parser(
        "run-agent",
        help="serve one instance and run an agent's command in its workspace, sandboxed, then score it",
        description="Files already in the workspace (e.g. the agent's script) stay; the card, the client, "
        "the guide and lab.json are written beside them (never through a symbolic link: a workspace where "
        "one stands in their place is refused). The command runs in /workspace under bubblewrap, in a user "
        "namespace with no capabilities, with no network but the bench's Unix socket (unless --network "
        f"model-api), and with these limits (the card states them): {defaults.text()}. A run that hits one "
        "says so in its result (run.json's limits_hit).",
    )
    _episode_arguments(run)
    run.add_argument(
        "--wall-limit-s", type=float, help="wall-clock limit of the run (default: the card's, per experiment)"
    )
    run.add_argument(
        "--read-only", type=Path, action="append", default=[], metavar="PATH",
        help="a host path the agent's program needs (its installation, its credentials), mounted read-only",
    )  # fmt: skip
    run.add_argument(
        "--pass-env", action="append", default=[], metavar="NAME",
        help="pass this environment variable (e.g. an API key) into the sandbox",
    )  # fmt: skip
    run.add_argument(
        "--network", choices=NETWORKS, default="none",
        help="none: only the bench (its Unix socket); model-api: also a route out for an agent that calls "
        "its model's API (through slirp4netns, with a resolver; the host's loopback, its own addresses and "
        "link-local addresses stay closed, the internet and the rest of the host's network are reachable; "
        "default none)",
    )  # fmt: skip
    for name, said in LIMIT_OPTIONS.items():
        default = getattr(defaults, name)
        run.add_argument(
            f"--{name.replace('_', '-')}", type=int, default=default, help=f"{said} (default {default})"
        )
    run.add_argument(
        "--allow-unsandboxed", action="store_true",
        help="without bubblewrap, run the agent anyway, unsandboxed (it can read everything you can)",
    )  # fmt: skip
    run.add_argument(
        "--agent", metavar="AGENT",
        help='a coding agent instead of a command: claude-code, codex, or command:"PROGRAM ARGS" (its '
        "program installed at a pinned version, its task the card and guide, its API only through the relay)",
    )  # fmt: skip
    run.add_argument("--model", metavar="PROVIDER/NAME", help="the coding agent's model, e.g. anthropic/NAME")
    run.add_argument(
        "--model-base-url", metavar="URL", help="the model API the relay reaches (default: the provider's)"
    )
    run.add_argument(
        "--reasoning",
        default=REASONING,
        help=f"the agent's reasoning setting (default {REASONING}, the middle)",
    )
    run.add_argument("agent_command", nargs=argparse.REMAINDER, metavar="-- COMMAND")
    run.set_defaults(handler=run_agent_command)
    from actloop.suites.lab.audit import add_audit_command

    add_audit_command(sub)
    card = sub.add_parser("card", help="print an instance's card as the agent's workspace holds it")
    card.add_argument("experiment", metavar="EXPERIMENT", help="experiment key, e.g. hookes_law")
    card.add_argument("--seed", type=int, default=1, help="instance seed (default 1)")
    card.add_argument("--level", default="T0", choices=LEVELS, help="interface level (default T0)")
    card.set_defaults(handler=card_command)
    from actloop.suites.lab.check import add_check_command

    add_check_command(sub)


def _episode_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--experiment", required=True, help="experiment key, e.g. hookes_law")
    parser.add_argument("--seed", type=int, required=True, help="instance seed")
    parser.add_argument("--level", default="T0", choices=LEVELS, help="interface level")
    parser.add_argument("--workspace", type=Path, required=True, help="the agent's working directory")
    parser.add_argument("--out", type=Path, help="where the record and score go (default: WORKSPACE.record)")


def _out(args: argparse.Namespace) -> Path:
    out: Path = args.out or args.workspace.with_name(args.workspace.name + ".record")
    return out


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt, so it ends a run as Ctrl-C does (scored and written); a second
    SIGTERM, while the run is being scored, is ignored."""

    def interrupt(signum: int, frame: object) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def card_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.env import LabEnv
    from actloop.suites.lab.episode import agent_card

    print(agent_card(LabEnv(args.experiment, args.seed, render=False, level=args.level)), end="")
    return 0


def serve_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.episode import served_episode

    out = _out(args)
    with (
        _sigterm_as_interrupt(),
        served_episode(args.experiment, args.seed, args.workspace, out, args.level) as episode,
    ):
        try:  # from the moment the episode is served, an interrupt scores it as it stands
            print(
                f"serving {args.experiment} (seed {args.seed}) at {episode.server.url}; "
                f"workspace {args.workspace}",
                flush=True,
            )
            while not episode.done:
                time.sleep(POLL_S)
        except KeyboardInterrupt:
            print("stopped before a submission", flush=True)
        scored = episode.finish(out)
    print(json.dumps(scored.summary()), flush=True)
    return 0 if scored.score.success else 1


def run_agent_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.episode import served_episode
    from actloop.suites.lab.sandbox import LIMIT_OPTIONS, Limits, Sandbox, ensure_agent_python

    if args.agent:
        return coding_agent_command(args)
    argv = args.agent_command[1:] if args.agent_command[:1] == ["--"] else args.agent_command
    if not argv:
        raise ConfigError("no agent command: put it after --, e.g. -- python solve.py")
    missing = [name for name in args.pass_env if name not in os.environ]
    if missing:
        raise ConfigError(f"--pass-env names variables that are not set: {', '.join(missing)}")
    from actloop.suites.lab.instance import KEY_VARIABLES

    if secret := sorted(set(args.pass_env) & set(KEY_VARIABLES)):
        raise ConfigError(f"{', '.join(secret)} holds the instance key, which never enters the sandbox")
    limits = Limits(**{name: getattr(args, name) for name in LIMIT_OPTIONS})
    sandbox = Sandbox(
        args.workspace,
        ensure_agent_python(),
        read_only=tuple(p.resolve() for p in args.read_only),
        env={name: os.environ[name] for name in args.pass_env},
        allow_unsandboxed=args.allow_unsandboxed,
        network=args.network,
        limits=limits,
    )
    isolation = sandbox.isolation  # refuses before anything is served when there is no sandbox
    out = _out(args)
    episode_context = served_episode(args.experiment, args.seed, args.workspace, out, args.level, limits)
    with _sigterm_as_interrupt(), episode_context as episode:
        sandbox = dataclasses.replace(sandbox, bench_socket=episode.server.socket_path)
        try:  # from the moment the episode is served, an interrupt scores it as it stands
            print(
                f"running {' '.join(argv)} on {args.experiment} (seed {args.seed}), {isolation}, "
                f"network {args.network}",
                flush=True,
            )
            ran = sandbox.run(argv, args.wall_limit_s or episode.env.spec.wall_clock_s)
            ended = ran.ended()
        except KeyboardInterrupt:
            ran, ended = None, "stopped by the evaluator (interrupt or SIGTERM)"
        scored = episode.finish(out)
    summary = {
        **scored.summary(),
        "agent": ended,
        "limits_hit": list(ran.limits_hit) if ran else [],
        "limits_not_enforced": list(ran.not_enforced) if ran else [],
        "wall_s": round(ran.wall_s, 1) if ran else None,
        "isolation": isolation,
        "network": args.network,
        "limits": dataclasses.asdict(limits),
    }
    (out / "run.json").write_text(json.dumps({"command": argv, **summary}, indent=1))
    print(json.dumps(summary), flush=True)
    for hit in summary["limits_hit"]:
        print(f"limit hit: {hit}", flush=True)
    for gate in scored.failed_gates():
        print(f"failed gate {gate}", flush=True)
    return 0 if scored.score.success else 1


def coding_agent_command(args: argparse.Namespace) -> int:
    """``run-agent --agent``: the agent's adapter starts it; the row (``run.json``) says how it ended."""
    from actloop.cli.common import error_line
    from actloop.suites.lab.agent_run import AgentRun, play, run_row
    from actloop.suites.lab.coding_agents import coding_agent
    from actloop.suites.lab.episode import served_episode
    from actloop.suites.lab.sandbox import LIMIT_OPTIONS, Limits, Sandbox, ensure_agent_python

    if args.agent_command:
        raise ConfigError("give either --agent or a command after --, not both")
    if not args.model:
        raise ConfigError("--agent needs --model PROVIDER/NAME")
    agent = coding_agent(args.agent)
    agent.check_model(args.model)  # a configuration error stops before anything is served
    Sandbox(args.workspace).isolation  # noqa: B018  (refuses without bubblewrap: agents run sandboxed only)
    ensure_agent_python()
    limits = Limits(**{name: getattr(args, name) for name in LIMIT_OPTIONS})
    out = _out(args)
    with (
        _sigterm_as_interrupt(),
        served_episode(args.experiment, args.seed, args.workspace, out, args.level, limits) as episode,
    ):
        wall = args.wall_limit_s or episode.env.spec.wall_clock_s
        said = (
            f"running {agent.name} {agent.version} with {args.model} on {args.experiment} (seed {args.seed})"
        )
        print(said, flush=True)
        try:
            run = play(agent, args.model, episode, out, wall, limits, args.model_base_url, args.reasoning)
        except KeyboardInterrupt:
            stopped = "stopped by the evaluator (interrupt or SIGTERM)"
            run = AgentRun(agent.name, agent.version, args.model, args.reasoning, "", stopped, "", None)
        scored = episode.finish(out)
    row = run_row(run, scored, limits)
    (out / "run.json").write_text(json.dumps(row, indent=1))
    print(json.dumps(row), flush=True)
    if run.error:
        error_line(run.error)
        return 1
    return 0 if scored.score.success else 1
