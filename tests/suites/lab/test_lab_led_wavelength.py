"""The LED wavelength on the circuit board: the circuit against its closed form, the junction's warming
against its exponential, the settled and conducting conditions, gates, milestones, the tolerance edge, the
naive shortcut, the restored bench, the displays and T2's skills on its boxes.

Test scaffolding stands in for the agent's hands and eyes where a scripted arm would be slow: boxes are set
into the socket or onto their pads by setting their poses, the rocker by its angle, the supply's setting
directly, and close-ups of the meters are logged as served with the readability a close wrist camera has
(the reference experimenter works them with the arm and reads the images).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

import board_scaffold as scaffold
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.card import task_card
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import led_wavelength
from actloop.suites.lab.experiments.led_wavelength import (
    BOXES,
    CONDUCTING_A,
    POWER,
    ROOM_K,
    SERIES_OHMS,
    SETTLING_S,
    SOCKET,
    SPEC,
    SUPPLY_OHMS,
    UNKNOWN,
    LedBoard,
    LedEvaluator,
    LedNetwork,
    LedWiring,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.physics.circuits import ELEMENTARY_CHARGE, LIGHT_SPEED, PLANCK, Junction
from actloop.suites.lab.platforms.circuit_board import VOLTMETER_OHMS
from actloop.suites.lab.reference.led_wavelength import CELLS, KNOWN, wavelength
from actloop.suites.lab.rig import DT
from board_scaffold import read_lcds, seat_with_skills

SEED = 2
GMIN = 1e-12
"""The circuit's conductance across every junction (SPICE's GMIN)."""
Citation = dict[str, object]


QUICK_S = 3.0
"""The settling time of the tests that need valid readings but not settled ones (the rule is tested at the
card's time)."""


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("led_wavelength", SEED, render=False)
    yield bench
    bench.close()


@pytest.fixture
def quick(env: LabEnv, monkeypatch: pytest.MonkeyPatch) -> LabEnv:
    """The bench with the evaluator's settling time cut to QUICK_S (scaffolding for speed)."""
    monkeypatch.setattr(led_wavelength, "SETTLING_S", QUICK_S)
    return env


def board(env: LabEnv) -> LedBoard:
    assert isinstance(env.platform, LedBoard)
    return env.platform


def network(env: LabEnv) -> LedNetwork:
    assert isinstance(board(env).circuit, LedNetwork)
    return board(env).circuit


def evaluator(env: LabEnv) -> LedEvaluator:
    assert isinstance(env.evaluator, LedEvaluator)
    return env.evaluator


def put(env: LabEnv, box: str, x: float, y: float, z: float) -> None:
    scaffold.put_box(env, box, x, y, z)


def seat(env: LabEnv, box: str) -> None:
    scaffold.seat(env, box, SOCKET.name)


home = scaffold.home
power = scaffold.power


def close_up(env: LabEnv) -> list[Citation]:
    """Serve a close-up of both meters (what the wrist camera 22 cm above makes readable) and cite both."""
    env._served += 1
    observation_id = f"{env.episode_token}-{env._served}"
    seen = [Visibility(name, "wrist", True, True, 30.0) for name in CELLS]
    env.instrument_log.serve_observation(observation_id, env.clock.time_s, seen)
    shown = env.instrument_log.observations[observation_id].shown
    return [{"observation_id": observation_id, "instrument": name, "value": shown[name]} for name in CELLS]


def read_led(env: LabEnv, box: str) -> tuple[float, list[Citation]]:
    """Seat ``box``, wait out the settling time, read the meters and take it home; its voltage and the
    citations."""
    seat(env, box)
    env.wait(led_wavelength.SETTLING_S + 0.5)
    cited = close_up(env)
    home(env, box)
    env.wait(0.3)
    return float(cited[0]["value"]), cited  # type: ignore[arg-type]


def measure(env: LabEnv, colours: tuple[str, ...] = KNOWN) -> tuple[float, list[Citation]]:
    """λ of the unknown from the known LEDs ``colours`` and the unknown, all at 5 V; the supply left on."""
    power(env, True)
    board(env).setting = 5
    citations: list[Citation] = []
    known = []
    for colour in colours:
        volts, cited = read_led(env, f"led_{colour}")
        known.append((env.instance.public[f"lambda_{colour}"], volts))
        citations += cited
    volts, cited = read_led(env, UNKNOWN)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the boxes and pressed the keys
    return wavelength(known, volts), citations + cited


def restore(env: LabEnv) -> None:
    power(env, False)
    env.wait(0.3)


# --- physics: the circuit against its closed form, the warming against its exponential ---


def operating_point(junction: Junction, supply: float, drift: float) -> float:
    """The socket's voltage of the series circuit in closed form: the root (bisection to the last bit) of
    KCL at the socket, (supply − V) / R = I_LED(V − drift) + GMIN (V − drift) + V / R_voltmeter."""
    ohms = SUPPLY_OHMS + SERIES_OHMS

    def excess(v: float) -> float:
        across = v - drift
        led = junction.saturation_current * (math.exp(across / junction.n_vt) - 1.0) + GMIN * across
        return (supply - v) / ohms - led - v / VOLTMETER_OHMS

    low, high = 0.0, supply
    while high - low > 1e-15:
        mid = (low + high) / 2
        low, high = (mid, high) if excess(mid) > 0 else (low, mid)
    return (low + high) / 2


def test_the_forward_voltage_is_the_shockley_operating_point_of_the_series_circuit() -> None:
    instance = draw(SPEC, SEED)
    wiring = LedWiring(instance.hidden, instance.public)
    leds = wiring.build(DT)
    for box in (UNKNOWN, "led_blue", "led_red"):
        for supply in (3.0, 5.0, 10.0):
            leds.set(True, supply, box)
            leds.step(240)
            drift = -1e-3 * instance.hidden["drift"] * leds.warming(box)
            volts = operating_point(wiring.junction(box), supply, drift)
            true = wiring.true_values(leds)
            assert abs(true["voltmeter"] - instance.hidden["voltmeter_zero"] - volts) < 1e-9
            milliamps = 1000 * (supply - volts) / (SUPPLY_OHMS + SERIES_OHMS)
            assert true["ammeter"] - instance.hidden["ammeter_zero"] == pytest.approx(milliamps, abs=1e-9)
    # at 1 mA and the room's temperature the junction is the photon energy less the offset
    junction = wiring.junction(UNKNOWN)
    photon = PLANCK * LIGHT_SPEED / (ELEMENTARY_CHARGE * 1e-9 * instance.hidden["lambda_peak"])
    at_1ma = junction.n_vt * math.log(CONDUCTING_A / junction.saturation_current + 1.0)
    assert at_1ma == pytest.approx(photon - instance.hidden["offset"], abs=1e-12)


def test_a_junction_heated_at_constant_power_warms_along_its_exponential() -> None:
    hidden = draw(SPEC, SEED).hidden
    heat = LedWiring(hidden, draw(SPEC, SEED).public).heat(DT)
    heat.set_heater(POWER, watts=0.02)
    tau, kelvin_per_watt = hidden["thermal_time"], hidden["thermal_resistance"]
    for seconds in (0.5, 2.0, 10.0):
        heat.step(round(seconds / DT) - round(heat.time / DT))
        expected = 0.02 * kelvin_per_watt * (1.0 - math.exp(-seconds / tau))
        assert heat.temperature("junction") - ROOM_K == pytest.approx(expected, rel=1e-9)


def test_the_conducting_led_drifts_as_its_coupled_heat_equation_and_settles() -> None:
    """The warming and the voltage it drifts by against a fine RK4 integration of C dT/dt = I V − T/R
    with the operating point in closed form; settled after the card's time, within far less than the
    voltmeter's last digit."""
    instance = draw(SPEC, SEED)
    h = instance.hidden
    wiring = LedWiring(h, instance.public)
    leds = wiring.build(DT)
    junction, kappa = wiring.junction(UNKNOWN), 1e-3 * h["drift"]
    capacity = h["thermal_time"] / h["thermal_resistance"]

    def slope(warming: float) -> float:
        volts = operating_point(junction, 5.0, -kappa * warming)
        watts = volts * ((5.0 - volts) / (SUPPLY_OHMS + SERIES_OHMS) - volts / VOLTMETER_OHMS)
        return (watts - warming / h["thermal_resistance"]) / capacity

    leds.set(True, 5.0, UNKNOWN)
    warming, dt, elapsed = 0.0, 0.01, 0.0
    for seconds in (1.0, 3.0, SETTLING_S):
        while elapsed < seconds - 1e-9:
            k1 = slope(warming)
            k2 = slope(warming + dt / 2 * k1)
            k3 = slope(warming + dt / 2 * k2)
            k4 = slope(warming + dt * k3)
            warming += dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            elapsed += dt
        leds.step(round(seconds / DT) - leds._steps)
        assert leds.warming(UNKNOWN) == pytest.approx(warming, abs=2e-3)  # 4 µV of forward voltage
    before = wiring.true_values(leds)["voltmeter"]
    leds.step(240)
    assert abs(wiring.true_values(leds)["voltmeter"] - before) < 2e-5


def test_a_box_out_of_the_socket_cools_and_another_conducts_from_the_room(env: LabEnv) -> None:
    power(env, True)
    board(env).setting = 6
    seat(env, "led_green")
    env.wait(8.0)
    warm = network(env).warming("led_green")
    home(env, "led_green")
    env.wait(0.3)
    seat(env, "led_amber")
    env.wait(4.0)
    assert warm > 2.0 and network(env).warming("led_green") < 0.3 * warm
    assert network(env).active == "led_amber" and network(env).led_current() > 5e-3


# --- scoring ---


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    nm, citations = measure(env)
    restore(env)
    env.submit({"lambda_peak": nm}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and len(verdicts) == 10, [v.reason for v in verdicts]
    assert score.success and score.process_score == 100, score.gates
    assert score.e < 0.1
    assert "known LEDs [455.0, 525.0, 590.0, 660.0] nm" in score.milestones["L4"].evidence


def test_two_known_leds_and_the_unknown_suffice(quick: LabEnv) -> None:
    nm, citations = measure(quick, ("blue", "red"))
    restore(quick)
    quick.submit({"lambda_peak": nm}, citations)
    score, _ = quick.score()
    assert score.success and score.e < 0.1, score.gates


def test_one_known_led_meets_neither_the_evidence_minimum_nor_l4(quick: LabEnv) -> None:
    power(quick, True)
    board(quick).setting = 5
    citations = read_led(quick, "led_green")[1] + read_led(quick, UNKNOWN)[1]
    evaluator(quick).acted = True
    restore(quick)
    quick.submit({"lambda_peak": quick.instance.hidden["lambda_peak"]}, citations)
    score, _ = quick.score()
    assert (
        not score.gates["evidence"].passed
        and "2 or more different known LEDs" in score.gates["evidence"].evidence
    )
    assert not score.milestones["L4"].passed and score.milestones["L3"].passed


@pytest.mark.parametrize(
    ("situation", "valid"),
    [
        ("read 10 s after seating", False),
        ("read 10 s after a new setting", False),
        ("supply off", False),
        (f"read {SETTLING_S + 0.5:g} s after seating", True),
    ],
)
def test_a_reading_counts_only_settled_in_the_live_circuit(
    quick: LabEnv, monkeypatch: pytest.MonkeyPatch, situation: str, valid: bool
) -> None:
    env = quick
    nm, citations = measure(env, ("blue", "red"))
    monkeypatch.setattr(led_wavelength, "SETTLING_S", SETTLING_S)  # the card's time for the reading tested
    seat(env, "led_green")
    if situation == "read 10 s after a new setting":
        env.wait(SETTLING_S + 1.0)
        board(env).setting = 6
        env.wait(10.0)
    elif situation == "supply off":
        power(env, False)
        env.wait(SETTLING_S + 1.0)
    else:
        env.wait(10.0 if situation.startswith("read 10") else SETTLING_S + 0.5)
    citations += close_up(env)
    home(env, "led_green")
    restore(env)
    env.submit({"lambda_peak": nm}, citations)
    score, verdicts = env.score()
    assert score.gates["evidence"].passed
    assert score.gates["conditions"].passed is valid, score.gates["conditions"].evidence
    assert all(v.valid is valid for v in verdicts[-2:])
    if not valid:
        assert "settled did not hold" in verdicts[-1].reason


def test_the_unknown_below_one_milliampere_is_not_conducting(quick: LabEnv) -> None:
    nm, citations = measure(quick, ("blue", "red"))
    board(quick).setting = 2
    _, cited = read_led(quick, UNKNOWN)
    seat(quick, UNKNOWN)
    quick.wait(0.5)
    assert 0.0 < network(quick).led_current() < CONDUCTING_A  # this instance's unknown barely conducts at 2 V
    home(quick, UNKNOWN)
    restore(quick)
    quick.submit({"lambda_peak": nm}, citations + cited)
    score, verdicts = quick.score()
    assert not score.gates["conditions"].passed
    assert [v.valid for v in verdicts[-2:]] == [False, False]
    assert "the unknown LED conducting, when it is in the socket did not hold" in verdicts[-1].reason


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0199, True), (0.9801, True), (1.0201, False)])
def test_the_tolerance_is_two_percent(quick: LabEnv, factor: float, succeeds: bool) -> None:
    _, citations = measure(quick, ("blue", "red"))
    restore(quick)
    quick.submit({"lambda_peak": quick.instance.hidden["lambda_peak"] * factor}, citations)
    score, _ = quick.score()
    assert score.errors["lambda_peak"] == pytest.approx(abs(factor - 1) / 0.02, rel=1e-6)
    assert score.gates["evidence"].passed and score.success is succeeds


