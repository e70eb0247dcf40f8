"""Packing several objects into one container: the order the baseline takes them in and where each goes.

This is what the atomic-skill demonstrations of the basket track show: long objects lie along the
basket's length towards its +x end, one beside the other; cubes and a standing bottle form a column at
its -x end; the tall standing bottle goes in last, so that nothing is carried over it. Slots are where
the gripper releases an object, as offsets from the basket's centre in metres along world x and y (the
basket's long side lies along x). A lying bottle is held off its middle (the grasp is centred on its
coloured body, its white cap is not seen), so its slot sits nearer the basket's centre and the bottle
comes to rest towards the +x end.
"""

from __future__ import annotations

from actloop.suites.vabench.baseline.recipes import Recipe

LYING_SLOTS: tuple[tuple[float, float], ...] = ((0.06, 0.045), (0.0, -0.045))
COLUMN_SLOTS: tuple[tuple[float, float], ...] = ((-0.095, 0.06), (-0.095, 0.0), (-0.115, -0.065))
TURN_ORDER = {"lying": 0, "cube": 1, "upright": 2}


def packing_order(items: list[Recipe]) -> list[tuple[Recipe, tuple[float, float]]]:
    """Each listed object with its slot, in the order to pack them; objects beyond the slots the
    demonstrations show go to the basket's centre."""
    lying, column = iter(LYING_SLOTS), iter(COLUMN_SLOTS)
    order = []
    for item in sorted(items, key=lambda r: TURN_ORDER.get(r.shape, len(TURN_ORDER))):
        slots = lying if item.shape == "lying" else column
        order.append((item, next(slots, (0.0, 0.0))))
    return order
