"""Lumped heat against analytic solutions."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.heat import ROOM, T25, ThermalNetwork

ROOM_T = 293.15


def test_newton_cooling() -> None:
    network = ThermalNetwork(dt=1 / 240, room_temperature=ROOM_T)
    network.add_body("block", 400.0, 353.15)
    network.set_link("block", ROOM, 0.8)  # τ = 500 s
    for steps in (1, 239, 24_000):
        network.step(steps)
        expected = 60.0 * math.exp(-network.time / 500.0)
        # k steps carry k times the rounding of Φ = e^{−h/τ} (≤ 1.1e-16 each): 24240 steps allow 2.7e-12.
        assert network.temperature("block") - ROOM_T == pytest.approx(expected, rel=3e-12)


def test_two_bodies_exchange_heat() -> None:
    c1, c2, g = 100.0, 300.0, 2.0
    network = ThermalNetwork(dt=0.5)
    network.add_body("hot", c1, 360.0)
    network.add_body("cold", c2, 300.0)
    network.set_link("hot", "cold", g)
    network.step(37)
    final = (c1 * 360.0 + c2 * 300.0) / (c1 + c2)
    difference = 60.0 * math.exp(-g * (1 / c1 + 1 / c2) * network.time)
    assert network.temperature("hot") == pytest.approx(final + difference * c2 / (c1 + c2), rel=1e-12)
    assert network.temperature("cold") == pytest.approx(final - difference * c1 / (c1 + c2), rel=1e-12)


def test_heater_steady_state_and_switching_off() -> None:
    network = ThermalNetwork(dt=1.0, room_temperature=ROOM_T)
    network.add_body("block", 50.0, ROOM_T)
    network.set_link("block", ROOM, 0.5)
    network.add_heater("H", "block", 10.0, on=True)
    network.step(100)  # τ = 100 s
    assert network.temperature("block") == pytest.approx(ROOM_T + 20.0 * (1.0 - math.exp(-1.0)), rel=1e-12)
    network.set_heater("H", on=False)
    start = network.temperature("block")
    network.step(100)
    assert network.temperature("block") == pytest.approx(
        ROOM_T + (start - ROOM_T) * math.exp(-1.0), rel=1e-12
    )


def test_thermometer_lags_a_step_change() -> None:
    network = ThermalNetwork(dt=0.1, room_temperature=ROOM_T)
    network.add_body("bath", 1e12, 330.0)  # a bath the probe cannot change
    network.add_thermometer("T", "bath", time_constant=4.0, temperature=ROOM_T)
    network.step(25)
    expected = 330.0 + (ROOM_T - 330.0) * math.exp(-2.5 / 4.0)
    assert network.temperature("T") == pytest.approx(expected, rel=1e-12)
    assert network.temperature("bath") == 330.0


def test_thermistor_b_law_and_self_heating() -> None:
    network = ThermalNetwork(dt=0.05, room_temperature=ROOM_T)
    network.add_body("block", 1e9, 320.0)
    network.add_thermistor("NTC", "block", r25=1e4, b_constant=3950.0, heat_capacity=0.02, conductance=2e-3)
    network.step(400)
    assert network.resistance("NTC") == pytest.approx(
        1e4 * math.exp(3950.0 * (1 / 320.0 - 1 / T25)), rel=1e-12
    )
    network.set_test_current("NTC", 1e-4)
    network.step(20 * 60 * 4)  # 4 min, many times τ = C/G = 10 s
    rise = network.temperature("NTC") - network.temperature("block")
    power = 1e-8 * network.resistance("NTC")
    assert rise == pytest.approx(power / 2e-3, rel=1e-9)  # ΔT = P · R_th
    assert 0.01 < rise < 0.03


def test_advancing_in_one_call_equals_stepping() -> None:
    def build() -> ThermalNetwork:
        network = ThermalNetwork(dt=1 / 240, room_temperature=ROOM_T)
        network.add_body("a", 80.0, 340.0)
        network.add_body("b", 30.0, 300.0)
        network.set_link("a", "b", 0.7)
        network.set_link("b", ROOM, 0.2)
        network.add_heater("H", "a", 3.0, on=True)
        network.add_thermometer("T", "b", 2.0)
        return network

    stepped, at_once = build(), build()
    for _ in range(2400):
        stepped.step()
    at_once.step(2400)
    for name in ("a", "b", "T"):
        assert at_once.temperature(name) == pytest.approx(stepped.temperature(name), rel=1e-12)
