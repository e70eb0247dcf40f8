"""Small dense linear algebra and exact stepping of linear ODEs, in pure Python floats.

Only IEEE-754 ``+ - * /`` and ``math.frexp``/``math.ldexp`` (both exact) touch the numbers, so results are
bit-identical on every machine: no BLAS, no CPU-dispatched libm. :func:`exp`, :func:`log` and :func:`sin`
replace ``math.exp``/``math.log``/``math.sin`` for the same reason. Matrices are lists of rows; sizes are
small (n ≲ 25).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

Vector = list[float]
Matrix = list[list[float]]

_EPS = 2.0**-52


class SingularMatrixError(ArithmeticError):
    """The matrix has no inverse (a zero pivot, up to rounding)."""


def zeros(rows: int, cols: int) -> Matrix:
    return [[0.0] * cols for _ in range(rows)]


def identity(n: int) -> Matrix:
    return [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]


def mat_vec(a: Sequence[Sequence[float]], x: Sequence[float]) -> Vector:
    return [sum(aij * xj for aij, xj in zip(row, x, strict=True)) for row in a]


def mat_mul(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> Matrix:
    columns = list(zip(*b, strict=True))
    return [[sum(aik * bkj for aik, bkj in zip(row, col, strict=True)) for col in columns] for row in a]


def mat_add(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], scale: float = 1.0) -> Matrix:
    """``a + scale * b``."""
    return [[x + scale * y for x, y in zip(ra, rb, strict=True)] for ra, rb in zip(a, b, strict=True)]


def norm_1(a: Sequence[Sequence[float]]) -> float:
    """The 1-norm: the largest absolute column sum."""
    return max((sum(abs(v) for v in col) for col in zip(*a, strict=True)), default=0.0)


@dataclass(frozen=True)
class LU:
    """An LU factorization with partial pivoting, ``P A = L U`` packed in one matrix (unit diagonal of L
    implicit); ``perm[i]`` is the row of A that became row i."""

    packed: Matrix
    perm: list[int]

    def solve(self, b: Sequence[float]) -> Vector:
        n = len(self.packed)
        lu = self.packed
        x = [float(b[p]) for p in self.perm]
        for i in range(n):  # the products in order, summed by sum() as ever: the same bits, in C
            x[i] -= sum(map(operator.mul, lu[i][:i], x))
        for i in range(n - 1, -1, -1):
            row = lu[i]
            x[i] = (x[i] - sum(map(operator.mul, row[i + 1 :], x[i + 1 :]))) / row[i]
        return x

    def solve_matrix(self, b: Sequence[Sequence[float]]) -> Matrix:
        """``A⁻¹ B`` column by column."""
        columns = [self.solve(col) for col in zip(*b, strict=True)]
        return [list(row) for row in zip(*columns, strict=True)]


def lu_factor(a: Sequence[Sequence[float]]) -> LU:
    """Doolittle LU with partial pivoting; raises :class:`SingularMatrixError` when a pivot vanishes
    relative to the matrix's size (``|pivot| <= n · eps · max|a_ij|``)."""
    n = len(a)
    lu = [[float(v) for v in row] for row in a]
    perm = list(range(n))
    tiny = n * _EPS * max((abs(v) for row in lu for v in row), default=0.0)
    for k in range(n):
        p = max(range(k, n), key=lambda i: abs(lu[i][k]))
        if abs(lu[p][k]) <= tiny:
            raise SingularMatrixError(f"singular matrix: no pivot in column {k}")
        if p != k:
            lu[k], lu[p] = lu[p], lu[k]
            perm[k], perm[p] = perm[p], perm[k]
        pivot_row = lu[k]
        pivot = pivot_row[k]
        for i in range(k + 1, n):
            row = lu[i]
            factor = row[k] / pivot
            row[k] = factor
            if factor != 0.0:
                for j in range(k + 1, n):
                    row[j] -= factor * pivot_row[j]
    return LU(lu, perm)


def solve(a: Sequence[Sequence[float]], b: Sequence[float]) -> Vector:
    return lu_factor(a).solve(b)


def _pade_coefficients(m: int) -> list[float]:
    # Diagonal Padé approximant of e^x: b_j = (2m−j)! m! / ((2m)! j! (m−j)!) (Higham 2005, eq. 2.2),
    # computed exactly in rationals and rounded once.
    f = math.factorial
    return [float(Fraction(f(2 * m - j) * f(m), f(2 * m) * f(j) * f(m - j))) for j in range(m + 1)]


