"""Scoring the three-terminal box: each candidate network's DC resistance and time constant on every pair
against the closed form, the quarter turn choosing the pair, the categorical topology scored with the
values (a wrong network with right values fails; right network, values off, fails), conditions, L4, the
restored bench and the displays.

Test scaffolding stands in for the agent's hands: the box is set into the socket (turned) or onto its pad
by setting its pose, the rocker by its angle and the logger by its switch; the reference experimenter
turns and seats the box with the arm.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest

from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.catalog import NETWORKS
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.three_terminal_box import (
    BOX,
    PAIRS,
    SERIES_OHMS,
    SOCKET_WN,
    SPEC,
    TerminalBoard,
    TerminalState,
    TerminalWiring,
    network_of,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.reference.three_terminal_box import identify, pair_fit, parallel
from actloop.suites.lab.rig import DT, PHYSICS_HZ
from board_scaffold import home, power, read_lcds, seat

SEEDS = {"delta": 1, "parallel": 4, "tee": 5, "star": 7}
R1, R2, C1 = 330.0, 470.0, 0.015
RS = SERIES_OHMS
Pair = tuple[float, float | None]
"""A pair's DC resistance and the resistance the capacitor sees when it is driven (None: no transient)."""
CLOSED_FORM: dict[str, dict[str, Pair]] = {
    "delta": {"AB": (R1, R2 + parallel(R1, RS)), "BC": (R2, R1 + parallel(R2, RS)),
              "CA": (R1 + R2, parallel(R1 + R2, RS))},
    "tee": {"AB": (R1, R2 + parallel(R1, RS)), "BC": (R1 + R2, parallel(R1 + R2, RS)),
            "CA": (R2, R1 + parallel(R2, RS))},
    "parallel": {"AB": (R1, None), "BC": (R2, parallel(R2, RS)), "CA": (R1 + R2, parallel(R2, R1 + RS))},
    "star": {"AB": (R1 + R2, None), "BC": (math.inf, R2 + RS), "CA": (math.inf, R1 + RS)},
}  # fmt: skip
Citation = dict[str, Any]


