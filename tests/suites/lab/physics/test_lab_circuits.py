"""Circuits by modified nodal analysis against closed-form answers."""

from __future__ import annotations

import math

import pytest

from actloop.suites.lab.physics.circuits import (
    ELEMENTARY_CHARGE,
    LIGHT_SPEED,
    PLANCK,
    Circuit,
    CircuitError,
    Junction,
)


def _rc(dt: float, volts: float = 5.0, ohms: float = 1e3, farads: float = 1e-3) -> Circuit:
    circuit = Circuit(["a", "b"], dt)
    circuit.add_voltage_source("V", "a", "gnd", volts)
    circuit.add_resistor("R", "a", "b", ohms)
    circuit.add_capacitor("C", "b", "gnd", farads)
    return circuit


@pytest.mark.parametrize("dt", [1e-4, 1 / 240, 0.3, 2.0, 1e3])
def test_rc_charging_is_exact_at_any_step(dt: float) -> None:
    circuit = _rc(dt)
    for _ in range(5):
        circuit.step()
        expected = 5.0 * (1.0 - math.exp(-circuit.time / 1.0))
        assert circuit.capacitor_voltage("C") == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert circuit.current("R") == pytest.approx((5.0 - expected) / 1e3, rel=1e-9, abs=1e-15)


def test_many_steps_at_once_equal_single_steps() -> None:
    one, many = _rc(1 / 240), _rc(1 / 240)
    for _ in range(1000):
        one.step()
    many.step(1000)
    assert many.capacitor_voltage("C") == pytest.approx(one.capacitor_voltage("C"), rel=1e-12)
    assert many.time == pytest.approx(one.time, rel=1e-12)


def test_voltage_divider_and_meters() -> None:
    circuit = Circuit(["a", "m", "b"], 1 / 240)
    circuit.add_voltage_source("V", "a", "gnd", 9.0)
    circuit.add_ammeter("A", "a", "m")
    circuit.add_resistor("R1", "m", "b", 2e3)
    circuit.add_resistor("R2", "b", "gnd", 1e3)
    circuit.add_voltmeter("VM", "b", "gnd")
    assert circuit.node_voltage("b") == pytest.approx(3.0, rel=1e-14)
    assert circuit.reading("VM") == pytest.approx(3.0, rel=1e-14)
    assert circuit.reading("A") == pytest.approx(3e-3, rel=1e-14)
    assert circuit.current("V") == pytest.approx(-3e-3, rel=1e-14)  # passive sign: a source delivers < 0


def test_ohmmeter_reads_resistance_and_open_circuit() -> None:
    circuit = Circuit(["a", "b", "c"], 1 / 240)
    circuit.add_resistor("R1", "a", "b", 470.0)
    circuit.add_resistor("R2", "b", "gnd", 330.0)
    circuit.add_ohmmeter("OHM", "a", "gnd", test_current=1e-3)
    circuit.add_ohmmeter("OPEN", "c", "gnd")
    assert circuit.reading("OHM") == pytest.approx(800.0, rel=1e-13)
    assert circuit.reading("OPEN") == math.inf


def test_switch_opening_mid_run_holds_the_charge_then_discharge() -> None:
    circuit = Circuit(["a", "s", "b"], 0.01)
    circuit.add_voltage_source("V", "a", "gnd", 10.0)
    circuit.add_switch("S", "a", "s", closed=True)
    circuit.add_resistor("R", "s", "b", 100.0)
    circuit.add_capacitor("C", "b", "gnd", 1e-2)  # τ = 1 s
    circuit.step(50)
    held = circuit.capacitor_voltage("C")
    assert held == pytest.approx(10.0 * (1.0 - math.exp(-0.5)), rel=1e-12)
    circuit.set_switch("S", False)
    circuit.step(100)
    assert circuit.capacitor_voltage("C") == held
    assert circuit.current("R") == 0.0 and circuit.current("S") == 0.0
    circuit.add_resistor("Rd", "b", "gnd", 50.0)  # τ = 0.5 s
    circuit.step(30)
    assert circuit.capacitor_voltage("C") == pytest.approx(held * math.exp(-0.3 / 0.5), rel=1e-12)


