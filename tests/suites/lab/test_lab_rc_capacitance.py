"""Scoring the RC capacitance on the circuit board: the circuit against the closed form (charge, discharge,
a charged box held off or out of the socket), the conditions (in the socket with the supply on, or charged),
L4's curve, gates, the tolerance's edge, the restored bench, the naive shortcut, the displays and T2's skills.

Test scaffolding stands in for the agent's hands where a scripted arm would be slow: the box is set into the
socket or onto its pad by setting its pose, the rocker by its angle, the setting and the logger directly (the
keys and the rocker are tested with the black-box resistor; the reference works them with the arm).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import board_scaffold as scaffold
from actloop.suites.lab import audit
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.rc_capacitance import (
    BOX,
    SOCKET,
    SPEC,
    RCBoard,
    RCEvaluator,
    RCWiring,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.platforms.circuit_board import BOX_HALF, SEAT_Z, VOLTMETER_OHMS
from actloop.suites.lab.reference.rc_capacitance import Row, charging, fit_charge, read_rows
from actloop.suites.lab.rig import DT
from board_scaffold import read_lcds, seat_with_skills

power = scaffold.power
SEED = 3
Citation = dict[str, Any]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("rc_capacitance", SEED, render=False)
    yield bench
    bench.close()


def board(env: LabEnv) -> RCBoard:
    assert isinstance(env.platform, RCBoard)
    return env.platform


def evaluator(env: LabEnv) -> RCEvaluator:
    assert isinstance(env.evaluator, RCEvaluator)
    return env.evaluator


def put_box(env: LabEnv, x: float, y: float, z: float) -> None:
    scaffold.put_box(env, BOX.name, x, y, z)


def seat(env: LabEnv) -> None:
    scaffold.seat(env, BOX.name, SOCKET.name)
    env.wait(0.3)


def home(env: LabEnv) -> None:
    scaffold.home(env, BOX.name)
    env.wait(0.3)


def box_volts(env: LabEnv) -> float:
    return board(env).circuit.capacitor_voltage("box")


def log_charge(env: LabEnv, seconds: float = 40.0) -> list[Row]:
    """Seat the box, switch on at 10 V with the logger recording, log ``seconds`` and switch off; the rows
    of the charge (as the reference selects them) from an export ``charge.csv``."""
    seat(env)
    board(env).setting = 10
    board(env).logging = True
    env.wait(0.6)
    power(env, True)
    env.wait(seconds)
    until = env.clock.time_s
    power(env, False)
    env.wait(0.5)
    return charging(read_rows(env.export("logger", "charge.csv")["csv"]), until)


def cite(rows: list[Row]) -> list[Citation]:
    return [
        {"file": "charge.csv", "row": i, "column": name, "value": value}
        for i, _, volts, milliamps in rows
        for name, value in (("voltmeter", volts), ("ammeter", milliamps))
    ]


def fitted(rows: list[Row]) -> float:
    return fit_charge(rows, VOLTMETER_OHMS)[0]


# --- the circuit
def closed_form(instance_seed: int = SEED) -> tuple[RCWiring, float, float]:
    """An instance's wiring, its Thevenin time constant (s) and the voltage the box charges to at 10 V."""
    wiring = RCWiring.of(draw(SPEC, instance_seed))
    parallel = wiring.ohms * VOLTMETER_OHMS / (wiring.ohms + VOLTMETER_OHMS)
    return wiring, wiring.farads * parallel, 10.0 * VOLTMETER_OHMS / (wiring.ohms + VOLTMETER_OHMS)


def test_the_charge_and_the_discharge_follow_the_closed_form_step_by_step() -> None:
    """Stepped as the board steps it (one physics step at a time), the box's voltage and the ammeter's
    current stay within 1e-9 of the closed form over three time constants (a tenth of the tolerance is
    5e-4); the discharge through the resistor at 0 V likewise."""
    wiring, tau, v_th = closed_form()
    circuit = wiring.build(DT)
    circuit.set_switch("contacts", True)
    circuit.set_source("supply", volts=10.0)
    circuit.set_switch("power", True)
    steps = round(3 * tau / DT)
    worst = 0.0
    for n in range(1, steps + 1):
        circuit.step()
        if n % 97 == 0 or n == steps:
            t = n * DT
            volts = v_th * (1 - math.exp(-t / tau))
            amps = (10.0 - volts) / wiring.ohms
            worst = max(worst, abs(circuit.capacitor_voltage("box") - volts) / v_th)
            worst = max(worst, abs(circuit.reading("ammeter") - amps) / (10.0 / wiring.ohms))
    assert worst < 1e-9
    start = circuit.capacitor_voltage("box")
    circuit.set_source("supply", volts=0.0)
    circuit.step(round(tau / DT))
    t = round(tau / DT) * DT
    assert circuit.capacitor_voltage("box") == pytest.approx(start * math.exp(-t / tau), rel=1e-9)


