"""Scoring the battery's EMF on the circuit board: the cell's relaxation against its closed form, the
settling rule, gates, milestones, the tolerance's edges, the restored bench, the audit's shortcut and the
displays.

Test scaffolding stands in for the agent's hands: load boxes are set into the socket or onto their pads by
setting their poses, the rocker by its angle and the logger by its switch (the reference experimenter works
them with the arm; the keys and the rocker are tested with the black-box resistor).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import board_scaffold as scaffold
from actloop.suites.lab import audit
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.battery_emf import (
    LOAD_OHMS,
    LOAD_SOCKET,
    OPEN,
    SETTLE_S,
    SPEC,
    VOLTMETER_OHMS,
    BatteryBoard,
    BatteryEvaluator,
    wiring,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.physics.linear import exp
from actloop.suites.lab.platforms.circuit_board import BoardState
from actloop.suites.lab.reference.battery_emf import cell_of, fit_cell
from actloop.suites.lab.rig import DT
from board_scaffold import read_lcds, seat_with_skills

SEED = 2
LOADS = tuple(LOAD_OHMS)
Citation = dict[str, Any]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("battery_emf", SEED, render=False)
    yield bench
    bench.close()


def board(env: LabEnv) -> BatteryBoard:
    assert isinstance(env.platform, BatteryBoard)
    return env.platform


def evaluator(env: LabEnv) -> BatteryEvaluator:
    assert isinstance(env.evaluator, BatteryEvaluator)
    return env.evaluator


def put(env: LabEnv, box: str, x: float, y: float, z: float) -> None:
    scaffold.put_box(env, box, x, y, z)


def seat(env: LabEnv, box: str) -> None:
    scaffold.seat(env, box, LOAD_SOCKET.name)


def home(env: LabEnv, box: str) -> None:
    scaffold.home(env, box)


power = scaffold.power


def settle_and_log(env: LabEnv, seconds: float = 2.0, after: float = SETTLE_S + 0.3) -> tuple[float, float]:
    """Wait ``after`` since the last change, then log for ``seconds``: the window of rows to cite."""
    env.wait(after)
    start = env.clock.time_s
    env.wait(seconds)
    return start, env.clock.time_s


def measure(env: LabEnv, loads: tuple[str, ...] = LOADS) -> dict[str, tuple[float, float]]:
    """Log the open circuit, then each load in turn with the switch on; the bench is left live and logging
    with the last load box back on its pad."""
    board(env).logging = True
    windows = {OPEN: settle_and_log(env, after=0.3)}
    power(env, True)
    for load in loads:
        seat(env, load)
        windows[load] = settle_and_log(env)
        home(env, load)
    return windows


def rows_of(env: LabEnv, file: str) -> list[tuple[int, float, dict[str, float]]]:
    lines = env.export("logger", file)["csv"].splitlines()
    header = lines[0].split(",")
    return [
        (i, float(cells[0]), {name: float(cell) for name, cell in zip(header[1:], cells[1:], strict=True)})
        for i, cells in enumerate(line.split(",") for line in lines[1:])
    ]


def rows_in(env: LabEnv, file: str, windows: dict[str, tuple[float, float]]) -> list[Citation]:
    """Citations of both meters in every row of a fresh export of ``file`` inside the windows."""
    return [
        {"file": file, "row": i, "column": name, "value": values[name]}
        for i, t, values in rows_of(env, file)
        if any(start <= t <= end for start, end in windows.values())
        for name in ("voltmeter", "ammeter")
    ]


def cited(env: LabEnv, windows: dict[str, tuple[float, float]]) -> tuple[dict[str, float], list[Citation]]:
    """The fitted cell and the citations of every row in the windows, from a fresh export."""
    file = f"rows{len(env.instrument_log.exports)}.csv"
    emf, ohms, _ = cell_of(rows_of(env, file), windows, VOLTMETER_OHMS)
    return {"E": emf, "r": ohms}, rows_in(env, file.replace("rows", "cited"), windows)


def restore(env: LabEnv) -> None:
    power(env, False)
    env.wait(0.3)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    result, citations = cited(env, measure(env))
    evaluator(env).acted = True  # scaffolding: the robot would have carried the boxes
    restore(env)
    env.submit(result, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid][:3]
    assert score.success and score.process_score == 100, (score.gates, score.milestones)
    assert score.e < 0.3, score.errors
    assert "load_1r0, load_2r2, load_4r7, open" in score.milestones["L4"].evidence


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    windows = measure(env, LOADS[:2])
    seat(env, LOADS[2])  # the last box left in the socket, the switch on
    env.wait(0.3)
    result, citations = cited(env, windows)
    evaluator(env).acted = True
    env.submit(result, citations)
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "the supply is on" in score.gates["restored"].evidence
    assert "load 4r7 is not upright on its pad" in score.gates["restored"].evidence


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv) -> None:
    result, citations = cited(env, measure(env))
    citations[5] = {**citations[5], "value": float(citations[5]["value"]) + 0.002}
    restore(env)
    env.submit(result, citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success


@pytest.mark.parametrize(("after", "valid"), [(2.0, False), (SETTLE_S - 0.3, False), (SETTLE_S + 0.3, True)])
def test_rows_count_only_once_nothing_has_changed_for_the_settling_time(
    env: LabEnv, after: float, valid: bool
) -> None:
    windows = measure(env, LOADS[:2])
    seat(env, LOADS[2])
    windows[LOADS[2]] = settle_and_log(env, seconds=0.25, after=after)
    home(env, LOADS[2])
    result, citations = cited(env, windows)
    restore(env)
    env.submit(result, citations)
    score, verdicts = env.score()
    late = [v for v in verdicts if v.time_s is not None and v.time_s >= windows[LOADS[2]][0]]
    assert late and all(v.valid is valid for v in late), [v.reason for v in late][:2]
    assert score.gates["conditions"].passed is valid, score.gates["conditions"].evidence


def test_reseating_the_box_or_moving_the_switch_restarts_the_settling_time(env: LabEnv) -> None:
    board(env).logging = True
    power(env, True)
    seat(env, LOADS[0])
    env.wait(SETTLE_S - 3.0)
    home(env, LOADS[0])  # lifted out and set back in: two changes
    env.wait(0.2)
    seat(env, LOADS[0])
    reseated = settle_and_log(env, seconds=0.5, after=3.5)  # past the first seating's settling time
    power(env, False)
    env.wait(1.0)
    power(env, True)  # switched off and on again with nothing else changed
    switched = settle_and_log(env, seconds=0.5, after=3.5)
    citations = rows_in(env, "changes.csv", {"reseated": reseated, "switched": switched})
    restore(env)
    home(env, LOADS[0])
    env.submit({"E": 1.5, "r": 1.0}, citations)
    score, verdicts = env.score()
    assert len(verdicts) >= 8 and not any(v.valid for v in verdicts)
    assert not score.gates["conditions"].passed


def close_up(env: LabEnv) -> list[Citation]:
    """Serve a close-up of both meters (scaffolding: what the wrist camera 22 cm above makes readable) and
    cite what they show."""
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    seen = [Visibility(name, "wrist", True, True, 30.0) for name in ("voltmeter", "ammeter")]
    shown = env.instrument_log.serve_observation(observation_id, env.clock.time_s, seen).shown
    return [
        {"observation_id": observation_id, "instrument": name, "value": shown[name]}
        for name in ("voltmeter", "ammeter")
    ]


def test_readings_from_images_count_settled_and_not_during_a_change(env: LabEnv) -> None:
    env.wait(0.5)
    citations = close_up(env)  # the open circuit, at rest since the start
    power(env, True)
    seat(env, LOADS[0])
    env.wait(2.0)
    early = close_up(env)
    env.wait(SETTLE_S)
    citations += close_up(env)
    evaluator(env).acted = True
    power(env, False)
    home(env, LOADS[0])
    env.wait(0.3)
    env.submit(evaluator(env).targets(), citations + early)
    score, verdicts = env.score()
    assert [v.valid for v in verdicts] == [True, True, True, True, False, False], [v.reason for v in verdicts]
    assert score.milestones["L3"].passed and score.milestones["L4"].passed
    assert not score.gates["conditions"].passed


@pytest.mark.parametrize(
    ("quantity", "factor", "succeeds"),
    [("E", 1.00499, True), ("E", 0.99501, True), ("E", 1.00501, False), ("r", 1.00499, True),
     ("r", 0.99501, True), ("r", 0.99499, False)],
)  # fmt: skip
def test_each_quantity_is_scored_within_half_a_percent(
    env: LabEnv, quantity: str, factor: float, succeeds: bool
) -> None:
    _, citations = cited(env, measure(env))
    evaluator(env).acted = True
    restore(env)
    truth = evaluator(env).targets()
    env.submit({**truth, quantity: truth[quantity] * factor}, citations)
    score, _ = env.score()
    assert score.errors[quantity] == pytest.approx(abs(factor - 1) / 0.005, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds


def test_loads_without_the_open_circuit_do_not_reach_l4(env: LabEnv) -> None:
    windows = measure(env)
    citations = rows_in(env, "loads.csv", {load: windows[load] for load in LOADS})
    evaluator(env).acted = True
    restore(env)
    env.submit(evaluator(env).targets(), citations)
    score, _ = env.score()
    assert score.milestones["L3"].passed and not score.milestones["L4"].passed
    assert "open-circuit voltage not read" in score.milestones["L4"].evidence


def test_one_circuit_alone_does_not_reach_l4(env: LabEnv) -> None:
    windows = measure(env, ())
    evaluator(env).acted = True
    env.submit(evaluator(env).targets(), rows_in(env, "open.csv", windows))
    assert not env.score()[0].milestones["L4"].passed


def test_the_open_circuit_and_one_load_reach_l4(env: LabEnv) -> None:
    windows = measure(env, LOADS[:1])
    result, citations = cited(env, windows)
    evaluator(env).acted = True
    restore(env)
    env.submit(result, citations)
    assert env.score()[0].milestones["L4"].passed


def test_the_terminal_voltage_relaxes_as_the_closed_form_and_settles_on_e_minus_i_r() -> None:
    """After a load is switched in, the double layer's voltage u follows C du/dt = (E - u)/(r0 + R) - u/R_p
    exactly (R the load beside the voltmeter): the stepped circuit equals the closed form to 1e-12 V at every
    step, and after the settling time the terminal voltage is E R / (R + r) within 5e-5 of the step."""
    instance = draw(SPEC, SEED)
    wires = wiring(instance)
    cell = wires.cell
    circuit = wires.build(DT)
    circuit.step(round(5.0 / DT))
    load = LOADS[0]
    wires.apply(circuit, BoardState(True, 0.0, {LOAD_SOCKET.name: load}))
    ohms = 1.0 / (1.0 / wires.loads[load] + 1.0 / VOLTMETER_OHMS)
    conductance = 1.0 / (cell.ohmic + ohms) + 1.0 / cell.polarisation
    tau = cell.farads / conductance
    steady = cell.emf / (cell.ohmic + ohms) / conductance
    u0 = circuit.capacitor_voltage("double_layer")
    worst = 0.0
    for k in range(1, round(SETTLE_S / DT) + 1):
        circuit.step()
        u = steady + (u0 - steady) * exp(-k * DT / tau)
        volts = (cell.emf - u) * ohms / (cell.ohmic + ohms)
        worst = max(worst, abs(circuit.reading("voltmeter") - volts))
    assert worst < 1e-12
    final = circuit.reading("voltmeter")
    expected = cell.emf * ohms / (ohms + cell.ohms)
    jump = cell.emf * ohms / (ohms + cell.ohmic) - expected
    assert abs(final - expected) < 5e-5 * jump
    assert circuit.reading("ammeter") == pytest.approx(final / wires.loads[load], rel=1e-12)


def test_the_open_circuit_shows_e_and_the_ammeter_its_zero(env: LabEnv) -> None:
    env.wait(0.5)
    true = board(env).true_values(env._world.data)
    h = env.instance.hidden
    assert true["voltmeter"] == pytest.approx(h["E"] * VOLTMETER_OHMS / (VOLTMETER_OHMS + h["r"]), rel=1e-12)
    assert true["ammeter"] == pytest.approx(h["ammeter_zero"], abs=1e-15)
    seat(env, LOADS[1])  # the switch still off: no current
    env.wait(0.5)
    assert board(env).true_values(env._world.data)["ammeter"] == pytest.approx(h["ammeter_zero"], abs=1e-15)


def test_the_fit_cancels_the_ammeter_zero_and_the_voltmeter_current() -> None:
    emf, ohms, zero = 1.52, 0.8, -0.013
    rows = []
    for k, load_amps in enumerate((0.0, 0.3, 0.6, 0.9)):  # the cell also feeds the voltmeter
        volts = (emf - load_amps * ohms) / (1.0 + ohms / VOLTMETER_OHMS)
        rows.append((k, float(k), {"voltmeter": volts, "ammeter": load_amps + zero}))
    windows = {OPEN: (0.0, 0.0), "a": (1.0, 1.0), "b": (2.0, 2.0), "c": (3.0, 3.0)}
    got_e, got_r, used = cell_of(rows, windows, VOLTMETER_OHMS)
    assert len(used) == 4
    assert got_e == pytest.approx(emf, rel=1e-12) and got_r == pytest.approx(ohms, rel=1e-12)
    assert fit_cell([(0.0, 2.0), (1.0, 1.0)]) == pytest.approx((2.0, 1.0))


def test_the_audit_naive_shortcut_fails_most_instances_and_the_standard_design_solves_them() -> None:
    result = audit.audit("battery_emf", 200)
    assert result["naive_rate"] < 0.3 and result["standard_rate"] == 1.0
    assert max(result["guess_midpoint"], result["guess_best_constant"]) < 0.05


def test_without_the_ammeter_zero_the_shortcut_solves_the_instance_again() -> None:
    plan = plan_of("battery_emf")
    instance = next(i for i in (draw(SPEC, s) for s in range(1, 50)) if abs(i.hidden["ammeter_zero"]) > 0.012)
    target = plan.target(instance)
    assert not audit._within(SPEC, plan.naive.estimate(instance), target)
    assert audit._within(SPEC, plan.standard.estimate(instance), target)
    plain = type(instance)(
        instance.experiment, instance.seed, instance.public, {**instance.hidden, "ammeter_zero": 0.0}
    )
    assert audit._within(SPEC, plan.naive.estimate(plain), target)


def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("battery_emf", SEED)
    try:
        power(env, True)
        seat(env, LOADS[0])
        env.wait(SETTLE_S - 0.5)
        read, observation = read_lcds(env, {"voltmeter": 5, "ammeter": 6})
        for name, value in read.items():
            assert value == observation.shown[name]
            assert any(v.readable for v in observation.views_of(name))
        amps = observation.shown["ammeter"]
        assert isinstance(amps, float) and 0.3 < amps < 1.2  # amperes through about an ohm
    finally:
        env.close()


def test_t2_skills_seat_a_load_box_and_start_the_logger(tmp_path: Path) -> None:
    """T2 on this bench: the workspace's skills (T1 segmentation and planned motion) grasp a load box
    between its neighbours, carry it over the load socket and set it in, and press the REC key."""
    env = LabEnv("battery_emf", SEED, level="T2")
    box = LOADS[1]
    seat_with_skills(env, box, LOAD_SOCKET.name, tmp_path)
    assert board(env).state.seated[LOAD_SOCKET.name] == box, env.data.body(box).xpos
    assert board(env).recording() == {"logger"}
    for other in (LOADS[0], LOADS[2]):
        assert board(env).at_home(env.data, next(b for b in board(env).boxes if b.name == other), 0.002)
    env.close()