def test_the_naive_shortcut_misses_past_the_tolerance(quick: LabEnv) -> None:
    """hc/(qV) from the unknown's settled voltage at 5 V (the audit's shortcut) fails the run."""
    naive = float(plan_of("led_wavelength").naive.estimate(quick.instance)["lambda_peak"])
    _, citations = measure(quick, ("blue", "red"))
    restore(quick)
    quick.submit({"lambda_peak": naive}, citations)
    score, _ = quick.score()
    assert score.e > 1.0 and not score.success and score.stop_stage == "know_result", score.errors


def test_a_fabricated_reading_fails_the_evidence_gate(quick: LabEnv) -> None:
    nm, citations = measure(quick, ("blue", "red"))
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 0.002}  # type: ignore[arg-type]
    restore(quick)
    quick.submit({"lambda_peak": nm}, citations)
    score, _ = quick.score()
    assert not score.gates["evidence"].passed and not score.success


def test_an_led_left_in_the_socket_with_the_supply_on_fails_only_l6(quick: LabEnv) -> None:
    nm, citations = measure(quick, ("blue", "red"))
    seat(quick, "led_amber")
    quick.wait(0.5)
    quick.submit({"lambda_peak": nm}, citations)
    score, _ = quick.score()
    assert score.level == 5 and score.process_score == 70
    restored = score.gates["restored"].evidence
    assert "the supply is on" in restored and "led amber is not upright on its pad" in restored


