"""The cantilever (#15): the strip's deflections against the closed-form beam-plus-clamp solution, the
carriage's holes, the ZERO cap, and the scoring of EI and k_theta (gates, milestones, the restored bench).

Test scaffolding stands in for the agent's hands and eyes: weights are stood on saddles and the carriage set
in a hole by setting their positions, and close-ups of the LCD are logged as served with the readability a
close wrist camera has (the reference reads the LCD from real images)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from actloop.sim.camera import look_at
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.cantilever import CantileverEvaluator, coefficients, spanning
from actloop.suites.lab.instruments import Visibility
from actloop.suites.lab.physics.cantilever import Cantilever
from actloop.suites.lab.platforms.cantilever import (
    DETENT_CAPTURE_M,
    FACE,
    HOLES,
    INDICATOR,
    SADDLES,
    WEIGHT_MASSES,
    CantileverBench,
    G,
    weight_height,
)
from actloop.suites.lab.platforms.keys import KEY_TRAVEL_M
from actloop.suites.lab.readability import visibility
from actloop.suites.lab.reference.cantilever import LOADING, fit_stiffnesses
from actloop.suites.lab.reference.cantilever import coefficients as drop_parts
from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills

KEY = "cantilever"
Citation = dict[str, object]


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv(KEY, 2, render=False)
    yield bench
    bench.close()


def bench(env: LabEnv) -> CantileverBench:
    assert isinstance(env.platform, CantileverBench)
    return env.platform


def watcher(env: LabEnv) -> CantileverEvaluator:
    assert isinstance(env.evaluator, CantileverEvaluator)
    return env.evaluator


def put(env: LabEnv, weight: int, position: tuple[float, float, float]) -> None:
    """Stand ``weight`` upright with its foot at ``position``, at rest."""
    joint = env.model.joint(f"weight_{weight}_free")
    foot = (position[0], position[1], position[2] + weight_height(WEIGHT_MASSES[weight - 1]) / 2 + 0.0005)
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*foot, 1.0, 0.0, 0.0, 0.0]
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def on_saddle(env: LabEnv, weight: int, saddle: int) -> None:
    x, y, top = bench(env).layout()[f"saddle_{saddle}_plate"]
    put(env, weight, (x, y, top))


def to_rack(env: LabEnv, weight: int) -> None:
    x, y, z = bench(env).rack_position(weight)
    put(env, weight, (x, y, z - weight_height(WEIGHT_MASSES[weight - 1]) / 2))


def carriage(env: LabEnv, d: float) -> None:
    env.data.qpos[env.model.joint("carriage").qposadr[0]] = d
    env.data.qvel[env.model.joint("carriage").dofadr[0]] = 0.0


def close_ups(env: LabEnv, count: int = 1) -> list[Citation]:
    """``count`` close-ups of the LCD 0.3 s apart, cited (scaffolding: a close wrist camera reads it)."""
    citations: list[Citation] = []
    for _ in range(count):
        env.wait(0.3)
        env._served += 1
        observation = f"{env.episode_token}-{env._served}"
        views = [Visibility("indicator", "wrist", True, True, 30.0)]
        env.instrument_log.serve_observation(observation, env.clock.time_s, views)
        value = env.instrument_log.observations[observation].shown["indicator"]
        citations.append({"observation_id": observation, "instrument": "indicator", "value": value})
    return citations


def load(env: LabEnv) -> None:
    for weight, saddle in LOADING:
        on_saddle(env, weight, saddle)
    env.wait(2.5)


def unload(env: LabEnv) -> None:
    for weight, _ in LOADING:
        to_rack(env, weight)
    env.wait(2.5)


def sweep(env: LabEnv, holes: tuple[float, ...], reads: int = 4) -> tuple[dict[float, float], list[Citation]]:
    """The mean reading at each hole (the carriage set in it and left to rest)."""
    means, citations = {}, []
    for hole in holes:
        carriage(env, hole)
        env.wait(1.0)
        cited = close_ups(env, reads)
        citations += cited
        means[hole] = sum(float(c["value"]) for c in cited) / reads  # type: ignore[arg-type]
    return means, citations


def measure(env: LabEnv, holes: tuple[float, ...] = HOLES) -> tuple[dict[str, float], list[Citation]]:
    """The reference's design by scaffolding: every hole unloaded and loaded, the drops fitted."""
    empty, cited = sweep(env, holes)
    load(env)
    full, more = sweep(env, holes)
    unload(env)
    carriage(env, holes[-1])
    env.wait(1.0)
    loads = [(G * WEIGHT_MASSES[w - 1], SADDLES[s - 1]) for w, s in LOADING]
    ei, k = fit_stiffnesses([(*drop_parts(loads, h), (empty[h] - full[h]) / 1000.0) for h in holes])
    return {"EI": ei, "k_theta": k}, cited + more


