"""Turn a model's reply into a validated :class:`Decision`, or a :class:`DecisionError` it can act on.

Nothing here raises for any input. Error messages are written for the model: each names the offending
field, the allowed values or range, and where it helps, a correct example for the episode's action space.

Choices beyond the wire format in :mod:`actloop.suites.vabench.protocol.decisions`:

* Numbers must be JSON numbers (int or float). ``true``/``false`` are not numbers, NaN and infinities are
  rejected, and numeric strings such as ``"50"`` are rejected with a hint to drop the quotes.
* ``sign`` is exactly ``"+"`` or ``"-"``; an ``"arm": null`` counts as omitted; a non-string ``reason``
  is coerced with ``str()``; unknown extra keys are ignored.
* ``"arm"`` on a ``dual_gripper.*`` action, or one that contradicts a ``left_gripper.*`` /
  ``right_gripper.*`` name, is a schema error rather than being silently dropped.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal, cast

from actloop.suites.vabench.protocol.action_space import ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    MAX_ANGLE_DEG,
    MAX_DISTANCE_MM,
    MIN_ANGLE_DEG,
    MIN_DISTANCE_MM,
    SEMANTIC_VIEWS,
    Arm,
    CameraAction,
    Decision,
    DualMoveWorld,
    GripperCommand,
    LocalAxis,
    MoveWorld,
    RotateLocal,
    SetGripper,
    Sign,
    Stop,
    ToolCall,
    Translation,
    WorldAxis,
    to_json,
)

ErrorKind = Literal["json", "schema", "range", "unavailable"]

WORLD_AXES: tuple[WorldAxis, ...] = ("x", "y", "z")
LOCAL_AXES: tuple[LocalAxis, ...] = ("rx", "ry", "rz")
SIGNS: tuple[Sign, ...] = ("+", "-")
ARMS: tuple[Arm, ...] = ("left", "right")
GRIPPER_COMMANDS: tuple[GripperCommand, ...] = ("open", "close")

_FENCE = "```"
_OPENING_FENCE = re.compile(_FENCE + r"[\w-]*[ \t]*\r?\n?")
"""A fence and what precedes the block's content: a language tag such as ``json``, then a line break."""
_REASONING_END_TAGS = ("</think>", "</thinking>", "</reasoning>")
_SNIPPET_CHARS = 40
_TOOL_ARGS_EXAMPLES: dict[str, dict[str, Any]] = {"camera.history": {"step": 3}}
_BOUNDS: dict[str, tuple[float, float, str, str]] = {
    "distance_mm": (
        MIN_DISTANCE_MM,
        MAX_DISTANCE_MM,
        "millimetres",
        "Split longer moves into several actions.",
    ),
    "angle_deg": (MIN_ANGLE_DEG, MAX_ANGLE_DEG, "degrees", "Split larger rotations into several actions."),
}


@dataclass(frozen=True)
class DecisionError:
    """Why a reply is not a valid decision; ``message`` tells the model exactly what to fix."""

    kind: ErrorKind
    message: str


