"""A MuJoCo model + data pair with stepping, exact snapshots and a state hash."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import mujoco
import numpy as np

_STATE_SPEC = mujoco.mjtState.mjSTATE_INTEGRATION
_HASHED_SPEC = int(mujoco.mjtState.mjSTATE_INTEGRATION) & ~int(mujoco.mjtState.mjSTATE_WARMSTART)
"""What the state hash covers: the integration state without the solver's warm start, a solver internal
that differs in its last bits between platforms even when every physical quantity agrees."""


@dataclass(frozen=True)
class WorldState:
    """A complete integration state (time, qpos, qvel, act, warm start, controls, mocap)."""

    values: np.ndarray

    def digest(self) -> str:
        return hashlib.sha256(self.values.tobytes()).hexdigest()


def subtree_geoms(model: mujoco.MjModel, body_name: str) -> frozenset[int]:
    """Geom ids of a body and all its descendants (MuJoCo orders parents before children)."""
    bodies = {model.body(body_name).id}
    for b in range(min(bodies) + 1, model.nbody):
        if int(model.body_parentid[b]) in bodies:
            bodies.add(b)
    return frozenset(g for g in range(model.ngeom) if int(model.geom_bodyid[g]) in bodies)


class World:
    """Owns one simulation. All physics goes through :meth:`step` so callers never touch ``mj_step``."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self._observer: tuple[Callable[[World], None], int] | None = None
        self._steps_since_observed = 0
        mujoco.mj_forward(model, self.data)

    @property
    def time(self) -> float:
        return float(self.data.time)

    def step(self, n: int = 1) -> None:
        """Advance the physics by ``n`` timesteps with the current controls."""
        if self._observer is None:
            mujoco.mj_step(self.model, self.data, nstep=n)
            return
        callback, every = self._observer
        for _ in range(n):
            mujoco.mj_step(self.model, self.data)
            self._steps_since_observed += 1
            if self._steps_since_observed >= every:
                self._steps_since_observed = 0
                callback(self)

    @contextmanager
    def observe(self, callback: Callable[[World], None], every_n_steps: int) -> Iterator[None]:
        """Call ``callback(world)`` after every ``every_n_steps`` physics steps inside the block.

        Observation reads state only, so a run with an observer is bit-identical to one without.
        """
        if every_n_steps < 1:
            raise ValueError("every_n_steps must be at least 1")
        self._observer, self._steps_since_observed = (callback, every_n_steps), 0
        try:
            yield
        finally:
            self._observer = None

    def forward(self) -> None:
        """Recompute derived quantities (poses, contacts) for the current state without stepping."""
        mujoco.mj_forward(self.model, self.data)

    def snapshot(self) -> WorldState:
        size = mujoco.mj_stateSize(self.model, _STATE_SPEC)
        values = np.empty(size, dtype=np.float64)
        mujoco.mj_getState(self.model, self.data, values, _STATE_SPEC)
        return WorldState(values)

    def restore(self, state: WorldState) -> None:
        mujoco.mj_setState(self.model, self.data, state.values, _STATE_SPEC)
        self.forward()

    def state_hash(self) -> str:
        """SHA-256 of the physical and control state (time, qpos, qvel, act, controls, applied forces,
        mocap, equality flags) without solver internals: equal hashes mean bit-identical states."""
        size = mujoco.mj_stateSize(self.model, _HASHED_SPEC)
        values = np.empty(size, dtype=np.float64)
        mujoco.mj_getState(self.model, self.data, values, _HASHED_SPEC)
        return hashlib.sha256(values.tobytes()).hexdigest()

    def scratch_copy(self) -> World:
        """An independent world on the same model with a copy of the current state, for evaluator-side
        what-if simulation; stepping it never touches this world."""
        scratch = World.__new__(World)
        scratch.model = self.model
        scratch.data = copy.copy(self.data)
        scratch._observer = None
        scratch._steps_since_observed = 0
        return scratch

    def body_pose(self, name: str) -> tuple[float, ...]:
        """Position (x, y, z) and quaternion (w, x, y, z) of a body as seven plain floats."""
        body = self.data.body(name)
        return tuple(float(v) for v in (*body.xpos, *body.xquat))

    # --- evaluator-side queries (never sent to the agent) ---
    def body_position(self, name: str) -> np.ndarray:
        return np.array(self.data.body(name).xpos)

    def body_quaternion(self, name: str) -> np.ndarray:
        return np.array(self.data.body(name).xquat)

    def body_rotation(self, name: str) -> np.ndarray:
        return np.array(self.data.body(name).xmat).reshape(3, 3)

    def in_contact(self, geoms_a: frozenset[int], geoms_b: frozenset[int]) -> bool:
        """True if any active contact touches one geom of each set."""
        for i in range(self.data.ncon):
            c = self.data.contact[i]
            g1, g2 = int(c.geom1), int(c.geom2)
            if (g1 in geoms_a and g2 in geoms_b) or (g1 in geoms_b and g2 in geoms_a):
                return True
        return False
