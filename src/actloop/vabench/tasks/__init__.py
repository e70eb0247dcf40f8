"""vabench task families; importing this package registers them all."""

from actloop.vabench.tasks import grasp_single_cube

__all__ = ["grasp_single_cube"]
