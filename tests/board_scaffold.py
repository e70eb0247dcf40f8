"""Scaffolding the circuit-board experiments' tests share, standing in for the agent's hands and eyes where
a scripted arm would be slow: a box set by its pose (into a socket, onto its pad), the rocker by its
angle, and a wrist close-up of the LCDs read back as the reference reads them."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from PIL import Image

from actloop.sim.scene import TABLE_TOP_Z
from actloop.suites.lab.env import LabEnv
from actloop.suites.lab.instruments import Observation
from actloop.suites.lab.platforms.circuit_board import BOX_HALF, ROCKER_RANGE_RAD, SEAT_Z, CircuitBoard
from actloop.suites.lab.reference.circuit_board import HAND, VIEW_HEIGHT, WRIST_BACK_M
from actloop.suites.lab.reference.display import Camera, project, read_display, window_corners
from actloop.suites.lab.server import serving
from actloop.suites.lab.workspace_files import load_client, load_skills, write_workspace


def put_box(env: LabEnv, box: str, x: float, y: float, z: float, yaw: float = 0.0) -> None:
    """Set ``box`` at rest at (x, y, z), turned by ``yaw`` about the vertical."""
    joint = env.model.joint(f"{box}_free")
    quat = [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
    env.data.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [x, y, z, *quat]
    env.data.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def seat(env: LabEnv, box: str, socket: str, yaw: float = 0.0) -> None:
    """Set ``box`` down in the board's socket named ``socket``."""
    board = env.platform
    assert isinstance(board, CircuitBoard)
    centre = next(s.centre for s in board.sockets if s.name == socket)
    put_box(env, box, *centre, SEAT_Z + BOX_HALF[2] + 0.0003, yaw)


def home(env: LabEnv, box: str) -> None:
    """Set ``box`` back on its pad."""
    board = env.platform
    assert isinstance(board, CircuitBoard)
    spot = next(b.home for b in board.boxes if b.name == box)
    put_box(env, box, *spot, TABLE_TOP_Z + BOX_HALF[2] + 0.0003)


def power(env: LabEnv, on: bool) -> None:
    """Set the supply's rocker on (front end down) or off."""
    rocker = env.model.joint("rocker")
    env.data.qpos[rocker.qposadr[0]] = ROCKER_RANGE_RAD if on else -ROCKER_RANGE_RAD
    env.data.qvel[rocker.dofadr[0]] = 0.0


def read_lcds(env: LabEnv, cells: Mapping[str, int]) -> tuple[dict[str, float], Observation]:
    """Hold the wrist camera where the reference reads the board's LCDs, observe, and read each display of
    ``cells`` (its character cells) from the image: (what was read, the observation as logged)."""
    layout = env.calibration()["layout"]
    lcds = {name: layout[f"{name}_lcd"] for name in cells}
    x = (min(c[0] for c in lcds.values()) + max(c[0] for c in lcds.values())) / 2
    first = next(iter(lcds.values()))
    target = env.ik([x, first[1] - WRIST_BACK_M, first[2] + VIEW_HEIGHT], HAND)
    env._arm.set_configuration(env.data, np.array(target["joints"]), gripper_open=True)
    env.data.ctrl[env._arm_actuators] = target["joints"]
    env.wait(1.0)
    seen = env.observe()
    image = np.asarray(Image.open(io.BytesIO(seen["images"]["wrist"])).convert("RGB"))
    robot = seen["robot"]
    camera = Camera.wrist(env.calibration(), robot["hand_position"], robot["hand_quaternion"])
    read = {}
    for name, count in cells.items():
        corners = window_corners(tuple(lcds[name]), (1, 0, 0), (0, 1, 0), *layout["lcd_window_size"])
        read[name] = float(read_display(image, project(corners, camera), count))
    return read, env.instrument_log.observations[seen["observation_id"]]


def seat_with_skills(env: LabEnv, box: str, socket: str, workspace: Path) -> None:
    """T2 on a board: the workspace's skills (T1 segmentation and planned motion) grasp ``box`` across its
    neighbours, carry it over ``socket`` and set it in (the box's hang in the hand measured, as an agent
    would look at it), then press the REC key; ``env`` must be a T2 bench."""
    board = env.platform
    assert isinstance(board, CircuitBoard)
    x, y = next(s.centre for s in board.sockets if s.name == socket)
    skills = load_skills()
    with serving(env) as server:
        write_workspace(workspace, "card", server.url, server.token, "T2")
        lab = load_client().Lab(server.url, server.token)
        skills.grasp(lab, box, across=True)
        hand = skills.carry(lab, [x, y, SEAT_Z + 0.05], across=True)["hand_position"]
        held = server.run(lambda: {"at": [float(v) for v in env.data.body(box).xpos]})["at"]
        pads_above_centre = hand[2] - skills.PAD_REACH - held[2]
        at = [
            x - (held[0] - hand[0]),
            y - (held[1] - hand[1]),
            SEAT_Z + BOX_HALF[2] + pads_above_centre + 0.002,
        ]
        skills.place(lab, at, across=True)
        skills.press(lab, "logger")
        lab.close()
    env.wait(0.5)
