"""Scoring the sample's specific heat (#24): a run with the cooling correction succeeds where the water's peak
misses; the block's temperature counts only with the sample in the heated block; an unrestored bench; the
tolerance; L4's need of the cooling after mixing.

Test scaffolding stands in for the agent's hands: the sample is moved by setting its position, the switch,
the setpoint and the LOG key by setting them; the block and the sample start at the controller's steady
temperature (set in the heat model) so that a run takes a few simulated minutes, not twenty."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.specific_heat import SOAK_S, SPEC, SpecificHeatEvaluator
from actloop.suites.lab.platforms.calorimeter import (
    CALORIMETER,
    CALORIMETER_HALF,
    FACE_CENTRES,
    FACES,
)
from actloop.suites.lab.platforms.thermal_bench import (
    BLOCK,
    BLOCK_HALF,
    HOLDER,
    HOLDER_HALF,
    KELVIN,
    steady_block_c,
)
from actloop.suites.lab.reference.specific_heat import HEATER, WATER, rows_of, specific_heat
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from calorimeter_scaffold import bench, heater, press_log, stand
from lcd_scaffold import assert_faces_read_back
from scoring_scaffold import succeeds_on_tolerance

KEY = "specific_heat"
RECORD_S = 330.0
Citation = dict[str, object]


def mix(env: LabEnv, tmp_path: Path) -> tuple[list[dict[str, float]], float, float]:
    """Log; the sample soaks in the block held at 80 degC's steady temperature, goes into the water and
    the mixture is recorded for RECORD_S; the heater off, the sample back in its holder; the log exported.
    Returns the rows, the time of the lift and of the mixing."""
    press_log(env)
    heater(env, True)
    bench(env).setpoint = 80.0
    steady = steady_block_c(80.0, env.instance.hidden["room"])
    for body in ("block", "sample"):
        bench(env).network.set_temperature(body, steady + KELVIN)
    stand(env, BLOCK, BLOCK_HALF[2])
    env.wait(SOAK_S + 20.0)
    lifted = env.clock.time_s
    stand(env, CALORIMETER, CALORIMETER_HALF[2])
    env.wait(0.2)
    mixed = env.clock.time_s
    env.wait(RECORD_S)
    heater(env, False)
    stand(env, HOLDER, HOLDER_HALF[2])
    env.wait(1.0)
    text = env.export("logger", "log.csv")["csv"]
    (tmp_path / "log.csv").write_text(text)
    return rows_of(text), lifted, mixed


def cite(rows: list[dict[str, float]], lifted: float, mixed: float) -> list[Citation]:
    """The block and the water in the ten seconds before the lift, the water every fourth row after mixing."""
    out: list[Citation] = []
    for i, row in enumerate(rows):
        if lifted - 10.0 <= row["time_s"] <= lifted:
            out += [{"file": "log.csv", "row": i, "column": c, "value": row[c]} for c in (HEATER, WATER)]
        elif row["time_s"] >= mixed and i % 4 == 0:
            out.append({"file": "log.csv", "row": i, "column": WATER, "value": row[WATER]})
    return out


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    assert isinstance(bench.evaluator, SpecificHeatEvaluator)
    bench.evaluator.acted = True  # scaffolding: the robot would have carried the sample
    yield bench
    bench.close()


def test_the_cooling_correction_succeeds_where_the_waters_peak_misses(env: LabEnv, tmp_path: Path) -> None:
    rows, lifted, mixed = mix(env, tmp_path)
    p = env.instance.public
    c_s = specific_heat(rows, lifted, mixed, p["sample_mass"], p["water_mass"])
    # the naive shortcut on the same rows: the water's peak, no loss counted
    before = next(r for r in reversed(rows) if r["time_s"] <= lifted)
    peak = max(r[WATER] for r in rows if r["time_s"] >= mixed)
    water_heat = p["water_mass"] * 4186.0 + 25.0
    naive = water_heat * (peak - before[WATER]) / (before[HEATER] - peak) / p["sample_mass"]
    truth = env.instance.hidden["c_s"]
    assert abs(naive / truth - 1) > 0.01 > abs(c_s / truth - 1)
    env.submit({"c_s": c_s}, cite(rows, lifted, mixed))
    result, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid][:3]
    assert result.success and result.process_score == 100, (result.gates, result.milestones)
    assert result.e <= 0.5, result.errors


def test_the_block_counts_only_with_the_sample_in_it_a_row_must_be_the_logs_and_l4_needs_the_cooling(
    env: LabEnv, tmp_path: Path
) -> None:
    rows, lifted, mixed = mix(env, tmp_path)
    early = [c for c in cite(rows, lifted, mixed) if rows[c["row"]]["time_s"] < mixed + 100.0]  # type: ignore[index]
    after = next(i for i, r in enumerate(rows) if r["time_s"] > mixed + 5.0)
    out_of_block = {"file": "log.csv", "row": after, "column": HEATER, "value": rows[after][HEATER]}
    forged = {**early[-1], "value": float(early[-1]["value"]) + 0.05}  # type: ignore[arg-type]
    env.submit(dict(env.evaluator.targets()), [*early, out_of_block, forged])
    result, verdicts = env.score()
    assert not result.gates["conditions"].passed and not result.gates["evidence"].passed
    assert "sample in the heated block" in verdicts[-2].reason and not verdicts[-1].valid
    assert not result.milestones["L4"].passed and "spanning" in result.milestones["L4"].evidence
    assert not result.success


def test_a_sample_left_in_the_water_fails_only_l6(env: LabEnv, tmp_path: Path) -> None:
    rows, lifted, mixed = mix(env, tmp_path)
    stand(env, CALORIMETER, CALORIMETER_HALF[2])
    env.wait(1.0)
    env.submit(dict(env.evaluator.targets()), cite(rows, lifted, mixed))
    result, _ = env.score()
    assert result.process_score == 70 and not result.success
    assert "not in its holder" in result.milestones["L6"].evidence


@pytest.mark.parametrize(("factor", "passes"), [(1.00999, True), (0.99001, True), (1.01002, False)])
def test_c_s_is_scored_within_one_percent(factor: float, passes: bool) -> None:
    judged = succeeds_on_tolerance({"c_s": 700.0 * factor}, {"c_s": 700.0}, SPEC.quantities)
    assert judged is passes


def test_t2_skills_start_the_logger_and_carry_the_sample_into_the_calorimeter() -> None:
    """Press starts the logger; grasp (located from the side), carry and place stand the sample in the
    calorimeter's well, where it exchanges heat with the water."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]
        skills.press(lab, "log_key")
        logging = server.run(lambda: {"on": bench(env).logging})["on"]
        skills.grasp(lab, "sample", camera="side")
        x, y, top = layout["calorimeter_well"]
        handle_top = layout["sample_handle"][1]
        skills.carry(lab, [x, y, top + handle_top + 0.03])
        floor = top - layout["well_depth"][0]
        skills.place(lab, [x, y, floor + 0.003 + handle_top - skills.GRIP_DEPTH])
        lab.wait(1.0)
        inside = server.run(lambda: {"in": bench(env).sample_in(env.data, "calorimeter")})["in"]
        lab.close()
    assert logging and inside and bench(env).sample_at == "water"
    env.close()


def test_the_thermometers_lcds_show_what_the_instrument_log_says() -> None:
    env = LabEnv(KEY, 3)
    try:
        heater(env, True)
        bench(env).setpoint = 50.0
        env.wait(20.0)
        env.observe()  # the faces are redrawn before frames
        assert_faces_read_back(env, FACES[:2], FACE_CENTRES)
    finally:
        env.close()
