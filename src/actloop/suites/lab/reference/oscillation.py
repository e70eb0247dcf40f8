"""Fitting a damped oscillation to sampled positions: y = c + e^(−γ t) (a cos ω t + b sin ω t).

For a given (ω, γ) the model is linear in (c, a, b), solved by least squares; (ω, γ) minimise the residual,
found by golden-section searches, ω first (bracketed around the peak of the samples' spectrum) then γ,
alternately. The undamped angular frequency is ω0 = √(ω² + γ²).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from actloop.suites.lab.reference.fits import golden_minimum

ROUNDS = 4
Fit = tuple[float, float]
"""(ω, γ) in rad/s and 1/s."""


def _residual(t: np.ndarray, y: np.ndarray, omega: float, gamma: float) -> float:
    decay = np.exp(-gamma * t)
    basis = np.column_stack([np.ones_like(t), decay * np.cos(omega * t), decay * np.sin(omega * t)])
    coefficients, *_ = np.linalg.lstsq(basis, y, rcond=None)
    return float(np.sum((basis @ coefficients - y) ** 2))


def spectral_omega(t: np.ndarray, y: np.ndarray) -> float:
    """ω at the peak of the samples' spectrum (windowed, zero-padded eightfold): a first estimate that noise
    on a swing decayed to nothing cannot fool, as it can a count of crossings."""
    if len(y) < 16:
        raise ValueError("too few samples for an oscillation")
    step = float(np.median(np.diff(t)))
    padded = 8 * len(y)
    spectrum = np.abs(np.fft.rfft((y - y.mean()) * np.hanning(len(y)), padded))
    peak = 1 + int(np.argmax(spectrum[1:]))
    return 2 * math.pi * float(np.fft.rfftfreq(padded, step)[peak])


def fit_damped(times: Sequence[float], values: Sequence[float]) -> Fit:
    """(ω, γ) of a damped oscillation through the samples."""
    t = np.asarray(times, dtype=float)
    t = t - t[0]
    y = np.asarray(values, dtype=float)
    omega = spectral_omega(t, y)
    gamma = 0.0
    for _ in range(ROUNDS):
        omega = golden_minimum(functools.partial(_residual, t, y, gamma=gamma), 0.95 * omega, 1.05 * omega)
        gamma = golden_minimum(functools.partial(_residual, t, y, omega), 0.0, 0.5 * omega)
    return omega, gamma


def undamped(fit: Fit) -> float:
    """ω0 of a fit."""
    omega, gamma = fit
    return math.sqrt(omega * omega + gamma * gamma)