def drive(network: str, pair: str, seconds: float, volts: float = 10.0) -> list[tuple[float, float, float]]:
    """(t, socket volts, amperes) every quarter second after switching ``pair`` on at ``volts``."""
    wires = TerminalWiring(network, {"R1": R1, "R2": R2, "C1": C1}, 0.0, 0.0)
    circuit = wires.build(DT)
    wires.apply(circuit, TerminalState(True, volts, {SOCKET_WN.name: BOX.name}, PAIRS.index(pair)))
    out = []
    for k in range(1, round(seconds * 4) + 1):
        circuit.step(PHYSICS_HZ // 4)
        out.append((k / 4, circuit.reading("voltmeter"), circuit.reading("ammeter")))
    return out


@pytest.mark.parametrize("network", NETWORKS)
def test_every_pair_follows_the_closed_form_of_its_network(network: str) -> None:
    """DC resistance V/I of each pair and the time constant C1 × (resistance the capacitor sees), to far
    better than a tenth of the 0.5 % tolerance (the voltmeter's 10 Mohm is the only departure)."""
    for pair, (r_dc, r_c) in CLOSED_FORM[network].items():
        tau = C1 * r_c if r_c is not None else 0.0
        samples = drive(network, pair, max(25 * tau, 5.0))
        _, volts, amps = samples[-1]
        if math.isinf(r_dc):
            assert abs(amps) < 2e-6, (network, pair)  # only the voltmeter's current
        else:
            assert volts / amps == pytest.approx(parallel(r_dc, 10e6), rel=1e-9), (network, pair)
        if r_c is None:
            assert samples[0][2] == pytest.approx(amps, rel=1e-12), (network, pair)
            continue
        final = amps
        for (t0, _, i0), (t1, _, i1) in ((samples[2], samples[6]), (samples[4], samples[12])):
            ratio = (i1 - final) / (i0 - final)
            assert -(t1 - t0) / math.log(ratio) == pytest.approx(tau, rel=1e-4), (network, pair)


def test_the_reference_names_every_network_from_its_pairs_and_recovers_the_values() -> None:
    for network in NETWORKS:
        fits = {}
        for pair in ("AB", "BC", "CA"):
            samples = drive(network, pair, 150.0)
            rows = [(i, t, v, 1000.0 * a) for i, (t, v, a) in enumerate(samples) if t >= 0.75]
            fits[pair] = pair_fit(rows)
        found = identify(fits, RS)
        assert found["topology"] == network
        for name, true in (("R1", R1), ("R2", R2), ("C1", C1)):
            assert found[name] == pytest.approx(true, rel=2e-4), (network, name)


def bench_of(network: str) -> Iterator[LabEnv]:
    bench = LabEnv("three_terminal_box", SEEDS[network], render=False)
    assert network_of(bench.instance) == network
    yield bench
    bench.close()


@pytest.fixture
def env() -> Iterator[LabEnv]:
    """A bench with the delta network in its box."""
    yield from bench_of("delta")


@pytest.fixture(params=list(SEEDS))
def every_env(request: pytest.FixtureRequest) -> Iterator[LabEnv]:
    """A bench of each network."""
    yield from bench_of(request.param)


def board(env: LabEnv) -> TerminalBoard:
    assert isinstance(env.platform, TerminalBoard)
    return env.platform


def turned(env: LabEnv, quarters: int, off_by: float = 0.0) -> None:
    """Seat the box turned by ``quarters`` counter-clockwise (and ``off_by`` radians more)."""
    seat(env, BOX.name, SOCKET_WN.name, quarters * math.pi / 2 + off_by)
    env.wait(0.3)


def back(env: LabEnv) -> None:
    home(env, BOX.name)
    env.wait(0.3)


def log_pairs(
    env: LabEnv, pairs: tuple[str, ...] = ("AB", "BC", "CA"), seconds: float = 15.0
) -> list[Citation]:
    """Log each pair for ``seconds`` at 10 V from switching on, and cite three settled rows of each."""
    board(env).setting = 10
    board(env).logging = True
    windows = {}
    for pair in pairs:
        turned(env, PAIRS.index(pair))
        power(env, True)
        start = env.clock.time_s
        env.wait(seconds)
        windows[pair] = (start + seconds - 1.0, env.clock.time_s)
        power(env, False)
        back(env)
    lines = env.export("logger", "pairs.csv")["csv"].splitlines()[1:]
    citations: list[Citation] = []
    for start, end in windows.values():
        for row, line in enumerate(lines):
            t, volts, milliamps = (float(x) for x in line.split(","))
            if start <= t <= end:
                citations += [
                    {"file": "pairs.csv", "row": row, "column": "voltmeter", "value": volts},
                    {"file": "pairs.csv", "row": row, "column": "ammeter", "value": milliamps},
                ]
    return citations


def truth(env: LabEnv) -> dict[str, Any]:
    return dict(env.evaluator.targets())


def test_the_quarter_turn_chooses_the_pair_and_between_turns_nothing(env: LabEnv) -> None:
    for quarters, pair in enumerate(PAIRS):
        turned(env, quarters)
        assert board(env).state.quarter == quarters and PAIRS[quarters] == pair
    turned(env, 1, off_by=0.2)
    assert board(env).state.quarter is None
    back(env)
    assert board(env).state.quarter is None


def test_a_careful_run_succeeds(every_env: LabEnv) -> None:
    citations = log_pairs(every_env)
    every_env.evaluator.acted = True  # type: ignore[attr-defined]
    every_env.submit(truth(every_env), citations)
    score, verdicts = every_env.score()
    assert all(v.valid for v in verdicts)
    assert score.success and score.process_score == 100, (score.gates, score.milestones)


def test_a_wrong_network_with_right_values_fails(every_env: LabEnv) -> None:
    citations = log_pairs(every_env)
    right = truth(every_env)
    wrong = next(label for label in NETWORKS if label != right["topology"])
    every_env.submit({**right, "topology": wrong}, citations)
    score, _ = every_env.score()
    assert math.isinf(score.errors["topology"]) and not score.milestones["L5"].passed


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0049, True), (0.9951, True), (1.0051, False)])
def test_the_right_network_with_values_off_by_the_tolerance(
    env: LabEnv, factor: float, succeeds: bool
) -> None:
    citations = log_pairs(env)
    env.evaluator.acted = True  # type: ignore[attr-defined]
    right = truth(env)
    env.submit({**right, "C1": right["C1"] * factor}, citations)
    score, _ = env.score()
    assert score.errors["topology"] == 0.0 and score.success is succeeds


