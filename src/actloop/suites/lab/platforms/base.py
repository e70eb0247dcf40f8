"""What a platform supplies to the lab bench."""

from __future__ import annotations

from abc import ABC, abstractmethod

import mujoco
import numpy as np


class Platform(ABC):
    """An apparatus on the bench, built for one instance: its MJCF bodies, its printed textures, and the
    hooks the bench calls as the physics advances (models MuJoCo does not have, instruments)."""

    @abstractmethod
    def bodies_xml(self) -> str:
        """MJCF bodies and geoms added to the world body (materials may name :meth:`textures`)."""

    def assets_xml(self) -> str:
        """MJCF assets (materials) the bodies use."""
        return ""

    def sections_xml(self) -> str:
        """Top-level MJCF sections after the world body (tendons, contact exclusions)."""
        return ""

    def textures(self) -> dict[str, np.ndarray]:
        """Named RGB textures (H×W×3 uint8), e.g. printed scales."""
        return {}

    def attach(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:  # noqa: B027  (optional hook)
        """Called once the model is compiled and the arm is at home (look up ids, set initial state)."""

    def after_step(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:  # noqa: B027  (optional hook)
        """Called after every physics step (advance non-rigid models, update displays)."""
