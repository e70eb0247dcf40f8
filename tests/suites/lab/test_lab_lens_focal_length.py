"""Scoring the lens focal length on the optical rail: the seated-and-focused condition, gates, milestones
and the restored bench; the screen's image and the scale's readability.

Test scaffolding stands in for the agent's hands and eyes: the lens is seated and the carriages are set
by writing their joints, and close-ups of the scale are logged as served with the readability a close
wrist camera has (the readability geometry itself and the rendered scale are tested on real images).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import mujoco
import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.lens_focal_length import LensEvaluator
from actloop.suites.lab.physics.optics import Rail, ThinLens
from actloop.suites.lab.platforms.optical_rail import (
    FOCUS_BLUR_M,
    LENS_APERTURE,
    LENS_HALF,
    OBJECT_X,
    RAIL_TOP,
    RAIL_Y,
    SCREEN,
    OpticalRail,
    holder_floor,
    screen_image,
)
from actloop.suites.lab.platforms.optical_rail_evaluation import FOCUSED
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.lens_focal_length import fit_focal_length
from actloop.suites.lab.reference.ruler import read_ruler
from rail_scaffold import put_item, seat_item, serve_view, set_slider, to_stand

INDEXES = ("object_index", "lens_index", "screen_index")


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("lens_focal_length", 4, render=False)
    yield bench
    bench.close()


def rail(env: LabEnv) -> OpticalRail:
    assert isinstance(env.platform, OpticalRail)
    return env.platform


def evaluator(env: LabEnv) -> LensEvaluator:
    assert isinstance(env.evaluator, LensEvaluator)
    return env.evaluator


def focus_at(env: LabEnv, u: float, defocus: float = 0.0, screen_x: float | None = None) -> None:
    """Seat the lens with its principal plane u from the slide (its index mark δ nearer the slide), move
    its carriage there and the screen to the image (plus ``defocus``) unless ``screen_x`` is given, and
    let the bench settle."""
    lens_x = OBJECT_X + u - env.instance.hidden["principal_offset"]
    seat_item(env, "lens", "lens", lens_x)
    f = env.instance.hidden["f"]
    set_slider(env, SCREEN.name, OBJECT_X + u + u * f / (u - f) + defocus if screen_x is None else screen_x)
    env.wait(1.5)


def read_all(env: LabEnv) -> list[dict[str, object]]:
    """Serve a close-up of the scale (every index readable, as from a wrist camera 11 cm away) and cite
    each index mark."""
    return serve_view(env, INDEXES, 4.7, decimals=1)


def measure(env: LabEnv) -> list[dict[str, object]]:
    """Focused readings at u = 1.6f, 2f and 2.6f."""
    f = env.instance.hidden["f"]
    citations: list[dict[str, object]] = []
    for factor in (2.6, 2.0, 1.6):
        focus_at(env, factor * f)
        citations += read_all(env)
    return citations


def pairs(citations: list[dict[str, object]]) -> list[tuple[float, float]]:
    """The conjugate pairs (u, v) in m read from the index marks of each focused set of readings."""
    values = [float(c["value"]) for c in citations]  # type: ignore[arg-type]
    out = []
    for i in range(0, len(values), 3):
        obj, lens, screen = values[i : i + 3]
        out.append(((lens - obj) / 1000, (screen - lens) / 1000))
    return out


def focal_length(citations: list[dict[str, object]]) -> float:
    """What the agent computes: f and the principal plane's offset fitted to the conjugate pairs."""
    return fit_focal_length(pairs(citations))[0]


def restore(env: LabEnv) -> None:
    to_stand(env, "lens")
    env.wait(1.0)


