"""lift_pot: lift a heavy two-handled pot level with both arms (the seed's table 25)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from actloop.sim.assets.pot import POT_MODELS, pot, pot_handle_geoms, pot_handle_site
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import align_closing_axis
from actloop.suites.vabench.predicates import finger_opening_m, lift_m, site_position, tilt_deg
from actloop.suites.vabench.protocol.decisions import (
    MAX_DISTANCE_MM,
    Arm,
    DualMoveWorld,
    EnvAction,
    SetGripper,
    Translation,
)
from actloop.suites.vabench.task import Task, TaskContext, register_task, split_steps
from actloop.suites.vabench.tasks._dual_arm import (
    ARMS,
    geom_ids,
    holds_part,
    move_gcs_to,
    supported_by_hands_only,
)
from actloop.suites.vabench.tasks._grasping import body_yaw

POT = "pot"
MIN_BASE_Z_M = 0.82
"""The seed's height threshold: the pot's origin, the centre of its bottom face, 80 mm above the table."""
TCP_RADIUS_M = 0.03
UPRIGHT_DOT = 0.8
LEVEL_TILT_DEG = 5.0
"""Hardened "level": the pot's axis within this angle of vertical. Honest two-arm lifts tilt it at most
0.31° with the arms moving together (the expert and the baseline on all 20 verified seeds, live and in
the confirmation) and 1.5° after one arm went 60 mm ahead and the other caught up (the pot turns a little
in the grasps): the limit is three times that. One arm 20 mm ahead of the other tilts the pot 4.7° (the
stockpot, handles 215 mm apart) or 4.2° (the casserole, 245 mm): level; 25 mm ahead, 6.0° or 5.4°: not.
The paper's 0.8 upright dot admits about 37°."""
LEVEL = "level_within_5deg"
YAW_LIMIT_RAD = math.pi / 8
HANDLE_SYMMETRY_DEG = 180.0
HOVER_M = 0.07
"""Height of the expert's pre-grasp hover above each handle's grasp point."""
HELD_OPENING_FRACTION = 0.5
"""A held handle keeps the pads apart by at least this fraction of its width (97-100 % when gripped)."""
EXPERT_LIFT_MM = 120.0
"""The expert raises both grippers this far together (the base ends about 120 mm above the table)."""


def handle_point(ctx: TaskContext, side: str) -> np.ndarray:
    """World position of the grasp point of the pot's ``side`` handle."""
    return site_position(ctx, pot_handle_site(POT, side))


def tcp_handle_distance_m(ctx: TaskContext, arm: str) -> float:
    """Distance from ``arm``'s GC (its tool-centre point) to the grasp point of the handle on its side."""
    return math.dist(ctx.arms[arm].gc(ctx.world.data).tolist(), handle_point(ctx, arm).tolist())


def upright_dot(ctx: TaskContext) -> float:
    """The pot's axis (body z) dotted with the world's vertical."""
    return float(ctx.world.body_rotation(POT)[2, 2])


