"""What the spectrophotometer experiments' audits share: the instrument read as a careful hand reads it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from actloop.suites.lab.instance import Instance
from actloop.suites.lab.physics.spectra import Dye, Spectrophotometer, absorbance

Contents = Sequence[tuple[Dye, float]]
"""What a cuvette holds: (dye, mol/L) pairs."""


def blanked_reader(instance: Instance) -> Callable[[float, Contents], float]:
    """``read(nm, contents)`` on the instance's instrument: blank with the solvent at ``nm``, then read
    ``contents`` (1 cm) there; each call a few seconds after the last, as a hand works."""
    spectro = Spectrophotometer("absorbance", instance.noise_key)
    clock = [0.0]

    def read(nm: float, contents: Contents) -> float:
        spectro.set_wavelength(nm)
        clock[0] += 2.0
        spectro.blank(clock[0])
        clock[0] += 2.0
        return spectro.read(clock[0], absorbance(contents, spectro.wavelength))

    return read
