"""handover_horizontal_block: pass a lying block from the arm on its side to the other arm by way of an
upright presentation (the seed's table 25)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from actloop.sim.assets.blocks import block
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import align_closing_axis, move_gc_to
from actloop.suites.vabench.predicates import (
    body_geoms,
    grasped,
    gripper_closed,
    hand_geoms,
    lift_m,
    supported_by_hand_only,
)
from actloop.suites.vabench.protocol.decisions import (
    Arm,
    EnvAction,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Sign,
    Translation,
)
from actloop.suites.vabench.task import LIFT_THRESHOLD_M, Task, TaskContext, register_task

BLOCK = "block"
BLOCK_LENGTH_M = 0.18
BLOCK_SECTION_M = 0.035
BLOCK_MASS_KG = 0.06
BLOCK_COLOR = "red"
BLOCK_YAW = 0.0
"""The block lies with its long axis (body x) along world x, pointing at the other arm."""

MIN_HEIGHT_M = 0.92
"""The seed's height threshold for the block centre (world z)."""
MAX_TILT_DEG = 20.0
"""Largest angle between the block's long axis and the vertical that counts as upright."""
SIDE_MARGIN_M = 0.05
"""Hardened: the block centre is at least this far past the midline (x = 0) on the receiver's side, so
the whole 35 mm section is over there."""
APPROACH_M = 0.025
"""``giver_approached``: the giver's GC within this distance of the block's long-axis segment."""

CLOSING_HEADING = {"left": math.pi / 2, "right": -math.pi / 2}
"""Heading of the closing axis (world +y for the left arm, -y for the right) with which an arm grasps the
lying block from above and can then turn it upright towards the midline: with the opposite heading the
left arm's last wrist joint would run out of range on the turn."""
UPRIGHT_TURN_DEG = (45.0, 45.0)
"""The expert turns the held block upright in these steps about the closing axis."""
GIVER_GRIP_FROM_END_M = 0.03
"""The expert's giver grasp: GC this far in from the block's outer end (away from the midline)."""
RECEIVER_GRIP_FROM_END_M = 0.022
"""The expert's receiver grasp: GC this far below the presented block's top end."""
HOVER_M = 0.08
LIFT_GC_Z_M = 0.96
"""The giver's GC height after the lift, before the block is turned upright."""
HANDOVER_CENTRE_M = (0.0, -0.04, 1.0)
"""Where the giver presents the upright block: its centre, on the midline."""
CARRY_CENTRE_X_M = 0.15
"""How far past the midline, on its own side, the receiver carries the block centre."""
BACK_OFF_M = 0.10
"""How far the giver backs away along its approach axis after letting go."""

CHAIN = ("giver_grasped", "presented_vertical", "receiver_grasped", "giver_released")
"""The handover state chain, latched in this order (each stage needs the one before it)."""


def side_sign(arm: str) -> float:
    """+1 for the right arm's side of the table (x > 0), -1 for the left arm's."""
    return 1.0 if arm == "right" else -1.0


def centre(ctx: TaskContext) -> np.ndarray:
    """The block's centre (its body origin)."""
    return ctx.world.body_position(BLOCK)


def long_axis(ctx: TaskContext) -> np.ndarray:
    """Unit vector of the block's long axis (body x) in the world."""
    return ctx.world.body_rotation(BLOCK)[:, 0]


def tilt_from_vertical_deg(ctx: TaskContext) -> float:
    """Angle between the block's long axis and the vertical, degrees (0 upright, 90 lying)."""
    return math.degrees(math.acos(min(1.0, abs(float(long_axis(ctx)[2])))))


def upright(ctx: TaskContext) -> bool:
    """The block's long axis is within ``MAX_TILT_DEG`` of vertical."""
    return tilt_from_vertical_deg(ctx) <= MAX_TILT_DEG


def distance_to_long_axis_m(ctx: TaskContext, point: np.ndarray) -> float:
    """Distance from ``point`` to the block's long-axis segment (its full length)."""
    axis = [float(v) for v in long_axis(ctx)]
    offset = [float(p) - float(c) for p, c in zip(point, centre(ctx), strict=True)]
    along = sum(o * a for o, a in zip(offset, axis, strict=True))
    along = max(-BLOCK_LENGTH_M / 2, min(BLOCK_LENGTH_M / 2, along))
    return math.dist(offset, [along * a for a in axis])


def touches_hand(ctx: TaskContext, arm: str) -> bool:
    """Any geom of the arm's gripper (flange, palm, fingers, pads) touches the block."""
    return ctx.world.in_contact(hand_geoms(ctx, arm), body_geoms(ctx, BLOCK))


