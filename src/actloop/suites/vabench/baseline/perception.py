"""Metric estimates of task objects from the baseline's own camera frames.

A top-down frame gives positions, headings and the apparent width of objects; a side frame gives the
height of an object's top. Sizes follow from the pinhole relation between the apparent width of a top
face and its height above the table (a lying cube, pen or bottle is as tall as it is wide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from actloop.suites.vabench.baseline.views import Pinhole
from actloop.suites.vabench.baseline.vision import (
    Region,
    colour_mask,
    find_object,
    not_table_mask,
    region_containing,
    regions,
    saturated_mask,
    without_colours,
)

TABLE_Z = 0.74
FOOT_HEIGHT_M = 0.01


@dataclass(frozen=True)
class Seen:
    """One object as estimated from a top-down frame (world frame, metres, radians)."""

    xy: np.ndarray
    heading: float
    """World heading of the region's long axis (its first side for a square)."""
    thickness: float
    """Estimated height of a lying object whose top face is as wide as it is tall."""
    region: Region


def find(image: np.ndarray, colour: str | None, exclude: tuple[str, ...] = ()) -> Region | None:
    """The largest region of ``colour``; without a colour, the largest saturated region not excluded."""
    if colour is not None:
        return find_object(image, colour)
    mask = saturated_mask(image)
    for other in exclude:
        mask &= ~colour_mask(image, other)
    found = regions(mask)
    return found[0] if found else None


def seen_from_topdown(camera: Pinhole, region: Region, square: bool) -> Seen:
    """Metric estimate of a lying object (top face at its own height) from its top-down region.

    ``square`` uses the region's equal-area square side as the width (cubes); otherwise its short side.
    """
    width_px = region.side_px if square else region.width_px
    depth_to_table = camera.eye[2] - TABLE_Z
    thickness = width_px * depth_to_table / (camera.focal_px + width_px)
    top = TABLE_Z + thickness
    centre = camera.point_at_height(region.u, region.v, top)
    return Seen(
        xy=centre[:2],
        heading=image_to_world_heading(region.angle_rad),
        thickness=float(thickness),
        region=region,
    )


def image_to_world_heading(angle_rad: float) -> float:
    """A top-down image direction (u right, v down) as a world heading (x right, y up in the image)."""
    return -angle_rad


def ends_along_axis(camera: Pinhole, region: Region, z: float) -> tuple[np.ndarray, np.ndarray]:
    """World xy of the two extreme points of a region along its long axis, at height ``z``."""
    axis = np.array([math.cos(region.angle_rad), math.sin(region.angle_rad)])
    along = region.points @ axis
    first = region.points[int(np.argmin(along))]
    last = region.points[int(np.argmax(along))]
    return camera.point_at_height(first[0], first[1], z)[:2], camera.point_at_height(last[0], last[1], z)[:2]


def top_height_from_side(
    camera: Pinhole, image: np.ndarray, colour: str | None, xy: np.ndarray
) -> float | None:
    """Height of the top of the ``colour`` object standing at ``xy``, from a side frame."""
    region = find(image, colour)
    return None if region is None else top_height_of(camera, region, xy)


def top_height_of(
    camera: Pinhole, region: Region, xy: np.ndarray, half_depth_m: float | None = None
) -> float:
    """Height of the top of the object whose side-frame region is ``region``, standing at ``xy``.

    Seen from slightly above, the highest visible point is the far edge of the top face, ``half_depth_m``
    behind its centre line along the view (by default half the object's apparent width, as for a round
    object); the estimate accounts for that.
    """
    top_v = float(region.points[:, 1].min())
    columns = region.points[region.points[:, 1] <= top_v + 1.0][:, 0]
    forward = np.array([camera.forward[0], camera.forward[1]])
    forward /= np.linalg.norm(forward)
    if half_depth_m is None:
        half_depth_m = apparent_half_width(camera, region, xy)
    far_edge = np.asarray(xy) + half_depth_m * forward
    return camera.height_on_vertical(float(columns.mean()), top_v, far_edge)


def apparent_half_width(camera: Pinhole, region: Region, xy: np.ndarray) -> float:
    """Half the width, in metres, of a side-frame region of an object standing at ``xy``."""
    forward = np.array([camera.forward[0], camera.forward[1]])
    forward /= np.linalg.norm(forward)
    distance = float(np.dot(np.asarray(xy) - camera.eye[:2], forward))
    return 0.5 * float(np.ptp(region.points[:, 0]) + 1.0) * distance / camera.focal_px


def whole_top_from_side(camera: Pinhole, image: np.ndarray, colour: str, xy: np.ndarray) -> float | None:
    """Height of the top of the object standing at ``xy`` whose body has ``colour``, cap included: the
    silhouette grown from the coloured body through whatever is not table (a white cap stands out against
    the beige table seen from the side); its far edge is taken half the body's width behind."""
    body = find(image, colour)
    if body is None:
        return None
    whole = region_containing(not_table_mask(image, from_side=True), body)
    return top_height_of(camera, whole, xy, apparent_half_width(camera, body, xy))


def object_standing_at(
    camera: Pinhole, image: np.ndarray, xy: np.ndarray, exclude: tuple[str, ...] = ()
) -> Region | None:
    """The whole object (any colour but the ``exclude`` ones) whose side-frame region covers, or lies
    nearest to, the foot of the vertical through ``xy`` (a point just above the table)."""
    found = regions(without_colours(not_table_mask(image, from_side=True), image, exclude), inside=True)
    if not found:
        return None
    u, v = camera.project(np.array([float(xy[0]), float(xy[1]), TABLE_Z + FOOT_HEIGHT_M]))
    return min(found, key=lambda r: float(np.min(np.hypot(r.points[:, 0] - u, r.points[:, 1] - v))))
