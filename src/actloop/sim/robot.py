"""A Franka Panda arm with a parallel-jaw hand, built from primitive geoms as MJCF.

The kinematic chain (link offsets, joint axes, joint limits, the flange and the hand's 45° mount) follows
Franka's published Panda parameters; the links are capsules along each segment, so the arm renders fast
and needs no downloaded meshes. All bodies use gravity compensation so position servos hold a pose
without sag. Names are prefixed with the arm name (``right_joint1``, ``right_hand``, ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# (child offset in parent frame, child quaternion wxyz relative to parent, joint range in rad).
# Modified-DH parameters of the Panda expressed as body offsets; every joint turns about its local z.
_HALF_PI_X_NEG = "0.70710678 -0.70710678 0 0"
_HALF_PI_X_POS = "0.70710678 0.70710678 0 0"
PANDA_LINKS: tuple[tuple[tuple[float, float, float], str, tuple[float, float]], ...] = (
    ((0.0, 0.0, 0.333), "1 0 0 0", (-2.8973, 2.8973)),
    ((0.0, 0.0, 0.0), _HALF_PI_X_NEG, (-1.7628, 1.7628)),
    ((0.0, -0.316, 0.0), _HALF_PI_X_POS, (-2.8973, 2.8973)),
    ((0.0825, 0.0, 0.0), _HALF_PI_X_POS, (-3.0718, -0.0698)),
    ((-0.0825, 0.384, 0.0), _HALF_PI_X_NEG, (-2.8973, 2.8973)),
    ((0.0, 0.0, 0.0), _HALF_PI_X_POS, (-0.0175, 3.7525)),
    ((0.088, 0.0, 0.0), _HALF_PI_X_POS, (-2.8973, 2.8973)),
)
FLANGE_OFFSET = 0.107
HAND_MOUNT_QUAT = "0.92387953 0 0 -0.38268343"  # hand turned -45° about the flange axis
FINGER_ORIGIN_Z = 0.0584
FINGER_PAD_Z = 0.045  # pad centre below the finger origin, along the approach axis
GC_OFFSET = FINGER_ORIGIN_Z + FINGER_PAD_Z  # flange to finger-midpoint distance, metres
FINGER_TRAVEL = 0.04  # each finger opens 0-40 mm: 80 mm maximum aperture

JOINT_KP = (4500.0, 4500.0, 3500.0, 3500.0, 2000.0, 2000.0, 2000.0)
LINK_RADIUS = (0.065, 0.06, 0.06, 0.055, 0.055, 0.05, 0.045)
LINK_COLOR = "0.92 0.92 0.94 1"
JOINT_COLOR = "0.22 0.22 0.25 1"
HAND_COLOR = "0.85 0.86 0.88 1"
PAD_COLOR = "0.15 0.15 0.17 1"

# Contact groups (MuJoCo collides two geoms when either's contype shares a bit with the other's
# conaffinity): every arm touches the world (contype 1) and objects; the right arm (2, 1) never touches
# itself, the left arm (4, 3) never touches itself but does touch the right arm, so two arms collide in
# physics as they would in reality, and the executor refuses plans that would make them.
ARM_CONTACT_BITS = {"right": (2, 1), "left": (4, 3)}


@dataclass(frozen=True)
class ArmMount:
    """Where an arm stands: base position in the world and yaw (degrees) of its forward axis."""

    name: str
    base: tuple[float, float, float]
    yaw_deg: float


def _fmt(v: tuple[float, ...] | np.ndarray) -> str:
    return " ".join(f"{float(x):.6g}" for x in v)


def arm_xml(mount: ArmMount) -> str:
    """The MJCF ``<body>`` tree of one arm with its hand, for the world body."""
    p = mount.name
    yaw = math.radians(mount.yaw_deg)
    base_quat = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
    contype, conaffinity = ARM_CONTACT_BITS[p]
    geom = f'contype="{contype}" conaffinity="{conaffinity}" group="1"'
    out = [
        f'<body name="{p}_link0" pos="{_fmt(mount.base)}" quat="{_fmt(base_quat)}" gravcomp="1">',
        f'<geom name="{p}_base" type="cylinder" size="0.09 0.03" pos="0 0 0.03" '
        f'rgba="{JOINT_COLOR}" {geom}/>',
    ]
    offsets = [link[0] for link in PANDA_LINKS] + [(0.0, 0.0, FLANGE_OFFSET)]
    # the segment from the base to joint 1 belongs to link0
    out.append(
        f'<geom name="{p}_link0_seg" type="capsule" fromto="0 0 0.03 0 0 {0.333 - 0.06}" '
        f'size="0.065" rgba="{LINK_COLOR}" {geom}/>'
    )
    for i, (pos, quat, (lo, hi)) in enumerate(PANDA_LINKS, start=1):
        child = offsets[i]
        out.append(f'<body name="{p}_link{i}" pos="{_fmt(pos)}" quat="{quat}" gravcomp="1">')
        out.append(
            f'<joint name="{p}_joint{i}" axis="0 0 1" range="{lo} {hi}" limited="true" '
            f'armature="0.1" damping="1"/>'
        )
        out.append(
            f'<inertial pos="0 0 0" mass="{max(0.6, 3.0 - 0.35 * i):.2f}" diaginertia="0.02 0.02 0.01"/>'
        )
        r = LINK_RADIUS[i - 1]
        out.append(
            f'<geom name="{p}_joint{i}_housing" type="cylinder" size="{r} {r * 0.9:.4f}" '
            f'rgba="{JOINT_COLOR}" {geom}/>'
        )
        if math.dist(child, (0.0, 0.0, 0.0)) > 1e-6:
            out.append(
                f'<geom name="{p}_link{i}_seg" type="capsule" fromto="0 0 0 {_fmt(child)}" '
                f'size="{r * 0.85:.4f}" rgba="{LINK_COLOR}" {geom}/>'
            )
    out.append(_hand_xml(p, geom))
    out.append("</body>" * (len(PANDA_LINKS) + 1))
    return "\n".join(out)


def _hand_xml(p: str, geom: str) -> str:
    """Hand on the flange: palm, two sliding fingers with pads, the control and GC sites."""
    pad = f'{geom} friction="1.5 0.02 0.002" condim="4" priority="1"'
    fingers = []
    for side, sign in (("left", 1), ("right", -1)):
        fingers.append(
            f"""
      <body name="{p}_{side}_finger" pos="0 0 {FINGER_ORIGIN_Z}" gravcomp="1">
        <joint name="{p}_{side}_finger_joint" type="slide" axis="0 {sign} 0" range="0 {FINGER_TRAVEL}"
               armature="0.05" damping="10"/>
        <inertial pos="0 0 0.03" mass="0.05" diaginertia="1e-5 1e-5 1e-5"/>
        <geom name="{p}_{side}_finger_body" type="box" size="0.01 0.008 0.018" pos="0 {sign * 0.008} 0.018"
              rgba="{HAND_COLOR}" {geom}/>
        <geom name="{p}_{side}_pad" type="box" size="0.0095 0.0035 0.012"
              pos="0 {sign * 0.0035} {FINGER_PAD_Z}" rgba="{PAD_COLOR}" {pad}/>
      </body>"""
        )
    return f"""
