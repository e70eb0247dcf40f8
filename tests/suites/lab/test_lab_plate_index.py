"""Scoring the plate's refractive index on the optical rail: the block moving the image by t (1 - 1/n), the
with/without-the-block condition, gates, milestones and the restored bench; the scale read back.

Test scaffolding stands in for the agent's hands and eyes: the lens and the block are seated and the
carriages set by writing their joints, and close-ups of the scale are logged as served with the readability
a close wrist camera has (as in the lens focal length's tests).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab import audit
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiment import Experiment
from actloop.suites.lab.experiments import experiment
from actloop.suites.lab.experiments.plate_index import BLOCK_X, LENS_X, PlateEvaluator
from actloop.suites.lab.instance import draw
from actloop.suites.lab.platforms.optical_rail import (
    FOCUS_BLUR_M,
    LENS_HALF,
    RAIL_TOP,
    RAIL_Y,
    SCREEN,
    OpticalRail,
    holder_floor,
)
from actloop.suites.lab.reference.ruler import read_ruler
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills, write_workspace
from rail_scaffold import put_item, seat_item, serve_view, set_slider, to_stand

SEED = 3
BLOCK_HALF = (0.025, 0.02, 0.02)
INDEXES = ("lens_index", "screen_index")


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("plate_index", SEED, render=False)
    yield bench
    bench.close()


def rail(env: LabEnv) -> OpticalRail:
    assert isinstance(env.platform, OpticalRail)
    return env.platform


def evaluator(env: LabEnv) -> PlateEvaluator:
    assert isinstance(env.evaluator, PlateEvaluator)
    return env.evaluator


def seat(env: LabEnv, item: str, x: float) -> None:
    """Set the carriage named after ``item`` at ``x`` and the item in its holder."""
    seat_item(env, item, item, x)


def image_x(env: LabEnv) -> float:
    bench = rail(env)
    assert bench.rail is not None
    return bench.rail.image().position


def focus(env: LabEnv, block: bool, defocus: float = 0.0) -> None:
    """The lens seated at its carriage's start, the block seated beyond it or in its stand, and the screen
    at the image plus ``defocus``; the bench settled."""
    seat(env, "lens", LENS_X)
    if block:
        seat(env, "block", BLOCK_X)
    else:
        to_stand(env, "block")
    set_slider(env, SCREEN.name, 0.25)
    env.wait(0.3)
    set_slider(env, SCREEN.name, image_x(env) + defocus)
    env.wait(1.2)


def read(env: LabEnv) -> list[dict[str, object]]:
    """Serve a close-up of the scale (every index readable) and cite the lens and screen marks."""
    return serve_view(env, INDEXES, 4.7, decimals=1)


def measure(env: LabEnv, defocus: tuple[float, float] = (0.0, 0.0)) -> list[dict[str, object]]:
    """Focused readings without and then with the block (each screen ``defocus`` from its image)."""
    citations: list[dict[str, object]] = []
    for block, off in zip((False, True), defocus, strict=True):
        focus(env, block, off)
        citations += read(env)
    return citations


def index_from(citations: list[dict[str, object]]) -> float:
    """n = 1 / (1 - Δ / t) from the screen's readings without and with the block."""
    without, with_block = (float(c["value"]) for c in citations if c["instrument"] == "screen_index")  # type: ignore[arg-type]
    return 1.0 / (1.0 - (with_block - without) / 50.0)


def restore(env: LabEnv) -> None:
    to_stand(env, "lens")
    to_stand(env, "block")
    env.wait(1.0)


