"""Synthetic run records for the report tests: result rows, minimal episode records and PNG frames."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from PIL import Image

from actloop.report.tasks import TaskInfo

CHECKPOINTS = {
    "grasp_single_cube": ["approached", "grasped", "lifted"],
    "place_single_cube": ["grasped", "placed"],
    "lift_pot": ["left_grasped", "right_grasped", "lifted"],
    "grasp_single_cube_tall": ["approached", "grasped", "lifted"],
    "basket": [f"in_basket_{obj}" for obj in "abcde"],
}
TASKS = {
    "grasp_single_cube": TaskInfo("grasp_single_cube", 1, 50),
    "place_single_cube": TaskInfo("place_single_cube", 1, 100),
    "lift_pot": TaskInfo("lift_pot", 2, 50),
    "grasp_single_cube_tall": TaskInfo("grasp_single_cube_tall", 1, 50, base="grasp_single_cube"),
    "basket": TaskInfo("basket", 1, 200, track="long_horizon"),
}


def lookup(name: str) -> TaskInfo | None:
    """Stands in for the registry so a dual-arm task and a held-out variant can be used."""
    return TASKS.get(name)


def png(color: tuple[int, int, int] = (200, 30, 30), size: int = 16) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), color).save(buffer, format="PNG")
    return buffer.getvalue()


def row(
    task: str,
    seed: int,
    run: int,
    outcome: str,
    model: str = "m/a",
    protocol: str = "active",
    summary: str | None = None,
    metrics: dict[str, float] | None = None,
) -> dict[str, Any]:
    """A results.jsonl row; ``outcome`` is "success", "fail", "infra_error" or "error".

    A success reaches every checkpoint, a failure only the first, an error row has no checkpoint data;
    ``metrics`` are the final state's measurements.
    """
    names = CHECKPOINTS[task]
    if outcome == "success":
        checkpoints = dict.fromkeys(names, True)
    elif outcome == "fail":
        checkpoints = {name: i == 0 for i, name in enumerate(names)}
    else:
        checkpoints = {}
    budget = TASKS[task].budget
    data: dict[str, Any] = {
        "suite": "vabench",
        "task": task,
        "seed": seed,
        "run": run,
        "model": model,
        "protocol": protocol,
        "success": outcome == "success",
        "steps": 7 if outcome in ("success", "fail") else 0,
        "budget": budget,
        "stop_reason": {"success": "success", "fail": "budget"}.get(outcome, outcome),
        "failed_conditions": [] if outcome == "success" else ["lifted"],
        "checkpoints": checkpoints,
        "record_dir": f"episodes/{task}__seed{seed}__run{run}__{protocol}",
        "repairs": 0,
        "model_calls": 7,
        "duration_s": 1.5,
        "error": "ModelFailure: provider down" if outcome == "infra_error" else None,
    }
    if summary is not None:
        data["summary"] = summary
    if metrics is not None:
        data["metrics"] = metrics
    return data


def write_dir(directory: Path, rows: list[dict[str, Any]], records: bool = True) -> Path:
    """An output directory with ``results.jsonl`` and (optionally) a small record per row."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "results.jsonl").open("a", encoding="utf-8") as handle:
        for data in rows:
            handle.write(json.dumps(data) + "\n")
    if records:
        for data in rows:
            write_record(directory / data["record_dir"], data, steps=2)
    return directory


def write_record(
    record: Path, result: dict[str, Any], steps: int = 3, reason: str = "move closer", arms: int = 1
) -> Path:
    """A minimal episode record: ``steps`` observations with one frame each and an action after each but
    the last, then ``episode_end`` and ``result.json``."""
    (record / "frames").mkdir(parents=True, exist_ok=True)
    arm_names = ["left", "right"] if arms == 2 else ["right"]
    events: list[dict[str, Any]] = [
        {
            "type": "episode_start",
            "data": {
                **{k: result[k] for k in ("suite", "task", "seed", "run", "model", "protocol")},
                "instruction": "Pick up the red cube.",
                "budget": result["budget"],
                "action_space": {"arms": arm_names, "camera": True, "tools": []},
            },
        }
    ]
    for step in range(steps):
        frame = f"frames/step{step:03d}_active.png"
        (record / frame).write_bytes(png((40 * step % 256, 120, 200)))
        events.append(
            {
                "type": "observation",
                "data": {
                    "step": step,
                    "budget": result["budget"],
                    "text": f"step: {step}",
                    "frames": [{"view": "active", "path": frame}],
                },
            }
        )
        if step == steps - 1:
            break
        decision = {
            "action": "gripper.move_world",
            "axis": "z",
            "sign": "-",
            "distance_mm": 20,
            "reason": reason,
        }
        events += [
            {"type": "model_output", "data": {"call": step + 1, "text": json.dumps(decision)}},
            {"type": "decision", "data": {"decision": decision}},
            {
                "type": "env_step",
                "data": {
                    "step": step + 1,
                    "decision": decision,
                    "reason": reason,
                    "dispatched": True,
                    "valid": True,
                    "planner_success": step % 2 == 0,
                    "planner_reason": "motion executed" if step % 2 == 0 else "target unreachable",
                    "proprioception": [{"arm": "right", "gc": [0.1, 0.2, 0.9], "gripper": "open"}],
                    "evaluation": {
                        "success": False,
                        "conditions": {"lifted_gt_50mm": False},
                        "checkpoints": {"approached": step > 0},
                        "metrics": {"lift_mm": 0.0},
                    },
                    "done": False,
                    "stop_reason": None,
                },
            },
        ]
    events.append({"type": "episode_end", "data": result})
    with (record / "events.jsonl").open("w", encoding="utf-8") as handle:
        for event in events:
            handle.write(json.dumps({**event, "created_at": "2026-01-01T00:00:00+00:00"}) + "\n")
    (record / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return record
