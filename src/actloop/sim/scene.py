"""Assemble a tabletop scene (table, arms, objects, observer camera) into one MuJoCo model.

World frame (the seed's): metres, x to the robot's right, y away from the robot, z up, table top at
z = 0.74. The right arm stands at x > 0; dual-arm scenes add the mirrored left arm.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco

from actloop.sim.robot import ArmMount, arm_actuators_xml, arm_equality_xml, arm_xml

TABLE_TOP_Z = 0.74
TABLE_HALF_X = 0.75
TABLE_HALF_Y = 0.45
OBSERVER_CAMERA = "observer"
VERTICAL_FOV_DEG = 55.0
PHYSICS_TIMESTEP = 0.002

RIGHT_ARM = ArmMount("right", (0.30, -0.52, 0.62), 90.0)
LEFT_ARM = ArmMount("left", (-0.30, -0.52, 0.62), 90.0)

# World geoms collide with robots (contype 1 & robot conaffinity 1) and with objects.
WORLD_GEOM = 'contype="1" conaffinity="3"'


@dataclass(frozen=True)
class SceneConfig:
    """What goes into a scene: the exposed arms and the MJCF bodies of the task objects."""

    arms: tuple[ArmMount, ...] = (RIGHT_ARM,)
    objects: tuple[str, ...] = field(default_factory=tuple)
    timestep: float = PHYSICS_TIMESTEP
    """Seconds per physics step (vabench: 2 ms; the lab bench: 1/240 s as its seed states)."""
    assets: tuple[str, ...] = ()
    """Extra MJCF assets (materials) the objects use."""
    sections: tuple[str, ...] = ()
    """Extra top-level MJCF sections after the world body (e.g. ``<tendon>``)."""


def scene_xml(config: SceneConfig) -> str:
    """The complete MJCF document for a scene."""
    arms = "\n".join(arm_xml(m) for m in config.arms)
    actuators = "\n".join(arm_actuators_xml(m.name) for m in config.arms)
    equalities = "\n".join(arm_equality_xml(m.name) for m in config.arms)
    objects = "\n".join(config.objects)
    pedestals = "\n".join(
        f'<geom name="{m.name}_pedestal" type="box" size="0.1 0.1 {m.base[2] / 2:.4f}" '
        f'pos="{m.base[0]} {m.base[1]} {m.base[2] / 2:.4f}" rgba="0.3 0.32 0.36 1" {WORLD_GEOM}/>'
        for m in config.arms
    )
    extra_assets = "".join(f"\n    {a}" for a in config.assets)
    extra_sections = "".join(f"\n  {x}" for x in config.sections)
    tz = TABLE_TOP_Z
    legs = "\n".join(
        f'<geom type="box" size="0.03 0.03 {(tz - 0.05) / 2:.4f}" pos="{sx * (TABLE_HALF_X - 0.06)} '
        f'{sy * (TABLE_HALF_Y - 0.06)} {(tz - 0.05) / 2:.4f}" rgba="0.45 0.38 0.3 1" contype="0" '
        f'conaffinity="0"/>'
        for sx in (-1, 1)
        for sy in (-1, 1)
    )
    return f"""
<mujoco model="actloop_tabletop">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="{config.timestep!r}" integrator="implicitfast" cone="elliptic" impratio="10"/>
  <visual>
    <global offwidth="1280" offheight="960" fovy="{VERTICAL_FOV_DEG}"/>
    <quality shadowsize="0" offsamples="2"/>
    <headlight ambient="0.45 0.45 0.45" diffuse="0.5 0.5 0.5" specular="0.05 0.05 0.05"/>
    <map znear="0.02" zfar="50"/>
  </visual>
  <asset>
    <texture name="sky" type="skybox" builtin="gradient" rgb1="0.86 0.89 0.93" rgb2="0.6 0.64 0.7"
             width="32" height="32"/>
    <texture name="floor_tex" type="2d" builtin="checker" rgb1="0.55 0.56 0.58" rgb2="0.5 0.51 0.53"
             width="64" height="64"/>
    <material name="floor_mat" texture="floor_tex" texrepeat="8 8"/>{extra_assets}
  </asset>
  <worldbody>
    <light name="key" pos="0.6 -0.8 2.6" dir="-0.25 0.3 -1" diffuse="0.55 0.55 0.55" castshadow="false"/>
    <light name="fill" pos="-0.8 0.6 2.2" dir="0.3 -0.2 -1" diffuse="0.25 0.25 0.25" castshadow="false"/>
    <geom name="floor" type="plane" size="3 3 0.05" material="floor_mat" {WORLD_GEOM}/>
    <geom name="table" type="box" size="{TABLE_HALF_X} {TABLE_HALF_Y} 0.025" pos="0 0 {tz - 0.025}"
          rgba="0.8 0.74 0.64 1" friction="1 0.005 0.0001" {WORLD_GEOM}/>
    {legs}
    {pedestals}
    <camera name="{OBSERVER_CAMERA}" mode="fixed" pos="0 -0.9 1.5" fovy="{VERTICAL_FOV_DEG}"/>
    {arms}
    {objects}
  </worldbody>{extra_sections}
  <equality>
    {equalities}
  </equality>
  <actuator>
    {actuators}
  </actuator>
</mujoco>
"""


def build_model(config: SceneConfig) -> mujoco.MjModel:
    """Compile a scene into a MuJoCo model."""
    return mujoco.MjModel.from_xml_string(scene_xml(config))
