"""Test scaffolding for the torsion turntable: the bench's turntable, posing a load, and the logged periods
of stretches of a run grouped as citations."""

from __future__ import annotations

from pathlib import Path

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.platforms.turntable import Turntable
from actloop.suites.lab.reference.torsion_pendulum import periods_in, rows_of

Citation = dict[str, object]


def table(env: LabEnv) -> Turntable:
    """The turntable of ``env``."""
    assert isinstance(env.platform, Turntable)
    return env.platform


def set_pose(env: LabEnv, name: str, x: float, y: float, z: float) -> None:
    """Stand the load ``name`` upright and still with its origin at (x, y, z)."""
    joint = env.model.joint(f"{name}_free")
    at, dof = joint.qposadr[0], joint.dofadr[0]
    env.data.qpos[at : at + 7] = (x, y, z, 1.0, 0.0, 0.0, 0.0)
    env.data.qvel[dof : dof + 6] = 0.0


def logged_groups(env: LabEnv, tmp_path: Path, windows: list[tuple[float, float]]) -> list[list[Citation]]:
    """The log exported (and written where the citations name it); for each stretch of ``windows``, its
    periods a period apart, cited."""
    text = env.export("logger", "log.csv")["csv"]
    (tmp_path / "log.csv").write_text(text)
    rows = rows_of(text)
    return [
        [
            {"file": "log.csv", "row": i, "column": "period", "value": rows[i]["period"]}
            for i in periods_in(rows, start, end)
        ]
        for start, end in windows
    ]


def flat(groups: list[list[Citation]]) -> list[Citation]:
    return [c for group in groups for c in group]


def means(groups: list[list[Citation]]) -> list[float]:
    """Each group's mean period (s)."""
    return [sum(float(c["value"]) for c in group) / len(group) for group in groups]  # type: ignore[arg-type]
