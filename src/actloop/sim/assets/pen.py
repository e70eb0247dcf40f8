"""A pen: a slim hexagonal prism (it cannot roll) with a differently coloured cap at its +z end.

The body origin is the pen's centre (on its axis, halfway along its length); the long axis is body z
and body x is the normal of a flat, so :func:`actloop.sim.assets.bottle.axis_quat` lays it on a flat.
"""

from __future__ import annotations

from collections.abc import Sequence

from actloop.sim.assets.common import free_body, prism_geoms

PEN_APOTHEM = 0.006
"""Half the flat-to-flat width (12 mm across the flats, 13.9 mm across the corners)."""
PEN_LENGTH = 0.14
PEN_CAP_LENGTH = 0.025
PEN_MASS = 0.02
PEN_SIDES = 6


def pen(
    name: str,
    pos: Sequence[float],
    quat: Sequence[float],
    barrel_color: str = "blue",
    cap_color: str = "black",
) -> str:
    """A free pen with its centre at ``pos``; geoms ``<name>_barrel_<k>`` and ``<name>_cap_<k>``."""
    barrel = PEN_LENGTH - PEN_CAP_LENGTH
    parts = (
        prism_geoms(
            f"{name}_barrel",
            PEN_APOTHEM,
            barrel,
            PEN_SIDES,
            -PEN_LENGTH / 2 + barrel / 2,
            barrel_color,
            PEN_MASS * barrel / PEN_LENGTH,
        ),
        prism_geoms(
            f"{name}_cap",
            PEN_APOTHEM,
            PEN_CAP_LENGTH,
            PEN_SIDES,
            PEN_LENGTH / 2 - PEN_CAP_LENGTH / 2,
            cap_color,
            PEN_MASS * PEN_CAP_LENGTH / PEN_LENGTH,
        ),
    )
    return free_body(name, pos, quat, "\n  ".join(parts))
