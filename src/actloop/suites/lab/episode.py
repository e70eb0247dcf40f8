"""One lab episode served to an agent: the bench, its server on 127.0.0.1, the agent's workspace, and at the
end the score of the sealed record with the record written outside the workspace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from actloop.errors import ConfigError
from actloop.suites.lab.card import task_card
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.sandbox import BENCH_SOCKET, Limits, sandbox_rule
from actloop.suites.lab.scoring import Score
from actloop.suites.lab.server import LabServer, serving
from actloop.suites.lab.workspace_files import write_workspace

SCORE_FILE = "score.json"
RECORD_FILE = "record.jsonl"


@dataclass(frozen=True)
class EpisodeScore:
    """How a served episode was scored: the score, the verdict on each citation, the simulated time."""

    score: Score
    citations: list[str]
    sim_time_s: float

    def summary(self) -> dict[str, Any]:
        fields = self.score.to_fields()
        return {
            **{k: fields[k] for k in ("success", "e", "process_score", "stop_stage", "failure_cause")},
            "failed_gates": self.failed_gates(),
            "sim_time_s": round(self.sim_time_s, 3),
        }

    def failed_gates(self) -> list[str]:
        return [f"{name}: {check.evidence}" for name, check in self.score.gates.items() if not check.passed]


class ServedEpisode:
    """An episode being served; :meth:`finish` scores it (once) and writes the record to ``out``."""

    def __init__(self, env: LabEnv, server: LabServer, workspace: Path) -> None:
        self.env = env
        self.server = server
        self.workspace = workspace

    @property
    def done(self) -> bool:
        """Whether the agent submitted or spent the budget."""
        return bool(self.server.run(lambda: {"done": self.env.done})["done"])

    def finish(self, out: Path | None) -> EpisodeScore:
        """Score the episode as it stands; with ``out``, write ``record.jsonl`` and ``score.json`` there."""
        score, verdicts = self.server.bench_thread.submit(self.env.score).result()
        scored = EpisodeScore(score, [v.reason for v in verdicts], self.env.clock.time_s)
        if out is not None:
            self.server.run(lambda: _write(self.env, out, scored))
        return scored


def agent_card(env: LabEnv, limits: Limits | None = None) -> str:
    """The card of ``env``'s instance as its agent's workspace holds it (``card.md``), stating the sandbox's
    ``limits`` (default: the standard ones)."""
    card = task_card(env.spec, env.instance, env.platform.instruments(), env.platform.loggers())
    return card if limits is None else card.replace(sandbox_rule(), sandbox_rule(limits))


@contextmanager
def served_episode(
    experiment: str,
    seed: int,
    workspace: Path,
    out: Path | None,
    level: str = "T0",
    limits: Limits | None = None,
) -> Iterator[ServedEpisode]:
    """Build instance ``seed`` of ``experiment`` at interface ``level``, serve it and fill ``workspace`` for
    the agent (its card states the sandbox's ``limits``). ``out`` (the record's directory) must lie outside
    the workspace, so the agent can never read the record."""
    if out is not None and out.resolve().is_relative_to(workspace.resolve()):
        raise ConfigError("the record's directory must lie outside the workspace: the agent must not read it")
    env = LabEnv(experiment, seed, level=level)
    with serving(env) as server:
        card = agent_card(env, limits)
        write_workspace(workspace, card, server.url, server.token, level, socket=BENCH_SOCKET)
        yield ServedEpisode(env, server, workspace)


def _write(env: LabEnv, out: Path, scored: EpisodeScore) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    env.record.save(out / RECORD_FILE)
    body = {"score": scored.score.to_fields(), "citations": scored.citations}
    (out / SCORE_FILE).write_text(json.dumps(body, indent=1, default=str))
    return {}
