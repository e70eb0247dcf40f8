"""Classical image analysis for the baseline agent: find a coloured object in a clean RGB frame.

Works on the pixels a model receives and nothing else. The table, floor and robot are low-saturation
greys and beiges, so task objects are the saturated pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SATURATION_MIN = 0.45
VALUE_MIN = 0.2
MIN_PIXELS = 12


@dataclass(frozen=True)
class Blob:
    """A detected object in image coordinates (u right, v down; pixels)."""

    u: float
    v: float
    side_px: float
    edge_angle_rad: float
    """Direction of one side of the minimum-area bounding square, in image coordinates."""
    pixels: int


def saturated_mask(image: np.ndarray) -> np.ndarray:
    rgb = image[..., :3].astype(np.float32) / 255.0
    high = rgb.max(axis=-1)
    low = rgb.min(axis=-1)
    saturation = np.where(high > 0, (high - low) / np.maximum(high, 1e-6), 0.0)
    return (saturation > SATURATION_MIN) & (high > VALUE_MIN)


def largest_component(mask: np.ndarray) -> np.ndarray:
    """Boolean mask of the largest 4-connected component (iterative flood fill)."""
    labels = np.zeros(mask.shape, dtype=np.int32)
    best_label, best_size, current = 0, 0, 0
    height, width = mask.shape
    for start in zip(*np.nonzero(mask), strict=True):
        if labels[start]:
            continue
        current += 1
        stack = [start]
        labels[start] = current
        size = 0
        while stack:
            r, c = stack.pop()
            size += 1
            for nr, nc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if 0 <= nr < height and 0 <= nc < width and mask[nr, nc] and not labels[nr, nc]:
                    labels[nr, nc] = current
                    stack.append((nr, nc))
        if size > best_size:
            best_label, best_size = current, size
    return labels == best_label if best_size else np.zeros_like(mask)


def find_object(image: np.ndarray) -> Blob | None:
    """The largest saturated region, with its centre, apparent size and in-plane orientation."""
    mask = largest_component(saturated_mask(image))
    rows, cols = np.nonzero(mask)
    if len(rows) < MIN_PIXELS:
        return None
    pts = np.stack([cols, rows], axis=1).astype(np.float64)
    centre = pts.mean(axis=0)
    rel = pts - centre
    best_angle, best_area, best_side = 0.0, np.inf, 0.0
    for deg in range(90):
        a = np.deg2rad(deg)
        rot = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
        proj = rel @ rot.T
        extent = proj.max(axis=0) - proj.min(axis=0) + 1.0
        area = float(extent[0] * extent[1])
        if area < best_area:
            best_angle, best_area, best_side = a, area, float(np.sqrt(area))
    return Blob(float(centre[0]), float(centre[1]), best_side, best_angle, len(rows))
