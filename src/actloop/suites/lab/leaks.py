"""Finding hidden values in text the agent can read (a card, a server response, a workspace file).

A hidden value leaks in many spellings: its full repr, rounded to a few significant digits, in its unit or
scaled to another (mm for m, kΩ for Ω, µs for s). So the scan reads every number written in the text and
asks whether it is some hidden value, scaled by a power of ten, rounded to that number's own significant
digits. Numbers of fewer than :data:`MIN_DIGITS` significant digits say too little to tell a leak from an
ordinary figure and are passed over; signs are ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

MIN_DIGITS = 3
SCALES = (1e-6, 1e-3, 1e-2, 1.0, 1e2, 1e3, 1e6)
"""The scalings a value may be written in: µ, m, c, the unit itself, per cent or h, k, M."""
NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![\d.])")
"""A number written on its own (not inside a word or a hex string); units may follow it directly."""
CONTEXT = 40
"""Characters of the line shown either side of a leak."""
FLOAT_SLACK = 1e-12
"""A full repr matches within this relative difference (a scaled value may differ in its last bits)."""


@dataclass(frozen=True)
class Leak:
    """A number in the text that is hidden value ``name`` scaled by ``scale``, with the text around it."""

    name: str
    value: float
    written: str
    scale: float
    context: str

    def __str__(self) -> str:
        scaled = "" if self.scale == 1.0 else f" (scaled ×{self.scale:g})"
        return f"{self.name} = {self.value!r} written as {self.written}{scaled} in {self.context!r}"


def significant_digits(mantissa: str) -> int:
    """How many significant digits a written number has (trailing zeros of a whole number do not count)."""
    digits = mantissa.replace(".", "").lstrip("0")
    return len(digits if "." in mantissa else digits.rstrip("0"))


def _quantum(number: float, digits: int) -> float:
    """The place of the last of ``digits`` significant digits of ``number``."""
    return 10.0 ** (math.floor(math.log10(number)) - digits + 1)


def find_leaks(
    text: str, hidden: Mapping[str, float], min_digits: int = MIN_DIGITS, constants: Collection[str] = ()
) -> list[Leak]:
    """Every number in ``text`` that is a value of ``hidden`` (by name), in any of :data:`SCALES`, rounded
    to the number's own significant digits (``min_digits`` or more). Numbers written as one of
    ``constants`` (the same in every instance, so they carry nothing hidden) are passed over."""
    leaks = []
    values = {name: abs(value) for name, value in hidden.items() if math.isfinite(value) and value != 0}
    for line in text.splitlines():
        for match in NUMBER.finditer(line):
            digits = significant_digits(match.group(1))
            written = float(match.group(0))  # a hex string's "123e512" reads as infinity: passed over
            if (
                digits < min_digits
                or written == 0
                or not math.isfinite(written)
                or match.group(0) in constants
            ):
                continue
            half_step = max(_quantum(written, digits) / 2 * (1 + 1e-9), written * FLOAT_SLACK)
            for name, value in values.items():
                for scale in SCALES:
                    if abs(value * scale - written) <= half_step:
                        context = line[max(0, match.start() - CONTEXT) : match.end() + CONTEXT].strip()
                        leaks.append(Leak(name, hidden[name], match.group(0), scale, context))
    return leaks