def test_readings_count_on_two_terminals_powered_or_charged(env: LabEnv) -> None:
    board(env).setting = 10
    board(env).logging = True
    turned(env, 3)  # A against A: no pair
    power(env, True)
    env.wait(2.0)
    shorted = env.clock.time_s
    power(env, False)
    turned(env, 2)  # C against A, switched off with the box uncharged: open
    env.wait(2.0)
    idle = env.clock.time_s
    power(env, True)
    env.wait(5.0)
    power(env, False)  # charged: with the supply off, a reading counts while it holds 0.1 V
    env.wait(1.0)
    charged = env.clock.time_s
    lines = env.export("logger", "rows.csv")["csv"].splitlines()[1:]
    times = [float(line.split(",")[0]) for line in lines]
    rows = [min(range(len(times)), key=lambda i: abs(times[i] - t + 0.1)) for t in (shorted, idle, charged)]
    citations = [
        {"file": "rows.csv", "row": r, "column": "voltmeter", "value": float(lines[r].split(",")[1])}
        for r in rows
    ]
    env.submit(truth(env), citations)
    _, verdicts = env.score()
    charged_volts = float(lines[rows[2]].split(",")[1])
    expect_charged = abs(charged_volts) >= 0.1 + 0.005  # the zero error is within 5 mV
    assert [v.valid for v in verdicts][:2] == [False, False]
    if expect_charged:
        assert verdicts[2].valid, verdicts[2].reason


def test_too_few_pairs_do_not_reach_l4(every_env: LabEnv) -> None:
    network = network_of(every_env.instance)
    citations = log_pairs(every_env, ("AB", "BC"))
    every_env.evaluator.acted = True  # type: ignore[attr-defined]
    every_env.submit(truth(every_env), citations)
    score, _ = every_env.score()
    assert score.milestones["L4"].passed is (network == "parallel"), score.milestones["L4"].evidence


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = log_pairs(env)
    env.evaluator.acted = True  # type: ignore[attr-defined]
    turned(env, 0)
    power(env, True)
    env.wait(0.5)
    env.submit(truth(env), citations)
    score, _ = env.score()
    assert (
        score.level == 5 and score.process_score == 70 and "supply is on" in score.gates["restored"].evidence
    )


def test_a_fabricated_row_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = log_pairs(env)
    citations[5] = {**citations[5], "value": float(citations[5]["value"]) + 0.003}
    env.submit(truth(env), citations)
    score, _ = env.score()
    assert not score.gates["evidence"].passed and not score.success


def test_the_delta_taken_for_granted_fails_the_other_networks() -> None:
    naive = plan_of("three_terminal_box").naive.estimate
    for network, seed in SEEDS.items():
        guess = naive(draw(SPEC, seed))
        assert (guess["topology"] == network) is (network == "delta")


def test_the_displays_show_what_the_instrument_log_says() -> None:
    env = LabEnv("three_terminal_box", SEEDS["delta"])
    try:
        board(env).setting = 10
        turned(env, 0)
        power(env, True)
        read, observation = read_lcds(env, {"voltmeter": 6, "ammeter": 7})
        assert read == {name: observation.shown[name] for name in read}
    finally:
        env.close()