def test_superposition_of_two_sources() -> None:
    def response(v1_on: bool, v2_on: bool) -> tuple[float, float]:
        circuit = Circuit(["a", "b", "m"], 0.05)
        circuit.add_voltage_source("V1", "a", "gnd", 6.0)
        circuit.add_switch("S1", "a", "m", closed=v1_on)
        circuit.add_switch("S1gnd", "a", "gnd", closed=False)
        circuit.add_resistor("R1", "m", "b", 1e3)
        circuit.add_current_source("I2", "b", "gnd", 2e-3, on=v2_on)
        circuit.add_resistor("R3", "b", "gnd", 3e3)
        circuit.add_capacitor("C", "b", "gnd", 1e-4)
        if not v1_on:  # the source zeroed: its branch replaced by a short
            circuit.set_source("V1", on=False)
            circuit.set_switch("S1gnd", True)
            circuit.set_switch("S1", True)
        circuit.step(7)
        return circuit.capacitor_voltage("C"), circuit.node_voltage("b")

    both, first, second = response(True, True), response(True, False), response(False, True)
    for total, a, b in zip(both, first, second, strict=True):
        assert total == pytest.approx(a + b, rel=1e-12)


def test_floating_capacitor_between_two_resistors() -> None:
    # V — R1 — a —C— b — R2 — gnd: the capacitor charges through R1 + R2, τ = (R1 + R2) C.
    circuit = Circuit(["v", "a", "b"], 0.7)
    circuit.add_voltage_source("V", "v", "gnd", 4.0)
    circuit.add_resistor("R1", "v", "a", 300.0)
    circuit.add_capacitor("C", "a", "b", 2e-3)
    circuit.add_resistor("R2", "b", "gnd", 200.0)
    circuit.step(3)
    expected = 4.0 * (1.0 - math.exp(-2.1 / 1.0))
    assert circuit.capacitor_voltage("C") == pytest.approx(expected, rel=1e-12)
    assert circuit.node_voltage("b") == pytest.approx(200.0 * (4.0 - expected) / 500.0, rel=1e-12)


def test_unconnected_part_is_pinned_and_a_charged_capacitor_holds() -> None:
    circuit = Circuit(["p", "q"], 1.0)
    circuit.add_capacitor("C", "p", "q", 1e-6, v0=1.5)  # a charged box on the bench, connected to nothing
    circuit.step(1000)
    assert circuit.capacitor_voltage("C") == 1.5
    assert circuit.node_voltage("p") - circuit.node_voltage("q") == 1.5


def test_source_value_change_and_off() -> None:
    circuit = _rc(0.5)
    circuit.set_source("V", volts=2.0)
    circuit.step(2)
    assert circuit.capacitor_voltage("C") == pytest.approx(2.0 * (1.0 - math.exp(-1.0)), rel=1e-12)
    circuit.set_source("V", on=False)  # off is open: the capacitor keeps its charge
    held = circuit.capacitor_voltage("C")
    circuit.step(10)
    assert circuit.capacitor_voltage("C") == held


def test_unsolvable_circuits_fail_loudly() -> None:
    circuit = Circuit(["a"], 0.1)
    circuit.add_voltage_source("V1", "a", "gnd", 1.0)
    circuit.add_voltage_source("V2", "a", "gnd", 2.0)
    with pytest.raises(CircuitError, match="no unique solution"):
        circuit.node_voltage("a")
    fed = Circuit(["a"], 0.1)
    fed.add_current_source("I", "a", "gnd", 1e-3)
    with pytest.raises(CircuitError, match="open circuit"):
        fed.node_voltage("a")
    with pytest.raises(CircuitError, match="unknown node"):
        fed.add_resistor("R", "a", "nowhere", 1.0)


