"""Fitting two damped normal modes to two sampled positions: each record is
y_j = c_j + Σ_i e^(−γ_i t) (a_ij cos ω_i t + b_ij sin ω_i t), the two modes' (ω_i, γ_i) shared.

For given (ω1, γ1, ω2, γ2) the model is linear in the rest, solved by least squares for both records at once;
each ω and γ in turn minimises the residual by a golden-section search, ω bracketed around its peak in the
records' spectrum. The undamped angular frequencies are √(ω² + γ²).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from actloop.suites.lab.reference.fits import golden_minimum

ROUNDS = 3
STEPS = 28
"""Golden-section steps per search: a 1 % bracket narrowed to 1e-8 of ω."""
BRACKET = 0.01
"""ω is searched within this fraction of its estimate."""
SEPARATION = 0.3
"""rad/s: the second mode's peak is the highest this far or more from the first's."""
Mode = tuple[float, float]
"""(ω, γ) in rad/s and 1/s."""


def _residual(t: np.ndarray, y: np.ndarray, modes: Sequence[Mode]) -> float:
    columns = [np.ones_like(t)]
    for omega, gamma in modes:
        decay = np.exp(-gamma * t)
        columns += [decay * np.cos(omega * t), decay * np.sin(omega * t)]
    basis = np.column_stack(columns)
    coefficients, *_ = np.linalg.lstsq(basis, y, rcond=None)
    return float(np.sum((basis @ coefficients - y) ** 2))


def spectrum(t: np.ndarray, y: np.ndarray, pad: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """(ω, summed amplitude) of the records' spectra, each windowed (Hann) and zero-padded ``pad``-fold."""
    step = float(np.median(np.diff(t)))
    size = pad * len(t)
    window = np.hanning(len(t))
    power = sum(np.abs(np.fft.rfft((col - col.mean()) * window, size)) for col in y.T)
    return 2 * math.pi * np.fft.rfftfreq(size, step), np.asarray(power)


def spectral_peaks(t: np.ndarray, y: np.ndarray, pad: int = 8) -> tuple[float, float]:
    """The two modes' ω at the two highest peaks of the records' spectrum SEPARATION apart, ascending."""
    omega, power = spectrum(t, y, pad)
    power[0] = 0.0
    first = int(np.argmax(power))
    far = np.abs(omega - omega[first]) >= SEPARATION
    second = int(np.argmax(np.where(far, power, 0.0)))
    low, high = sorted((float(omega[first]), float(omega[second])))
    return low, high


def fit_modes(times: Sequence[float], a: Sequence[float], b: Sequence[float]) -> tuple[Mode, Mode]:
    """The two modes' (ω, γ), ascending in ω, through both gliders' samples."""
    t = np.asarray(times, dtype=float)
    t = t - t[0]
    y = np.column_stack([np.asarray(a, dtype=float), np.asarray(b, dtype=float)])
    if len(t) < 64:
        raise ValueError("too few samples for two modes")
    modes = [[omega, 0.0] for omega in spectral_peaks(t, y)]
    for _ in range(ROUNDS):
        for i in range(2):
            for j in range(2):
                low, high = (
                    ((1 - BRACKET) * modes[i][0], (1 + BRACKET) * modes[i][0])
                    if j == 0
                    else (0.0, 0.05 * modes[i][0])
                )

                def cost(value: float, i: int = i, j: int = j) -> float:
                    trial = [list(m) for m in modes]
                    trial[i][j] = value
                    return _residual(t, y, [(m[0], m[1]) for m in trial])

                modes[i][j] = golden_minimum(cost, low, high, STEPS)
    (w1, g1), (w2, g2) = sorted((m[0], m[1]) for m in modes)
    return (w1, g1), (w2, g2)


def undamped(mode: Mode) -> float:
    """ω0 of a fitted mode."""
    omega, gamma = mode
    return math.sqrt(omega * omega + gamma * gamma)
