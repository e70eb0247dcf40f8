"""The difficulty audit of #30, the dye's absorptivity: one reading of the stock against a dilution series."""

from __future__ import annotations

from collections.abc import Callable

from actloop.suites.lab.audits import Design, Estimate, Plan
from actloop.suites.lab.audits._spectro import blanked_reader
from actloop.suites.lab.instance import Instance

DYE_SCAN_CUVETTE = 4
"""The dye's standard design scans the stock diluted 8 times (cuvette 4) for λmax."""
DYE_PEAK_HALF_NM = 6
"""... and fits a parabola to readings every 1 nm within this of its coarse scan's best point."""


def _solve3(matrix: list[list[float]], rhs: list[float]) -> tuple[float, float, float]:
    """The solution of a 3×3 linear system by Cramer's rule."""

    def det(m: list[list[float]]) -> float:
        return (
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        )

    whole = det(matrix)
    columns = [[[rhs[i] if j == k else matrix[i][j] for j in range(3)] for i in range(3)] for k in range(3)]
    a, b, c = (det(m) / whole for m in columns)
    return a, b, c


def plan() -> Plan:
    from actloop.suites.lab.experiments.dye_absorptivity import DILUTIONS, dilution, dye

    def meter(instance: Instance) -> Callable[[float, float], float]:
        """``read(nm, concentration)``: blank with the solvent at ``nm``, then read the dye there."""
        read, the_dye = blanked_reader(instance), dye(instance)
        return lambda nm, concentration: read(nm, ((the_dye, concentration),))

    def peak(read: Callable[[float, float], float], concentration: float) -> float:
        """λmax from a 5 nm scan of ``concentration``, refined by the vertex of a least-squares parabola
        through readings every 1 nm within DYE_PEAK_HALF_NM nm of the scan's best point."""
        coarse = max(range(400, 701, 5), key=lambda nm: read(float(nm), concentration))
        window = range(-DYE_PEAK_HALF_NM, DYE_PEAK_HALF_NM + 1)
        points = [(float(d), read(float(coarse + d), concentration)) for d in window]
        sums = [sum(x**k for x, _ in points) for k in range(5)]
        rhs = [sum(x**k * y for x, y in points) for k in range(3)]
        matrix = [[sums[i + j] for j in range(3)] for i in range(3)]
        _, c1, c2 = _solve3(matrix, rhs)
        return coarse + (-c1 / (2.0 * c2) if c2 < 0 else 0.0)

    def naive(instance: Instance) -> Estimate:
        read, stock = meter(instance), instance.public["stock_concentration"]
        nm = peak(read, stock / dilution(DYE_SCAN_CUVETTE))
        return {"lambda_max": nm, "epsilon": read(nm, stock) / stock}

    def standard(instance: Instance) -> Estimate:
        read, stock = meter(instance), instance.public["stock_concentration"]
        nm = peak(read, stock / dilution(DYE_SCAN_CUVETTE))
        points = [(0.0, 0.0)] + [
            (stock / dilution(i), read(nm, stock / dilution(i))) for i in range(1, DILUTIONS + 1)
        ]
        linear = [(c, a) for c, a in points if a < 1.0]  # stray light bends the line above 1 A
        b = sum(c * a for c, a in linear) / sum(c * c for c, _ in linear)
        return {"lambda_max": nm, "epsilon": b}

    return Plan(
        lambda i: {"lambda_max": dye(i).lambda_max, "epsilon": dye(i).epsilon_max},
        Design(
            "one absorbance of the stock",
            "λmax from a scan of the stock diluted 8 times; ε = A / c from one reading of the stock there",
            naive,
        ),
        Design(
            "dilution series",
            "λmax as the naive scan; ε from the slope through zero of A against c over the dilutions "
            "reading below 1 A",
            standard,
        ),
        "stray light (0.1 % of the lamp) caps what the stock reads near 3 A while ε c is 2-14 A, so one "
        "reading of the stock fails; below 1 A the readings are linear in c",
    )
