"""The reference experimenter for the two-dye mixture, through the public client only.

It sweeps the solvent blank and each dye's standard across the visible (holding λ+); each standard's sweep
less the blank's locates that dye's peak. It then chooses :data:`COUNT` wavelengths spread from a little to
the blue of dye 1's peak to a little to the red of dye 2's, where each dye is read at its strongest and both
overlap, blanks on the solvent at the first and reads the blank's baseline at each, then each standard and
the mixture at each. Each standard's readings less the baseline give that dye's absorptivity at every
chosen wavelength (Beer-Lambert, 1 cm); the mixture's readings less the baseline are their sum weighted by
the two concentrations, which a least-squares fit over all the wavelengths gives. It puts every cuvette back
and submits with every reading the result rests on.

What it knows besides the card is the bench's published layout; every value comes from images of the LCDs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.spectrophotometer import (
    Reading,
    SpectroOperator,
    coarse_peak,
    corrected,
)

SWEEP = (400, 680)
"""The sweep (nm): both dyes' main bands."""
COUNT = 7
MARGIN_NM = 10
"""The chosen wavelengths run from MARGIN_NM to the blue of dye 1's peak to MARGIN_NM to the red of dye
2's."""
BLANK, DYE_1, DYE_2, MIXTURE = 0, 1, 2, 3


def chosen_wavelengths(peak_1: int, peak_2: int) -> list[int]:
    """:data:`COUNT` whole wavelengths evenly from MARGIN_NM below the bluer peak to MARGIN_NM above the
    redder."""
    low, high = min(peak_1, peak_2) - MARGIN_NM, max(peak_1, peak_2) + MARGIN_NM
    return sorted({round(low + (high - low) * k / (COUNT - 1)) for k in range(COUNT)})


def unmix(
    standard_1: Sequence[float], standard_2: Sequence[float], mixed: Sequence[float], c_standard: float
) -> tuple[float, float]:
    """Both concentrations from baseline-corrected absorbances at the same wavelengths: the standards'
    (each at ``c_standard``) give the absorptivities, the mixture's are their sum weighted by the two
    concentrations, fitted by least squares."""
    absorptivity = np.column_stack([standard_1, standard_2]) / c_standard
    solved, *_ = np.linalg.lstsq(absorptivity, np.asarray(mixed, dtype=float), rcond=None)
    return float(solved[0]), float(solved[1])


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    me = SpectroOperator(lab)
    sweeps = {i: me.scan(i, *SWEEP) for i in (BLANK, DYE_1, DYE_2)}
    peaks = [coarse_peak(corrected(sweeps[i], sweeps[BLANK]))[0] for i in (DYE_1, DYE_2)]
    wavelengths = chosen_wavelengths(*peaks)
    me.seat(BLANK)
    me.set_wavelength(wavelengths[0])
    me.press_key("blank")
    readings: dict[int, list[Reading]] = {}
    for i in (BLANK, DYE_2, DYE_1, MIXTURE):  # the blank is seated already
        me.seat(i)
        order = wavelengths if len(readings) % 2 == 0 else wavelengths[::-1]
        readings[i] = sorted((me.read_at(nm) for nm in order), key=lambda r: r.wavelength)
    me.unseat()
    me.clear()
    corrected_by_cuvette = {
        i: [r.absorbance - b.absorbance for r, b in zip(readings[i], readings[BLANK], strict=True)]
        for i in (DYE_1, DYE_2, MIXTURE)
    }
    c_1, c_2 = unmix(
        corrected_by_cuvette[DYE_1],
        corrected_by_cuvette[DYE_2],
        corrected_by_cuvette[MIXTURE],
        public["standard_concentration"],
    )
    if not (math.isfinite(c_1) and math.isfinite(c_2) and c_1 > 0 and c_2 > 0):
        raise RuntimeError("the readings give no concentrations")
    quantity = {BLANK: "c_1 and c_2", DYE_1: "c_1", DYE_2: "c_2", MIXTURE: "c_1 and c_2"}
    citations = [r.citation(quantity[i], i) for i, rs in readings.items() for r in rs]
    return lab.submit({"c_1": c_1, "c_2": c_2}, citations)