class _Reject(Exception):
    """Internal early exit from validation, converted to a :class:`DecisionError` at the boundary."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.error = DecisionError(kind, message)


def robot_actions(space: ActionSpace) -> tuple[str, ...]:
    """The robot action names advertised for ``space`` (``right_gripper.*`` is also accepted single-arm)."""
    names: tuple[str, ...] = ("gripper.move_world", "gripper.rotate_local", "gripper.open", "gripper.close")
    if space.dual_arm:
        names += tuple(f"{arm}_gripper.{cmd}" for arm in (*ARMS, "dual") for cmd in GRIPPER_COMMANDS)
        names += ("dual_gripper.move_world",)
    return names


def example_json(space: ActionSpace, action: str = "gripper.move_world") -> str:
    """A correct JSON object for ``action`` in ``space``, used in error messages and the prompt."""
    arm: Arm | None = "left" if space.dual_arm else None
    translation = Translation("z", "+", 20)
    decision: Decision
    if action == "gripper.rotate_local":
        decision = RotateLocal("rz", "+", 15, arm=arm)
    elif action == "dual_gripper.move_world":
        decision = DualMoveWorld(translation, translation)
    elif action in ("gripper.open", "gripper.close"):
        return json.dumps({"action": action, "arm": arm} if arm else {"action": action})
    else:
        decision = MoveWorld(translation, arm=arm)
    return json.dumps(to_json(decision))


def tool_example(name: str) -> str:
    """A correct JSON tool call for ``name``."""
    return json.dumps({"tool": name, "args": _TOOL_ARGS_EXAMPLES.get(name, {})})


def extract_json(text: str) -> dict[str, Any] | DecisionError:
    """The JSON object in a model reply.

    A reply that is entirely JSON is taken as is. Otherwise reasoning up to a closing ``</think>`` (or
    ``</thinking>``, ``</reasoning>``) tag is dropped, and the rest is again taken as is if it is JSON;
    else the first fenced block that parses to an object, failing that the text from the first ``{`` to
    the last ``}``. NaN and Infinity literals are decoded (as Python floats) and left for
    :func:`decision_from_json` to reject per field.
    """
    if not isinstance(text, str):
        return DecisionError("json", f"expected the reply as text; got {_show(text)}.")
    body = text.strip()
    ok, whole = _decode(body)
    if not ok:
        body = _strip_reasoning(body).strip()
        if not body:
            where = "after the reasoning block" if text.strip() else "at all"
            return DecisionError("json", f"the reply contains no text {where}; answer with one JSON object.")
        ok, whole = _decode(body)
    if ok:
        return whole if isinstance(whole, dict) else DecisionError("json", _not_an_object(whole))
    fences = _fenced_blocks(body)
    start, end = body.find("{"), body.rfind("}")
    span = [] if start < 0 else [body[start : end + 1] if end > start else body[start:]]
    errors: list[str] = []
    for candidate in fences + span:
        ok, value = _decode(candidate)
        if ok and isinstance(value, dict):
            return value
        errors.append(_not_an_object(value) if ok else value)
    if not errors:
        return DecisionError(
            "json", "no JSON object found in the reply; answer with exactly one JSON object."
        )
    return DecisionError("json", errors[0])


def parse_decision(text: str, space: ActionSpace) -> Decision | DecisionError:
    """Parse and validate one model reply against ``space``."""
    obj = extract_json(text)
    if isinstance(obj, DecisionError):
        return DecisionError(obj.kind, f"{obj.message} Example: {example_json(space)}")
    return decision_from_json(obj, space)


def decision_from_json(obj: dict[str, Any], space: ActionSpace) -> Decision | DecisionError:
    """Validate a decoded JSON object against ``space``."""
    try:
        return _decision(obj, space)
    except _Reject as reject:
        return reject.error


def _strip_reasoning(text: str) -> str:
    end = max((text.rfind(tag) + len(tag) for tag in _REASONING_END_TAGS if tag in text), default=0)
    return text[end:]


def _fenced_blocks(text: str) -> list[str]:
    """The contents of the fenced blocks in ``text``, in order, found in linear time.

    A block runs from an opening fence (with its language tag) to the next fence; a fence that is never
    closed ends the search.
    """
    blocks = []
    opening = _OPENING_FENCE.search(text)
    while opening:
        closing = text.find(_FENCE, opening.end())
        if closing < 0:
            break
        blocks.append(text[opening.end() : closing])
        opening = _OPENING_FENCE.search(text, closing + len(_FENCE))
    return blocks


def _decode(text: str) -> tuple[bool, Any]:
    """``(True, value)`` or ``(False, message)``."""
    try:
        return True, json.loads(text)
    except json.JSONDecodeError as err:
        return False, _decode_error_message(err)
    except RecursionError:
        return False, "invalid JSON: nested too deeply; answer with one flat JSON object."
    except ValueError:  # the only other failure: an integer longer than Python converts
        return False, "invalid JSON: a number has far too many digits."


def _decode_error_message(err: json.JSONDecodeError) -> str:
    doc, pos = err.doc, err.pos
    where = f"at line {err.lineno} column {err.colno} (near {doc[pos : pos + _SNIPPET_CHARS]!r})"
    if pos >= len(doc.rstrip()):
        return "invalid JSON: the text ends before the object is closed (was the reply cut off?)."
    if doc[pos : pos + 1] in ("}", "]") and doc[:pos].rstrip().endswith(","):
        return (
            f"invalid JSON: trailing comma before {doc[pos]!r} {where}; remove the comma after the last item."
        )
    if doc[pos : pos + 1] == "'":
        return f"invalid JSON: single quote {where}; JSON keys and strings need double quotes."
    if err.msg == "Extra data":
        return (
            f"invalid JSON: unexpected text after the JSON object {where}; reply with exactly one JSON "
            'object and put any explanation in its "reason" field.'
        )
    return f"invalid JSON: {err.msg} {where}."


def _not_an_object(value: Any) -> str:
    return f"expected one JSON object {{...}}; got {_show(value)}."


def _show(value: Any) -> str:
    """A short, safe rendering of a JSON value for an error message."""
    match value:
        case bool():
            return "true" if value else "false"
        case None:
            return "null"
        case str():
            shown = value if len(value) <= _SNIPPET_CHARS else value[:_SNIPPET_CHARS] + "..."
            return json.dumps(shown)
        case int():
            return str(value) if value.bit_length() < 64 else "a very large integer"
        case float() if math.isnan(value):
            return "NaN"
        case float() if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        case float():
            return repr(value)
        case dict():
            return "an object"
        case list() | tuple():
            return "an array"
    return f"a {type(value).__name__}"


def _choices(values: tuple[str, ...]) -> str:
    return ", ".join(f'"{v}"' for v in values)


def _decision(obj: Any, space: ActionSpace) -> Decision:
    if not isinstance(obj, dict):
        raise _Reject("json", _not_an_object(obj))
    present = [key for key in ("action", "tool", "stop") if key in obj]
    if len(present) != 1:
        got = "none of them" if not present else "both " + " and ".join(f'"{k}"' for k in present)
        raise _Reject(
            "schema",
            f'the object must contain exactly one of "action", "tool", "stop"; got {got}. '
            f"Example: {example_json(space)}",
        )
    reason = obj.get("reason")
    text = "" if reason is None else reason if isinstance(reason, str) else str(reason)
    if present == ["stop"]:
        return _stop(obj["stop"], text)
    if present == ["tool"]:
        return _tool(obj, space, text)
    return _action(obj, space, text)


def _stop(value: Any, reason: str) -> Stop:
    if value is not True:
        raise _Reject(
            "schema", f'"stop" must be true; got {_show(value)}. To continue, send an action instead.'
        )
    return Stop(reason)


def _tool(obj: dict[str, Any], space: ActionSpace, reason: str) -> ToolCall:
    name, args = obj["tool"], obj.get("args")
    if not space.tools:
        raise _Reject("unavailable", "no tools are available in this episode; send an action or stop.")
    if not isinstance(name, str) or name not in space.tools:
        raise _Reject(
            "schema",
            f"unknown tool {_show(name)}; available tools: {', '.join(space.tools)}. "
            'Robot and camera actions are written as {"action": "<name>", ...}.',
        )
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise _Reject(
            "schema",
            f'"args" must be a JSON object; got {_show(args)}. Example: {tool_example(name)}',
        )
    return ToolCall(name, dict(args), reason)


def _action(obj: dict[str, Any], space: ActionSpace, reason: str) -> Decision:
    name = obj["action"]
    if not isinstance(name, str):
        raise _Reject("schema", f'"action" must be a string naming an action; got {_show(name)}.')
    if name in space.tools:
        raise _Reject("schema", f"{name} is a tool, not an action; write {tool_example(name)}")
    if name == "stop":
        raise _Reject("schema", 'to stop, write {"stop": true}; "stop" is not an action name.')
    if name.startswith("camera."):
        return _camera(name, space, reason)
    family, _, verb = name.partition(".")
    if name == "gripper.move_world":
        arm = _arm(obj, name, space)
        return MoveWorld(_translation(obj, name, space, ""), arm, reason)
    if name == "gripper.rotate_local":
        arm = _arm(obj, name, space)
        axis = _choice(obj, "axis", LOCAL_AXES, name, space, " (gripper-local axes; world axes are x, y, z)")
        sign = _choice(obj, "sign", SIGNS, name, space)
        angle = _number(obj, "angle_deg", name, space, "")
        return RotateLocal(cast(LocalAxis, axis), cast(Sign, sign), angle, arm, reason)
    if name == "dual_gripper.move_world":
        _require_dual(name, space, obj)
        left, right = (_translation(_nested(obj, side, name, space), name, space, side) for side in ARMS)
        return DualMoveWorld(left, right, reason)
    if verb in GRIPPER_COMMANDS and family in ("gripper", "left_gripper", "right_gripper", "dual_gripper"):
        return SetGripper(verb, _gripper_arm(obj, name, family, space), reason)
    raise _Reject(
        "schema",
        f"unknown action {_show(name)}; valid robot actions: {', '.join(robot_actions(space))}"
        + ("; camera actions are named camera.<name>, e.g. camera.view_topdown." if space.camera else "."),
    )


def _camera(name: str, space: ActionSpace, reason: str) -> CameraAction:
    if not space.camera:
        raise _Reject(
            "unavailable",
            f"camera actions are not available in this protocol ({name}): five fixed views "
            f"({', '.join(SEMANTIC_VIEWS)}) are supplied every step. "
            "Send a robot action, a tool call or stop.",
        )
    view = name.removeprefix("camera.")
    if view not in space.camera_actions():
        valid = ", ".join(f"camera.{v}" for v in space.camera_actions())
        raise _Reject("schema", f"unknown camera action {_show(name)}; valid camera actions: {valid}.")
    return CameraAction(view, reason)


def _require_dual(name: str, space: ActionSpace, obj: dict[str, Any]) -> None:
    if not space.dual_arm:
        raise _Reject(
            "unavailable",
            f"{name} is only available in dual-arm tasks; this task exposes only the "
            f"{' and '.join(space.arms)} arm. Use the gripper.* actions.",
        )
    if obj.get("arm") is not None:
        raise _Reject("schema", f'{name} commands both arms; remove "arm" or use a single-gripper action.')


def _check_arm(value: Any, space: ActionSpace) -> Arm:
    if value not in ARMS:
        raise _Reject("schema", f'"arm" must be one of {_choices(ARMS)}; got {_show(value)}.')
    if value not in space.arms:
        only = " and ".join(space.arms)
        raise _Reject(
            "unavailable",
            f'arm "{value}" is not available: this task exposes only the {only} arm; '
            f'omit "arm" or use {_choices(space.arms)}.',
        )
    return cast(Arm, value)


def _arm(obj: dict[str, Any], name: str, space: ActionSpace) -> Arm | None:
    """The ``arm`` of a single-gripper command: required in dual-arm tasks, optional otherwise."""
    value = obj.get("arm")
    if value is not None:
        return _check_arm(value, space)
    if space.dual_arm:
        raise _Reject(
            "schema",
            f'{name} needs "arm": "left" or "right" in this dual-arm task (dual_gripper.* commands both '
            f"arms). Example: {example_json(space, name)}",
        )
    return None


def _gripper_arm(
    obj: dict[str, Any], name: str, family: str, space: ActionSpace
) -> Arm | Literal["both"] | None:
    if family == "gripper":
        return _arm(obj, name, space)
    if family == "dual_gripper":
        _require_dual(name, space, obj)
        return "both"
    arm = _check_arm(family.removesuffix("_gripper"), space)
    if obj.get("arm") not in (None, arm):
        raise _Reject(
            "schema", f'{name} commands the {arm} arm but "arm" says {_show(obj["arm"])}; remove "arm".'
        )
    return arm


def _nested(obj: dict[str, Any], side: str, name: str, space: ActionSpace) -> dict[str, Any]:
    value = obj.get(side)
    if not isinstance(value, dict):
        raise _Reject(
            "schema",
            f'{name} needs "{side}": an object with axis, sign and distance_mm; got {_show(value)}. '
            f"Example: {example_json(space, name)}",
        )
    return value


def _translation(obj: dict[str, Any], name: str, space: ActionSpace, path: str) -> Translation:
    prefix = f"{path}." if path else ""
    axis = _choice(
        obj, "axis", WORLD_AXES, name, space, " (world axes; local axes belong to rotate_local)", prefix
    )
    sign = _choice(obj, "sign", SIGNS, name, space, "", prefix)
    distance = _number(obj, "distance_mm", name, space, prefix)
    return Translation(cast(WorldAxis, axis), cast(Sign, sign), distance)


def _choice(
    obj: dict[str, Any],
    key: str,
    allowed: tuple[str, ...],
    name: str,
    space: ActionSpace,
    note: str = "",
    prefix: str = "",
) -> str:
    field = prefix + key
    if key not in obj:
        raise _Reject(
            "schema",
            f'{name} needs "{field}": one of {_choices(allowed)}{note}. Example: {example_json(space, name)}',
        )
    value = obj[key]
    if value not in allowed:
        raise _Reject("schema", f"{field} must be one of {_choices(allowed)}{note}; got {_show(value)}.")
    return cast(str, value)


def _number(obj: dict[str, Any], key: str, name: str, space: ActionSpace, prefix: str) -> float:
    low, high, unit, split = _BOUNDS[key]
    field = prefix + key
    expected = f"a number between {low:g} and {high:g} ({unit})"
    if key not in obj:
        raise _Reject("schema", f'{name} needs "{field}": {expected}. Example: {example_json(space, name)}')
    value = obj[key]
    if isinstance(value, str) and _is_numeric(value):
        raise _Reject(
            "schema",
            f"{field} must be a JSON number, not a string: write {float(value):g} instead of {_show(value)}.",
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Reject("schema", f"{field} must be {expected}; got {_show(value)}.")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Reject(
            "range", f"{field} must be {expected}; got {_show(value)}, which is not a finite number."
        )
    if not low <= value <= high:
        hint = split if value > high else f"The smallest allowed value is {low:g}."
        raise _Reject("range", f"{field} must be {expected}; got {_show(value)}. {hint}")
    return float(value)


def _is_numeric(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False
