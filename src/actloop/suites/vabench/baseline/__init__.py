"""The classical baseline: a scripted look-plan-act agent that reads only what a model reads.

Its inputs are the conversation messages: the task instruction, the observation text
(proprioception, feedback) and the current image. It reads no simulator state. Its prior knowledge is
the benchmark's published interface (world axes, table height, the semantic camera views' offsets and
field of view) and a description of each task family's procedure, the knowledge a demonstration
gives a model.
"""

from actloop.suites.vabench.baseline.policy import decide

__all__ = ["decide"]