def test_a_careful_run_succeeds_with_every_milestone(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True  # scaffolding: the robot would have carried the lens
    restore(env)
    f = focal_length(citations)
    env.submit({"f": f}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and len(verdicts) == 9
    assert score.success and score.e <= 0.5 and score.process_score == 100, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


def test_the_displacement_method_succeeds_with_every_milestone(env: LabEnv) -> None:
    """The screen fixed D from the slide, the lens at its two focus positions d apart: f = (D² − d²) / 4D
    whatever the principal plane's offset."""
    f, distance = env.instance.hidden["f"], 0.45
    gap = math.sqrt(distance * distance - 4 * distance * f)
    citations: list[dict[str, object]] = []
    for u in ((distance - gap) / 2, (distance + gap) / 2):
        focus_at(env, u, screen_x=OBJECT_X + distance)
        assert rail(env).blur_diameter() < 1e-9
        citations += read_all(env)
    evaluator(env).acted = True
    restore(env)
    (first_u, first_v), (second_u, _) = pairs(citations)
    d_read, gap_read = first_u + first_v, second_u - first_u
    env.submit({"f": (d_read * d_read - gap_read * gap_read) / (4 * d_read)}, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts) and score.success and score.e <= 0.5, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


def test_the_image_lies_where_the_thin_lens_law_puts_it_from_the_principal_plane(env: LabEnv) -> None:
    """The blur circle vanishes where 1 / (u + δ) + 1 / (v − δ) = 1 / f with u and v from the index mark;
    the thin-lens formula on the marks alone is off by the closed form's bias."""
    f, delta = env.instance.hidden["f"], env.instance.hidden["principal_offset"]
    assert 0.005 <= delta <= 0.012
    for u in (0.20, 2 * f, 3 * f):
        lens_x = OBJECT_X + u
        seat_item(env, "lens", "lens", lens_x)
        v = (u + delta) * f / (u + delta - f) + delta  # the image from the mark, closed form
        set_slider(env, SCREEN.name, lens_x + v)
        env.wait(0.5)
        bench = rail(env)
        assert bench.blur_diameter() < 1e-4 * FOCUS_BLUR_M  # far under a tenth of the focus bound
        assert bench.rail is not None
        image = bench.rail.image()
        assert image.position == pytest.approx(lens_x + v, abs=1e-9)
        assert image.magnification == pytest.approx(-(v - delta) / (u + delta), rel=1e-9)
        naive = u * v / (u + v)
        assert naive - f == pytest.approx((delta * (u - v) + delta * delta) / (u + v), rel=1e-9)


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    env.submit({"f": focal_length(citations)}, citations)  # the lens is still in the carriage
    score, _ = env.score()
    assert not score.success and score.level == 5 and score.process_score == 70
    assert "lens is not in its stand" in score.gates["restored"].evidence


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    citations = measure(env)
    citations[4] = {**citations[4], "value": float(citations[4]["value"]) + 1.0}  # type: ignore[arg-type]
    restore(env)
    env.submit({"f": env.instance.hidden["f"]}, citations)
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.success
    assert (
        "8 of 9 citations match" in score.gates["evidence"].evidence
        and [v.valid for v in verdicts].count(False) == 1 == len(verdicts) - 8
    )


def test_a_reading_out_of_focus_fails_the_condition_gate(env: LabEnv) -> None:
    citations = measure(env)
    f = env.instance.hidden["f"]
    focus_at(env, 2 * f, defocus=0.008)  # the blur circle is well over the threshold
    assert rail(env).blur_diameter() > 2 * FOCUS_BLUR_M
    citations += read_all(env)
    restore(env)
    env.submit({"f": f}, citations)
    score, verdicts = env.score()
    assert not score.gates["conditions"].passed and all("did not hold" in v.reason for v in verdicts[-3:])
    assert all(v.valid for v in verdicts[:-3])


def test_the_image_is_in_focus_only_near_the_image_plane_and_with_the_lens_seated(env: LabEnv) -> None:
    f = env.instance.hidden["f"]
    focus_at(env, 2 * f, defocus=0.0008)  # a blur of a quarter of a millimetre: in focus
    assert rail(env).seats["lens"] == "lens" and env.evaluator.tracker._open.get(FOCUSED)
    focus_at(env, 2 * f, defocus=0.003)
    assert rail(env).blur_diameter() > FOCUS_BLUR_M and not env.evaluator.tracker._open.get(FOCUSED)
    focus_at(env, 2 * f)
    lifted = RAIL_TOP + holder_floor(LENS_HALF) + LENS_HALF[2] + 0.02
    put_item(env, "lens", (OBJECT_X + 2 * f, RAIL_Y, lifted))
    env.wait(0.05)
    assert rail(env).seats["lens"] is None and math.isinf(rail(env).blur_diameter())
    assert not env.evaluator.tracker._open.get(FOCUSED)


@pytest.mark.parametrize(("factor", "succeeds"), [(1.0099, True), (1.0101, False), (0.9901, True)])
def test_the_tolerance_is_one_percent(env: LabEnv, factor: float, succeeds: bool) -> None:
    citations = measure(env)
    evaluator(env).acted = True
    restore(env)
    env.submit({"f": env.instance.hidden["f"] * factor}, citations)
    score, _ = env.score()
    assert score.errors["f"] == pytest.approx(abs(factor - 1) / 0.01, rel=1e-6)
    assert score.gates["evidence"].passed and (score.e <= 1) is succeeds and score.success is succeeds


def test_a_close_camera_reads_an_index_and_a_far_one_does_not(env: LabEnv) -> None:
    site = rail(env).reading_sites(env._world.data)["lens_index"]
    for distance, readable in ((0.11, True), (0.5, False)):
        pose = look_at(site.point + np.array([0.0, -distance, 0.0]), site.point)
        (seen,) = visibility(
            env._model, env._world.data, "test", (np.array(pose.position), pose.rotation()), 514.7,
            {"lens_index": site},
        )  # fmt: skip
        assert seen.in_view and seen.unoccluded and (seen.pixel_size >= 3.0) is readable


def test_the_rendered_scale_shows_what_the_log_says() -> None:
    env = LabEnv("lens_focal_length", 4)
    try:
        set_slider(env, SCREEN.name, 0.1237)
        env.wait(0.1)
        renderer = env.renderer()
        env._model.cam_fovy[env._model.camera("observer").id] = 50.0
        for name in INDEXES:
            site = rail(env).reading_sites(env._world.data)[name]
            eye = site.point + np.array([0.0, -0.11, -0.006])
            pose = look_at(eye, eye + np.array([0.0, 1.0, 0.0]))
            image = renderer.render_from(env._world.data, np.array(pose.position), pose.rotation())
            reading = read_ruler(np.ascontiguousarray(np.rot90(image[120:360, 160:480], 1)))
            shown = env.instrument_log.shown_at(name, env.clock.time_s)
            assert isinstance(shown, float) and abs(reading.value_mm - shown) < 0.3, name
    finally:
        env.close()


def test_the_screen_is_sharp_in_focus_blurred_out_of_it_and_dimmer_at_higher_magnification() -> None:
    def view(u: float, defocus: float) -> np.ndarray:
        f = 0.08
        v = u * f / (u - f)
        return screen_image(Rail(0.0, (ThinLens(u, f, LENS_APERTURE),), u + v + defocus))

    def edges(image: np.ndarray) -> float:
        grey = image.astype(float).mean(axis=2)
        return float((np.diff(grey, axis=0) ** 2).mean() + (np.diff(grey, axis=1) ** 2).mean())

    sharp, soft, blurred = (edges(view(0.16, defocus)) for defocus in (0.0, 0.004, 0.012))
    assert sharp > 2 * soft > 4 * blurred
    near, far = view(0.24, 0.0), view(0.12, 0.0)  # magnification 0.5 and 2
    assert near.max() > far.max() and far.max() > 0.35 * 255
    assert (screen_image(None) == screen_image(None)[0, 0]).all()  # no lens: only the room's light


def test_every_part_is_drawn_and_the_lens_starts_in_its_stand(env: LabEnv) -> None:
    bench = rail(env)
    assert bench.in_stand(env._world.data, bench.items[0]) and bench.seats["lens"] is None
    names = {env._model.body(i).name for i in range(env._model.nbody)}
    assert {"rail", "rail_scale", "lamp", "lens", "lens_stand", "lens_carriage", "screen_carriage"} <= names
    assert mujoco.mj_name2id(env._model, mujoco.mjtObj.mjOBJ_JOINT, "screen_slide") >= 0


def test_the_card_states_the_scale_and_the_focus_bound() -> None:
    from actloop.suites.lab.card import task_card
    from actloop.suites.lab.experiments.lens_focal_length import SPEC
    from actloop.suites.lab.instance import draw

    card = task_card(SPEC, draw(SPEC, 1))
    assert "its zero (not numbered) is near the rail's left (lamp) end" in card
    assert "a number every 10 mm that counts centimetres (the tick numbered 12 is 120 mm)" in card
    assert f"is at most {1000 * FOCUS_BLUR_M:g} mm across" in card
    assert "36 mm (the lens's clear aperture)" in card
    assert "the lens's optical centre (its principal plane) is not marked on the frame" in card
