"""Scoring the two-lens relay: the relay's image against the closed form, the continuation verdict (an upright
image within 3 % of M passes; off by 5 %, inverted, out of focus or a lens not seated fails), L4, the
evidence minimum and the restore rule (the relay stays set).

Test scaffolding stands in for the agent's hands and eyes: lenses are seated and carriages set by writing
their joints, and close-ups of the scale are logged as served with the readability a close wrist camera has.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from actloop.suites.lab import audit
from actloop.suites.lab.audits import plan_of
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.experiments import experiment
from actloop.suites.lab.experiments.two_lens_relay import (
    FOCAL_RANGE,
    INDEXES,
    MAGNIFICATION_RANGE,
    RelayEvaluator,
)
from actloop.suites.lab.instance import draw
from actloop.suites.lab.physics.optics import Rail, ThinLens
from actloop.suites.lab.platforms.optical_rail import (
    FOCUS_BLUR_M,
    LENS_APERTURE,
    OBJECT_X,
    SCREEN,
)
from actloop.suites.lab.reference.two_lens_relay import READ_LIMIT, stage
from rail_scaffold import rail_of, seat_item, serve_view, set_slider, to_stand


@pytest.fixture
def env() -> Iterator[LabEnv]:
    bench = LabEnv("two_lens_relay", 3, render=False)
    yield bench
    bench.close()


def evaluator(env: LabEnv) -> RelayEvaluator:
    assert isinstance(env.evaluator, RelayEvaluator)
    return env.evaluator


def seat(env: LabEnv, lens: str, carriage: str, plane: float) -> None:
    """Seat ``lens`` in ``carriage`` with its principal plane at world x ``plane``."""
    seat_item(env, lens, carriage, plane - env.instance.hidden[f"principal_offset_{lens[-1]}"])


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


def relay(f1: float, f2: float, magnification: float) -> tuple[float, float, float]:
    """World x of the principal planes and the image of the relay with m1 = m2 = -√M."""
    (u1, v1), (u2, v2) = (stage(f, -math.sqrt(magnification)) for f in (f1, f2))
    return OBJECT_X + u1, OBJECT_X + u1 + v1 + u2, OBJECT_X + u1 + v1 + u2 + v2


def set_relay(env: LabEnv, magnification: float, defocus: float = 0.0) -> float:
    """lens_a in the near carriage and lens_b in the far one as the relay for ``magnification``, the screen
    at the image (plus ``defocus``); returns the bench's magnification."""
    first, second, image = relay(focal(env, "lens_a"), focal(env, "lens_b"), magnification)
    seat(env, "lens_a", "near", first)
    seat(env, "lens_b", "far", second)
    set_slider(env, SCREEN.name, image + defocus)
    env.wait(1.5)
    assert rail_of(env).rail is not None
    return rail_of(env).rail.image().magnification  # type: ignore[union-attr]


def close_up(env: LabEnv) -> list[dict[str, object]]:
    """Serve a close-up of the scale with every index readable; cite all four."""
    return serve_view(env, list(INDEXES), 4.7, decimals=1)


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
                *planes, image = relay(f1, f2, magnification)
                position, m = image_of((planes[0], planes[1]), (f1, f2))
                assert m == pytest.approx(magnification, rel=1e-12)
                assert position == pytest.approx(image, abs=1e-12)
                lenses = tuple(ThinLens(p, f, LENS_APERTURE) for p, f in zip(planes, (f1, f2), strict=True))
                bench = Rail(OBJECT_X, lenses, position)
                assert bench.image().position == pytest.approx(position, abs=1e-12)
                assert bench.image().magnification == pytest.approx(magnification, rel=1e-12)
                assert bench.screen_scale() == pytest.approx(magnification, rel=1e-12)
                assert bench.blur_diameter() < 1e-9
                assert planes[1] - planes[0] > 0.08 and position < READ_LIMIT  # carriages clear, screen read


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


def test_a_screen_slid_within_the_focus_window_scores_the_image_not_the_size_it_shows(env: LabEnv) -> None:
    """At either edge of the in-focus window the screen shows the image more than the tolerance larger or
    smaller than the lenses form it (the chief ray's scale, 4.3 % here); the score is the image's
    magnification, so sliding the screen cannot make up for lenses set 5 % off."""
    magnification = env.instance.public["M"]
    set_relay(env, magnification * 1.05)
    image = rail_of(env).carriage_x(env.data, SCREEN.name)
    for edge in (-1, 1):
        low, high = 0.0, 0.01
        for _ in range(30):  # the screen's distance from the image where the blur circle reaches the limit
            mid = (low + high) / 2
            set_slider(env, SCREEN.name, image + edge * mid)
            env.wait(0.01)
            low, high = (mid, high) if rail_of(env).blur_diameter() < FOCUS_BLUR_M else (low, mid)
        set_slider(env, SCREEN.name, image + edge * low)
        env.wait(0.01)
        shown = rail_of(env).rail.screen_scale()  # type: ignore[union-attr]
        assert rail_of(env).blur_diameter() < FOCUS_BLUR_M
        assert abs(shown / (magnification * 1.05) - 1) > 0.03, shown
    set_slider(env, SCREEN.name, image - 0.9 * low)  # shows the image smaller, still in focus
    env.wait(1.0)
    score, _ = finish(env, close_up(env))
    assert not score.success and score.errors["m"] == pytest.approx(0.05 / (0.03 * 1.05), rel=1e-6)


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
    set_slider(env, SCREEN.name, position)
    env.wait(1.5)
    assert rail_of(env).blur_diameter() < FOCUS_BLUR_M and all(rail_of(env).seats.values())
    assert rail_of(env).rail.image().magnification == pytest.approx(m, rel=1e-6)  # type: ignore[union-attr]
    score, _ = finish(env, close_up(env))
    assert score.milestones["L4"].passed and not score.success and score.errors["m"] == float("inf")
    assert "inverted" in str(evaluator(env).configured()["m"])