<body name="{p}_hand" pos="0 0 {FLANGE_OFFSET}" quat="{HAND_MOUNT_QUAT}" gravcomp="1">
  <inertial pos="0 0 0.03" mass="0.7" diaginertia="0.003 0.003 0.002"/>
  <geom name="{p}_flange" type="cylinder" size="0.04 0.01" pos="0 0 0.005" rgba="{JOINT_COLOR}" {geom}/>
  <geom name="{p}_palm" type="box" size="0.025 0.1 0.022" pos="0 0 0.035" rgba="{HAND_COLOR}" {geom}/>
  <site name="{p}_control" pos="0 0 0" quat="0.70710678 0 -0.70710678 0" size="0.005" group="5"/>
  <site name="{p}_gc" pos="0 0 {GC_OFFSET}" size="0.005" group="5"/>
  {"".join(fingers)}
</body>"""


def arm_actuators_xml(name: str) -> str:
    """Joint position servos and the gripper servo of one arm."""
    lines = []
    for i, (_, _, (lo, hi)) in enumerate(PANDA_LINKS, start=1):
        kp = JOINT_KP[i - 1]
        lines.append(
            f'<position name="{name}_act{i}" joint="{name}_joint{i}" kp="{kp}" dampratio="1" '
            f'ctrlrange="{lo} {hi}" forcerange="-200 200"/>'
        )
    lines.append(
        f'<position name="{name}_gripper" joint="{name}_left_finger_joint" kp="2000" kv="40" '
        f'ctrlrange="0 {FINGER_TRAVEL}" forcerange="-60 60"/>'
    )
    return "\n".join(lines)


def arm_equality_xml(name: str) -> str:
    """Couple the two fingers so they move symmetrically."""
    return (
        f'<joint joint1="{name}_right_finger_joint" joint2="{name}_left_finger_joint" '
        f'polycoef="0 1 0 0 0" solref="0.005 1"/>'
    )
