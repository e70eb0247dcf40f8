"""Scoring the two-lens relay: the relay's image against the closed form, the continuation verdict (an upright
image within 3 % of M passes; off by 5 %, inverted, out of focus or a lens not seated fails), L4, the
evidence minimum and the restore rule (the relay stays set).

Test scaffolding stands in for the agent's hands and eyes: lenses are seated and carriages set by writing
their joints, and close-ups of the scale are logged as served with the readability a close wrist camera has.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments.two_lens_relay import (
    FOCAL_RANGE,
    INDEXES,
    MAGNIFICATION_RANGE,
    RelayEvaluator,
)
from actloop.suites.lab.instruments import Visibility
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
)
from actloop.suites.lab.reference.two_lens_relay import relay

SEAT_Z = RAIL_TOP + holder_floor(LENS_HALF) + LENS_HALF[2] + 0.0003


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("two_lens_relay", 3, render=False)
    yield bench
    bench.close()


def rail(env: LabEnv) -> OpticalRail:
    assert isinstance(env.platform, OpticalRail)
    return env.platform


def evaluator(env: LabEnv) -> RelayEvaluator:
    assert isinstance(env.evaluator, RelayEvaluator)
    return env.evaluator


def place(env: LabEnv, lens: str, centre: tuple[float, float, float]) -> None:
    model, data = env._model, env._world.data
    joint = model.joint(f"{lens}_free")
    data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [*centre, 1.0, 0.0, 0.0, 0.0]
    data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def set_carriage(env: LabEnv, name: str, x: float) -> None:
    bench = rail(env)
    start = next(c.start_x for c in bench.sliders if c.name == name)
    env._world.data.qpos[bench._joints[name]] = x - start


def seat(env: LabEnv, lens: str, carriage: str, plane: float) -> None:
    """Seat ``lens`` in ``carriage`` with its principal plane at world x ``plane``."""
    x = plane - env.instance.hidden[f"principal_offset_{lens[-1]}"]
    set_carriage(env, carriage, x)
    place(env, lens, (x, RAIL_Y, SEAT_Z))


def focal(env: LabEnv, lens: str) -> float:
    return float(env.instance.hidden[f"f_{lens[-1]}"])


def image_of(planes: tuple[float, float], focals: tuple[float, float]) -> tuple[float, float]:
    """(position, magnification) of the slide's image through thin lenses at ``planes`` (closed form)."""
    z, m = OBJECT_X, 1.0
    for plane, f in zip(planes, focals, strict=True):
        u = plane - z
        v = u * f / (u - f)
        z, m = plane + v, -m * v / u
    return z, m


def set_relay(env: LabEnv, magnification: float, defocus: float = 0.0) -> float:
    """lens_a in the near carriage and lens_b in the far one as the compact relay for ``magnification``, the
    screen at the image (plus ``defocus``); returns the bench's magnification."""
    f1, f2 = focal(env, "lens_a"), focal(env, "lens_b")
    design = relay(f1, f2, magnification)
    first = OBJECT_X + design.u1
    seat(env, "lens_a", "near", first)
    seat(env, "lens_b", "far", first + design.gap)
    set_carriage(env, SCREEN.name, first + design.gap + design.v2 + defocus)
    env.wait(1.5)
    assert rail(env).rail is not None
    return rail(env).rail.screen_scale()  # type: ignore[union-attr]


def close_up(env: LabEnv) -> list[dict[str, object]]:
    """Serve a close-up of the scale with every index readable; cite all four."""
    env._served += 1
    seen = f"{env.episode_token}-{env._served}"
    log = env.instrument_log
    log.serve_observation(seen, env.clock.time_s, [Visibility(n, "wrist", True, True, 4.7) for n in INDEXES])
    shown = log.observations[seen].shown
    return [{"observation_id": seen, "instrument": n, "value": round(float(shown[n]), 1)} for n in INDEXES]  # type: ignore[arg-type]