def test_the_strip_drops_by_the_beam_and_clamp_closed_form_under_weights_on_saddles(env: LabEnv) -> None:
    """Settled under 100 g at 40 cm and 50 g at 20 cm (stood on the saddles by hand), the strip's drop at
    every hole is the closed form from the weights' g, to far within a tenth of the tolerance."""
    strip = bench(env).strip
    on_saddle(env, 2, 4)
    on_saddle(env, 1, 2)
    env.wait(3.0)
    loads = [(G * 0.10, 0.40), (G * 0.05, 0.20)]
    for hole in HOLES:
        exact = strip.deflection(hole, loads)
        assert abs(bench(env).deflection(hole) / exact - 1) < 5e-4, hole
    # the reading falls by the drop (mm) at a hole, whatever the offset, tilt and bow
    carriage(env, 0.35)
    env.wait(1.0)
    loaded = bench(env).true_values(env.data)["indicator"]
    to_rack(env, 2)
    to_rack(env, 1)
    env.wait(3.0)
    empty = bench(env).true_values(env.data)["indicator"]
    assert abs((empty - loaded) / (1000 * strip.deflection(0.35, loads)) - 1) < 5e-4


def test_the_closed_form_adds_bending_and_the_clamps_turn() -> None:
    """A tip load: P L^3 / 3EI + P L^2 / k; reciprocity c(x, a) = c(a, x); the slope is the drop's
    derivative."""
    strip = Cantilever(5.0, 150.0)
    length, p = 0.4, 2.0
    assert strip.deflection(length, [(p, length)]) == pytest.approx(
        p * length**3 / 15.0 + p * length**2 / 150.0, rel=1e-14
    )
    assert strip.influence(0.13, 0.31) == pytest.approx(strip.influence(0.31, 0.13), rel=1e-14)
    for x in (0.1, 0.25, 0.38):
        h = 1e-6
        numeric = (strip.deflection(x + h, [(p, 0.3)]) - strip.deflection(x - h, [(p, 0.3)])) / (2 * h)
        assert strip.slope(x, [(p, 0.3)]) == pytest.approx(numeric, rel=1e-6)


def test_the_carriage_clicks_into_a_hole_and_zero_sets_the_reading_to_zero(env: LabEnv) -> None:
    carriage(env, 0.25 + 0.8 * DETENT_CAPTURE_M)
    env.wait(1.0)
    assert abs(bench(env).carriage_at(env.data) - 0.25) < 1e-5
    carriage(env, 0.225)  # between holes: it stays where it is left
    env.wait(1.0)
    assert abs(bench(env).carriage_at(env.data) - 0.225) < 1e-4
    carriage(env, 0.30)
    env.wait(1.0)
    env.data.qpos[env.model.joint("key_zero").qposadr[0]] = -0.9 * KEY_TRAVEL_M
    env.wait(0.5)
    assert abs(bench(env).true_values(env.data)["indicator"]) < 1e-9
    carriage(env, 0.10)
    env.wait(1.0)
    assert abs(bench(env).true_values(env.data)["indicator"]) > 1e-3  # tilt and bow differ along the rail


