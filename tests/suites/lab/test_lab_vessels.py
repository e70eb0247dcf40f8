"""Vessels on a bench: a level surface reaches the rim at the angle its fill sets, the lip is the rim's
lowest point, what is poured lands in the vessel under the lip or is spilled onto the bench, and the liquid
is drawn at its height and colour."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from actloop.suites.lab.physics.solutions import CRYSTAL_VIOLET, HYDROXIDE, Portion, fade
from actloop.suites.lab.platforms.vessels import POUR_ML_S, Shape, Vessels

VIAL = Shape(inner_half=0.0075, depth=0.036, floor_z=-0.018, round=True)
CUVETTE = Shape(inner_half=0.0045, depth=0.048, floor_z=-0.023)


def tilted(degrees: float, about: str = "y") -> np.ndarray:
    """A rotation by ``degrees`` about world x or y."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if about == "y":
        return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def test_a_vessel_pours_once_its_level_surface_reaches_the_rim() -> None:
    volume = 1.0
    fill = VIAL.fill_height(volume)
    assert fill == pytest.approx(1e-6 / (math.pi * 0.0075**2))
    onset = math.degrees(math.atan((VIAL.depth - fill) / VIAL.inner_half))
    assert VIAL.pour_rate(volume, tilted(onset - 0.5)[:, 2]) == 0.0
    assert 0.0 < VIAL.pour_rate(volume, tilted(onset + 2.0)[:, 2]) < POUR_ML_S
    assert VIAL.pour_rate(volume, tilted(170.0)[:, 2]) == POUR_ML_S
    assert VIAL.pour_rate(0.0, tilted(170.0)[:, 2]) == 0.0
    fuller = VIAL.pour_rate(5.0, tilted(onset - 0.5)[:, 2])
    assert fuller > 0.0  # a fuller vessel pours at a smaller lean
    assert CUVETTE.capacity_ml == pytest.approx(0.009**2 * 0.048 * 1e6)


def test_the_lip_is_the_rims_lowest_point() -> None:
    centre = np.zeros(3)
    lip = VIAL.lip(centre, tilted(90.0))  # lying on its side, its mouth towards +x
    rim = centre + tilted(90.0)[:, 2] * (VIAL.floor_z + VIAL.depth)
    assert lip[2] == pytest.approx(rim[2] - VIAL.inner_half)
    square = CUVETTE.lip(centre, tilted(30.0, "x"))
    top = tilted(30.0, "x")[:, 2] * (CUVETTE.floor_z + CUVETTE.depth)
    assert np.linalg.norm(square - top) == pytest.approx(CUVETTE.inner_half)  # across a flat side
    assert VIAL.lip(centre, np.eye(3))[2] == pytest.approx(VIAL.floor_z + VIAL.depth)


def test_a_vessel_catches_only_what_falls_into_its_mouth_from_above() -> None:
    here = np.array([0.1, 0.2, 0.0])
    rim_z = CUVETTE.floor_z + CUVETTE.depth
    assert CUVETTE.catches(here, np.eye(3), here + np.array([0.004, -0.004, rim_z + 0.01]))
    assert not CUVETTE.catches(here, np.eye(3), here + np.array([0.005, 0.0, rim_z + 0.01]))  # on the wall
    assert not CUVETTE.catches(here, np.eye(3), here + np.array([0.0, 0.0, rim_z - 0.001]))  # below the rim
    assert not CUVETTE.catches(here, tilted(40.0), here + np.array([0.0, 0.0, rim_z + 0.05]))  # not upright


SCENE = """
<mujoco>
  <option timestep="{dt}"/>
  <worldbody>
    <body name="vial" pos="{vx} 0 {vz}">
      <joint name="vial_tilt" type="hinge" axis="0 1 0"/>
      <geom type="cylinder" size="0.009 0.02" mass="0.01" contype="0" conaffinity="0"/>
      <geom name="vial_liquid" type="cylinder" size="0.0075 0.018" pos="0 0 0" contype="0"
            conaffinity="0" mass="0"/>
    </body>
    <body name="cuvette" pos="0 0 0.025">
      <geom type="box" size="0.00625 0.00625 0.025" mass="0.01" contype="0" conaffinity="0"/>
      <geom name="cuvette_liquid" type="box" size="0.0045 0.0045 0.024" contype="0" conaffinity="0"
            mass="0"/>
    </body>
  </worldbody>
</mujoco>"""


