"""The platform-independent helpers agree with numpy's maths (which they replace on state paths)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actloop.sim import fixedmath as fm

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("shape", [(3, 3, 3), (6, 7, 4), (2, 5, 1)])
def test_products_match_numpy(shape: tuple[int, int, int]) -> None:
    m, k, n = shape
    a, b = RNG.normal(size=(m, k)), RNG.normal(size=(k, n))
    np.testing.assert_allclose(fm.matmul(a, b), a @ b, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(fm.matmul_t(a, b.T), a @ b, rtol=1e-12, atol=1e-12)
    v = RNG.normal(size=k)
    np.testing.assert_allclose(fm.matvec(a, v), a @ v, rtol=1e-12, atol=1e-12)
    w = RNG.normal(size=m)
    np.testing.assert_allclose(fm.mat_t_vec(a, w), a.T @ w, rtol=1e-12, atol=1e-12)
    assert fm.dot(v, v) == pytest.approx(float(v @ v), rel=1e-12)
    assert fm.norm(v) == pytest.approx(math.sqrt(float(v @ v)), rel=1e-12)


def test_cholesky_solves_a_damped_normal_system() -> None:
    jac = RNG.normal(size=(6, 7))
    a = jac @ jac.T + 1e-3 * np.eye(6)
    b = RNG.normal(size=6)
    x = fm.Cholesky(a).solve(b)
    np.testing.assert_allclose(a @ x, b, atol=1e-9)


def test_axis_angle_matrix_is_a_rotation_about_the_axis() -> None:
    axis = np.array([1.0, 2.0, -0.5])
    rot = fm.axis_angle_matrix(axis, 0.7)
    np.testing.assert_allclose(rot @ rot.T, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(rot @ axis, axis, atol=1e-12)
    assert np.trace(rot) == pytest.approx(1 + 2 * math.cos(0.7))


def test_results_are_bit_identical_on_repeat() -> None:
    a = RNG.normal(size=(6, 7))
    assert fm.matmul_t(a, a).tobytes() == fm.matmul_t(a.copy(), a.copy()).tobytes()