def finish(env: LabEnv, citations: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    evaluator(env).acted = True  # scaffolding: the robot would have carried the lenses
    env.submit({}, citations)
    return env.score()


def test_the_relay_images_as_the_two_stage_closed_form() -> None:
    """The ray-transfer matrices against two-stage thin-lens imaging (m = m1 m2, the image after the
    second lens) to far better than a tenth of the 3 % tolerance, over the drawn ranges."""
    for f1 in FOCAL_RANGE:
        for f2 in FOCAL_RANGE:
            for magnification in MAGNIFICATION_RANGE:
                design = relay(f1, f2, magnification)
                planes = (OBJECT_X + design.u1, OBJECT_X + design.u1 + design.gap)
                position, m = image_of(planes, (f1, f2))
                assert m == pytest.approx(magnification, rel=1e-12)
                assert position == pytest.approx(planes[1] + design.v2, abs=1e-12)
                lenses = tuple(ThinLens(p, f, LENS_APERTURE) for p, f in zip(planes, (f1, f2), strict=True))
                bench = Rail(OBJECT_X, lenses, position)
                assert bench.image().position == pytest.approx(position, abs=1e-12)
                assert bench.image().magnification == pytest.approx(magnification, rel=1e-12)
                assert bench.screen_scale() == pytest.approx(magnification, rel=1e-12)
                assert bench.blur_diameter() < 1e-9
                assert (
                    planes[1] - planes[0] > 0.06 and position < 0.32
                )  # carriages clear, the screen on the rail


def test_a_relay_at_m_succeeds_with_every_milestone(env: LabEnv) -> None:
    magnification = env.instance.public["M"]
    assert set_relay(env, magnification) == pytest.approx(magnification, rel=1e-6)
    score, verdicts = finish(env, close_up(env))
    assert all(v.valid for v in verdicts) and score.success and score.e < 1e-3, score.gates
    assert all(score.milestones[level].passed for level in ("L1", "L2", "L3", "L4"))


@pytest.mark.parametrize(("off", "passes"), [(0.028, True), (-0.028, True), (0.05, False), (-0.05, False)])
def test_the_magnification_is_scored_at_its_tolerance(env: LabEnv, off: float, passes: bool) -> None:
    magnification = env.instance.public["M"]
    assert set_relay(env, magnification * (1 + off)) == pytest.approx(magnification * (1 + off), rel=1e-6)
    score, _ = finish(env, close_up(env))
    assert score.success is passes and (score.e <= 1) is passes, score.errors
    assert score.level == (6 if passes else 4)


def test_an_inverted_image_fails_even_at_the_set_size(env: LabEnv) -> None:
    """The second lens in the first's converging beam, before its intermediate image, leaves one inversion:
    a focused real image, inverted, 40 mm behind the second lens (the longer-focus one, in the far carriage).
    Scaffolding sets the card's M to that image's size: it fails still."""
    first_lens, second_lens = sorted(("lens_a", "lens_b"), key=lambda name: focal(env, name))
    f1, f2 = focal(env, first_lens), focal(env, second_lens)
    v2, gap = 0.040, 0.05
    behind = f2 * v2 / (f2 - v2)  # the intermediate image (lens 2's virtual object) behind lens 2
    u1 = (gap + behind) * f1 / (gap + behind - f1)
    first = OBJECT_X + u1
    position, m = image_of((first, first + gap), (f1, f2))
    assert position == pytest.approx(first + gap + v2, abs=1e-12) and m < 0
    env.instance.public["M"] = -m
    seat(env, first_lens, "near", first)
    seat(env, second_lens, "far", first + gap)
    set_carriage(env, SCREEN.name, position)
    env.wait(1.5)
    assert rail(env).blur_diameter() < FOCUS_BLUR_M and all(rail(env).seats.values())
    assert rail(env).rail.screen_scale() == pytest.approx(m, rel=1e-6)  # type: ignore[union-attr]
    score, _ = finish(env, close_up(env))
    assert score.milestones["L4"].passed and not score.success and score.errors["m"] == float("inf")
    assert "inverted" in str(evaluator(env).configured()["m"])


def test_a_screen_out_of_focus_fails(env: LabEnv) -> None:
    magnification = env.instance.public["M"]
    set_relay(env, magnification)
    citations = close_up(env)  # valid: taken in focus
    set_carriage(env, SCREEN.name, rail(env).carriage_x(env._world.data, SCREEN.name) + 0.004)
    env.wait(1.0)
    score, _ = finish(env, citations)
    assert score.milestones["L4"].passed and not score.success and score.errors["m"] == float("inf")
    assert "out of focus" in str(evaluator(env).configured()["m"])


def test_a_lens_put_back_in_its_stand_fails_the_relay_and_the_restore(env: LabEnv) -> None:
    set_relay(env, env.instance.public["M"])
    citations = close_up(env)
    place(env, "lens_b", rail(env).stand_seat(rail(env).items[1]))
    env.wait(1.0)
    score, _ = finish(env, citations)
    assert not score.success and score.errors["m"] == float("inf")
    assert "lens_b not seated" in str(evaluator(env).configured()["m"])
    assert "lens_b is not seated in a holder" in score.gates["restored"].evidence


def test_readings_with_one_lens_only_miss_l4_and_the_evidence_minimum(env: LabEnv) -> None:
    f1 = focal(env, "lens_a")
    u = 2 * f1
    seat(env, "lens_a", "near", OBJECT_X + u)
    place(env, "lens_b", rail(env).stand_seat(rail(env).items[1]))
    set_carriage(env, SCREEN.name, OBJECT_X + 2 * u)
    env.wait(1.5)
    assert rail(env).blur_diameter() < FOCUS_BLUR_M
    score, verdicts = finish(env, close_up(env))
    assert all(v.valid for v in verdicts)  # readings count with one lens seated in focus
    assert score.milestones["L3"].passed and not score.milestones["L4"].passed
    assert not score.gates["evidence"].passed and "both lenses seated" in score.gates["evidence"].evidence