def bench(vial_x: float) -> tuple[mujoco.MjModel, mujoco.MjData, Vessels]:
    """A vial on a hinge about y above (or beside) a cuvette; the vial holds 1 mL of base, the cuvette
    2 mL of dye fading at k0 + k2 [OH-]."""
    dt = 1 / 240
    model = mujoco.MjModel.from_xml_string(SCENE.format(dt=dt, vx=vial_x, vz=0.075))
    data = mujoco.MjData(model)
    contents = [Portion.of(1.0, {HYDROXIDE: 0.09}), Portion.of(2.0, {CRYSTAL_VIOLET: 1.5e-5})]
    vessels = Vessels(
        ("vial", "cuvette"),
        (VIAL, CUVETTE),
        contents,
        lambda p: (1.0, 1.0 - min(1.0, p.concentration(CRYSTAL_VIOLET) * 5e4), 1.0),
        lambda p, s: fade(p, s, 1e-3, 0.2),
    )
    vessels.attach(model)
    return model, data, vessels


def pour(
    model: mujoco.MjModel, data: mujoco.MjData, vessels: Vessels, degrees: float, seconds: float
) -> float:
    """Hold the vial leaning ``degrees`` about y for ``seconds``; returns the time at the end."""
    data.qpos[0] = math.radians(degrees)
    mujoco.mj_kinematics(model, data)
    time_s = 0.0
    for _ in range(round(seconds * 240)):
        time_s += 1 / 240
        vessels.step(data, 1 / 240, time_s)
    return time_s


def test_poured_base_lands_in_the_cuvette_under_the_lip_and_starts_the_fading() -> None:
    # the vial's lip, tipped 120 degrees towards -x about its centre 75 mm up, falls over the cuvette
    rim = 0.018
    lip_x = -(math.sin(math.radians(120.0)) * rim) - math.cos(math.radians(30.0)) * 0.0075
    model, data, vessels = bench(-lip_x)
    end = pour(model, data, vessels, -120.0, 2.0)
    vial, cuvette = vessels.contents(0, end), vessels.contents(1, end)
    assert vial.volume_ml == 0.0 and cuvette.volume_ml == pytest.approx(3.0)
    assert cuvette.concentration(HYDROXIDE) == pytest.approx(0.03)
    assert vessels.mixed_at[1] is not None and vessels.mixed_at[1] < 0.5 and not vessels.spills
    later = vessels.contents(1, end + 100.0).concentration(CRYSTAL_VIOLET)
    assert later == pytest.approx(
        cuvette.concentration(CRYSTAL_VIOLET) * math.exp(-(1e-3 + 0.2 * 0.03) * 100)
    )
    vessels.draw(model, end)
    assert model.geom("cuvette_liquid").size[2] == pytest.approx(CUVETTE.fill_height(3.0) / 2)
    assert model.geom("vial_liquid").rgba[3] == 0.0  # empty: not drawn


def test_base_poured_beside_the_cuvette_is_a_spill() -> None:
    model, data, vessels = bench(0.05)
    pour(model, data, vessels, -120.0, 2.0)
    assert vessels.spilled_ml() == {"vial": pytest.approx(1.0)}
    assert vessels.contents(1, 2.0).volume_ml == 2.0 and vessels.mixed_at[1] is None
    upright_model, upright_data, upright = bench(0.05)
    pour(upright_model, upright_data, upright, 20.0, 2.0)  # a small lean: nothing pours
    assert not upright.spills and upright.contents(0, 2.0).volume_ml == 1.0


def test_what_runs_over_the_rim_of_a_full_vessel_is_spilled() -> None:
    rim = 0.018
    lip_x = -(math.sin(math.radians(120.0)) * rim) - math.cos(math.radians(30.0)) * 0.0075
    model, data, vessels = bench(-lip_x)
    vessels._set(1, 0.0, Portion.of(CUVETTE.capacity_ml - 0.25, {CRYSTAL_VIOLET: 1e-5}))
    pour(model, data, vessels, -120.0, 2.0)
    assert vessels.contents(1, 2.0).volume_ml == pytest.approx(CUVETTE.capacity_ml)
    assert vessels.spilled_ml() == {"cuvette": pytest.approx(0.75)}
