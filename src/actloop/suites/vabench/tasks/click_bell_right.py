"""click_bell_right: press a desk bell's push button with the closed right gripper (the seed's table 24)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from actloop.sim.assets.bell import BELL_MODELS, bell, bell_button_site
from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.vabench.expert import move_gc_to
from actloop.suites.vabench.predicates import (
    body_geoms,
    contact_normal,
    contacts,
    displacement_m,
    finger_geoms,
    finger_opening_m,
    gripper_closed,
    site_position,
)
from actloop.suites.vabench.protocol.decisions import EnvAction, SetGripper
from actloop.suites.vabench.task import Task, TaskContext, register_task
from actloop.suites.vabench.tasks._functional_contact import arm_contact_points, pad_reach

CONTACT_XY_M = 0.025
CONTACT_Z_M = 0.030
APPROACH_XY_M = 0.02
APPROACH_HEIGHT_M = 0.06
HOVER_M = 0.04
PRESS_DEPTH_M = 0.003
CLOSED_OPENING_M = 0.002
"""Largest gap between the pads of a gripper that counts as shut (a pinched button holds them ~16 mm
apart)."""
PRESS_MAX_TILT_DEG = 30.0
"""Largest angle between a press's contact normal and the vertical."""
BUTTON_GEOM = "bell_button"


def downward_press(ctx: TaskContext) -> bool:
    """The right fingers (pads and finger bodies) touch the bell, and only by pressing down on the button:
    every finger-bell contact is with the button geom, its normal (pointing from the button to the
    finger) within ``PRESS_MAX_TILT_DEG`` of straight up. Side contacts (a pinch) and contacts with the
    dome, stem or base (a shove, a wedge) fail it."""
    button = ctx.world.model.geom(BUTTON_GEOM).id
    bell = body_geoms(ctx, "bell")
    min_up = math.cos(math.radians(PRESS_MAX_TILT_DEG))
    on_bell = [(i, other) for i, _, other in contacts(ctx, finger_geoms(ctx, "right")) if other in bell]
    return bool(on_bell) and all(
        other == button and contact_normal(ctx, i, button)[2] >= min_up for i, other in on_bell
    )


@register_task
class ClickBellRight(Task):
    """Press the bell's push button with the closed right gripper.

    Instruction:
        Close the gripper and press the button on top of the bell with it.
    Randomization:
        Bell base centre x in [0.12, 0.26] m, y in [-0.18, -0.04] m; bell model id 0 (gold dome on a black
        base, 110 mm wide, button top 77 mm high) or 1 (silver dome on a dark red base, 100 mm wide,
        button top 65 mm high).
    Success conditions:
        Hardened: ``right_fingers_closed``: the right gripper is commanded closed and its pads are shut
        (less than 2 mm apart, so nothing is pinched between them);
        ``downward_finger_press_on_button``: the right fingers (pads and finger bodies; no other robot
        part counts) touch the bell only at the button geom, every contact normal within 30° of vertical
        and pointing from the button up to the finger (a pinch from the sides, a sideways shove into the
        dome and a touch by the palm or an arm link all fail);
        ``confirmed_after_settle``: with both true, a scratch copy of the world holding the current
        commands for 3 s still meets them (``vabench.confirm``).
        Paper (table 24): ``gripper_closed``: the right gripper is commanded closed;
        ``contact_within_25mm_xy_30mm_z``: a contact point between any right-arm geom and the bell lies
        within 25 mm of the functional point (the top centre of the push button) on each of x and y,
        and within 30 mm on z.
    Checkpoints:
        ``approached`` (GC within 20 mm of the button horizontally and 0-60 mm above it), ``pressed``
        (the hardened state conditions hold).
    """

    name = "click_bell_right"
    instruction = "Close the gripper and press the button on top of the bell with it."
    budget = 50
    objects_of_interest = ("bell",)

    def sample_layout(self, rng: np.random.Generator) -> dict[str, Any]:
        return {
            "x": float(rng.uniform(0.12, 0.26)),
            "y": float(rng.uniform(-0.18, -0.04)),
            "model_id": int(rng.integers(len(BELL_MODELS))),
        }

    def objects(self) -> tuple[str, ...]:
        return (bell("bell", (self.layout["x"], self.layout["y"]), TABLE_TOP_Z, self.layout["model_id"]),)

    def state_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        return {
            "right_fingers_closed": gripper_closed(ctx, "right")
            and finger_opening_m(ctx, "right") <= CLOSED_OPENING_M,
            "downward_finger_press_on_button": downward_press(ctx),
        }

    def paper_conditions(self, ctx: TaskContext) -> dict[str, bool]:
        button = site_position(ctx, bell_button_site("bell"))
        near = [
            p
            for p in arm_contact_points(ctx, "right", "bell")
            if abs(p[0] - button[0]) <= CONTACT_XY_M
            and abs(p[1] - button[1]) <= CONTACT_XY_M
            and abs(p[2] - button[2]) <= CONTACT_Z_M
        ]
        return {
            "gripper_closed": gripper_closed(ctx, "right"),
            "contact_within_25mm_xy_30mm_z": bool(near),
        }

    def checkpoints(self, ctx: TaskContext) -> dict[str, bool]:
        offset = ctx.arms["right"].gc(ctx.world.data) - site_position(ctx, bell_button_site("bell"))
        return {
            "approached": bool(
                math.hypot(offset[0], offset[1]) < APPROACH_XY_M and 0 < offset[2] < APPROACH_HEIGHT_M
            ),
            "pressed": all(self.state_conditions(ctx).values()),
        }

    def metrics(self, ctx: TaskContext) -> dict[str, float]:
        offset = ctx.arms["right"].gc(ctx.world.data) - site_position(ctx, bell_button_site("bell"))
        return {
            "gc_button_xy_mm": 1000.0 * math.hypot(offset[0], offset[1]),
            "gc_button_height_mm": 1000.0 * float(offset[2]),
            "bell_displacement_mm": 1000.0 * displacement_m(ctx, "bell"),
        }

    def expert(self, ctx: TaskContext) -> Iterator[EnvAction]:
        yield SetGripper("close", reason="expert: close to press")
        button = site_position(ctx, bell_button_site("bell"))
        yield from move_gc_to(ctx, "right", button + np.array([0.0, 0.0, HOVER_M]), order="xyz")
        press_z = button[2] + pad_reach(ctx, "right") - PRESS_DEPTH_M
        yield from move_gc_to(ctx, "right", np.array([button[0], button[1], press_z]), order="z")
