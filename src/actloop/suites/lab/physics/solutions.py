"""Solutions as state: what a vessel holds, poured, mixed and reacting, in pure Python floats.

MuJoCo has no fluids, so a vessel's contents are a :class:`Portion`: a volume (mL) and the amount (mol) of
each solute, which moves with the vessel and mixes ideally (volumes and amounts add) when one portion is
poured into another. Crystal violet fades in base (:func:`fade`): CV⁺ + OH⁻ → CVOH, colourless, at the
second-order rate ``k2 [OH⁻][CV⁺]``, beside a slow first-order fading ``k0 [CV⁺]`` that needs no base.
Hydroxide stands in a thousand-fold excess, so its consumption (under 0.1 %) is neglected and between two
additions [CV⁺] falls exactly as ``exp(−(k0 + k2 [OH⁻]) t)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from actloop.suites.lab.physics.linear import exp

CRYSTAL_VIOLET = "crystal_violet"
HYDROXIDE = "hydroxide"


@dataclass(frozen=True)
class Portion:
    """A volume of solution (mL) and the moles of each solute in it, by name (sorted; none zero)."""

    volume_ml: float
    solutes: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if not self.volume_ml >= 0.0:
            raise ValueError(f"a volume must not be negative, not {self.volume_ml} mL")
        if any(not moles >= 0.0 for _, moles in self.solutes):
            raise ValueError(f"amounts must not be negative: {self.solutes}")

    @classmethod
    def of(cls, volume_ml: float, concentrations: Mapping[str, float]) -> Portion:
        """``volume_ml`` of a solution of the given concentrations (mol/L)."""
        return cls.made(volume_ml, {name: c * volume_ml / 1000.0 for name, c in concentrations.items()})

    @classmethod
    def made(cls, volume_ml: float, moles: Mapping[str, float]) -> Portion:
        """``volume_ml`` holding the given amounts (mol)."""
        return cls(volume_ml, tuple(sorted((name, n) for name, n in moles.items() if n != 0.0)))

    def moles(self, solute: str) -> float:
        """The amount of ``solute`` (mol)."""
        return dict(self.solutes).get(solute, 0.0)

    def concentration(self, solute: str) -> float:
        """The concentration of ``solute`` (mol/L); zero in an empty portion."""
        return 0.0 if self.volume_ml == 0.0 else self.moles(solute) * 1000.0 / self.volume_ml

    def plus(self, other: Portion) -> Portion:
        """This portion and ``other`` mixed."""
        moles = dict(self.solutes)
        for name, n in other.solutes:
            moles[name] = moles.get(name, 0.0) + n
        return Portion.made(self.volume_ml + other.volume_ml, moles)

    def take(self, volume_ml: float) -> tuple[Portion, Portion]:
        """(what is poured off, what stays): ``volume_ml`` of it (all of it at most), well mixed."""
        if volume_ml >= self.volume_ml:
            return self, Portion(0.0)
        share = volume_ml / self.volume_ml
        taken = Portion.made(volume_ml, {name: n * share for name, n in self.solutes})
        left = Portion.made(self.volume_ml - volume_ml, {name: n - n * share for name, n in self.solutes})
        return taken, left


EMPTY = Portion(0.0)


def fade(portion: Portion, seconds: float, k0: float, k2: float) -> Portion:
    """``portion`` after ``seconds`` of crystal violet fading (k0 in 1/s, k2 in L mol⁻¹ s⁻¹); nothing
    else changes."""
    dye = portion.moles(CRYSTAL_VIOLET)
    if dye == 0.0 or seconds == 0.0:
        return portion
    rate = k0 + k2 * portion.concentration(HYDROXIDE)
    moles = dict(portion.solutes)
    moles[CRYSTAL_VIOLET] = dye * exp(-rate * seconds)
    return Portion.made(portion.volume_ml, moles)
