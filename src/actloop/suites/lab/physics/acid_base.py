"""Acid–base equilibria of an ideal aqueous solution at 25 °C: strong and weak acids, a strong base.

A :class:`Solution` holds a volume (L) and the analytical amounts (mol) put into it: a strong acid (HCl, fully
H⁺ and Cl⁻), a strong base (NaOH, fully Na⁺ and OH⁻), one monoprotic weak acid HA (HA and A⁻ together)
of a given pKa, and any further monoprotic weak acids (a calibration buffer's). :func:`ph` solves the
charge balance ``[H⁺] + [Na⁺] = [OH⁻] + [Cl⁻] + Σ [A⁻]`` with ``[OH⁻] = Kw / [H⁺]`` and each
``[A⁻] = C_HA Ka / (Ka + [H⁺])`` exactly, activities taken as concentrations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from actloop.suites.lab.physics.linear import LN10, exp

KW = 1.0e-14  # the ion product of water at 25 °C, (mol/L)²
_PH_BRACKET = (-3.0, 18.0)  # the pH range searched: [H⁺] from 1e3 down to 1e-18 mol/L
_HALVINGS = 64  # 21 · 2⁻⁶⁴ ≈ 1e-18 pH: the bracket shrinks to adjacent doubles first


@dataclass(frozen=True)
class Solution:
    """A beaker's contents: volume (L) and the moles of strong acid, strong base and weak acid (mol) in it;
    ``pka`` is the weak acid's (None when there is none); ``other_acids`` are further weak acids, (mol, pKa)
    each."""

    volume_l: float
    strong_acid_mol: float = 0.0
    strong_base_mol: float = 0.0
    weak_acid_mol: float = 0.0
    pka: float | None = None
    other_acids: tuple[tuple[float, float], ...] = ()

    def __post_init__(self) -> None:
        amounts = {
            "volume_l": self.volume_l,
            "strong_acid_mol": self.strong_acid_mol,
            "strong_base_mol": self.strong_base_mol,
            "weak_acid_mol": self.weak_acid_mol,
        }
        for name, value in amounts.items():
            if not (math.isfinite(value) and value >= 0.0):
                raise ValueError(f"{name} must be finite and not negative, not {value}")
        if self.volume_l == 0.0 and (self.strong_acid_mol or self.strong_base_mol or self.weak_acid_mol):
            raise ValueError("a solute needs a volume of water to dissolve in")
        if self.weak_acid_mol > 0.0 and self.pka is None:
            raise ValueError("a weak acid needs its pKa")
        if self.pka is not None and not math.isfinite(self.pka):
            raise ValueError(f"pKa must be finite, not {self.pka}")
        for moles, pka in self.other_acids:
            if not (math.isfinite(moles) and moles >= 0.0 and math.isfinite(pka)):
                raise ValueError(
                    f"a further weak acid needs finite, non-negative moles and a finite pKa: {moles}, {pka}"
                )

    def mix(self, other: Solution) -> Solution:
        """The two poured together: volumes and moles add (ideal mixing). The main weak acids of the two must
        be the same (of one pKa); further weak acids are kept side by side."""
        pkas = {part.pka for part in (self, other) if part.weak_acid_mol > 0.0 and part.pka is not None}
        if len(pkas) > 1:
            raise ValueError(f"cannot mix weak acids of different pKa: {sorted(pkas)}")
        return Solution(
            self.volume_l + other.volume_l,
            self.strong_acid_mol + other.strong_acid_mol,
            self.strong_base_mol + other.strong_base_mol,
            self.weak_acid_mol + other.weak_acid_mol,
            next(iter(pkas), None),
            self.other_acids + other.other_acids,
        )


def hcl(concentration_mol_l: float, volume_l: float) -> Solution:
    """``volume_l`` of hydrochloric acid at ``concentration_mol_l``."""
    return Solution(volume_l, strong_acid_mol=concentration_mol_l * volume_l)


def naoh(concentration_mol_l: float, volume_l: float) -> Solution:
    """``volume_l`` of sodium hydroxide at ``concentration_mol_l``."""
    return Solution(volume_l, strong_base_mol=concentration_mol_l * volume_l)


def weak_acid(concentration_mol_l: float, volume_l: float, pka: float) -> Solution:
    """``volume_l`` of a monoprotic weak acid of ``pka`` at analytical ``concentration_mol_l``."""
    return Solution(volume_l, weak_acid_mol=concentration_mol_l * volume_l, pka=pka)


def ph(solution: Solution) -> float:
    """The pH, ``−log10 [H⁺]``, that balances the charges, found by bisection on the pH in [−3, 18].

    The charge balance's excess of positive charge rises with [H⁺], so exactly one pH balances it; 64
    halvings (or fewer, stopping at adjacent doubles) pin the computed balance's root to about 1e-15 pH,
    the same bits on every machine. ValueError for an empty solution or one whose pH lies outside the
    bracket (over 1000 mol/L of acid or base).
    """
    volume = solution.volume_l
    if volume <= 0.0:
        raise ValueError("an empty beaker has no pH")
    excess_base = (solution.strong_base_mol - solution.strong_acid_mol) / volume  # [Na⁺] − [Cl⁻], mol/L
    acids = [
        (moles / volume, exp(-LN10 * pka))  # C_HA (mol/L), Ka
        for moles, pka in ((solution.weak_acid_mol, solution.pka), *solution.other_acids)
        if moles > 0.0 and pka is not None
    ]

    def excess_positive(ph_value: float) -> float:
        h = exp(-LN10 * ph_value)
        return h + excess_base - KW / h - sum(c * ka / (ka + h) for c, ka in acids)

    acidic, basic = _PH_BRACKET
    if not (excess_positive(acidic) > 0.0 > excess_positive(basic)):
        raise ValueError("the solution's pH lies outside the model's range (-3 to 18)")
    for _ in range(_HALVINGS):
        middle = 0.5 * (acidic + basic)
        if middle in (acidic, basic):
            break
        if excess_positive(middle) > 0.0:  # too much H⁺ at this pH: the balance lies higher
            acidic = middle
        else:
            basic = middle
    return 0.5 * (acidic + basic)