@register_task
class LiftPot(Task):
    """Lift the pot level with both arms, each holding the handle on its side.

    Instruction:
        Grasp the pot's left handle with the left gripper and its right handle with the right gripper,
        then lift the pot together, level, at least 10 cm above the table.
    Randomization:
        Pot centre x, y in [-0.05, 0.05] m; yaw of the handles' axis in [-22.5°, 22.5°]; pot model id 0
        (steel-grey stockpot, 170 mm across, 115 mm tall, flat black tab handles 45 × 30 × 12 mm, 2.4 kg)
        or 1 (red casserole, 200 mm across, 85 mm tall, round wooden rod handles 20 mm thick with a knob,
        2.2 kg). Held by one handle either pot turns in the grasp (the pads hold a handle by friction
        about the closing axis only), so it lifts level only with both handles held.
    Success conditions:
        The pot's height is that of its origin, the centre of its bottom face, so the seed's 0.82 m
        means 80 mm of clearance under the pot. The paper's pot origin is most likely its base too:
        RoboTwin's expert lifts the pot to z = 0.88 m, and a centre origin would make 0.82 m a lift of
        only about 30 mm. A TCP is the gripper's GC (the midpoint between its finger pads); a handle's
        point is the middle of its free length at its mid-height.
        Hardened: the paper's terms below, and ``left_handle_held_by_left_gripper`` and
        ``right_handle_held_by_right_gripper`` (each gripper commanded closed with both of its pads on
        the handle on its own side and the handle between them: pads at least half the handle's width
        apart, about 97 % when gripped); ``supported_by_grippers_only`` (the pot touches the two grippers
        and nothing else: no table, no arm link); ``level_within_5deg`` (the pot's axis within 5° of
        vertical, the instruction's "level", where the paper's upright dot admits 37°:
        ``LEVEL_TILT_DEG``); ``confirmed_after_settle`` (with all of these true, a scratch copy of the
        world holding the current commands for 3 s still meets them: ``vabench.confirm``).
        Paper (table 25): ``pot_z_gt_0.82m``; ``left_tcp_within_30mm_of_left_handle`` and
        ``right_tcp_within_30mm_of_right_handle``; ``upright_dot_gt_0.8`` (the pot's axis dotted with
        world z, i.e. tilted less than about 37°).
    Checkpoints:
        ``left_at_handle`` and ``right_at_handle`` (that arm's TCP within 30 mm of its handle's point),
        ``both_grasped`` (each handle held by its own gripper), ``lifted_level`` (every hardened state
        condition holds: both handles held, nothing else touched, base above 0.82 m, upright).
    """

    name = "lift_pot"
    instruction = (
        "Grasp the pot's left handle with the left gripper and its right handle with the right gripper, "
        "then lift the pot together, level, at least 10 cm above the table."
    )
    arms = ARMS
    budget = 50
    objects_of_interest = (POT,)

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(-0.05, 0.05)),
            "y": float(rng.uniform(-0.05, 0.05)),
            "yaw": float(rng.uniform(-YAW_LIMIT_RAD, YAW_LIMIT_RAD)),
            "model_id": int(rng.integers(len(POT_MODELS))),
        }

    def objects(self) -> tuple[str, ...]:
        layout = self.layout
        return (pot(POT, (layout["x"], layout["y"]), TABLE_TOP_Z, layout["yaw"], layout["model_id"]),)

    def handle_geoms(self, ctx: TaskContext, side: str) -> frozenset[int]:
        return geom_ids(ctx, pot_handle_geoms(POT, side, self.layout["model_id"]))

    def holds_handle(self, ctx: TaskContext, arm: str) -> bool:
        """``arm`` holds the handle on its own side: closed with both pads on it and the handle between
        them (pads apart by at least half the handle's width, so shut fingers propping the handle from
        below or beside do not count)."""
        width = POT_MODELS[self.layout["model_id"]].handle_width
        return holds_part(ctx, arm, self.handle_geoms(ctx, arm)) and (
            finger_opening_m(ctx, arm) >= HELD_OPENING_FRACTION * width
        )

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "pot_z_gt_0.82m": float(ctx.world.body_position(POT)[2]) > MIN_BASE_Z_M,
            "left_tcp_within_30mm_of_left_handle": tcp_handle_distance_m(ctx, "left") < TCP_RADIUS_M,
            "right_tcp_within_30mm_of_right_handle": tcp_handle_distance_m(ctx, "right") < TCP_RADIUS_M,
            "upright_dot_gt_0.8": upright_dot(ctx) > UPRIGHT_DOT,
        }

    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            **self.paper_conditions(ctx),
            "left_handle_held_by_left_gripper": self.holds_handle(ctx, "left"),
            "right_handle_held_by_right_gripper": self.holds_handle(ctx, "right"),
            "supported_by_grippers_only": supported_by_hands_only(ctx, POT, ARMS),
            LEVEL: tilt_deg(ctx, POT) <= LEVEL_TILT_DEG,
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        both = self.holds_handle(ctx, "left") and self.holds_handle(ctx, "right")
        return {
            "left_at_handle": tcp_handle_distance_m(ctx, "left") < TCP_RADIUS_M,
            "right_at_handle": tcp_handle_distance_m(ctx, "right") < TCP_RADIUS_M,
            "both_grasped": both,
            "lifted_level": both and all(self.state_conditions(ctx).values()),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        return {
            "pot_z_above_table_mm": 1000.0 * (float(ctx.world.body_position(POT)[2]) - TABLE_TOP_Z),
            "lift_mm": 1000.0 * lift_m(ctx, POT),
            "left_tcp_handle_mm": 1000.0 * tcp_handle_distance_m(ctx, "left"),
            "right_tcp_handle_mm": 1000.0 * tcp_handle_distance_m(ctx, "right"),
            "upright_dot": upright_dot(ctx),
            "tilt_deg": tilt_deg(ctx, POT),
        }

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """Bring both grippers onto their handles, close both together, lift both together."""
        yield from reach_handles(ctx, ARMS)
        yield SetGripper("close", arm="both", reason="expert: grasp both handles")
        yield from lift_together(EXPERT_LIFT_MM)


def reach_handles(ctx: TaskContext, arms: tuple[Arm, ...]) -> Iterator[EnvAction]:
    """Turn each arm's closing axis across its handle (one arm at a time), bring the grippers above their
    handles (together, where both move) and down onto them."""
    across = body_yaw(ctx, POT) + math.pi / 2
    for arm in arms:
        yield from align_closing_axis(ctx, arm, across, HANDLE_SYMMETRY_DEG)
    hover = np.array([0.0, 0.0, HOVER_M])
    yield from move_gcs_to(ctx, {arm: handle_point(ctx, arm) + hover for arm in arms}, order="xyz")
    yield from move_gcs_to(ctx, {arm: handle_point(ctx, arm) for arm in arms}, order="z")


def lift_together(mm: float) -> Iterator[EnvAction]:
    """Raise both grippers ``mm`` in synchronized dual translations of at most 100 mm."""
    for chunk in split_steps(mm, MAX_DISTANCE_MM):
        up = Translation("z", "+", round(chunk, 1))
        yield DualMoveWorld(up, up, reason="expert: lift together")
