"""The interface levels (the seed's section 3.2), nested: every call of a level stays unchanged above it.

- ``T0``: camera images with their calibration, robot state, joint-position trajectories, the gripper, IK
  without motion, waiting, one submission.
- ``T1``: adds ``segment`` (ground-truth masks and surface points of a named part) and ``move_hand``
  (collision-free planned hand motion); see :mod:`actloop.suites.lab.level1`.
- ``T2`` (diagnostic): the T1 bench, with manipulation skills written in T1 calls placed in the workspace
  (``lab_skills.py``) for the agent to read, use and change.
"""

from typing import Final

LEVELS: Final = ("T0", "T1", "T2")
