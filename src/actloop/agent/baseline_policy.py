"""The classical baseline: a scripted look-then-grasp agent that reads only what a model reads.

Its inputs are the conversation messages: the observation text (proprioception, feedback) and the
current image. It reads no simulator state. Its only prior knowledge is the benchmark's published
interface: world axes, table height, and the geometry of the ``view_topdown`` camera (table 27: the
camera sits 0.68 m above the gripper centre, looking straight down, with a 55° vertical field of view;
positions are clamped to the camera workspace), the same description a model can be given.

Procedure: pull the gripper back so it does not hide the table, look top-down, find the saturated
object, estimate its position, size and yaw from the image, align the finger-closing axis with a face,
move above it, descend, close, lift. If the episode has not ended after the lift, open, rise and try
again from a fresh top-down look. State between turns lives in the ``reason`` of its own previous
decision, which is part of the conversation like any model's earlier output.
"""

from __future__ import annotations

import base64
import io
import json
import math
import re
from dataclasses import dataclass

import numpy as np
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, ContentImage, ContentText
from PIL import Image

from actloop.agent.vision import find_object

TABLE_Z = 0.74
TOPDOWN_HEIGHT = 0.68
CAMERA_Z_MAX = 1.85
CAMERA_Y_MAX = 0.35
VERTICAL_FOV_DEG = 55.0
RETREAT_Y = -0.28
HOVER_HEIGHT = 0.08
LIFT_MM = 80.0
MAX_ATTEMPTS = 3
_TAG = re.compile(r"\[baseline (?P<state>\{.*\})\]")
_VEC = r"\[\s*(-?[\d.]+),\s*(-?[\d.]+),\s*(-?[\d.]+)\s*\]"


@dataclass(frozen=True)
class Proprio:
    gc: np.ndarray
    ry: np.ndarray
    gripper_open: bool


def decide(messages: list[ChatMessage]) -> str:
    """The next decision as JSON text, from the conversation so far."""
    observation = _latest_observation(messages)
    if observation is None:
        return _emit({"stop": True}, {"phase": "done"}, "no observation to act on")
    text, image = observation
    proprio = _parse_proprio(text)
    if proprio is None:
        return _emit({"stop": True}, {"phase": "done"}, "observation has no right-arm proprioception")
    state = _previous_state(messages)
    return _next(state, proprio, image)


def _next(state: dict, p: Proprio, image: np.ndarray | None) -> str:
    phase = state.get("phase", "start")
    attempt = int(state.get("attempt", 1))
    if phase == "start":
        if p.gc[1] > RETREAT_Y + 0.01:
            mm = min(100.0, 1000.0 * (p.gc[1] - RETREAT_Y))
            return _emit(
                _move("y", -mm), {"phase": "look", "attempt": attempt}, "clear the view of the table"
            )
        phase = "look"
    if phase == "look":
        return _emit(
            {"action": "camera.view_topdown"},
            {"phase": "locate", "attempt": attempt, "gc": _r(p.gc)},
            "look straight down at the table",
        )
    if phase == "locate":
        target = _locate(image, np.array(state["gc"]))
        if target is None:
            return _emit({"stop": True}, {"phase": "done"}, "no object found in the top-down view")
        state = {"phase": "align", "attempt": attempt, **target}
        phase = "align"
    if phase == "align":
        heading = _heading(p.ry)
        turn = (state["heading"] - heading + math.pi / 4) % (math.pi / 2) - math.pi / 4
        state = {**state, "phase": "hover"}
        if abs(math.degrees(turn)) >= 1.0:
            # the approach axis points down: +rx turns clockwise seen from above
            angle = -math.degrees(turn)
            action = {
                "action": "gripper.rotate_local",
                "axis": "rx",
                "sign": "+" if angle > 0 else "-",
                "angle_deg": round(abs(angle), 1),
            }
            return _emit(action, state, "align the fingers with the object's faces")
        phase = "hover"
    if phase == "hover":
        for axis, i in (("x", 0), ("y", 1)):
            mm = 1000.0 * (state["target"][i] - p.gc[i])
            if abs(mm) >= 1.0:
                return _emit(_move(axis, mm), state, f"move above the object along {axis}")
        phase = "descend"
        state = {**state, "phase": phase}
    if phase == "descend":
        mm = 1000.0 * (state["grasp_z"] - p.gc[2])
        if abs(mm) >= 1.0:
            return _emit(_move("z", mm), state, "descend to grasp height")
        return _emit({"action": "gripper.close"}, {**state, "phase": "lift"}, "close on the object")
    if phase == "lift":
        return _emit(_move("z", LIFT_MM), {**state, "phase": "retry"}, "lift the object")
    if phase == "retry":
        if attempt >= MAX_ATTEMPTS:
            return _emit({"stop": True}, {"phase": "done"}, "grasp attempts exhausted")
        return _emit(
            {"action": "gripper.open"},
            {"phase": "start", "attempt": attempt + 1},
            "the lift did not finish the task; release and look again",
        )
    return _emit({"stop": True}, {"phase": "done"}, "finished")