def pads_off(ctx: TaskContext, arm: str) -> bool:
    """Neither finger pad of the arm touches the block."""
    return not ctx.world.in_contact(frozenset(ctx.arms[arm].pad_geoms), body_geoms(ctx, BLOCK))


def move_block_centre(ctx: TaskContext, arm: Arm, target: np.ndarray, order: str) -> Iterator[EnvAction]:
    """Translate the arm holding the block so that the block centre reaches ``target`` along the world axes
    in ``order`` (read again before each axis, so drift in the grasp is taken up)."""
    for axis in order:
        i = "xyz".index(axis)
        goal = ctx.arms[arm].gc(ctx.world.data)
        goal[i] += float(target[i]) - float(centre(ctx)[i])
        yield from move_gc_to(ctx, arm, goal, order=axis)


def turn_upright(ctx: TaskContext, arm: Arm) -> Iterator[EnvAction]:
    """Turn the arm's gripper about its closing axis until it points horizontally at the midline: a block
    held from above across its long axis (lying along x) ends standing on the grasp, or hanging below it if
    it was held by its inner end. A +θ turn about ry takes rx to cos θ rx + sin θ (ry × rx)."""
    _, rot = ctx.arms[arm].control_pose(ctx.world.data)
    ry, rx = [float(v) for v in rot[:, 1]], [float(v) for v in rot[:, 0]]
    ry_cross_rx_x = ry[1] * rx[2] - ry[2] * rx[1]
    sign: Sign = "+" if -side_sign(arm) * ry_cross_rx_x > 0 else "-"
    for angle in UPRIGHT_TURN_DEG:
        yield RotateLocal("ry", sign, angle, arm=arm, reason="expert: turn the block upright")


