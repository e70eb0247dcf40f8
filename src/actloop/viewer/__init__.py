"""A static, server-free trajectory viewer written into an episode's record directory."""

from actloop.viewer.page import VIEWER_FILE, write_viewer
from actloop.viewer.steps import episode_data

__all__ = ["VIEWER_FILE", "episode_data", "write_viewer"]
