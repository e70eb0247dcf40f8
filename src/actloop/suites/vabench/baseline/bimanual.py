"""The baseline's dual-arm procedures: plans for both arms from a top-down survey frame and, where an
object's height matters, a side frame.

The survey frame is the generic top-down view, centred on the midpoint of both grippers; the side frame
is the generic side view after both grippers have been put either side of the object, so that their
midpoint is above it. Everything metric comes from those frames (object centre, heading, extent, height)
and from the arms' proprioception; the procedure itself (which arm acts, grasp regions, the order of a
handover, which way a shoe's toe points at the start) is what a demonstration of the task shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import ndimage
from scipy.spatial import ConvexHull

from actloop.suites.vabench.baseline import views
from actloop.suites.vabench.baseline.perception import (
    TABLE_Z,
    ends_along_axis,
    find,
    object_standing_at,
    seen_from_topdown,
    top_height_of,
)
from actloop.suites.vabench.baseline.recipes import Recipe
from actloop.suites.vabench.baseline.steps import dual_move_step, move_step
from actloop.suites.vabench.baseline.vision import (
    Region,
    ends_along,
    ends_along_long_axis,
    not_table_mask,
    regions,
    without_colours,
)

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


def handover(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> list[dict] | None:
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


# --- objects of any colour, measured from a top-down and a side frame ---
MEASURE_Z = 0.98
"""Height of both grippers (and so of the side camera's target) when the side frame is taken."""
MEASURE_SPREAD = (0.15, 0.12)
"""The grippers stand this far from the object's vertical in x (each on its side) and in y (the left one
behind, the right one in front), out of the side camera's line of sight to it."""
CLOSING_GAP_ITERATIONS = 3
"""Gaps of up to this many pixels inside an object's top-down silhouette are closed (a thin rim, a
handle whose edge looks like the table)."""


def whole_object(image: np.ndarray, exclude: tuple[str, ...] = ()) -> Region | None:
    """The largest object of any colour seen whole in a top-down frame (not touching the border), with
    pixels of the ``exclude`` colours left out."""
    mask = without_colours(not_table_mask(image), image, exclude)
    n = CLOSING_GAP_ITERATIONS  # padded with the edge pixels, so what touched the border still does
    closed = ndimage.binary_closing(np.pad(mask, n, mode="edge"), iterations=n)[n:-n, n:-n]
    found = regions(ndimage.binary_fill_holes(closed), inside=True)
    return found[0] if found else None


def measuring_pose(xy: np.ndarray, why: str) -> list[dict]:
    """Put the grippers either side of the object at ``xy`` and take the generic side view of it."""
    (x, y), (dx, dy) = (float(v) for v in xy), MEASURE_SPREAD
    return [
        dual_move_step([x - dx, y + dy, MEASURE_Z], [x + dx, y - dy, MEASURE_Z], "zyx", why),
        {"op": "look", "view": "side"},
        {"op": "measure"},
    ]


def remember_survey(mem: dict, camera: views.Pinhole, region: Region, guess_z: float) -> np.ndarray:
    """Keep what the survey frame showed of the object for the plan made after the side frame; returns
    the object's position guessed with its silhouette at ``guess_z``."""
    guess = camera.point_at_height(region.u, region.v, guess_z)[:2]
    mem["survey_eye"] = [float(v) for v in camera.eye]
    mem["survey_size"] = [camera.width, camera.height]
    mem["guess"] = [float(v) for v in guess]
    mem["guess_z"] = guess_z
    mem["size_px"] = [region.length_px, region.width_px]
    mem["angle_rad"] = region.angle_rad
    return guess


def surveyed_camera(mem: dict) -> views.Pinhole:
    """The top-down survey camera, rebuilt from what the survey remembered."""
    eye = np.array(mem["survey_eye"])
    return views.topdown(eye - views.TOPDOWN_OFFSET, *mem["survey_size"])


def measured_top(
    image: np.ndarray,
    camera: views.Pinhole,
    mem: dict,
    exclude: tuple[str, ...] = (),
    elongated: bool = False,
) -> float | None:
    """Height of the top of the object the survey found, from the side frame (``exclude``: colours of
    what is not the object, such as a mat it stands beside). An ``elongated`` object's depth along the
    view comes from its top-down footprint (a round one's from its apparent width)."""
    xy = np.array(mem["guess"])
    region = object_standing_at(camera, image, xy, exclude)
    if region is None:
        return None
    return top_height_of(camera, region, xy, half_depth_along(camera, mem) if elongated else None)


def half_depth_along(camera: views.Pinhole, mem: dict) -> float:
    """Half the extent, along the camera's horizontal viewing direction, of the surveyed footprint (its
    minimum-area rectangle, scaled at the survey's guess height)."""
    survey = surveyed_camera(mem)
    scale = (survey.eye[2] - mem["guess_z"]) / survey.focal_px
    length, width = (scale * px for px in mem["size_px"])
    heading = -mem["angle_rad"]
    view = math.atan2(float(camera.forward[1]), float(camera.forward[0]))
    return 0.5 * (length * abs(math.cos(heading - view)) + width * abs(math.sin(heading - view)))


def handle_tips(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A pot's handle tips in a top-down region: its two farthest points (farther apart than any two points
    of the round body) give the handles' axis, and the middle of each end along it the tips."""
    hull = points[ConvexHull(points).vertices]
    gaps = np.hypot(hull[:, None, 0] - hull[None, :, 0], hull[:, None, 1] - hull[None, :, 1])
    i, j = np.unravel_index(int(np.argmax(gaps)), gaps.shape)
    axis = (hull[j] - hull[i]) / max(float(gaps[i, j]), 1e-6)
    return ends_along(points, axis)


# lift_pot: the procedure its demonstration shows
POT_GUESS_HEIGHT_M = 0.08
"""The survey places the pot's silhouette at this height above the table before it is measured."""
HANDLE_BELOW_RIM_M = 0.017
"""The handles stick out just under the rim (their centre line this far down)."""
GRIP_FROM_HANDLE_TIP_M = 0.026
LIFT_MM = 120.0


def pot_survey(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> list[dict] | None:
    """Find the pot and its handles' axis from the top-down frame, then look at it from the side."""
    region = whole_object(image)
    if region is None:
        return None
    guess = remember_survey(mem, camera, region, TABLE_Z + POT_GUESS_HEIGHT_M)
    mem["tips_px"] = [point.tolist() for point in handle_tips(region.points)]
    return measuring_pose(guess, "stand either side of the pot to see its height")


def pot_lift(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> list[dict] | None:
    """Each gripper takes the handle on its side (the handle tips put at the handles' height), both close
    together and lift together."""
    rim = measured_top(image, camera, mem)
    if rim is None:
        return None
    handle_z = rim - HANDLE_BELOW_RIM_M
    survey = surveyed_camera(mem)
    tips = sorted((survey.point_at_height(u, v, handle_z)[:2] for u, v in mem["tips_px"]), key=lambda p: p[0])
    left_tip, right_tip = tips
    unit = (right_tip - left_tip) / max(float(np.linalg.norm(right_tip - left_tip)), 1e-6)
    grips = {
        "left": left_tip + GRIP_FROM_HANDLE_TIP_M * unit,
        "right": right_tip - GRIP_FROM_HANDLE_TIP_M * unit,
    }
    across = math.atan2(float(unit[1]), float(unit[0])) + math.pi / 2
    hover = handle_z + HOVER_M
    return [
        {"op": "turn", "heading": across, "sym": 180.0, "arm": "left"},
        {"op": "turn", "heading": across, "sym": 180.0, "arm": "right"},
        dual_move_step([*grips["left"], hover], [*grips["right"], hover], "zxy", "both above their handles"),
        dual_move_step(
            [*grips["left"], handle_z], [*grips["right"], handle_z], "z", "both down to the handles"
        ),
        {"op": "grip", "cmd": "close", "arm": "both", "why": "grasp both handles"},
        dual_move_step(
            [None, None, handle_z + LIFT_MM / 1000],
            [None, None, handle_z + LIFT_MM / 1000],
            "z",
            "lift together",
        ),
        {"op": "retry"},
    ]


# place_shoe: the procedure its demonstration shows
SHOE_GUESS_HEIGHT_M = 0.04
SHOE_GRASP_BEHIND_MIDDLE_M = 0.02
"""The upper is grasped across its tall rear part, this far behind the shoe's middle."""
SHOE_TOE_HEIGHT_M = 0.04
"""Seen from the survey camera, in front of the shoe, the silhouette's far end is the top of the toe cap
(about this high) and its near end the heel's foot on the table; halfway between them is the shoe's
middle."""
SHOE_START_HEADING = math.pi / 2
"""The shoe starts with its toe pointing away from the robot (+y)."""
SHOE_GRASP_BELOW_TOP_M = 0.026
SHOE_LIFT_M = 0.08
SHOE_RELEASE_CLEARANCE_M = 0.004
SHOE_RETREAT_M = 0.06


def shoe_survey(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> list[dict] | None:
    """Find the mat (its colour and its end's colour), where the toe must point, and the shoe (anything
    else on the table), then look at the shoe from the side."""
    mat_colours = tuple(c for c in (recipe.goal_colour, recipe.support_colour) if c)
    if len(mat_colours) != 2:
        return None
    mat, end = (find(image, c) for c in mat_colours)
    shoe = whole_object(image, exclude=mat_colours)
    if mat is None or end is None or shoe is None:
        return None
    mat_u, mat_v = np.vstack([mat.points, end.points]).mean(axis=0)
    mat_xy = camera.point_at_height(float(mat_u), float(mat_v), TABLE_Z)[:2]
    end_xy = camera.point_at_height(end.u, end.v, TABLE_Z)[:2]
    mem["mat_xy"] = [float(v) for v in mat_xy]
    mem["toe_heading"] = math.atan2(float(end_xy[1] - mat_xy[1]), float(end_xy[0] - mat_xy[0]))
    guess = remember_survey(mem, camera, shoe, TABLE_Z + SHOE_GUESS_HEIGHT_M)
    toe_px, heel_px = sorted(ends_along_long_axis(shoe), key=lambda p: p[1])  # the toe is the far end
    toe = camera.point_at_height(float(toe_px[0]), float(toe_px[1]), TABLE_Z + SHOE_TOE_HEIGHT_M)[:2]
    heel = camera.point_at_height(float(heel_px[0]), float(heel_px[1]), TABLE_Z)[:2]
    middle = 0.5 * (toe + heel)
    towards_heel = (heel - toe) / max(float(np.linalg.norm(heel - toe)), 1e-6)
    mem["shoe_xy"] = [float(v) for v in middle]
    mem["grasp_xy"] = [float(v) for v in middle + SHOE_GRASP_BEHIND_MIDDLE_M * towards_heel]
    return measuring_pose(guess, "stand either side of the shoe to see its height")


def shoe_place(image: np.ndarray, camera: views.Pinhole, recipe: Recipe, mem: dict) -> list[dict] | None:
    """The arm on the shoe's side grasps the upper across, below its top; lifts; turns the toe to the
    mat's end; carries it over the mat, sets it down and lets go."""
    mat_colours = tuple(c for c in (recipe.goal_colour, recipe.support_colour) if c)
    top = measured_top(image, camera, mem, mat_colours, elongated=True)
    if top is None:
        return None
    grasp_z = top - SHOE_GRASP_BELOW_TOP_M
    x, y = mem["grasp_xy"]
    arm = "left" if x < 0 else "right"
    heading = -mem["angle_rad"]  # the silhouette's long axis, image to world
    turn = (mem["toe_heading"] - SHOE_START_HEADING + math.pi) % (2 * math.pi) - math.pi
    # the shoe's middle turns with the gripper about the vertical through GC
    ox, oy = mem["shoe_xy"][0] - x, mem["shoe_xy"][1] - y
    c, s = math.cos(turn), math.sin(turn)
    mx, my = mem["mat_xy"][0] - (c * ox - s * oy), mem["mat_xy"][1] - (s * ox + c * oy)
    carry_z = grasp_z + SHOE_LIFT_M
    release_z = grasp_z + SHOE_RELEASE_CLEARANCE_M
    return [
        move_step(list(SURVEY_GC[other(arm)]), "yxz", "the other arm out of the way", other(arm)),
        {"op": "turn", "heading": heading + math.pi / 2, "sym": 180.0, "arm": arm},
        move_step([x, y, grasp_z + HOVER_M], "xyz", "hover above the shoe", arm),
        move_step([x, y, grasp_z], "z", "descend around the upper", arm),
        {"op": "grip", "cmd": "close", "arm": arm, "why": "grasp the shoe"},
        move_step([None, None, carry_z], "z", "lift the shoe", arm),
        {
            "op": "tilt",
            "axis": "rx",
            "deg": -math.degrees(turn),
            "arm": arm,
            "why": "turn the toe to the mat's end",
        },
        move_step([mx, my, None], "xy", "carry it over the mat", arm),
        move_step([None, None, release_z], "z", "set it down", arm),
        {"op": "grip", "cmd": "open", "arm": arm, "why": "let go"},
        move_step([None, None, release_z + SHOE_RETREAT_M], "z", "back off", arm),
        {"op": "retry"},
    ]


Procedure = Callable[[np.ndarray, views.Pinhole, Recipe, dict], list[dict] | None]
PROCEDURES: dict[str, Procedure] = {"handover": handover, "lift_pot": pot_survey, "place_shoe": shoe_survey}
"""Dual-arm procedure name -> plan builder from the survey frame (it may remember what it saw in ``mem``)."""
MEASURES: dict[str, Procedure] = {"lift_pot": pot_lift, "place_shoe": shoe_place}
"""Dual-arm procedure name -> plan builder from the side frame taken after the survey."""