@register_task
class HandoverHorizontalBlock(Task):
    """Pick up the lying block with the arm on its side, present it upright, hand it to the other arm.

    Instruction:
        The red block lies on the table. Pick it up with the arm on its side of the table and turn it
        upright, hand it over to the other arm, then open the first gripper and hold the block upright
        and high with the other arm on its own side.
    Randomization:
        Block centre x in [-0.20, -0.15] ∪ [0.15, 0.20] m (the side is a fair draw, then |x| uniform), y in
        [-0.05, 0] m; a 180 × 35 × 35 mm red block of 60 g lying with its long axis along world x. The
        giver is the arm on the block's side (right for x > 0, left for x < 0), the receiver the other.
    Success conditions:
        The handover state chain (``CHAIN``) is latched in order in the episode's ``TaskContext``, each
        stage only once the one before it is latched: ``giver_grasped`` (giver closed with both pads on
        the block); ``presented_vertical`` (the giver holds it, it touches the giver's gripper and nothing
        else, its centre at least 50 mm above its start, its long axis within 20° of vertical);
        ``receiver_grasped`` (both grippers closed with both pads on the block, still within 20° of
        vertical: the receiver takes the block as presented); ``giver_released`` (the receiver holds it,
        the giver is commanded open and neither giver pad touches it).
        Hardened: ``handover_chain_completed`` (all four stages latched); ``giver_open_and_clear`` (giver
        commanded open, no geom of its gripper touching the block); ``held_by_receiver`` (receiver closed
        with both pads on the block); ``supported_by_receiver_only`` (the block touches the receiver's
        gripper and nothing else: no giver geom, no table, no arm link); ``centre_z_gt_0p92`` (block
        centre above 0.92 m); ``on_receiver_side_by_50mm`` (block centre at least 50 mm past the midline
        x = 0 on the receiver's side); ``long_axis_within_20deg_of_vertical``; ``confirmed_after_settle``
        (with all of these true, a scratch copy of the world that holds the current commands for 3 s
        still meets them: the block stays held, upright and high; ``vabench.confirm``).
        Paper (table 25): ``chain_completed_after_vertical_presentation`` (the same latched chain);
        ``giver_open`` (commanded open); ``receiver_closed`` (commanded closed); ``z_gt_0p92`` (block
        centre z > 0.92 m); ``on_receiver_side`` (block centre x has the receiver's sign, no margin);
        ``long_axis_within_20deg_of_vertical``.
    Checkpoints:
        ``giver_approached`` (the giver's GC within 25 mm of the block's long-axis segment),
        ``giver_grasped``, ``lifted`` (the giver holds the block touching nothing else, at least 50 mm
        up), ``presented_vertical``, ``receiver_grasped``, ``giver_released`` (the chain's stages),
        ``on_receiver_side_high`` (held by the receiver alone, centre above 0.92 m and at least 50 mm
        past the midline on its side, within 20° of vertical).
    """

    name = "handover_horizontal_block"
    instruction = (
        "The red block lies on the table. Pick it up with the arm on its side of the table and turn it "
        "upright, hand it over to the other arm, then open the first gripper and hold the block upright "
        "and high with the other arm on its own side."
    )
    arms = ("left", "right")
    budget = 100
    objects_of_interest = (BLOCK,)

    # --- scene ---
    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        side = 1.0 if rng.uniform() < 0.5 else -1.0
        return {"x": side * float(rng.uniform(0.15, 0.20)), "y": float(rng.uniform(-0.05, 0.0))}

    def objects(self) -> tuple[str, ...]:
        half = (BLOCK_LENGTH_M / 2, BLOCK_SECTION_M / 2, BLOCK_SECTION_M / 2)
        pos = (self.layout["x"], self.layout["y"], TABLE_TOP_Z + BLOCK_SECTION_M / 2)
        return (block(BLOCK, pos, BLOCK_YAW, half, BLOCK_COLOR, BLOCK_MASS_KG),)

    @property
    def giver(self) -> Arm:
        """The arm on the block's side of the table."""
        return "right" if self.layout["x"] > 0 else "left"

    @property
    def receiver(self) -> Arm:
        return "left" if self.giver == "right" else "right"

    # --- the chain ---
    def chain(self, ctx: TaskContext) -> dict[str, bool]:
        """The handover stages latched so far; evaluating latches the stages the current state reaches."""
        giver, receiver = self.giver, self.receiver
        giver_holds = grasped(ctx, giver, BLOCK)
        receiver_holds = grasped(ctx, receiver, BLOCK)
        presented = (
            giver_holds
            and supported_by_hand_only(ctx, giver, BLOCK)
            and lift_m(ctx, BLOCK) >= LIFT_THRESHOLD_M
            and upright(ctx)
        )
        taken = giver_holds and receiver_holds and upright(ctx)
        released = receiver_holds and not gripper_closed(ctx, giver) and pads_off(ctx, giver)
        stages: dict[str, bool] = {}
        previous = True
        for stage, now in zip(CHAIN, (giver_holds, presented, taken, released), strict=True):
            previous = stages[stage] = ctx.latch(f"handover_{stage}", previous and now)
        return stages

    def receiver_side_m(self, ctx: TaskContext) -> float:
        """How far the block centre is past the midline on the receiver's side (negative: the giver's)."""
        return side_sign(self.receiver) * float(centre(ctx)[0])

    # --- verdicts ---
    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        giver, receiver = self.giver, self.receiver
        return {
            "handover_chain_completed": all(self.chain(ctx).values()),
            "giver_open_and_clear": not gripper_closed(ctx, giver) and not touches_hand(ctx, giver),
            "held_by_receiver": grasped(ctx, receiver, BLOCK),
            "supported_by_receiver_only": supported_by_hand_only(ctx, receiver, BLOCK),
            "centre_z_gt_0p92": float(centre(ctx)[2]) > MIN_HEIGHT_M,
            "on_receiver_side_by_50mm": self.receiver_side_m(ctx) >= SIDE_MARGIN_M,
            "long_axis_within_20deg_of_vertical": upright(ctx),
        }

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "chain_completed_after_vertical_presentation": all(self.chain(ctx).values()),
            "giver_open": not gripper_closed(ctx, self.giver),
            "receiver_closed": gripper_closed(ctx, self.receiver),
            "z_gt_0p92": float(centre(ctx)[2]) > MIN_HEIGHT_M,
            "on_receiver_side": self.receiver_side_m(ctx) > 0.0,
            "long_axis_within_20deg_of_vertical": upright(ctx),
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        giver, receiver = self.giver, self.receiver
        stages = self.chain(ctx)
        return {
            "giver_approached": distance_to_long_axis_m(ctx, ctx.arms[giver].gc(ctx.world.data)) < APPROACH_M,
            "giver_grasped": stages["giver_grasped"],
            "lifted": grasped(ctx, giver, BLOCK)
            and supported_by_hand_only(ctx, giver, BLOCK)
            and lift_m(ctx, BLOCK) >= LIFT_THRESHOLD_M,
            "presented_vertical": stages["presented_vertical"],
            "receiver_grasped": stages["receiver_grasped"],
            "giver_released": stages["giver_released"],
            "on_receiver_side_high": grasped(ctx, receiver, BLOCK)
            and supported_by_hand_only(ctx, receiver, BLOCK)
            and float(centre(ctx)[2]) > MIN_HEIGHT_M
            and self.receiver_side_m(ctx) >= SIDE_MARGIN_M
            and upright(ctx),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        pos = centre(ctx)
        return {
            "centre_x_mm": 1000.0 * float(pos[0]),
            "centre_z_mm": 1000.0 * float(pos[2]),
            "receiver_side_mm": 1000.0 * self.receiver_side_m(ctx),
            "tilt_from_vertical_deg": tilt_from_vertical_deg(ctx),
            "lift_mm": 1000.0 * lift_m(ctx, BLOCK),
            "chain_stages": float(sum(self.chain(ctx).values())),
        }

    # --- expert ---
    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """Giver: grasp near the outer end, lift, turn upright, present on the midline; receiver: grasp
        the upper end from above; giver: open, back off; receiver: carry the block to its side."""
        yield from self.giver_pick(ctx)
        yield from self.present(ctx)
        yield from self.receiver_take(ctx)
        yield from self.giver_release(ctx)
        yield from self.carry(ctx, self.carry_target(ctx))

    def giver_grasp_point(self, ctx: TaskContext) -> np.ndarray:
        """On the long axis, ``GIVER_GRIP_FROM_END_M`` in from the block's outer end."""
        axis = long_axis(ctx)
        outward = axis if float(axis[0]) * side_sign(self.giver) > 0 else -axis
        return centre(ctx) + outward * (BLOCK_LENGTH_M / 2 - GIVER_GRIP_FROM_END_M)

    def giver_pick(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """The giver turns its closing axis across the block, grasps it from above near its outer end and
        lifts it."""
        giver = self.giver
        yield from align_closing_axis(ctx, giver, CLOSING_HEADING[giver], 360.0)
        point = self.giver_grasp_point(ctx)
        yield from move_gc_to(ctx, giver, point + np.array([0.0, 0.0, HOVER_M]), order="xyz")
        yield from move_gc_to(ctx, giver, point, order="z")
        yield SetGripper("close", arm=giver, reason="expert: giver grasps near the outer end")
        lifted = ctx.arms[giver].gc(ctx.world.data)
        lifted[2] = LIFT_GC_Z_M
        yield from move_gc_to(ctx, giver, lifted, order="z")

    def present(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """The giver turns the block upright (its fingers end pointing at the midline, the block standing
        on the grasp) and carries it to the handover point."""
        yield from turn_upright(ctx, self.giver)
        yield from move_block_centre(ctx, self.giver, np.array(HANDOVER_CENTRE_M), order="zyx")

    def receiver_take(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """The receiver comes from above and grasps the block's upper end, closing along world x (its home
        heading) across the faces the giver leaves free."""
        receiver = self.receiver
        up = long_axis(ctx) if float(long_axis(ctx)[2]) >= 0 else -long_axis(ctx)
        point = centre(ctx) + up * (BLOCK_LENGTH_M / 2 - RECEIVER_GRIP_FROM_END_M)
        yield from move_gc_to(ctx, receiver, point + np.array([0.0, 0.0, HOVER_M]), order="zxy")
        yield from move_gc_to(ctx, receiver, point, order="z")
        yield SetGripper("close", arm=receiver, reason="expert: receiver grasps the upper end")

    def giver_release(self, ctx: TaskContext) -> Iterator[EnvAction]:
        """The giver opens and backs away along its approach axis, towards its own side."""
        giver = self.giver
        yield SetGripper("open", arm=giver, reason="expert: giver lets go")
        away: Sign = "+" if side_sign(giver) > 0 else "-"
        back_off = Translation("x", away, 1000 * BACK_OFF_M)
        yield MoveWorld(back_off, arm=giver, reason="expert: giver backs off")

    def carry_target(self, ctx: TaskContext) -> np.ndarray:
        """``CARRY_CENTRE_X_M`` past the midline on the receiver's side, at the block's current y and z."""
        now = centre(ctx)
        return np.array([side_sign(self.receiver) * CARRY_CENTRE_X_M, float(now[1]), float(now[2])])

    def carry(self, ctx: TaskContext, target: np.ndarray, order: str = "xzy") -> Iterator[EnvAction]:
        """The receiver carries the block centre to ``target``, one world axis at a time in ``order``."""
        yield from move_block_centre(ctx, self.receiver, target, order)
