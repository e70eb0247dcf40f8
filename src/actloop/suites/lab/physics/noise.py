"""Seeded noise that depends only on its key, never on how many other draws came before.

A draw is a pure function of (noise key, stream, index): the noise key names the instance (its experiment
and seed, and for a private instance a secret derived from the instance key, see
:attr:`~actloop.suites.lab.instance.Instance.noise_key`), the stream the instrument (and the quantity), the
index the sample. So the same actions give the same readings, reading one instrument never shifts another's
noise, and two experiments on one seed do not share noise. SHA-256 is the same on every machine; no numpy
generator is involved.
"""

from __future__ import annotations

import hashlib
from statistics import NormalDist

_STANDARD = NormalDist()


def seeded_uniform(key: str | int, stream: str, index: int) -> float:
    """A uniform draw in the open interval (0, 1), from 53 bits of ``SHA-256(key/stream/index)``."""
    # noise keys hold no "/" and the index is an integer, so the first and last "/" split it unambiguously.
    if "/" in str(key):
        raise ValueError(f"a noise key holds no '/': {key!r}")
    digest = hashlib.sha256(f"{key}/{stream}/{index}".encode()).digest()
    return ((int.from_bytes(digest[:8], "big") >> 11) + 0.5) / 2.0**53


def seeded_normal(key: str | int, stream: str, index: int) -> float:
    """A standard normal draw: the inverse normal CDF of :func:`seeded_uniform` (Wichura's AS 241)."""
    return _STANDARD.inv_cdf(seeded_uniform(key, stream, index))