def test_a_run_with_differences_at_every_hole_succeeds_with_every_milestone(env: LabEnv) -> None:
    result, citations = measure(env)
    watcher(env).acted = True  # scaffolding: the robot would have carried the weights
    env.submit(result, citations)
    score, verdicts = env.score()
    assert all(v.valid for v in verdicts), [v.reason for v in verdicts if not v.valid]
    assert score.success and score.process_score == 100, (score.gates, score.milestones)
    assert score.e <= 0.5, score.errors


def test_a_fabricated_reading_a_repeated_observation_and_a_reading_between_holes_fail_their_gates(
    env: LabEnv,
) -> None:
    result, citations = measure(env, (0.20, 0.40))
    watcher(env).acted = True
    forged = {**citations[0], "value": float(citations[0]["value"]) + 0.01}  # type: ignore[arg-type]
    repeated = dict(citations[1])
    carriage(env, 0.225)  # between holes
    env.wait(1.0)
    (between,) = close_ups(env)
    carriage(env, 0.40)
    env.wait(1.0)
    env.submit(result, [*citations, forged, repeated, between])
    score, verdicts = env.score()
    assert not score.gates["evidence"].passed and not score.gates["conditions"].passed
    assert not score.success
    reasons = [v.reason for v in verdicts[-3:]]
    assert "showed" in reasons[0] and "cited already" in reasons[1], reasons
    assert not verdicts[-1].valid and "carriage at rest in a hole" in verdicts[-1].reason


def test_an_unrestored_bench_fails_only_l6(env: LabEnv) -> None:
    _, citations = measure(env, (0.10, 0.40))
    watcher(env).acted = True
    on_saddle(env, 1, 1)  # a weight left on the strip
    env.wait(1.0)
    env.submit(dict(watcher(env).targets()), citations)
    score, _ = env.score()
    assert score.process_score == 70 and not score.success
    assert not score.milestones["L6"].passed and "weight_1" in score.milestones["L6"].evidence


def test_one_zero_and_a_loaded_sweep_miss_the_clamp_by_the_rails_tilt(env: LabEnv) -> None:
    """The naive shortcut: zero the indicator once on the unloaded strip, read the loaded strip at two holes
    as drops from that zero: the rail's tilt and the strip's bow enter the drops."""
    carriage(env, 0.05)
    env.wait(1.0)
    env.data.qpos[env.model.joint("key_zero").qposadr[0]] = -0.9 * KEY_TRAVEL_M
    env.wait(0.5)
    load(env)
    full, citations = sweep(env, (0.20, 0.40))
    unload(env)
    watcher(env).acted = True
    loads = [(G * WEIGHT_MASSES[w - 1], SADDLES[s - 1]) for w, s in LOADING]
    ei, k = fit_stiffnesses([(*drop_parts(loads, h), -full[h] / 1000.0) for h in (0.20, 0.40)])
    env.submit({"EI": ei, "k_theta": k}, citations)
    score, _ = env.score()
    assert score.e > 1 and not score.success, score.errors
    assert not score.milestones["L4"].passed  # no unloaded reading at a common hole


@pytest.mark.parametrize(("quantity", "factor", "passes"), [
    ("EI", 1.00499, True), ("EI", 0.99502, True), ("EI", 1.00502, False),
    ("k_theta", 0.99501, True), ("k_theta", 0.99498, False),
])  # fmt: skip
def test_each_stiffness_is_scored_within_half_a_percent(
    env: LabEnv, quantity: str, factor: float, passes: bool
) -> None:
    _, citations = measure(env, (0.20, 0.40))
    watcher(env).acted = True
    result = dict(watcher(env).targets())
    result[quantity] *= factor
    env.submit(result, citations)
    score, _ = env.score()
    assert score.success is passes, (score.errors, score.gates)