def test_the_card_names_every_box_and_states_the_rules() -> None:
    card = task_card(SPEC, draw(SPEC, SEED))
    for box in BOXES:
        assert f"**{box.name}**" in card
    assert "the unknown LED in a white box" in card and "an amber box" in card
    assert f"unchanged setting for {SETTLING_S:g} s" in card and "conducts 1 mA or more" in card
    assert "- the red LED's printed peak wavelength (`lambda_red`): 660 nm" in card


# --- the displays and T2 ---


def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("led_wavelength", SEED)
    try:
        power(env, True)
        board(env).setting = 5
        seat(env, UNKNOWN)
        env.wait(1.0)
        read, observation = read_lcds(env, CELLS)
        for name, value in read.items():
            assert value == observation.shown[name]
            assert any(v.readable for v in observation.views_of(name))
    finally:
        env.close()


def test_t2_skills_seat_an_led_between_its_neighbours_and_start_the_logger(tmp_path: Path) -> None:
    """T2 on this bench: the workspace's skills grasp the green LED between its neighbours on the pad row,
    carry it over the socket and set it in, and press the REC key."""
    env = LabEnv("led_wavelength", SEED, level="T2")
    seat_with_skills(env, "led_green", SOCKET.name, tmp_path)
    assert board(env).state.seated[SOCKET.name] == "led_green", env.data.body("led_green").xpos
    assert board(env).recording() == {"logger"}
    for other in ("led_blue", "led_amber", UNKNOWN):
        assert board(env).at_home(env.data, next(b for b in BOXES if b.name == other), 0.002)
    env.close()
