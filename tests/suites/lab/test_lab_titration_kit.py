"""The titration bench: drops fall from the tip into the beaker on the stirrer, counted exactly, at a rate
that rises with the stopcock's opening; drops with no beaker below are spills; the electrode reads the
beaker it hangs in (through its calibration error and lag) and its storage solution otherwise; the bench's
pH follows the closed-form strong-acid titration curve; the restore rule names every part out of place;
T2's skills work the bench (scaffolding in titration_scaffold: bodies and joints set directly)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.physics.acid_base import KW
from actloop.suites.lab.physics.burette import Burette
from actloop.suites.lab.platforms.titration import (
    BEAKER_HALF_HEIGHT,
    BEAKER_SHAPE,
    BURETTE_ML,
    CLOSED_RAD,
    DROP_ML,
    HUNG_TIP_Z,
    IMMERSED_M,
    OPEN_RAD,
    PLATE_Z,
    STORAGE_PH,
    beaker_spot,
)
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills
from titration_scaffold import bench, hang, on_stirrer, press_log, put, restore, store, turn

KEY = "strong_acid_titration"


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 1, render=False)
    yield bench
    bench.close()


def sample_ml(env: LabEnv) -> float:
    return float(env.instance.public["sample_ml"])


def test_drops_fall_into_the_beaker_on_the_stirrer_and_are_counted_exactly(env: LabEnv) -> None:
    on_stirrer(env, 1)
    turn(env, OPEN_RAD)
    env.wait(4.0)
    turn(env, 0.0)
    env.wait(0.5)
    drops = bench(env).burette.drops
    assert 25 <= drops <= 33  # about 8 a second fully open
    env.wait(3.0)
    assert bench(env).burette.drops == drops  # closed: nothing more falls
    assert bench(env).vessels.stored(0).volume_ml == pytest.approx(sample_ml(env) + drops * DROP_ML, abs=1e-9)
    assert env.panel.shown("drops") == float(drops)
    assert not bench(env).vessels.spills


@pytest.mark.parametrize("angle", [0.5 * CLOSED_RAD, 0.4, 0.8, OPEN_RAD])
def test_the_flow_rises_with_the_opening_as_the_burette_law_says(env: LabEnv, angle: float) -> None:
    on_stirrer(env, 1)
    turn(env, angle)
    env.wait(10.0)
    expected = Burette(BURETTE_ML, DROP_ML).rate(angle / OPEN_RAD) * 10.0
    assert abs(bench(env).burette.drops - expected) <= 1.0
    if angle < CLOSED_RAD:
        assert bench(env).burette.drops == 0


def test_drops_with_no_beaker_under_the_tip_are_spills_that_leave_the_bench_unrestored(env: LabEnv) -> None:
    turn(env, OPEN_RAD)
    env.wait(2.0)
    turn(env, 0.0)
    env.wait(0.5)
    spilled = bench(env).vessels.spilled_ml()
    assert spilled["burette"] == pytest.approx(bench(env).burette.drops * DROP_ML)
    restore(env)
    check = env.evaluator.restored(env.model, env.data)
    assert not check.passed and "burette spilled" in check.evidence


def test_the_electrode_reads_the_beaker_it_hangs_in_and_its_storage_solution_otherwise(env: LabEnv) -> None:
    electrode = bench(env).electrode
    env.wait(20.0)
    assert env.panel.shown("ph") == pytest.approx(electrode.reads(STORAGE_PH), abs=0.015)
    hang(env)
    env.wait(20.0)  # no beaker under the sleeve: the electrode hangs in air
    assert bench(env).immersed_in() is None
    assert env.panel.shown("ph") == pytest.approx(electrode.reads(STORAGE_PH), abs=0.015)
    store(env)
    on_stirrer(env, 2)
    hang(env)
    assert bench(env).immersed_in() == 1
    env.wait(2.0)  # the electrode lags (2 s): not there yet
    true = bench(env).beaker_ph(1)
    lagging = env.panel.shown("ph")
    assert isinstance(lagging, float) and lagging > electrode.reads(true) + 0.5
    env.wait(20.0)
    assert env.panel.shown("ph") == pytest.approx(electrode.reads(true), abs=0.015)
    assert true == pytest.approx(-math.log10(env.instance.hidden["c_HCl"]), abs=0.01)


def test_the_smallest_sample_covers_the_bulb() -> None:
    floor = PLATE_Z + BEAKER_HALF_HEIGHT + BEAKER_SHAPE.floor_z
    surface = floor + BEAKER_SHAPE.fill_height(40.0)
    assert surface - HUNG_TIP_Z >= IMMERSED_M + 0.004
    assert floor + BEAKER_SHAPE.fill_height(8.0) < HUNG_TIP_Z + IMMERSED_M  # a little liquid does not


def closed_form_ph(acid_mol: float, base_mol: float, volume_l: float) -> float:
    """A strong acid titrated with a strong base: [H⁺] − Kw/[H⁺] = (n_acid − n_base) / V, solved exactly."""
    excess = (acid_mol - base_mol) / volume_l
    root = math.sqrt(excess * excess / 4 + KW)
    h = excess / 2 + root if excess >= 0 else KW / (root - excess / 2)  # the stable root either side
    return -math.log10(h)


def test_the_bench_ph_follows_the_closed_form_titration_curve(env: LabEnv) -> None:
    """Drops on the bench, before, at and after the equivalence point, against the exact strong-acid
    curve (water's ions included)."""
    on_stirrer(env, 1)
    acid = env.instance.hidden["c_HCl"] * sample_ml(env) / 1000.0
    titrant = bench(env).titrant_m
    equivalence = acid / titrant * 1000.0 / DROP_ML  # in drops
    checked = []
    for target in (equivalence * 0.5, equivalence - 1.0, equivalence + 1.0, equivalence + 20.0):
        turn(env, OPEN_RAD if bench(env).burette.drops < target - 8 else 0.35)
        while bench(env).burette.drops < math.floor(target):
            env.wait(0.05)
            if bench(env).burette.drops >= target - 8:
                turn(env, 0.35)
        turn(env, 0.0)
        n = bench(env).burette.drops
        volume = (sample_ml(env) + n * DROP_ML) / 1000.0
        expected = closed_form_ph(acid, n * DROP_ML / 1000.0 * titrant, volume)
        assert bench(env).beaker_ph(0) == pytest.approx(expected, abs=1e-9)
        checked.append(expected)
    assert checked[1] < 5.0 < 9.0 < checked[2]  # the leap across the equivalence point


def test_the_restore_rule_names_every_part_out_of_place(env: LabEnv) -> None:
    on_stirrer(env, 1)
    hang(env)
    turn(env, 0.5)
    env.wait(0.5)
    problems = " ".join(env.evaluator.restore_problems(env.data))
    assert "beaker_1 is" in problems and "electrode is not in its storage well" in problems
    assert "stopcock is open" in problems
    turn(env, 0.0)
    store(env)
    put(env, "beaker_1", beaker_spot(1))
    env.wait(1.0)
    assert not env.evaluator.restore_problems(env.data)


def test_t2_skills_press_the_log_key_and_lift_the_electrode_and_a_beaker_and_stand_them_back(
    tmp_path: Path,
) -> None:
    """Press starts the logger; grasp (located from the side, fingers closing along y), carry and place
    lift the electrode out of its storage well and a beaker off its spot and stand them back where they
    were taken from (the hand where it closed on them)."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]
        skills.press(lab, "key_log")
        assert server.run(lambda: {"on": bench(env).logging})["on"]
        lab.move_hand(
            [0.1, -0.25, 1.05], skills.DOWN
        )  # in front of the burette: the arm cannot pass through it
        x, y, _ = skills.grasp(lab, "electrode", camera="side")["hand_position"]
        lifted = server.run(lambda: {"z": float(env.data.body("electrode").xpos[2])})["z"]
        top = layout["storage_well"][2]
        floor, handle = layout["storage_well_floor"][0], layout["electrode_handle"][1]
        skills.carry(lab, [x, y, floor + handle + 0.03])
        skills.place(lab, [x, y, floor + handle - skills.GRIP_DEPTH + 0.003])
        x, y, _ = skills.grasp(lab, "beaker_3", camera="side")["hand_position"]
        stand, height = layout["beaker_3_spot"][2], layout["beaker_size"][2]
        skills.carry(lab, [x, y, stand + height + 0.03])
        skills.place(lab, [x, y, stand + height - skills.GRIP_DEPTH + 0.002])
        lab.close()
    assert lifted > top + 0.02
    assert not env.evaluator.restore_problems(env.data), env.evaluator.restore_problems(env.data)
    env.close()


def test_pressing_log_starts_and_stops_the_logger(env: LabEnv) -> None:
    press_log(env)
    assert bench(env).logging
    env.wait(2.0)
    press_log(env)
    assert not bench(env).logging
    assert len(env.instrument_log.rows("logger")) >= 4