def test_l4_needs_load_changes_at_a_common_hole_that_separate_the_two_stiffnesses() -> None:
    """One difference at one hole cannot separate EI from k_theta; two holes, or two loads at one, can."""
    tip = ((4, (2,)),)
    near = ((1, (2,)),)
    one_hole = [coefficients(tip, 0.40)]
    assert not spanning(one_hole)
    assert spanning([coefficients(tip, 0.40), coefficients(tip, 0.10)])
    assert spanning([coefficients(tip, 0.40), coefficients(near, 0.40)])
    assert not spanning(
        [coefficients(tip, 0.40), coefficients(((4, (1,)),), 0.40)]
    )  # the same shape, lighter
    assert (
        coefficients(((0, (1,)),), 0.40) is None
    )  # a weight lying on the strip: where it presses is unknown


def test_t2_skills_zero_the_indicator_slide_the_carriage_and_load_a_saddle() -> None:
    """Press (fingers across) zeroes the indicator; slide moves the carriage by its peg into the next hole;
    grasp (located from the side), carry and place stand a weight on the farthest saddle, which then
    presses on the strip with the weight's g."""
    env = LabEnv(KEY, 1, level="T2")
    skills = load_skills()
    with serving(env) as server:
        lab = load_client().Lab(server.url, server.token)
        layout = lab.calibration()["layout"]
        skills.press(lab, "zero_cap", across=True)
        zeroed = server.run(lambda: {"shown": bench(env).true_values(env.data)["indicator"]})["shown"]
        skills.slide(lab, "carriage_peg", [1.0, 0.0, 0.0], 0.05, across=True)
        lab.wait(0.5)
        moved = server.run(lambda: {"d": bench(env).carriage_at(env.data)})["d"]
        skills.grasp(lab, "weight_2", camera="side")
        x, y, top = layout["saddle_4_plate"]
        height = layout["weight_2_size"][1]
        skills.carry(lab, [x, y, top + height + 0.05])
        skills.place(lab, [x, y, top + height - skills.GRIP_DEPTH + 0.002])
        lab.wait(2.0)
        pressing = server.run(lambda: {"n": bench(env).node_loads[-2]})["n"]
        lab.close()
    assert abs(zeroed) < 0.002
    assert abs(moved - (layout["carriage_start"][0] + 0.05)) < 1e-4
    assert pressing == pytest.approx(0.1 * G, rel=1e-3)
    env.close()


def test_the_lcd_shows_what_the_instrument_log_says_and_is_readable_close_up() -> None:
    """Loaded and read from a camera in front of the carriage in a far hole, the rendered LCD reads back as
    the log's shown value; a camera 1.2 m away cannot read it."""
    env = LabEnv(KEY, 4)
    try:
        on_saddle(env, 2, 4)
        carriage(env, 0.35)
        env.wait(2.5)
        env.observe()  # the faces are redrawn before frames
        k = env.calibration()["wrist"]["intrinsics"]
        dx, dy, z = bench(env).layout()["indicator_lcd_on_carriage"]
        x, y, _ = bench(env).layout()["strip_root"]
        centre = np.array([x + 0.35 + dx, y + dy, z])
        pose = look_at(centre + np.array([0.0, -0.14, 0.01]), centre)
        renderer = env._renderer
        assert renderer is not None
        image = renderer.render_from(env.data, np.array(pose.position), pose.rotation())
        camera = Camera(np.array(pose.position), pose.rotation(), k["fx"], k["fy"], k["cx"], k["cy"])
        world = window_corners(centre, [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], FACE.width_m, FACE.height_m)
        text = read_display(image, project(world, camera), FACE.digits)
        assert text == INDICATOR.text(env.instrument_log.shown_at("indicator", env.clock.time_s))
        assert float(text) < -1.0  # the loaded strip, read
        site = bench(env).reading_sites(env.data)["indicator"]
        for distance, readable in ((0.14, True), (1.2, False)):
            far = look_at(site.point + np.array([0.0, -distance, 0.0]), site.point)
            (seen,) = visibility(
                env.model, env.data, "test", (np.array(far.position), far.rotation()), k["fy"],
                {"indicator": site},
            )  # fmt: skip
            assert seen.in_view and seen.unoccluded and (seen.pixel_size >= 12.0) is readable
    finally:
        env.close()
