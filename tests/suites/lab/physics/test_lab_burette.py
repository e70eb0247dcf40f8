"""The burette's drops: counted exactly, at a rate set by the stopcock's opening."""

from __future__ import annotations

import itertools
import math

import pytest

from actloop.suites.lab.physics.acid_base import hcl, naoh, ph
from actloop.suites.lab.physics.burette import Burette

DT = 1 / 240


def _run(burette: Burette, seconds: float, opening: float) -> int:
    return sum(burette.advance(DT, opening) for _ in range(round(seconds / DT)))


@pytest.mark.parametrize("opening", [0.1, 0.3, 0.6, 1.0])
def test_constant_opening_gives_rate_times_time(opening: float) -> None:
    burette = Burette()
    expected_rate = 8.0 * ((opening - 0.05) / 0.95) ** 2
    assert burette.rate(opening) == pytest.approx(expected_rate, rel=1e-15)
    fallen = _run(burette, 7.0, opening)
    assert abs(fallen - math.floor(expected_rate * 7.0)) <= 1
    assert fallen == burette.drops
    assert burette.delivered_ml == burette.drops * 0.05
    assert burette.remaining_ml == 50.0 - burette.drops * 0.05


@pytest.mark.parametrize("opening", [0.0, 0.03, 0.05, -0.01])
def test_closed_or_below_threshold_passes_nothing(opening: float) -> None:
    burette = Burette()
    assert burette.rate(opening) == 0.0
    assert _run(burette, 60.0, opening) == 0
    assert burette.delivered_ml == 0.0 and burette.remaining_ml == 50.0


def test_rate_rises_with_the_opening() -> None:
    burette = Burette()
    rates = [burette.rate(k / 100) for k in range(101)]
    assert all(b >= a for a, b in itertools.pairwise(rates))
    assert all(b > a for a, b in itertools.pairwise(rates[5:]))
    assert rates[100] == 8.0 and burette.rate(1.2) == 8.0


def test_an_empty_burette_stops() -> None:
    burette = Burette(initial_ml=1.02)  # 20 whole drops and a remainder that never falls
    assert burette.capacity_drops == 20
    assert _run(burette, 30.0, 1.0) == 20
    assert burette.empty
    assert burette.advance(1.0, 1.0) == 0
    assert burette.delivered_ml == 20 * 0.05
    assert burette.remaining_ml == pytest.approx(0.02, abs=1e-12)
    assert Burette().capacity_drops == 1000  # 50 mL of 0.05 mL drops, not 999 by rounding


def test_a_large_step_releases_many_drops() -> None:
    burette = Burette(initial_ml=10.0, max_rate_per_s=8.0)
    assert burette.advance(2.0, 1.0) == 16
    assert burette.advance(100.0, 1.0) == 184
    assert burette.empty and burette.phase == 0.0


def test_closing_keeps_the_forming_drop() -> None:
    burette = Burette()
    assert _run(burette, 0.5, 0.5) == math.floor(burette.rate(0.5) * 0.5)
    phase = burette.phase
    assert 0.0 < phase < 1.0
    assert _run(burette, 10.0, 0.0) == 0
    assert burette.phase == phase
    # Reopened fully, the hanging drop falls after (1 − phase) / rate seconds, not a whole drop's time.
    steps = 0
    while burette.advance(DT, 1.0) == 0:
        steps += 1
    assert steps == math.ceil((1.0 - phase) / (8.0 * DT)) - 1


def test_same_inputs_give_the_same_drops() -> None:
    def run() -> tuple[list[int], str]:
        burette = Burette()
        openings = [0.5 + 0.5 * math.sin(k / 97.0) for k in range(5000)]
        return [burette.advance(DT, o) for o in openings], burette.phase.hex()

    assert run() == run()


def test_drops_to_the_endpoint_of_a_titration() -> None:
    # 25.00 mL of 0.1000 M HCl needs 25.00 mL of 0.1000 M NaOH: 500 drops of 0.05 mL.
    burette = Burette()
    sample = hcl(0.1, 0.025)
    readings: list[tuple[int, float]] = []
    while burette.drops < 502:
        if burette.advance(DT, 0.4):
            readings.append((burette.drops, ph(sample.mix(naoh(0.1, burette.delivered_ml / 1000.0)))))
    by_drop = dict(readings)
    assert by_drop[499] < 5.0
    assert by_drop[500] == pytest.approx(7.0, abs=1e-9)
    assert by_drop[501] > 9.0


def test_invalid_burettes_are_refused() -> None:
    with pytest.raises(ValueError, match="drop_ml"):
        Burette(drop_ml=0.0)
    with pytest.raises(ValueError, match="initial_ml"):
        Burette(initial_ml=-1.0)
    with pytest.raises(ValueError, match="threshold"):
        Burette(threshold=1.0)
    with pytest.raises(ValueError, match="dt_s"):
        Burette().advance(-DT, 1.0)
