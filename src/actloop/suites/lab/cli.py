"""``actloop lab ...``: serve one lab episode to an agent of any kind.

``actloop lab serve --experiment E --seed N --workspace DIR`` builds the bench for instance N, writes the
workspace (card, client, guide, address and token), serves the bench on 127.0.0.1 until the agent submits
or the budget is spent (or Ctrl-C), then scores the run from its sealed record and writes the record and
the score outside the workspace.

``actloop lab run-agent --experiment E --seed N -- COMMAND...`` does the same around one command (a coding
agent, a script) run in the workspace inside the sandbox under a wall-clock limit.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.suites.lab.levels import LEVELS

POLL_S = 0.5


def add_commands(commands: Any) -> None:
    lab = commands.add_parser("lab", help="serve lab episodes to agents (the lab suite)")
    sub = lab.add_subparsers(required=True, metavar="LAB_COMMAND")
    serve = sub.add_parser("serve", help="serve one instance of an experiment to an agent on 127.0.0.1")
    _episode_arguments(serve)
    serve.set_defaults(handler=serve_command)
    run = sub.add_parser(
        "run-agent",
        help="serve one instance and run an agent's command in its workspace, sandboxed, then score it",
        description="Files already in the workspace (e.g. the agent's script) stay; the card, the client, "
        "the guide and lab.json are written beside them. The command runs in /workspace.",
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
    run.add_argument("--require-sandbox", action="store_true", help="refuse to run without bubblewrap")
    run.add_argument("agent_command", nargs=argparse.REMAINDER, metavar="-- COMMAND")
    run.set_defaults(handler=run_agent_command)
    from actloop.suites.lab.audit import add_audit_command

    add_audit_command(sub)


def _episode_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--experiment", required=True, help="experiment key, e.g. hookes_law")
    parser.add_argument("--seed", type=int, required=True, help="instance seed")
    parser.add_argument("--level", default="T0", choices=LEVELS, help="interface level")
    parser.add_argument("--workspace", type=Path, required=True, help="the agent's working directory")
    parser.add_argument("--out", type=Path, help="where the record and score go (default: WORKSPACE.record)")


def _out(args: argparse.Namespace) -> Path:
    out: Path = args.out or args.workspace.with_name(args.workspace.name + ".record")
    return out


def serve_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.episode import served_episode

    out = _out(args)
    with served_episode(args.experiment, args.seed, args.workspace, out, args.level) as episode:
        print(
            f"serving {args.experiment} (seed {args.seed}) at {episode.server.url}; "
            f"workspace {args.workspace}",
            flush=True,
        )
        try:
            while not episode.done:
                time.sleep(POLL_S)
        except KeyboardInterrupt:
            print("stopped before a submission", flush=True)
        scored = episode.finish(out)
    print(json.dumps(scored.summary()), flush=True)
    return 0 if scored.score.success else 1


def run_agent_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.episode import served_episode
    from actloop.suites.lab.sandbox import Sandbox, ensure_agent_python

    argv = args.agent_command[1:] if args.agent_command[:1] == ["--"] else args.agent_command
    if not argv:
        raise ConfigError("no agent command: put it after --, e.g. -- python solve.py")
    missing = [name for name in args.pass_env if name not in os.environ]
    if missing:
        raise ConfigError(f"--pass-env names variables that are not set: {', '.join(missing)}")
    sandbox = Sandbox(
        args.workspace,
        ensure_agent_python(),
        read_only=tuple(p.resolve() for p in args.read_only),
        env={name: os.environ[name] for name in args.pass_env},
        require=args.require_sandbox,
    )
    out = _out(args)
    with served_episode(args.experiment, args.seed, args.workspace, out, args.level) as episode:
        print(
            f"running {' '.join(argv)} on {args.experiment} (seed {args.seed}), {sandbox.isolation}",
            flush=True,
        )
        ran = sandbox.run(argv, args.wall_limit_s or episode.env.spec.wall_clock_s)
        scored = episode.finish(out)
    ended = "killed at the wall-clock limit" if ran.timed_out else f"exited with {ran.returncode}"
    summary = {**scored.summary(), "agent": ended, "wall_s": round(ran.wall_s, 1), "isolation": ran.isolation}
    (out / "run.json").write_text(json.dumps({"command": argv, **summary}, indent=1))
    print(json.dumps(summary), flush=True)
    for gate in scored.failed_gates():
        print(f"failed gate {gate}", flush=True)
    return 0 if scored.score.success else 1
