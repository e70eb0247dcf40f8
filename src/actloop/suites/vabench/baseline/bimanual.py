"""The baseline's dual-arm procedures: plans for both arms from one top-down survey frame.

The survey frame is the generic top-down view, centred on the midpoint of both grippers. Everything
metric comes from that frame (object centre, heading, extent) and from the arms' proprioception; the
procedure itself (which arm acts, grasp regions, the order of a handover) is what a demonstration of the
task shows.
"""

from __future__ import annotations

import math

import numpy as np

from actloop.suites.vabench.baseline import views
from actloop.suites.vabench.baseline.perception import TABLE_Z, ends_along_axis, find, seen_from_topdown
from actloop.suites.vabench.baseline.recipes import Recipe
from actloop.suites.vabench.baseline.steps import move_step

SURVEY_GC = {"left": (-0.25, -0.32, 1.12), "right": (0.25, -0.32, 1.12)}
"""Both grippers back and up, clear of the table's middle, before the survey."""
HOVER_M = 0.08
# handover_horizontal_block: the procedure its demonstration shows
GIVER_CLOSING_HEADING = {"left": math.pi / 2, "right": -math.pi / 2}
"""The giver grasps across the lying block with its fingers closing along world y (+y for the left arm,
-y for the right), the heading from which its wrist can turn the block upright towards the middle."""
GIVER_GRIP_FROM_END_M = 0.03
GIVER_LIFT_Z = 0.96
UPRIGHT_TILT_DEG = -90.0
"""Turn about the closing axis that leaves the giver's fingers pointing at the middle, block standing."""
HANDOVER_XY = (0.0, -0.04)
PRESENTED_CENTRE_Z = 1.0
RECEIVER_GRIP_BELOW_TOP_M = 0.022
GIVER_BACK_OFF_M = 0.10
CARRY_X = 0.15


def side(arm: str) -> float:
    return -1.0 if arm == "left" else 1.0


def other(arm: str) -> str:
    return "right" if arm == "left" else "left"


def survey_camera(turn_arms: dict, image: np.ndarray) -> views.Pinhole:
    """The generic top-down camera: centred on the midpoint of both grippers."""
    midpoint = 0.5 * (turn_arms["left"].gc + turn_arms["right"].gc)
    return views.topdown(midpoint, image.shape[1], image.shape[0])


def handover(image: np.ndarray, camera: views.Pinhole, recipe: Recipe) -> list[dict] | None:
    """Giver (the arm on the block's side) grasps near the outer end, lifts, turns the block upright and
    presents it on the midline; the receiver grasps its upper end from above; the giver lets go and backs
    off; the receiver carries the block to its own side, high."""
    region = find(image, recipe.colour)
    if region is None:
        return None
    block = seen_from_topdown(camera, region, square=False)
    top = TABLE_Z + block.thickness
    a, b = ends_along_axis(camera, region, top)
    length = float(np.linalg.norm(a - b))
    giver = "left" if float(block.xy[0]) < 0 else "right"
    receiver = other(giver)
    outer = a if abs(float(a[0])) > abs(float(b[0])) else b
    inward = (block.xy - outer) / max(float(np.linalg.norm(block.xy - outer)), 1e-6)
    gx, gy = (float(v) for v in outer + GIVER_GRIP_FROM_END_M * inward)
    grasp_z = TABLE_Z + block.thickness / 2
    # standing on the grasp, the block's centre is this far above the giver's GC
    centre_above_gc = length / 2 - GIVER_GRIP_FROM_END_M
    hx, hy = HANDOVER_XY
    receiver_z = PRESENTED_CENTRE_Z + length / 2 - RECEIVER_GRIP_BELOW_TOP_M
    return [
        {"op": "turn", "heading": GIVER_CLOSING_HEADING[giver], "sym": 360.0, "arm": giver},
        move_step([gx, gy, grasp_z + HOVER_M], "xyz", "giver: hover above the block's outer end", giver),
        move_step([gx, gy, grasp_z], "z", "giver: descend to grasp height", giver),
        {"op": "grip", "cmd": "close", "arm": giver, "why": "giver: grasp the block"},
        move_step([None, None, GIVER_LIFT_Z], "z", "giver: lift the block", giver),
        {"op": "tilt", "axis": "ry", "deg": UPRIGHT_TILT_DEG, "arm": giver, "why": "giver: turn it upright"},
        move_step([None, None, PRESENTED_CENTRE_Z - centre_above_gc], "z", "giver: present at height", giver),
        move_step([hx, hy, None], "yx", "giver: present it on the midline", giver),
        move_step([hx, hy, receiver_z + HOVER_M], "zxy", "receiver: above the block's top", receiver),
        move_step([hx, hy, receiver_z], "z", "receiver: down onto the upper end", receiver),
        {"op": "grip", "cmd": "close", "arm": receiver, "why": "receiver: take the block"},
        {"op": "grip", "cmd": "open", "arm": giver, "why": "giver: let go"},
        move_step([side(giver) * GIVER_BACK_OFF_M, None, None], "x", "giver: back off to its side", giver),
        move_step([side(receiver) * CARRY_X, None, None], "x", "receiver: carry it to its side", receiver),
        {"op": "retry"},
    ]


PROCEDURES = {"handover": handover}
"""Dual-arm procedure name -> plan builder from the survey frame."""
