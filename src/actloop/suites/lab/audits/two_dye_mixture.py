"""The difficulty audit of #20, the two-dye mixture: the mixture read at each dye's peak as if the other
were absent, against both concentrations solved from the mixture and the standards at both peaks."""

from __future__ import annotations

from actloop.suites.lab.audits import Design, Estimate, Plan
from actloop.suites.lab.audits._spectro import blanked_reader
from actloop.suites.lab.instance import Instance


def plan() -> Plan:
    from actloop.suites.lab.experiments.two_dye_mixture import dyes, mixture

    def readings(instance: Instance) -> tuple[list[list[float]], list[float]]:
        """At each dye's peak (whole nm): each standard's absorptivity (its reading over its printed
        concentration) and the mixture's reading."""
        read, (first, second) = blanked_reader(instance), dyes(instance)
        c_std, (c_1, c_2) = instance.public["standard_concentration"], mixture(instance)
        peaks = [round(first.lambda_max), round(second.lambda_max)]
        absorptivity = [[read(nm, ((dye, c_std),)) / c_std for dye in (first, second)] for nm in peaks]
        return absorptivity, [read(nm, ((first, c_1), (second, c_2))) for nm in peaks]

    def each_alone(instance: Instance) -> Estimate:
        absorptivity, mixed = readings(instance)
        return {"c_1": mixed[0] / absorptivity[0][0], "c_2": mixed[1] / absorptivity[1][1]}

    def both_peaks(instance: Instance) -> Estimate:
        ((e_11, e_12), (e_21, e_22)), (a_1, a_2) = readings(instance)
        det = e_11 * e_22 - e_12 * e_21
        return {"c_1": (a_1 * e_22 - e_12 * a_2) / det, "c_2": (e_11 * a_2 - e_21 * a_1) / det}

    return Plan(
        lambda i: dict(zip(("c_1", "c_2"), mixture(i), strict=True)),
        Design(
            "each dye at its peak",
            "each concentration from the mixture's reading at that dye's peak over the dye's absorptivity "
            "there, the other dye ignored",
            each_alone,
        ),
        Design(
            "two wavelengths, two equations",
            "the mixture and both standards read at both peaks; Beer-Lambert's sum solved for both "
            "concentrations",
            both_peaks,
        ),
        "at dye 1's peak dye 2 absorbs up to 68 % as much as at its own (a fifth in the median), dye 1 "
        "at dye 2's peak up to 56 % (an eighth): ignoring the other dye puts a concentration beyond 3 % "
        "on all but a few instances",
    )
