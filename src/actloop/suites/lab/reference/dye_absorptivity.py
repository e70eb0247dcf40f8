"""The reference experimenter for dye absorptivity, through the public client only.

With a dilute cuvette seated it sweeps the wavelength in coarse steps (holding λ+), then with the solvent
blank seated the same sweep gives the lamp's baseline: their difference locates the band. It zeroes on
the blank at the coarse peak, records the blank's baseline and the dye's absorbance at every nanometre
around it, and takes λmax from a quartic fitted to the difference. At the wavelength nearest λmax it reads
the dye cuvettes whose absorbance lies on the straight part of the instrument's response, fits ε through
the origin by Beer–Lambert (1 cm), puts every cuvette back and submits with the readings it rests on.

What it knows besides the card is the bench's published layout; every value comes from images of the LCDs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from actloop.suites.lab.reference.motion import Client
from actloop.suites.lab.reference.spectrophotometer import SpectroOperator, coarse_peak, corrected


def fine_peak(points: Sequence[tuple[float, float]]) -> float:
    """λmax from a quartic fitted to the points around the peak: the stationary point nearest the
    highest point."""
    xs = np.array([p[0] for p in points])
    ys = np.array([p[1] for p in points])
    centre = float(xs[np.argmax(ys)])
    coeffs = np.polyfit(xs - centre, ys, 4)
    roots = np.roots(np.polyder(coeffs))
    real = roots[np.abs(roots.imag) < 1e-9].real
    return centre + float(real[np.argmin(np.abs(real))])


def fit_epsilon(points: Sequence[tuple[float, float]], path_cm: float = 1.0) -> float:
    """ε (L mol⁻¹ cm⁻¹) from (concentration in mol/L, absorbance) by least squares through the origin."""
    return sum(c * a for c, a in points) / (path_cm * sum(c * c for c, _ in points))


COARSE = (460, 660)
FINE_HALF = 15
LINEAR_A = (0.15, 1.0)
"""Absorbances read on the straight part of the response: above the display's resolution mattering,
below where stray light bends it."""
SCAN_CUVETTE = 5
BLANK = 0


def solve(lab: Client, public: Mapping[str, float]) -> dict[str, Any]:
    """Measure, restore the bench and submit; returns the submission's answer."""
    stock_concentration = public["stock_concentration"]
    me = SpectroOperator(lab)
    me.cuvette(SCAN_CUVETTE, into_holder=True)
    me.go_to_keys()
    me.set_wavelength(COARSE[0])
    sample = me.sweep(COARSE[1])
    me.cuvette(SCAN_CUVETTE, into_holder=False)
    me.cuvette(BLANK, into_holder=True)
    me.go_to_keys()
    me.set_wavelength(COARSE[0])
    peak, height = coarse_peak(corrected(sample, me.sweep(COARSE[1])))
    me.set_wavelength(peak)
    me.press_key("blank")
    me.set_wavelength(peak - FINE_HALF)
    span = list(range(peak - FINE_HALF, peak + FINE_HALF + 1))
    baseline = me.step_through(span)
    scanned = SCAN_CUVETTE - 1 if height < 0.35 else SCAN_CUVETTE
    me.cuvette(BLANK, into_holder=False)
    me.cuvette(scanned, into_holder=True)
    me.go_to_keys()
    spectrum = me.step_through(span[::-1])
    lambda_max = fine_peak(corrected(spectrum, baseline))
    at = round(lambda_max)
    base = next(r for r in baseline if r.wavelength == at)
    chosen = [i for i in range(1, 7) if LINEAR_A[0] <= height * 2 ** (SCAN_CUVETTE - i) <= LINEAR_A[1]]
    citations = [r.citation("lambda_max", BLANK) for r in baseline]
    citations += [r.citation("lambda_max", scanned) for r in spectrum]
    points = []
    me.set_wavelength(at)
    current = scanned
    for i in chosen:
        if i != current:
            me.cuvette(current, into_holder=False)
            me.cuvette(i, into_holder=True)
            me.go_to_keys()
            current = i
        for _ in range(2):
            reading = me.read()
            citations.append(reading.citation("epsilon", i))
            points.append((stock_concentration / 2 ** (i - 1), reading.absorbance - base.absorbance))
    me.cuvette(current, into_holder=False)
    me.clear()
    epsilon = fit_epsilon(points)
    if not (math.isfinite(epsilon) and math.isfinite(lambda_max)):
        raise RuntimeError("the readings give no result")
    return lab.submit({"lambda_max": lambda_max, "epsilon": epsilon}, citations)