def test_a_screen_out_of_focus_fails(env: LabEnv) -> None:
    magnification = env.instance.public["M"]
    set_relay(env, magnification)
    citations = close_up(env)  # valid: taken in focus
    set_slider(env, SCREEN.name, rail_of(env).carriage_x(env.data, SCREEN.name) + 0.004)
    env.wait(1.0)
    score, _ = finish(env, citations)
    assert score.milestones["L4"].passed and not score.success and score.errors["m"] == float("inf")
    assert "out of focus" in str(evaluator(env).configured()["m"])


def test_a_lens_put_back_in_its_stand_fails_the_relay_and_the_restore(env: LabEnv) -> None:
    set_relay(env, env.instance.public["M"])
    citations = close_up(env)
    to_stand(env, "lens_b")
    env.wait(1.0)
    score, _ = finish(env, citations)
    assert not score.success and score.errors["m"] == float("inf")
    assert "lens_b not seated" in str(evaluator(env).configured()["m"])
    assert "lens_b is not seated in a holder" in score.gates["restored"].evidence


def test_readings_with_one_lens_only_miss_l4_and_the_evidence_minimum(env: LabEnv) -> None:
    f1 = focal(env, "lens_a")
    u = 2 * f1
    seat(env, "lens_a", "near", OBJECT_X + u)
    to_stand(env, "lens_b")
    set_slider(env, SCREEN.name, OBJECT_X + 2 * u)
    env.wait(1.5)
    assert rail_of(env).blur_diameter() < FOCUS_BLUR_M
    score, verdicts = finish(env, close_up(env))
    assert all(v.valid for v in verdicts)  # readings count with one lens seated in focus
    assert score.milestones["L3"].passed and not score.milestones["L4"].passed
    assert not score.gates["evidence"].passed and "both lenses seated" in score.gates["evidence"].evidence


def test_the_references_design_sets_m_exactly_from_noiseless_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The audit's model of the reference (lens_a fitted alone, lens_b fitted through lens_a's image, the
    relay set from both fits and lens_a's reading) with every noise source off: the relay is exact, so what
    the audit measures is the noise alone."""
    from actloop.suites.lab.audits import two_lens_relay as relay_audit

    for name in ("FOCUS_PRECISION_M", "PUSH_M"):
        monkeypatch.setattr(relay_audit, name, 0.0)
    monkeypatch.setattr(relay_audit, "CLOSE_UP_RESOLUTION_M", 1e-12)
    monkeypatch.setattr("actloop.suites.lab.reference.two_lens_relay.PLACE_TOLERANCE", 0.0)
    spec, design = experiment("two_lens_relay").spec, relay_audit.plan().standard
    for seed in range(1, 41):
        instance = draw(spec, seed)
        assert design.estimate(instance)["m"] == pytest.approx(instance.public["M"], rel=1e-6)


def test_a_fabricated_reading_fails_the_evidence_gate(env: LabEnv) -> None:
    set_relay(env, env.instance.public["M"])
    citations = close_up(env)
    citations[2] = {**citations[2], "value": float(citations[2]["value"]) + 1.0}  # type: ignore[arg-type]
    score, verdicts = finish(env, citations)
    assert not score.gates["evidence"].passed and not score.success
    assert [v.valid for v in verdicts] == [True, True, False, True]


def test_a_reading_out_of_focus_fails_the_condition_gate(env: LabEnv) -> None:
    set_relay(env, env.instance.public["M"], defocus=0.006)
    assert rail_of(env).blur_diameter() > 2 * FOCUS_BLUR_M
    citations = close_up(env)
    set_relay(env, env.instance.public["M"])  # the relay set and focused at submission
    score, verdicts = finish(env, citations)
    assert not score.gates["conditions"].passed and not score.success
    assert all("did not hold" in v.reason for v in verdicts)


def test_the_audits_shortcut_fails_and_the_standard_design_succeeds() -> None:
    built = experiment("two_lens_relay")
    plan = plan_of("two_lens_relay")
    for seed in range(1, 41):
        instance = draw(built.spec, seed)
        target = plan.target(instance)
        assert audit._within(built.spec, plan.standard.estimate(instance), target), seed
        assert not audit._within(built.spec, plan.naive.estimate(instance), target), seed
