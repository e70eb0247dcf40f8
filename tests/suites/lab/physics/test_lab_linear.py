"""Pure-Python linear algebra: LU, the matrix exponential, exact stepping, libm-free exp and log."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import scipy.linalg

from actloop.suites.lab.physics.linear import (
    ExactStepper,
    SingularMatrixError,
    exp,
    expm,
    log,
    log10,
    lu_factor,
    mat_mul,
    mat_vec,
    solve,
)


def _random(n: int, scale: float, seed: int) -> list[list[float]]:
    return (np.random.default_rng(seed).normal(size=(n, n)) * scale).tolist()


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_solve_matches_numpy(n: int) -> None:
    a = _random(n, 1.0, n)
    b = list(np.arange(1.0, n + 1))
    assert np.allclose(solve(a, b), np.linalg.solve(a, b), rtol=1e-12, atol=1e-12)
    assert np.allclose(mat_vec(a, b), np.array(a) @ b, rtol=1e-14)
    assert np.allclose(mat_mul(a, a), np.array(a) @ a, rtol=1e-14)


def test_lu_needs_pivoting_and_rejects_singular() -> None:
    assert solve([[0.0, 1.0], [1.0, 0.0]], [2.0, 3.0]) == [3.0, 2.0]
    with pytest.raises(SingularMatrixError):
        lu_factor([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.parametrize("n", [1, 3, 8, 12])
@pytest.mark.parametrize("scale", [1e-4, 0.1, 1.0, 30.0])
def test_expm_matches_scipy(n: int, scale: float) -> None:
    a = _random(n, scale / math.sqrt(n), 7 * n)
    expected = scipy.linalg.expm(np.array(a))
    error = np.max(np.abs(np.array(expm(a)) - expected)) / np.max(np.abs(expected))
    assert error < (1e-13 if scale <= 1.0 else 2e-12)  # ‖A‖₁ ≈ 50 needs squarings: conditioning grows


def test_expm_of_a_rotation_generator() -> None:
    r = expm([[0.0, -1.0], [1.0, 0.0]])
    assert r[0][0] == pytest.approx(math.cos(1.0), abs=1e-15)
    assert r[1][0] == pytest.approx(math.sin(1.0), abs=1e-15)


def test_exp_and_log_within_an_ulp_or_two_of_libm() -> None:
    rng = random.Random(3)
    for _ in range(20000):
        x = rng.uniform(-700.0, 700.0)
        assert abs(exp(x) - math.exp(x)) <= 2.3e-16 * math.exp(x)
        y = math.exp(rng.uniform(-700.0, 700.0))
        assert abs(log(y) - math.log(y)) <= 4.5e-16 * max(abs(math.log(y)), 1e-300)
    assert exp(0.0) == 1.0 and log(1.0) == 0.0 and log10(1000.0) == pytest.approx(3.0, abs=1e-15)
    assert exp(-800.0) == 0.0
    with pytest.raises(OverflowError):
        exp(710.0)
    with pytest.raises(ValueError):
        log(0.0)


def test_stepper_is_exact_for_scalar_decay_at_any_step() -> None:
    for h in (1e-3, 1.0, 1e3):
        stepper = ExactStepper([[-2.0]], h)
        x = stepper.step([1.0], [4.0])[0]  # x' = −2x + 4 → 2 + (x0 − 2) e^{−2h}
        assert x == pytest.approx(2.0 - math.exp(-2.0 * h), rel=1e-14)


def test_stepper_handles_a_singular_matrix() -> None:
    stepper = ExactStepper([[0.0, 1.0], [0.0, 0.0]], 0.5)  # x'' = b: constant acceleration
    x, v = stepper.step([1.0, 2.0], [0.0, 3.0])
    assert x == pytest.approx(1.0 + 2.0 * 0.5 + 0.5 * 3.0 * 0.25, rel=1e-15)
    assert v == pytest.approx(2.0 + 3.0 * 0.5, rel=1e-15)


@pytest.mark.parametrize("k", [2, 7, 240, 1000, 86_400])
def test_advancing_k_steps_at_once_equals_k_single_steps(k: int) -> None:
    a = [[-1.0, 0.5, 0.0], [0.2, -0.7, 0.1], [0.0, 0.3, -0.05]]
    b = [1.0, 0.0, 0.2]
    stepper = ExactStepper(a, 1 / 240)
    x0 = [3.0, -1.0, 0.5]
    stepped = x0
    for _ in range(k):
        stepped = stepper.step(stepped, b)
    at_once = stepper.advance(x0, b, k)
    for s, o in zip(stepped, at_once, strict=True):
        assert abs(s - o) <= 1e-12 * max(abs(s), 1.0)
