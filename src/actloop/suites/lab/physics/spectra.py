"""Dye absorption spectra and a single-beam spectrophotometer.

Units follow the chemistry the experiments score: wavelengths in nm, molar absorptivity ε in L mol⁻¹ cm⁻¹,
concentrations in mol/L, path lengths in cm, times in s. A dye's spectrum is a sum of Gaussian bands
scaled so that ε at its maximum equals the dye's ε_max; mixtures add by Beer–Lambert, ``A = l Σ ε_i c_i``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from actloop.suites.lab.physics.linear import LN10, exp, log10
from actloop.suites.lab.physics.noise import seeded_normal

# h c / k_B in nm·K (exact SI constants): the second radiation constant c₂.
_C2 = 6.62607015e-34 * 299792458.0 / 1.380649e-23 * 1e9


@dataclass(frozen=True)
class Band:
    """A Gaussian absorption band: centre (nm), standard deviation (nm) and height relative to the other
    bands of the same dye."""

    center: float
    width: float
    height: float = 1.0

    def value(self, wavelength: float) -> float:
        z = (wavelength - self.center) / self.width
        return self.height * exp(-0.5 * z * z)


@dataclass(frozen=True)
class Dye:
    """A dye's absorption spectrum: its bands and its molar absorptivity at the peak (L mol⁻¹ cm⁻¹)."""

    name: str
    bands: tuple[Band, ...]
    epsilon_max: float

    def _shape(self, wavelength: float) -> float:
        return sum(band.value(wavelength) for band in self.bands)

    def _slope(self, wavelength: float) -> float:
        return sum(
            -band.value(wavelength) * (wavelength - band.center) / (band.width * band.width)
            for band in self.bands
        )

    @cached_property
    def lambda_max(self) -> float:
        """The wavelength of the strongest absorption (nm): the best point of a grid a quarter of the
        narrowest band wide, refined by bisection on the spectrum's slope."""
        step = min(band.width for band in self.bands) / 4.0
        start = min(band.center - 5.0 * band.width for band in self.bands)
        stop = max(band.center + 5.0 * band.width for band in self.bands)
        grid = [start + k * step for k in range(int((stop - start) / step) + 1)]
        best = max(range(len(grid)), key=lambda k: self._shape(grid[k]))
        low, high = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
        for _ in range(200):  # the slope falls through zero from low to high
            middle = 0.5 * (low + high)
            if middle in (low, high):
                break
            if self._slope(middle) > 0.0:
                low = middle
            else:
                high = middle
        return 0.5 * (low + high)

    @cached_property
    def _peak(self) -> float:
        return self._shape(self.lambda_max)

    def epsilon(self, wavelength: float) -> float:
        """Molar absorptivity at ``wavelength`` (nm), in L mol⁻¹ cm⁻¹."""
        return self.epsilon_max * self._shape(wavelength) / self._peak


def absorbance(mixture: Iterable[tuple[Dye, float]], wavelength: float, path_length: float = 1.0) -> float:
    """Beer–Lambert absorbance of (dye, mol/L) pairs in a ``path_length`` cm cuvette at ``wavelength`` nm."""
    return path_length * sum(dye.epsilon(wavelength) * concentration for dye, concentration in mixture)


def tungsten_lamp(wavelength: float) -> float:
    """The default lamp × detector signal: a 2900 K filament's photon flux (Planck's law per unit wavelength
    divided by the photon energy: ∝ λ⁻⁴ / (e^{c₂/λT} − 1)) on a detector of flat quantum efficiency,
    relative to its value at 560 nm."""

    def photons(nm: float) -> float:
        return 1.0 / (nm * nm * nm * nm * (exp(_C2 / (nm * 2900.0)) - 1.0))

    return photons(wavelength) / photons(560.0)


@dataclass
class Spectrophotometer:
    """A single-beam spectrophotometer: blank first, then read samples at the same wavelength.

    The detector signal is ``lamp(λ) (1 + δ) (T + s)`` plus Gaussian noise of fixed size ``noise``, where T is
    the cuvette's true transmittance, s the stray-light fraction and δ the lamp's drift since the blank.
    The display shows ``−log10(signal / blank signal)`` rounded to ``decimals``; so stray light flattens high
    absorbances towards ``−log10(s / (1 + s))``, and the absorbance noise grows as 1/T. Noise is drawn once
    per display refresh, keyed by (noise key, instrument name, refresh index); the drift rate is redrawn at
    each blank. A blank taken at another wavelength is still used, as a real single-beam instrument would.
    """

    name: str
    seed: int | str
    """The instance's noise key."""
    stray_light: float = 1e-3  # s, relative to the blank's signal
    noise: float = 2e-4  # standard deviation of the signal, relative to the lamp at 560 nm
    drift: float = 2e-6  # standard deviation of the lamp's relative drift rate, per s
    refresh: float = 0.5  # s between display updates
    decimals: int = 3  # displayed absorbance digits (0.001 A)
    wavelength_step: float = 1.0  # nm, the wavelength setting's resolution
    wavelength_range: tuple[float, float] = (340.0, 900.0)  # nm
    over_range: float = 4.0  # A above which the display shows overload (``inf``)
    lamp: Callable[[float], float] = tungsten_lamp
    wavelength: float = 560.0
    _blank: tuple[float, float, float, float] | None = field(default=None, init=False, repr=False)
    _blanks: int = field(default=0, init=False, repr=False)

    def set_wavelength(self, nm: float) -> float:
        """Set the wavelength, rounded to the setting's resolution and kept in range; returns the setting."""
        low, high = self.wavelength_range
        steps = round(min(max(nm, low), high) / self.wavelength_step)
        self.wavelength = steps * self.wavelength_step
        return self.wavelength

    def _sample(self, time: float) -> int:
        return math.floor(time / self.refresh)

    def _signal(self, time: float, absorbance: float, drift: float, stream: str) -> float:
        lamp = self.lamp(self.wavelength) * (1.0 + drift)
        clean = lamp * (exp(-LN10 * absorbance) + self.stray_light)
        return clean + self.noise * seeded_normal(self.seed, f"{self.name}/{stream}", self._sample(time))

    def blank(self, time: float, absorbance: float = 0.0) -> None:
        """Take the reference at ``time`` (s) with a blank of true ``absorbance`` in the holder."""
        self._blanks += 1
        rate = self.drift * seeded_normal(self.seed, f"{self.name}/drift", self._blanks)
        self._blank = (time, rate, self.wavelength, self._signal(time, absorbance, 0.0, "blank"))

    def read(self, time: float, absorbance: float) -> float:
        """The displayed absorbance at ``time`` (s) of a sample of true ``absorbance`` at the set wavelength;
        ``inf`` when over range. Before any blank the reference is the lamp's signal at 560 nm."""
        if self._blank is None:
            blank_time, rate, reference = time, 0.0, self.lamp(560.0) * (1.0 + self.stray_light)
        else:
            blank_time, rate, _, reference = self._blank
        signal = self._signal(time, absorbance, rate * (time - blank_time), "read")
        if signal <= 0.0 or reference <= 0.0:
            return math.inf
        shown = -log10(signal / reference)
        return math.inf if shown > self.over_range else round(shown, self.decimals)

    @property
    def blank_wavelength(self) -> float | None:
        """The wavelength (nm) the current blank was taken at, if any."""
        return None if self._blank is None else self._blank[2]
