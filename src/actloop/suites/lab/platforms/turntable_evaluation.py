"""What the torsion turntable's evaluators share: a period counts when it was timed free, the robot acting
on the turntable, its keys and its loads, and the loads back in their places at submission."""

from __future__ import annotations

import math
from typing import ClassVar

import mujoco

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.evaluation import BenchEvaluator
from actloop.suites.lab.evidence import Citation, instrument_of
from actloop.suites.lab.platforms.turntable import LOAD_PLACES, PERIOD, Turntable
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.watch import ContactWatch, back_in_place

FREE = "period timed free"
PLACE_TOLERANCE_M = 0.02
UPRIGHT_RAD = math.radians(10.0)


class TurntableEvaluator(BenchEvaluator[Turntable]):
    """The turntable's common watch: the free-period condition, the acting and the restore rule."""

    restored_text = "every load back in its place"
    worked: ClassVar[tuple[str, ...]] = ("turntable", "key_log", "key_brake")
    """Besides the loads: what the robot acts on."""

    @staticmethod
    def required_conditions(citation: Citation) -> tuple[str, ...]:  # type: ignore[override]
        """A period counts when it was timed free."""
        return (FREE,) if instrument_of(citation) == PERIOD.name else ()

    @staticmethod
    def logged_check(times: list[float]) -> Check:
        """L3: the logger recorded a free period (``times``: the logged rows showing one)."""
        return Check(
            "L3",
            bool(times),
            f"the logger recorded a free period at {times[0]:.1f} s" if times else "no free period logged",
        )

    def handled(self, watch: ContactWatch) -> frozenset[int]:
        return watch.geoms_of_bodies(*self.worked, *(load.name for load in self.platform.loads))

    def restore_problems(self, data: mujoco.MjData) -> list[str]:
        problems = []
        for load in self.platform.loads:
            x, y = LOAD_PLACES[load.name]
            home = (x, y, TABLE_TOP_Z + load.origin_height)
            problems += back_in_place(
                data, load.name, home, "its place", PLACE_TOLERANCE_M, 0.01, UPRIGHT_RAD
            )
        return problems