def test_a_charged_box_holds_off_but_for_the_voltmeter_and_keeps_its_charge_out_of_the_socket() -> None:
    wiring, tau, _ = closed_form()
    circuit = wiring.build(DT)
    circuit.set_switch("contacts", True)
    circuit.set_source("supply", volts=10.0)
    circuit.set_switch("power", True)
    circuit.step(round(5 * tau / DT))
    charged = circuit.capacitor_voltage("box")
    circuit.set_switch("power", False)
    circuit.step(24000)  # 100 s: it leaks through the voltmeter only, τ = R_V C
    leak = VOLTMETER_OHMS * wiring.farads
    assert circuit.capacitor_voltage("box") == pytest.approx(charged * math.exp(-100.0 / leak), rel=1e-9)
    assert circuit.reading("ammeter") == 0.0  # the voltmeter draws on the box's side of the ammeter
    held = circuit.capacitor_voltage("box")
    circuit.set_switch("contacts", False)
    circuit.step(24000)
    assert circuit.capacitor_voltage("box") == held and circuit.reading("voltmeter") == 0.0


def test_the_bench_charges_the_box_it_seats_and_the_box_keeps_its_charge_on_its_pad(env: LabEnv) -> None:
    _, tau, v_th = closed_form()
    seat(env)
    board(env).setting = 10
    power(env, True)
    env.wait(tau)
    assert box_volts(env) == pytest.approx(v_th * (1 - math.exp(-1)), rel=0.02)  # switched on within a step
    power(env, False)
    home(env)
    kept = box_volts(env)
    env.wait(2.0)
    assert box_volts(env) == kept > 5.0
    seat(env)
    assert board(env).true_values(env.data)["voltmeter"] == pytest.approx(
        kept + env.instance.hidden["voltmeter_zero"], abs=1e-3
    )


# --- scoring
def test_a_careful_run_succeeds_with_every_milestone_and_the_box_left_charged(env: LabEnv) -> None:
    rows = log_charge(env)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the box and pressed the keys
    home(env)
    assert box_volts(env) > 5.0
    env.submit({"C": fitted(rows)}, cite(rows))
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and len(verdicts) == 2 * len(rows)
    assert score.success and score.process_score == 100, score.gates
    assert score.e < 0.3 and score.milestones["L4"].passed