# Largest ‖A‖₁ for which the degree-m Padé approximant has backward error ≤ 2⁻⁵³ (Higham 2005, Table 2.3).
_PADE_THETA = {
    3: 1.495585217958292e-2,
    5: 2.539398330063230e-1,
    7: 9.504178996162932e-1,
    9: 2.097847961257068e0,
    13: 5.371920351148152e0,
}
_PADE_B = {m: _pade_coefficients(m) for m in _PADE_THETA}


def expm(a: Sequence[Sequence[float]]) -> Matrix:
    """The matrix exponential e^A by scaling and squaring with a diagonal Padé approximant.

    Higham's algorithm (SIAM J. Matrix Anal. Appl. 26, 2005): the degree m ∈ {3, 5, 7, 9, 13} and the
    number of squarings s are chosen from ‖A‖₁ so that the backward error of the approximant is at most the
    unit roundoff 2⁻⁵³; the forward error is then that of the problem's conditioning (typically a relative
    error of 1e-15…1e-13 in the entries, growing mildly with s).
    """
    n = len(a)
    if n == 0:
        return []
    norm = norm_1(a)
    squarings = 0
    degree = next((m for m in (3, 5, 7, 9) if norm <= _PADE_THETA[m]), 13)
    if degree == 13:
        while norm > _PADE_THETA[13]:  # halving is exact, so s does not depend on libm's log2
            norm *= 0.5
            squarings += 1
    scale = math.ldexp(1.0, -squarings)
    x = [[v * scale for v in row] for row in a]
    b = _PADE_B[degree]
    x2 = mat_mul(x, x)
    even = identity(n)  # X^0, X^2, X^4, ...
    u_sum = [[b[1] * v for v in row] for row in even]
    v_sum = [[b[0] * v for v in row] for row in even]
    for k in range(1, degree // 2 + 1):
        even = mat_mul(even, x2)
        u_sum = mat_add(u_sum, even, b[2 * k + 1])
        v_sum = mat_add(v_sum, even, b[2 * k])
    u = mat_mul(x, u_sum)  # odd part U, even part V: r = (V − U)⁻¹ (V + U)
    r = lu_factor(mat_add(v_sum, u, -1.0)).solve_matrix(mat_add(v_sum, u))
    for _ in range(squarings):
        r = mat_mul(r, r)
    return r


@dataclass
class ExactStepper:
    """Exact fixed-step integration of x' = A x + b with b constant over a step.

    ``x(t+h) = Φ x + Γ b`` with ``Φ = e^{Ah}`` and ``Γ = ∫₀ʰ e^{As} ds``, both read off one exponential of the
    augmented matrix ``[[A, I], [0, 0]] h`` (Van Loan 1978), so a singular A (a pure integrator, a floating
    node) needs no special case. Stable and exact (up to rounding) at any step size.
    """

    a: Matrix
    h: float
    phi: Matrix = field(init=False)
    gamma: Matrix = field(init=False)
    _powers: dict[int, tuple[Matrix, Matrix]] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        n = len(self.a)
        augmented = zeros(2 * n, 2 * n)
        for i in range(n):
            augmented[i][:n] = [v * self.h for v in self.a[i]]
            augmented[i][n + i] = self.h
        e = expm(augmented)
        self.phi = [row[:n] for row in e[:n]]
        self.gamma = [row[n:] for row in e[:n]]

    def step(self, x: Sequence[float], b: Sequence[float]) -> Vector:
        """The state one step later."""
        return [p + g for p, g in zip(mat_vec(self.phi, x), mat_vec(self.gamma, b), strict=True)]

    def power(self, k: int) -> tuple[Matrix, Matrix]:
        """``(Φᵏ, Γₖ)`` with ``Γₖ = Σ_{j<k} Φʲ Γ``: k steps as one map, by repeated squaring (cached)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, not {k}")
        cached = self._powers.get(k)
        if cached is not None:
            return cached
        result: tuple[Matrix, Matrix] | None = None
        base = (self.phi, self.gamma)
        remaining = k
        while True:
            if remaining & 1:
                result = base if result is None else _compose(base, result)
            remaining >>= 1
            if not remaining:
                break
            base = _compose(base, base)
        assert result is not None
        if len(self._powers) >= 64:
            self._powers.clear()
        self._powers[k] = result
        return result

    def advance(self, x: Sequence[float], b: Sequence[float], k: int) -> Vector:
        """The state k steps later with b held constant, at the cost of O(log k) matrix products."""
        if k == 1:
            return self.step(x, b)
        phi_k, gamma_k = self.power(k)
        return [p + g for p, g in zip(mat_vec(phi_k, x), mat_vec(gamma_k, b), strict=True)]


def _compose(outer: tuple[Matrix, Matrix], inner: tuple[Matrix, Matrix]) -> tuple[Matrix, Matrix]:
    # Applying inner then outer: x ↦ Φo(Φi x + Γi b) + Γo b = ΦoΦi x + (ΦoΓi + Γo) b.
    phi_o, gamma_o = outer
    phi_i, gamma_i = inner
    return mat_mul(phi_o, phi_i), mat_add(mat_mul(phi_o, gamma_i), gamma_o)


# Scalar exp and log without libm: Cody–Waite range reduction with ln 2 split so k·LN2_HI is exact for
# |k| < 2²¹ (fdlibm's constants), then a short series. Both are within about one ulp of the true value.
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
LN10 = 2.302585092994045684018  # rounds to the double nearest ln 10
_EXP_TAYLOR = [float(Fraction(1, math.factorial(j))) for j in range(14)]  # |r| ≤ ln2/2: 13th order < 1e-17
_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13 = _EXP_TAYLOR
_LOG_SERIES = [float(Fraction(2, 2 * j + 1)) for j in range(12)]  # |s| ≤ 0.1716: s²³ term < 1e-17


def exp(x: float) -> float:
    """e^x, bit-identical on every machine; raises OverflowError above ~709.78 like ``math.exp``."""
    if x != x:
        return x
    if x > 709.782712893384:
        raise OverflowError("exp overflow")
    if x < -745.2:
        return 0.0
    k = math.floor(x * _INV_LN2 + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    # Horner's rule written out (a loop costs twice as much; the operations and their order are the same)
    p = ((((((_E13 * r + _E12) * r + _E11) * r + _E10) * r + _E9) * r + _E8) * r + _E7) * r + _E6
    p = (((((p * r + _E5) * r + _E4) * r + _E3) * r + _E2) * r + _E1) * r + _E0
    if k > 1023:  # e^x near the overflow threshold: ldexp in two exact stages
        return math.ldexp(math.ldexp(p, k - 1), 1)
    return math.ldexp(p, k)


def log(x: float) -> float:
    """The natural logarithm, bit-identical on every machine; ValueError for x ≤ 0 like ``math.log``."""
    if not x > 0.0:
        raise ValueError("math domain error")
    if x == math.inf:
        return x
    m, e = math.frexp(x)
    if m < 0.7071067811865476:
        m *= 2.0
        e -= 1
    f = m - 1.0
    s = f / (2.0 + f)  # log m = 2 atanh s = Σ 2 s^{2j+1}/(2j+1)
    s2 = s * s
    p = 0.0
    for c in reversed(_LOG_SERIES):
        p = p * s2 + c
    return e * _LN2_HI + (s * p + e * _LN2_LO)


def log10(x: float) -> float:
    return log(x) / LN10


# Scalar sine without libm: x reduced by the nearest multiple of π/2 (π/2 split as fdlibm's pio2_1 + pio2_1t,
# k·pio2_1 exact for |k| < 2²⁰), then the sine or cosine series on |r| ≤ π/4 (the r¹⁹ and r¹⁸ terms are
# below 1e-17): within about an ulp for the angles a swinging body goes through.
_PIO2_HI = 1.57079632673412561417e00
_PIO2_LO = 6.07710050650619224932e-11
_INV_PIO2 = 6.36619772367581382433e-01
_SIN_SERIES = [float(Fraction((-1) ** j, math.factorial(2 * j + 1))) for j in range(9)]
_COS_SERIES = [float(Fraction((-1) ** j, math.factorial(2 * j))) for j in range(10)]


def sin(x: float) -> float:
    """sin x, bit-identical on every machine, for |x| < 1e5 (ValueError beyond, or for inf and nan)."""
    if not abs(x) < 1e5:
        raise ValueError(f"sin of {x!r}: only |x| < 1e5 is reduced exactly")
    k = math.floor(x * _INV_PIO2 + 0.5)
    r = (x - k * _PIO2_HI) - k * _PIO2_LO
    r2 = r * r
    p = 0.0
    if k % 2 == 0:
        for c in reversed(_SIN_SERIES):
            p = p * r2 + c
        value = r * p
    else:
        for c in reversed(_COS_SERIES):
            p = p * r2 + c
        value = p
    return -value if k % 4 >= 2 else value
