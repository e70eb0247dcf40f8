"""``actloop lab ...``: serve one lab episode to an agent of any kind.

``actloop lab serve --experiment E --seed N --workspace DIR`` builds the bench for instance N, writes the
workspace (card, client, guide, address and token), serves the bench on 127.0.0.1 until the agent submits
or the budget is spent (or Ctrl-C), then scores the run from its sealed record and writes the record and
the score outside the workspace.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError

LEVELS = ("T0",)
POLL_S = 0.5


def add_commands(commands: Any) -> None:
    lab = commands.add_parser("lab", help="serve lab episodes to agents (the lab suite)")
    sub = lab.add_subparsers(required=True, metavar="LAB_COMMAND")
    serve = sub.add_parser("serve", help="serve one instance of an experiment to an agent on 127.0.0.1")
    serve.add_argument("--experiment", required=True, help="experiment key, e.g. hookes_law")
    serve.add_argument("--seed", type=int, required=True, help="instance seed")
    serve.add_argument("--level", default="T0", help=f"interface level ({', '.join(LEVELS)})")
    serve.add_argument("--workspace", type=Path, required=True, help="the agent's working directory")
    serve.add_argument("--out", type=Path, help="where the record and score go (default: WORKSPACE.record)")
    serve.set_defaults(handler=serve_command)


def serve_command(args: argparse.Namespace) -> int:
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.env import LabEnv
    from actloop.suites.lab.server import serving
    from actloop.suites.lab.workspace_files import write_workspace

    if args.level not in LEVELS:
        raise ConfigError(f"level {args.level!r} is not available; levels: {', '.join(LEVELS)}")
    out: Path = args.out or args.workspace.with_name(args.workspace.name + ".record")
    if out.resolve().is_relative_to(args.workspace.resolve()):
        raise ConfigError("--out must lie outside the workspace: the agent must not read the record")
    env = LabEnv(args.experiment, args.seed)
    with serving(env) as server:
        write_workspace(args.workspace, task_card(env.spec, env.instance), server.url, server.token)
        print(
            f"serving {args.experiment} (seed {args.seed}) at {server.url}; workspace {args.workspace}",
            flush=True,
        )
        try:
            while not server.run(lambda: {"done": env.done})["done"]:
                time.sleep(POLL_S)
        except KeyboardInterrupt:
            print("stopped before a submission", flush=True)
        score, verdicts = server.bench_thread.submit(env.score).result()
        fields = score.to_fields()
        server.run(lambda: write_record(env, out, fields, [v.reason for v in verdicts]))
    summary = {k: fields[k] for k in ("success", "e", "process_score", "stop_stage")}
    print(json.dumps(summary), flush=True)
    return 0 if score.success else 1


def write_record(env: Any, out: Path, score: dict[str, Any], verdicts: list[str]) -> dict[str, Any]:
    """The sealed record and the score, for rescoring and reports (evaluator side)."""
    out.mkdir(parents=True, exist_ok=True)
    env.record.save(out / "record.jsonl")
    (out / "score.json").write_text(
        json.dumps({"score": score, "citations": verdicts}, indent=1, default=str)
    )
    return {}