def test_the_seated_block_moves_the_image_by_t_times_one_minus_one_over_n(env: LabEnv) -> None:
    n, t = env.instance.hidden["n"], env.instance.public["thickness"]
    focus(env, False)
    without = image_x(env)
    assert rail(env).blur_diameter() < 1e-4 * FOCUS_BLUR_M
    focus(env, True)
    assert rail(env).seats == {"lens": "lens", "block": "block"}
    assert image_x(env) - without == pytest.approx(t * (1 - 1 / n), abs=1e-9)  # 1e-7 of the tolerance
    assert rail(env).blur_diameter() < 1e-4 * FOCUS_BLUR_M
    assert evaluator(env).in_beam.now


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the lens and the block
    restore(env)
    env.submit({"n": index_from(citations)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and len(verdicts) == 4
    assert score.success and score.e <= 0.5 and score.process_score == 100, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


def test_readings_without_the_block_only_miss_l4_and_the_evidence_minimum(env: LabEnv) -> None:
    citations: list[dict[str, object]] = []
    for defocus in (0.0, 0.0002):
        focus(env, False, defocus)
        citations += read(env)
    evaluator(env).acted = True
    restore(env)
    env.submit({"n": env.instance.hidden["n"]}, citations)
    score, _ = env.score()
    assert not score.milestones["L4"].passed and "with the block" in score.milestones["L4"].evidence
    assert not score.gates["evidence"].passed and "states of the block" in score.gates["evidence"].evidence


def test_a_block_seated_beyond_the_screen_is_not_in_the_beam(env: LabEnv) -> None:
    focus(env, False)
    seat(env, "block", image_x(env) + 0.06)  # its carriage past the screen's
    env.wait(0.5)
    assert rail(env).seats["block"] == "block" and not evaluator(env).in_beam.now


def test_the_lens_does_not_seat_in_the_blocks_holder(env: LabEnv) -> None:
    seat(env, "block", BLOCK_X)
    to_stand(env, "block")
    put_item(env, "lens", (BLOCK_X, RAIL_Y, RAIL_TOP + holder_floor(BLOCK_HALF) + LENS_HALF[2] + 0.0003))
    env.wait(0.5)
    assert rail(env).seats["lens"] is None


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    to_stand(env, "lens")
    env.wait(1.0)
    env.submit({"n": index_from(citations)}, citations)  # the block is still in its carriage
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "block is not in its stand" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env)
    citations[3] = {**citations[3], "value": float(citations[3]["value"]) + 1.0}  # type: ignore[arg-type]
    restore(env)
    env.submit({"n": env.instance.hidden["n"]}, citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert [v.valid for v in verdicts] == [True, True, True, False]


def test_a_reading_out_of_focus_fails_the_condition_gate(env: LabEnv) -> None:
    citations = measure(env, (0.0, 0.006))
    assert rail(env).blur_diameter() > 2 * FOCUS_BLUR_M
    restore(env)
    env.submit({"n": env.instance.hidden["n"]}, citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and all("did not hold" in v.reason for v in verdicts[2:])
    assert all(v.valid for v in verdicts[:2])


def test_the_screen_anywhere_in_focus_misses_the_tolerance(env: LabEnv) -> None:
    """The naive shortcut on the bench: each focus at the in-focus window's edge (the shift shortened by
    both windows' width), every reading valid, n off by far more than 3 %."""
    window = []
    for block in (False, True):
        focus(env, block, 0.001)
        window.append(0.001 * FOCUS_BLUR_M / rail(env).blur_diameter())
    citations = measure(env, (0.95 * window[0], -0.95 * window[1]))
    evaluator(env).acted = True
    restore(env)
    env.submit({"n": index_from(citations)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and score.gates["conditions"].passed
    assert score.e > 2 and not score.success


@pytest.mark.parametrize(
    ("factor", "succeeds"), [(1.0299, True), (1.0301, False), (0.9701, True), (0.9699, False)]
)
def test_the_tolerance_is_three_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    restore(env)
    env.submit({"n": env.instance.hidden["n"] * factor}, citations)
    score, _ = env.score()
    assert score.errors["n"] == pytest.approx(abs(factor - 1) / 0.03, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds and score.success is succeeds


def test_the_audits_shortcut_fails_where_the_window_is_wide_and_the_standard_design_succeeds() -> None:
    built: Experiment = experiment("plate_index")
    plan = plan_of("plate_index")
    misses = 0
    for seed in range(1, 41):
        instance = draw(built.spec, seed)
        target = plan.target(instance)
        assert audit._within(built.spec, plan.standard.estimate(instance), target), seed
        misses += not audit._within(built.spec, plan.naive.estimate(instance), target)
    assert misses > 20


def test_the_rendered_scale_shows_what_the_log_says() -> None:
    env = LabEnv("plate_index", SEED)
    try:
        set_slider(env, SCREEN.name, 0.1237)
        env.wait(0.1)
        renderer = env.renderer()
        env._model.cam_fovy[env._model.camera("observer").id] = 50.0
        for name in ("object_index", "lens_index", "block_index", "screen_index"):
            site = rail(env).reading_sites(env._world.data)[name]
            eye = site.point + np.array([0.0, -0.11, -0.006])
            pose = look_at(eye, eye + np.array([0.0, 1.0, 0.0]))
            image = renderer.render_from(env._world.data, np.array(pose.position), pose.rotation())
            reading = read_ruler(np.ascontiguousarray(np.rot90(image[120:360, 160:480], 1)))
            shown = env.instrument_log.shown_at(name, env.clock.time_s)
            assert isinstance(shown, float) and abs(reading.value_mm - shown) < 0.3, name
    finally:
        env.close()


def test_the_card_states_the_thickness_and_what_counts_as_with_the_block() -> None:
    from actloop.suites.lab.card import task_card

    spec = experiment("plate_index").spec
    card = task_card(spec, draw(spec, 1))
    assert "the glass block's printed thickness along the rail (`thickness`): 0.05 m" in card
    assert "with the block while the block is seated in a holder between the slide and the screen" in card
    assert "screen_index readings at 2 or more different states of the block (in the beam or not)" in card


def test_t2_skills_seat_the_block_in_its_carriage(tmp_path: Path) -> None:
    """T2 on this bench: the workspace's skills (T1 segmentation and planned motion) locate the block from
    the wrist camera above its stand (the fixed cameras see its front face, off its centre), grasp it by its
    grip, carry it over the block carriage's holder and set it in (its hang in the hand measured, as an agent
    would look at it)."""
    env = LabEnv("plate_index", SEED, level="T2")
    seat_z = RAIL_TOP + holder_floor(BLOCK_HALF) + BLOCK_HALF[2]
    skills = load_skills()
    with serving(env) as server:
        write_workspace(tmp_path, "card", server.url, server.token, "T2")
        lab = load_client().Lab(server.url, server.token)
        stand = lab.calibration()["layout"]["block_stand"]
        lab.move_hand([stand[0], stand[1], 1.2], skills.DOWN)
        skills.grasp(lab, "block", camera="wrist")
        hand = skills.carry(lab, [BLOCK_X, RAIL_Y, seat_z - 0.04])["hand_position"]
        held = server.run(lambda: {"at": [float(v) for v in env.data.body("block").xpos]})["at"]
        pads_above_centre = hand[2] - skills.PAD_REACH - held[2]
        skills.place(lab, [BLOCK_X - (held[0] - hand[0]), RAIL_Y - (held[1] - hand[1]),
                           seat_z + pads_above_centre + 0.002])  # fmt: skip
        lab.close()
    env.wait(0.5)
    assert rail(env).seats == {"lens": None, "block": "block"}, env.data.body("block").xpos
    env.close()
