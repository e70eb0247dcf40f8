"""Scoring the spring's stiffness from oscillation (#4): a run fitting 1/ω0² over four loads succeeds where
one load's period misses; encoder rows count only with the tray free; the refit of the cited rows; L4's three
loads; an unrestored bench; the tolerance.

Test scaffolding stands in for the agent's hands: weights are set on the tray by their pose (the tray then
swings about its new rest), the logger started by setting it, and the robot's touch of the tray by the
stand's contact watch answering so (the motion's own tests are in test_lab_oscillation_stand)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.spring_oscillation import SPEC, TRAY_KG, SpringOscillationEvaluator
from actloop.suites.lab.platforms.oscillation_stand import OscillationStand
from actloop.suites.lab.reference.fits import line
from actloop.suites.lab.reference.oscillation import fit_damped, undamped
from actloop.suites.lab.reference.spring_oscillation import rows_of
from actloop.suites.lab.scoring import Check, score
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from stand_scaffold import on_tray, place

KEY = "spring_oscillation"
RECORD_S = 4.0
Citation = dict[str, object]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def stand(env: LabEnv) -> OscillationStand:
    assert isinstance(env.platform, OscillationStand)
    return env.platform


def watcher(env: LabEnv) -> SpringOscillationEvaluator:
    assert isinstance(env.evaluator, SpringOscillationEvaluator)
    return env.evaluator


def swing(
    env: LabEnv, tmp_path: Path, loads: int = 4
) -> tuple[list[dict[str, float]], list[tuple[int, float]]]:
    """The logger on; one weight after another set on the tray, each swing recorded for RECORD_S; the log
    exported. Returns its rows and each load's start."""
    stand(env).logging = True
    starts = []
    for n in range(1, loads + 1):
        on_tray(env, n)
        env.wait(0.3)
        starts.append((n, env.clock.time_s))
        env.wait(RECORD_S)
    text = env.export("logger", "log.csv")["csv"]
    (tmp_path / "log.csv").write_text(text)
    return rows_of(text), starts


def cite(
    rows: list[dict[str, float]], starts: list[tuple[int, float]]
) -> tuple[list[Citation], list[tuple[int, float]]]:
    """Every second row of each load's swing, and each load's fitted ω0."""
    citations: list[Citation] = []
    omegas = []
    for n, start in starts:
        inside = [i for i, r in enumerate(rows) if start <= r["time_s"] <= start + RECORD_S - 0.1]
        fit = fit_damped([rows[i]["time_s"] for i in inside], [rows[i]["encoder"] for i in inside])
        omegas.append((n, undamped(fit)))
        citations += [
            {"file": "log.csv", "row": i, "column": "encoder", "value": rows[i]["encoder"]}
            for i in inside[::2]
        ]
    return citations, omegas


def stiffness(env: LabEnv, omegas: list[tuple[int, float]]) -> float:
    slope, _ = line([(n * stand(env).weight_mass, 1.0 / w**2) for n, w in omegas])
    return 1.0 / slope


def restore(env: LabEnv) -> None:
    for n in range(1, 6):
        place(env, n, stand(env).rack_position(n))
    env.wait(1.0)


def test_the_slope_over_four_loads_succeeds_where_one_loads_period_misses(
    env: LabEnv, tmp_path: Path
) -> None:
    rows, starts = swing(env, tmp_path)
    citations, omegas = cite(rows, starts)
    k = stiffness(env, omegas)
    naive = (TRAY_KG + stand(env).weight_mass) * omegas[0][1] ** 2
    truth = env.instance.hidden["k"]
    assert abs(naive / truth - 1) > 0.02 > 0.001 > abs(k / truth - 1)
    watcher(env).acted = True
    restore(env)
    env.submit({"k": k}, citations)
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid][:3]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.gates["refit"].passed and result.e <= 0.5


def test_a_row_logged_while_the_robot_touched_the_tray_fails_the_condition_gate(
    env: LabEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows, starts = swing(env, tmp_path, loads=3)
    citations, omegas = cite(rows, starts)
    contacts = stand(env)._contacts
    assert contacts is not None
    plate = stand(env)._plate
    for watch in (contacts, watcher(env).watch(env.model)):
        monkeypatch.setattr(watch, "touched", lambda data: {plate})
    env.wait(0.5)
    monkeypatch.undo()
    text = env.export("logger", "late.csv")["csv"]
    late = rows_of(text)
    (tmp_path / "late.csv").write_text(text)
    citations.append(
        {"file": "late.csv", "row": len(late) - 10, "column": "encoder", "value": late[-10]["encoder"]}
    )
    restore(env)
    env.submit({"k": stiffness(env, omegas)}, citations)
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and "tray free did not hold" in verdicts[-1].reason


def test_a_forged_row_fails_the_evidence_gate_and_a_result_off_its_rows_fails_the_refit(
    env: LabEnv, tmp_path: Path
) -> None:
    rows, starts = swing(env, tmp_path, loads=3)
    citations, omegas = cite(rows, starts)
    restore(env)
    forged = [*citations[:-1], {**citations[-1], "value": float(citations[-1]["value"]) + 0.05}]  # type: ignore[arg-type]
    env.submit({"k": stiffness(env, omegas) * 1.01}, forged)
    result, _ = env.score()
    assert not result.gates["evidence"].passed and not result.gates["refit"].passed


def test_two_loads_reach_neither_l4(env: LabEnv, tmp_path: Path) -> None:
    rows, starts = swing(env, tmp_path, loads=2)
    citations, omegas = cite(rows, starts)
    restore(env)
    env.submit({"k": stiffness(env, omegas)}, citations)
    result, _ = env.score()
    assert not result.milestones["L4"].passed and "loads [1, 2]" in result.milestones["L4"].evidence
    assert result.milestones["L2"].passed and result.milestones["L3"].passed


def test_weights_left_on_the_tray_fail_only_l6(env: LabEnv, tmp_path: Path) -> None:
    rows, starts = swing(env, tmp_path)
    citations, omegas = cite(rows, starts)
    watcher(env).acted = True
    env.submit({"k": stiffness(env, omegas)}, citations)
    result, _ = env.score()
    assert result.process_score == 70 and result.level == 5 and not result.success


@pytest.mark.parametrize(("factor", "passes"), [(1.00199, True), (0.99801, True), (1.00202, False)])
def test_k_is_scored_within_two_tenths_of_a_percent(factor: float, passes: bool) -> None:
    gates = [Check(name, True, "held") for name in ("evidence", "conditions", "restored", "refit")]
    milestones = [Check(name, True, "reached") for name in ("L1", "L2", "L3", "L4")]
    judged = score({"k": 30.0 * factor}, {"k": 30.0}, SPEC.quantities, gates, milestones)
    assert judged.success is passes


def test_the_fit_recovers_a_damped_oscillations_undamped_frequency() -> None:
    times = [i / 120 for i in range(600)]
    omega0, gamma = 14.0, 0.4
    omega = math.sqrt(omega0**2 - gamma**2)
    values = [
        3.0 + math.exp(-gamma * t) * (12.0 * math.cos(omega * t) - 4.0 * math.sin(omega * t)) for t in times
    ]
    assert undamped(fit_damped(times, values)) == pytest.approx(omega0, rel=1e-6)


def test_t2_skills_press_log() -> None:
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        skills.press(lab, "log_key")
        logging = server.run(lambda: {"on": stand(env).logging})["on"]
        lab.close()
    env.close()
    assert logging