def _locate(image: np.ndarray | None, gc: np.ndarray) -> dict | None:
    """Object position, grasp height and face heading from a top-down frame taken above ``gc``."""
    if image is None:
        return None
    blob = find_object(image)
    if blob is None:
        return None
    height, width = image.shape[:2]
    focal = (height / 2) / math.tan(math.radians(VERTICAL_FOV_DEG / 2))
    eye = np.array([gc[0], min(gc[1], CAMERA_Y_MAX), min(gc[2] + TOPDOWN_HEIGHT, CAMERA_Z_MAX)])
    # apparent side s_px = f * s / (eye_z - table - s): solve for the object's size s
    size = blob.side_px * (eye[2] - TABLE_Z) / (focal + blob.side_px)
    depth = eye[2] - (TABLE_Z + size)
    # top-down image: right is world +x, up is world +y
    x = eye[0] + (blob.u - width / 2) * depth / focal
    y = eye[1] - (blob.v - height / 2) * depth / focal
    grasp_z = TABLE_Z + max(size / 2, 0.012)
    return {
        "target": _r(np.array([x, y])),
        "grasp_z": round(grasp_z, 4),
        "heading": -blob.edge_angle_rad,
        "size": round(size, 4),
    }


def _heading(ry: np.ndarray) -> float:
    return math.atan2(float(ry[1]), float(ry[0]))


def _move(axis: str, mm: float) -> dict:
    mm = max(-100.0, min(100.0, mm))
    return {
        "action": "gripper.move_world",
        "axis": axis,
        "sign": "+" if mm > 0 else "-",
        "distance_mm": round(max(1.0, abs(mm)), 1),
    }


def _r(v: np.ndarray) -> list[float]:
    return [round(float(x), 4) for x in v]


def _emit(action: dict, state: dict, why: str) -> str:
    return json.dumps({**action, "reason": f"{why} [baseline {json.dumps(state)}]"})


def _previous_state(messages: list[ChatMessage]) -> dict:
    for message in reversed(messages):
        if isinstance(message, ChatMessageAssistant):
            try:
                reason = str(json.loads(message.text).get("reason", ""))
            except (json.JSONDecodeError, AttributeError):
                return {}
            match = _TAG.search(reason)
            return json.loads(match.group("state")) if match else {}
    return {}


def _latest_observation(messages: list[ChatMessage]) -> tuple[str, np.ndarray | None] | None:
    """Text and first image of the most recent user message that carries proprioception."""
    for message in reversed(messages):
        if not isinstance(message, ChatMessageUser):
            continue
        parts = [ContentText(text=message.content)] if isinstance(message.content, str) else message.content
        text = "\n".join(p.text for p in parts if isinstance(p, ContentText))
        if "GC (finger midpoint)" not in text:
            continue
        images = [p for p in parts if isinstance(p, ContentImage)]
        return text, (_decode(images[0].image) if images else None)
    return None


def _decode(uri: str) -> np.ndarray:
    payload = uri.split(",", 1)[1] if uri.startswith("data:") else uri
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(payload))).convert("RGB"))


def _parse_proprio(text: str) -> Proprio | None:
    section = text.split("right arm:", 1)
    if len(section) < 2:
        return None
    body = section[1]
    gc = re.search(r"GC \(finger midpoint\) xyz m: " + _VEC, body)
    ry = re.search(r"local axis ry \(finger closing\) in world: " + _VEC, body)
    grip = re.search(r"gripper: (open|closed)", body)
    if not (gc and ry and grip):
        return None
    return Proprio(
        gc=np.array([float(g) for g in gc.groups()]),
        ry=np.array([float(g) for g in ry.groups()]),
        gripper_open=grip.group(1) == "open",
    )
