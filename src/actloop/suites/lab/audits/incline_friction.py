"""The difficulty audit of #7, incline friction: the slide timed by eye against the parabola through the
logged slide."""

from __future__ import annotations

import math

import numpy as np

from actloop.suites.lab.audits import Design, Estimate, Meter, Plan
from actloop.suites.lab.instance import Instance

FIRST_DEG = 18.5
STEP_DEG = 0.2
"""The board is raised from FIRST_DEG by STEP_DEG at a time until the sliders slip."""
EYE_S = 0.25
"""Timed by eye from observations: the slide's duration to the nearest quarter second."""
SLIDE_S = 0.6
"""The logged free slide fitted by the standard design."""


def plan() -> Plan:
    from actloop.suites.lab.physics.friction import G
    from actloop.suites.lab.platforms.incline import DISTANCES, INCLINOMETER, LOG_HZ, TRACK_M

    def slip_deg(instance: Instance) -> float:
        """The board's slope at the step where the sliders slip (the first step past tan θ = μs)."""
        mu_s = instance.hidden["mu_s"]
        steps = math.floor((math.degrees(math.atan(mu_s)) - FIRST_DEG) / STEP_DEG) + 1
        return FIRST_DEG + steps * STEP_DEG

    def rest_deg(instance: Instance) -> float:
        """The slope the inclinometer shows at the sliders' last rest: the step before the slip."""
        return Meter(INCLINOMETER, instance.noise_key).read(slip_deg(instance) - STEP_DEG)

    def acceleration(instance: Instance, theta: float) -> float:
        h = instance.hidden
        return G * (math.sin(theta) - h["mu_s"] * h["kinetic_fraction"] * math.cos(theta))

    def naive(instance: Instance) -> Estimate:
        theta = math.radians(slip_deg(instance))
        seconds = math.sqrt(2 * TRACK_M / acceleration(instance, theta))
        timed = EYE_S * max(1, round(seconds / EYE_S))
        a = 2 * TRACK_M / timed**2
        return {
            "mu_s": math.tan(math.radians(rest_deg(instance))),
            "mu_k": math.tan(theta) - a / (G * math.cos(theta)),
        }

    def standard(instance: Instance) -> Estimate:
        shown = Meter(INCLINOMETER, instance.noise_key).read(slip_deg(instance))
        theta = math.radians(slip_deg(instance))
        a = acceleration(instance, theta)
        distance = Meter(DISTANCES[0], instance.noise_key)
        t = np.arange(round(SLIDE_S * LOG_HZ)) / LOG_HZ
        d = np.array([distance.read(30.0 + 500.0 * a * float(x) ** 2) for x in t]) / 1000.0
        fitted = 2.0 * float(np.polyfit(t - t.mean(), d, 2)[0])
        measured = math.radians(shown)
        return {
            "mu_s": math.tan(math.radians(rest_deg(instance))),
            "mu_k": math.tan(measured) - fitted / (G * math.cos(measured)),
        }

    return Plan(
        lambda i: {"mu_s": i.hidden["mu_s"], "mu_k": i.hidden["mu_s"] * i.hidden["kinetic_fraction"]},
        Design(
            "the slide timed by eye",
            f"μs = tan θ at the last rest on a board raised by {STEP_DEG:g} degrees at a time; μk from the "
            f"slide's duration over the track to the nearest {EYE_S:g} s, a = 2 L / t²",
            naive,
        ),
        Design(
            "the logged slide's parabola",
            "μs as the shortcut's; μk = tan θ − a / (g cos θ), a from a parabola through "
            f"{SLIDE_S:g} s of the logged distances of the free slide",
            standard,
        ),
        "μk's tolerance (0.5 %) is a few thousandths of the slope's pull: the slide down the track lasts "
        "0.6-1.3 s, so its duration to a quarter second misses a by tens of percent, while the logged "
        "distances' parabola gives a to a few parts in ten thousand; μs's 5 % is met by the slope at the "
        "last rest",
    )
