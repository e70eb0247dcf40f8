"""Small statistics: mean and sample SD across runs, and the exact two-sided sign test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class MeanSD:
    """Mean and sample standard deviation of per-run values (``sd`` is None with fewer than two runs)."""

    mean: float
    sd: float | None
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> MeanSD | None:
        """None for no values."""
        if not values:
            return None
        return cls(mean(values), sample_sd(values), len(values))


def mean(values: Sequence[float]) -> float:
    if not values:
        raise ValueError("the mean of no values is undefined")
    return math.fsum(values) / len(values)


def sample_sd(values: Sequence[float]) -> float | None:
    """Standard deviation with Bessel's correction (n - 1); None for fewer than two values."""
    if len(values) < 2:
        return None
    m = mean(values)
    return math.sqrt(math.fsum((v - m) ** 2 for v in values) / (len(values) - 1))


def sign_test(positive: int, negative: int) -> float | None:
    """Exact two-sided binomial sign test of ``positive`` against ``negative`` non-tied pairs (p = 1/2).

    p = min(1, 2 · P(X ≤ min(positive, negative))) with X ~ Binomial(n, 1/2); None when n = 0.
    """
    if positive < 0 or negative < 0:
        raise ValueError("counts must be non-negative")
    n = positive + negative
    if n == 0:
        return None
    tail = sum(math.comb(n, i) for i in range(min(positive, negative) + 1))
    return min(1.0, 2 * tail / (1 << n))