def test_the_naive_shortcut_over_the_printed_resistance_fails_where_the_resistor_is_off(env: LabEnv) -> None:
    rows = log_charge(env)
    home(env)
    ohms = env.instance.hidden["R_series"]
    assert abs(ohms / 10e3 - 1) > 0.02  # this instance's resistor lies 2.8 % from its print
    _, tau, fitted_ohms = fit_charge(rows, VOLTMETER_OHMS)
    assert fitted_ohms == pytest.approx(ohms, rel=1e-3)
    env.submit({"C": tau / env.instance.public["series_nominal"]}, cite(rows))
    score, _ = env.score()
    assert score.e > 4 and not score.success and score.gates["evidence"].passed


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    rows = log_charge(env)
    evaluator(env).acted = True
    power(env, True)  # the supply on again, the box still in the socket
    env.wait(0.3)
    env.submit({"C": fitted(rows)}, cite(rows))
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "the supply is on" in score.gates["restored"].evidence
    assert "not upright on its pad" in score.gates["restored"].evidence


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv) -> None:
    rows = log_charge(env)
    home(env)
    citations = cite(rows)
    citations[7] = {**citations[7], "value": float(citations[7]["value"]) + 0.002}
    env.submit({"C": env.instance.hidden["C"]}, citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert f"{len(citations) - 1} of {len(citations)} citations match" in score.gates["evidence"].evidence


@pytest.mark.parametrize(
    ("situation", "valid"),
    [
        ("supply off, box uncharged", False),
        ("box beside the socket, supply on", False),
        ("0.1 s after seating it", False),
        ("supply on at 0 V", True),
        ("supply off, box charged", True),
    ],
)
def test_readings_count_in_the_socket_with_the_supply_on_or_the_box_charged(
    env: LabEnv, situation: str, valid: bool
) -> None:
    board(env).logging = True
    if situation == "supply off, box uncharged":
        seat(env)
        env.wait(1.0)
    elif situation == "box beside the socket, supply on":
        put_box(env, SOCKET.centre[0], SOCKET.centre[1] - 0.06, SEAT_Z + BOX_HALF[2] + 0.0003)
        power(env, True)
        env.wait(1.0)
    elif situation == "0.1 s after seating it":
        power(env, True)
        env.wait(1.0)
        put_box(env, *SOCKET.centre, SEAT_Z + BOX_HALF[2])
    elif situation == "supply on at 0 V":
        seat(env)
        power(env, True)
        env.wait(1.0)
    else:
        seat(env)
        board(env).setting = 3
        power(env, True)
        env.wait(60.0)
        power(env, False)
        env.wait(1.0)
        assert box_volts(env) > 2.0
    at = env.clock.time_s + 0.1
    env.wait(0.3)
    lines = env.export("logger", "rows.csv")["csv"].splitlines()[1:]
    row = next(i for i, line in enumerate(lines) if float(line.split(",")[0]) >= at - 0.05)
    cells = lines[row].split(",")
    citations = [
        {"file": "rows.csv", "row": row, "column": name, "value": float(cells[k])}
        for k, name in ((1, "voltmeter"), (2, "ammeter"))
    ]
    power(env, False)
    home(env)
    env.submit({"C": env.instance.hidden["C"]}, citations)
    score, verdicts = env.score()
    assert score.gates["evidence"].passed
    assert score.gates["conditions"].passed is valid, score.gates["conditions"].evidence
    assert all(v.valid is valid for v in verdicts)


@pytest.mark.parametrize(("factor", "succeeds"), [(1.00499, True), (0.99501, True), (1.00501, False)])
def test_the_tolerance_is_half_a_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    rows = log_charge(env, 20.0)
    evaluator(env).acted = True
    home(env)
    env.submit({"C": env.instance.hidden["C"] * factor}, cite(rows))
    score, _ = env.score()
    assert score.errors["C"] == pytest.approx(abs(factor - 1) / 0.005, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds


def test_steady_readings_at_several_settings_are_no_curve_for_l4(env: LabEnv) -> None:
    seat(env)
    board(env).setting = 1
    power(env, True)
    env.wait(30.0)  # charged but for 0.1 V (τ = 14 s): it creeps up 0.03 V in the next 3 s
    board(env).logging = True
    times = []
    for _ in range(3):  # steady readings: every one in the same circuit, none 0.2 V apart
        env.wait(1.0)
        times.append(env.clock.time_s - 0.1)
    lines = env.export("logger", "steady.csv")["csv"].splitlines()[1:]
    citations = []
    for at in times:
        row = max(i for i, line in enumerate(lines) if float(line.split(",")[0]) <= at)
        cells = lines[row].split(",")
        citations.append({"file": "steady.csv", "row": row, "column": "voltmeter", "value": float(cells[1])})
    evaluator(env).acted = True
    power(env, False)
    home(env)
    env.submit({"C": env.instance.hidden["C"]}, citations)
    score, _ = env.score()
    assert score.milestones["L3"].passed and not score.milestones["L4"].passed and score.level == 3
    assert "at 1 values" in score.milestones["L4"].evidence


@pytest.mark.parametrize(("cited", "passes"), [(4, False), (5, True)])
def test_a_curve_needs_five_values_in_one_unchanged_circuit(env: LabEnv, cited: int, passes: bool) -> None:
    rows = log_charge(env, 20.0)
    home(env)
    spread = rows[: 2 * cited : 2]  # every other row at the start: about 0.35 V apart (τ = 14 s)
    assert all(b[2] - a[2] > 0.25 for a, b in itertools.pairwise(spread))
    env.submit({"C": env.instance.hidden["C"]}, cite(spread))
    score, _ = env.score()
    assert score.milestones["L4"].passed is passes and f"at {cited} values" in score.milestones["L4"].evidence


# --- the audit
def test_without_the_resistor_off_its_print_the_shortcut_solves_the_instance_again() -> None:
    plan = plan_of("rc_capacitance")
    instance = next(
        i for i in (draw(SPEC, s) for s in range(1, 50)) if abs(i.hidden["R_series"] / 1e4 - 1) > 0.02
    )
    target = plan.target(instance)
    assert not audit._within(SPEC, plan.naive.estimate(instance), target)
    assert audit._within(SPEC, plan.standard.estimate(instance), target)
    plain = dataclasses.replace(instance, hidden={**instance.hidden, "R_series": 1e4})
    assert audit._within(SPEC, plan.naive.estimate(plain), target)


# --- the displays and the skills
def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("rc_capacitance", SEED)
    try:
        seat(env)
        board(env).setting = 7
        power(env, True)
        read, observation = read_lcds(env, {"voltmeter": 6, "ammeter": 7})  # mid-charge: changing
        for name, value in read.items():
            assert value == observation.shown[name]
            assert any(v.readable for v in observation.views_of(name))
    finally:
        env.close()


def test_t2_skills_seat_the_box_and_start_the_logger(tmp_path: Path) -> None:
    """T2 on this bench: the workspace's skills (T1 segmentation and planned motion) grasp the box (fingers
    closing along x, where the front camera's centroid is true), carry it over the socket and set it in,
    and press the REC key."""
    env = LabEnv("rc_capacitance", SEED, level="T2")
    seat_with_skills(env, BOX.name, SOCKET.name, tmp_path)
    assert board(env).state.seated[SOCKET.name] == BOX.name, env.data.body(BOX.name).xpos
    assert board(env).recording() == {"logger"}
    env.close()
