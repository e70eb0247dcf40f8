"""The difficulty audit of #26, the plate's refractive index: the screen anywhere in focus against the
sharpest focus, both times."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Plan, read_scale
from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.noise import seeded_uniform

FOCUS_PRECISION_M = 0.0003
"""The sharpest image found within 0.3 mm of the image plane: the rail operator's search as it stands (its
fingers slip on the screen's post; the reference, approaching the image only upwards, stays within
0.15 mm)."""
CLOSE_UP_RESOLUTION_MM = 0.1
"""A close-up of the scale read to a tenth of a millimetre, as the reference reads it."""


def plan() -> Plan:
    from actloop.suites.lab.experiments.plate_index import BLOCK_X, LENS_X
    from actloop.suites.lab.physics.optics import Rail
    from actloop.suites.lab.platforms.optical_rail import FOCUS_BLUR_M, INDEX, OBJECT_X, Block, Lens

    def shift(instance: Instance, spread: float | None, resolution_mm: float) -> float:
        """n from the screen's marks focused without and with the block, each off its image plane by a
        quantile of the instance's noise times ``spread`` (None: anywhere its blur circle is in focus),
        read to ``resolution_mm``; the scale's offset shifts both alike."""
        h, t = instance.hidden, instance.public["thickness"]
        lens = Lens(name="lens", stand_x=0.0, focal_length=h["f"]).element(LENS_X)
        block = Block(name="block", stand_x=0.0, thickness=t, index=h["n"]).element(BLOCK_X)
        marks = []
        for k, elements in enumerate(((lens,), (lens, block))):
            image = Rail(OBJECT_X, elements, 1.0).image().position
            slope = Rail(OBJECT_X, elements, image + 0.001).blur_diameter() / 0.001
            half = FOCUS_BLUR_M / slope if spread is None else spread
            screen = image + half * (2.0 * seeded_uniform(instance.noise_key, "audit/focus", k) - 1.0)
            marks.append(read_scale(1000.0 * (screen - h["scale_offset"]), resolution_mm))
        return 1.0 / (1.0 - (marks[1] - marks[0]) / (1000.0 * t))

    return Plan(
        lambda i: {"n": i.hidden["n"]},
        Design(
            "anywhere in focus",
            "the screen anywhere its image counts as in focus, without and with the block, read to the "
            f"scale's whole {INDEX.graduation:g} mm graduations; n = 1 / (1 - shift / t)",
            lambda i: {"n": shift(i, None, INDEX.graduation)},
        ),
        Design(
            "sharpest focus",
            "the screen at the sharpest image without and with the block in the beam, the lens fixed 0.17 m "
            "from the slide, read to 0.1 mm; n = 1 / (1 - shift / t)",
            lambda i: {"n": shift(i, FOCUS_PRECISION_M, CLOSE_UP_RESOLUTION_MM)},
        ),
        "the shift t (1 - 1/n) is 14-26 mm and an error of 1 mm in it is 2.8-4.2 % of n: the in-focus window "
        "(±1.3-2.7 mm each time) is wider than the tolerance allows, the sharpest image (within about "
        "0.3 mm) is not",
    )
