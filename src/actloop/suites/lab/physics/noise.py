"""Seeded noise that depends only on its key, never on how many other draws came before.

A draw is a pure function of (instance seed, stream, index): the stream names the instrument (and the
quantity), the index the sample, so the same actions give the same readings and reading one instrument
never shifts another's noise. SHA-256 is the same on every machine; no numpy generator is involved.
"""

from __future__ import annotations

import hashlib
from statistics import NormalDist

_STANDARD = NormalDist()


def seeded_uniform(seed: int, stream: str, index: int) -> float:
    """A uniform draw in the open interval (0, 1), from 53 bits of ``SHA-256(seed/stream/index)``."""
    # seed and index are integers (no "/"), so the first and last "/" split the key unambiguously.
    digest = hashlib.sha256(f"{seed}/{stream}/{index}".encode()).digest()
    return ((int.from_bytes(digest[:8], "big") >> 11) + 0.5) / 2.0**53


def seeded_normal(seed: int, stream: str, index: int) -> float:
    """A standard normal draw: the inverse normal CDF of :func:`seeded_uniform` (Wichura's AS 241)."""
    return _STANDARD.inv_cdf(seeded_uniform(seed, stream, index))
