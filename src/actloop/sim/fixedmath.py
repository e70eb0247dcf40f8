"""Platform-independent arithmetic for every path that decides simulation state.

numpy's matrix and dot products, norms and solvers call the BLAS library, whose kernels are chosen per
CPU (and per ``OPENBLAS_CORETYPE``), so their last bits differ between machines; numpy's transcendental
ufuncs (``np.sin``, ``np.arctan2``, ...) are dispatched per CPU as well. Code that decides simulation
state (inverse kinematics, the executor, scene construction, expert plans) uses these helpers instead:
MuJoCo's own ``mju_*`` routines, compiled once and identical on every CPU, and Python's :mod:`math` for
scalars. Element-wise ``+ - * /``, ``np.clip``, ``np.max`` and comparisons are exact IEEE operations and
need no replacement.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

CHOLESKY_MIN_DIAG = 1e-12


def _f64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for 2-D arrays."""
    a, b = _f64(a), _f64(b)
    res = np.empty((a.shape[0], b.shape[1]))
    mujoco.mju_mulMatMat(res, a, b)
    return res


def matmul_t(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` for 2-D arrays."""
    a, b = _f64(a), _f64(b)
    res = np.empty((a.shape[0], b.shape[0]))
    mujoco.mju_mulMatMatT(res, a, b)
    return res


def matvec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m @ v``."""
    m = _f64(m)
    res = np.empty(m.shape[0])
    mujoco.mju_mulMatVec(res, m, _f64(v))
    return res


def mat_t_vec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``m.T @ v``."""
    m = _f64(m)
    res = np.empty(m.shape[1])
    mujoco.mju_mulMatTVec(res, m, _f64(v))
    return res


def dot(a: np.ndarray, b: np.ndarray) -> float:
    """The dot product of two vectors."""
    return float(mujoco.mju_dot(_f64(a), _f64(b)))


def norm(v: np.ndarray) -> float:
    """The Euclidean norm of a vector."""
    return float(mujoco.mju_norm(_f64(v)))


def hypot(x: float, y: float) -> float:
    return math.hypot(float(x), float(y))


class Cholesky:
    """The Cholesky factor of a symmetric positive-definite matrix, for repeated solves."""

    def __init__(self, a: np.ndarray) -> None:
        self._factor = np.array(a, dtype=np.float64, order="C")
        mujoco.mju_cholFactor(self._factor, CHOLESKY_MIN_DIAG)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """``x`` with ``a @ x == b``."""
        res = np.empty(self._factor.shape[0])
        mujoco.mju_cholSolve(res, self._factor, _f64(b))
        return res


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """3x3 rotation by ``angle`` (rad) about ``axis`` (any length)."""
    unit = _f64(axis).copy()
    mujoco.mju_normalize3(unit)
    quat = np.empty(4)
    mujoco.mju_axisAngle2Quat(quat, unit, float(angle))
    mat = np.empty(9)
    mujoco.mju_quat2Mat(mat, quat)
    return mat.reshape(3, 3)


def yaw_quat(yaw_rad: float) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of a rotation by ``yaw_rad`` about world z."""
    return (math.cos(yaw_rad / 2), 0.0, 0.0, math.sin(yaw_rad / 2))


def heading(x: float, y: float) -> float:
    """``atan2(y, x)`` of plain floats."""
    return math.atan2(float(y), float(x))