@pytest.mark.parametrize("wavelength", [450e-9, 525e-9, 590e-9, 630e-9, 940e-9])
def test_led_conducts_1ma_just_below_its_photon_energy(wavelength: float) -> None:
    photon = PLANCK * LIGHT_SPEED / (ELEMENTARY_CHARGE * wavelength)
    led = Junction.led(wavelength, offset=0.1)
    circuit = Circuit(["a", "k"], 1 / 240)
    circuit.add_current_source("I", "a", "gnd", 1e-3)
    circuit.add_led("D", "a", "gnd", led)
    circuit.add_voltmeter("VM", "a", "k")
    assert circuit.node_voltage("a") == pytest.approx(photon - 0.1, abs=1e-9)
    # Driven by a supply through a resistor: KCL holds and the current follows the Shockley law.
    driven = Circuit(["a", "k"], 1 / 240)
    driven.add_voltage_source("V", "a", "gnd", 5.0)
    driven.add_resistor("R", "a", "k", 1e3)
    driven.add_led("D", "k", "gnd", led)
    v = driven.node_voltage("k")
    assert driven.current("D") == pytest.approx((5.0 - v) / 1e3, rel=1e-9)
    assert driven.current("D") == pytest.approx(led.current(v) + 1e-12 * v, rel=1e-12)
    assert photon - 0.2 < v < photon + 0.2


def test_led_reverse_biased_blocks() -> None:
    circuit = Circuit(["a"], 1 / 240)
    circuit.add_voltage_source("V", "a", "gnd", -5.0)
    circuit.add_led("D", "a", "gnd", Junction.led(630e-9))
    assert abs(circuit.current("D")) < 1e-11


def test_led_with_a_capacitor_settles_to_the_static_operating_point() -> None:
    led = Junction.led(590e-9)
    circuit = Circuit(["a", "k"], 1 / 240)
    circuit.add_voltage_source("V", "a", "gnd", 5.0)
    circuit.add_resistor("R", "a", "k", 1e3)
    circuit.add_led("D", "k", "gnd", led)
    static = circuit.node_voltage("k")
    circuit.add_capacitor("C", "k", "gnd", 1e-5)  # τ ≈ 10 ms through R: settled after 1 s
    circuit.step(240)
    assert circuit.capacitor_voltage("C") == pytest.approx(static, abs=1e-9)
    assert circuit.current("C") == pytest.approx(0.0, abs=1e-9)


def _drifting_led() -> Circuit:
    circuit = Circuit(["a", "b", "k"], 1 / 240)
    circuit.add_voltage_source("V", "a", "gnd", 5.0)
    circuit.add_resistor("R", "a", "b", 330.0)
    circuit.add_voltage_source("drift", "b", "k", 0.0)
    circuit.add_led("D", "k", "gnd", Junction.led(525e-9))
    return circuit


def test_a_drifting_led_solved_by_kept_factors_equals_a_fresh_newton_solve() -> None:
    """Steps keep the factored Jacobian while the junction's slope stays within 0.1 % (chord steps): the
    operating point is the same as a circuit solved afresh at those sources."""
    kept = _drifting_led()
    for k in range(1, 241):
        kept.set_source("drift", volts=-2e-4 * k)  # a junction warming: its voltage falls 50 mV in a second
        kept.step()
        fresh = _drifting_led()
        fresh.set_source("drift", volts=-2e-4 * k)
        assert kept.current("D") == pytest.approx(fresh.current("D"), rel=1e-10)
        assert kept.node_voltage("k") == pytest.approx(fresh.node_voltage("k"), abs=1e-12)


def test_what_is_read_between_steps_never_changes_a_later_result() -> None:
    quiet, watched = _drifting_led(), _drifting_led()
    for k in range(1, 121):
        for circuit in (quiet, watched):
            circuit.set_source("drift", volts=-3e-4 * k)
        if k % 7 == 0:
            watched.node_voltage("k")  # read at odd moments
            watched.current("D")
        quiet.step()
        watched.step()
        assert quiet.current("D").hex() == watched.current("D").hex()
