"""The system prompt: role, task, budget, the JSON action vocabulary and generic manipulation guidance.

:func:`action_reference` is generated from the :class:`ActionSpace`, so the model is taught exactly the
vocabulary :func:`~actloop.suites.vabench.protocol.parse.parse_decision` accepts. In the passive
protocol it names no camera action at all.
"""

from __future__ import annotations

from actloop.suites.vabench.protocol.action_space import MAX_CONSECUTIVE_CAMERA_ACTIONS, ActionSpace
from actloop.suites.vabench.protocol.decisions import (
    MAX_ANGLE_DEG,
    MAX_DISTANCE_MM,
    MIN_ANGLE_DEG,
    MIN_DISTANCE_MM,
    SEMANTIC_VIEWS,
    VIEW_TARGETS,
)
from actloop.suites.vabench.protocol.parse import example_json

VIEW_DESCRIPTIONS: dict[str, str] = {
    "topdown": "from straight above: world XY position and yaw",
    "side": "from the side, about level with the gripper: height, table clearance, vertical overlap",
    "front_side_45": "from a low 45° diagonal: breaks front/side occlusion",
    "side_top_45": "from the side and 45° above: lateral alignment together with height and finger placement",
    "oblique_45": "from a diagonal above: the overall 3D configuration",
}
"""What each semantic view shows, keyed by the names in ``SEMANTIC_VIEWS``."""

_INCREMENTAL_CAMERA_LINES = (
    "camera.move_left | camera.move_right | camera.move_up | camera.move_down: shift the camera 5 cm "
    "left/right/up/down in its own image frame",
    "camera.zoom_in | camera.zoom_out: move the camera 8 cm forward/backward along its viewing direction",
    "camera.yaw_left | camera.yaw_right: turn the camera 10° about the world Z axis",
    "camera.pitch_up | camera.pitch_down: tilt the camera 10° up/down",
)

_TOOLS: dict[str, tuple[str, str]] = {
    "camera.history": ('{"step": N}', "shows again the image(s) you received at step N"),
}
"""Argument template and description of each known tool."""

_GUIDANCE = """\
## Manipulation guidance
- Base every move on evidence: the images and the proprioception (GC position, local axes in world).
- Open the gripper before approaching an object you intend to grasp.
- Move in large steps only in free space; near objects and the table use small steps (a few mm to 2 cm).
- Grasp with the fingers straddling the object: align the finger-closing axis (ry) across the part you
  want to hold, with the object between the fingertips and GC at the height of that part.
- Check alignment before closing, from more than one view if the depth or side is ambiguous.
- After closing, lift gently (1-3 cm) and check that the object moved with the gripper before carrying it.
- Do not drive the fingers into the table or push objects you do not intend to move.
- If the planner reports failure, the motion was not executed as requested: try a smaller step, another
  direction or another orientation instead of repeating it."""


def action_reference(space: ActionSpace) -> str:
    """The JSON vocabulary of ``space``: every decision with its parameters, units and bounds."""
    sections = [_format_section(space), _frames_section(), _robot_section(space), _views_section(space)]
    if space.tools:
        sections.append(_tools_section(space))
    sections.append(
        '## Stop\n{"stop": true, "reason": "..."} ends the episode early. The episode ends by itself '
        "as soon as the task succeeds, so stop only when you cannot make further progress."
    )
    return "\n\n".join(sections)


def system_prompt(instruction: str, space: ActionSpace, budget: int, summary: str | None = None) -> str:
    """The full system prompt for one episode."""
    spends = "Every robot action and every camera action" if space.camera else "Every robot action"
    sections = [
        "You control a robot in a physics simulation. Each turn you receive an observation (the step "
        "counter, the result of your previous decision and the robot's proprioception, then the "
        "image(s)) and reply with one decision.",
        f"## Task\n{instruction.strip()}",
        f"## Budget\nYou have {budget} steps. {spends} uses one step; tool calls use none.",
        action_reference(space),
        _GUIDANCE,
    ]
    if summary:
        sections.append(
            "## Demonstration summary\nWritten from a video of a successful execution of this task. "
            "Object positions in your episode differ, so use it for the procedure, not for numbers.\n"
            + summary.strip()
        )
    return "\n\n".join(sections)


def _format_section(space: ActionSpace) -> str:
    return (
        "## Answer format\nAnswer with exactly one JSON object per turn; you may add a short reason "
        'field ("reason": "..."). The object holds exactly one of "action", "tool" or "stop". Numbers are '
        'JSON numbers (20, not "20"). An invalid answer is returned to you with an explanation; fix it '
        f"and answer again. Example: {example_json(space)}"
    )


def _frames_section() -> str:
    return (
        "## Frames and units\n"
        "- World frame, in metres: +x points to the robot's right, +y away from the robot, +z up. "
        "The table top is at z = 0.74 m.\n"
        "- GC is the midpoint between the fingers.\n"
        "- Gripper-local axes (given in world coordinates in each observation): rx is the approach/twist "
        "axis, pointing towards the fingertips; ry is the finger-closing axis; rz is the palm-side axis. "
        "A positive rotation about an axis follows the right-hand rule."
    )


def _robot_section(space: ActionSpace) -> str:
    arm = ', "arm": "left|right"' if space.dual_arm else ""
    distance = f"distance_mm: {MIN_DISTANCE_MM:g} to {MAX_DISTANCE_MM:g} millimetres"
    angle = f"angle_deg: {MIN_ANGLE_DEG:g} to {MAX_ANGLE_DEG:g} degrees"
    lines = [
        "## Robot actions (each uses one step)",
        f'- {{"action": "gripper.move_world"{arm}, "axis": "x|y|z", "sign": "+|-", "distance_mm": D}}\n'
        f"  Translate the gripper along a world axis; {distance}. The target is clamped to the robot "
        "workspace.",
        f'- {{"action": "gripper.rotate_local"{arm}, "axis": "rx|ry|rz", "sign": "+|-", "angle_deg": A}}\n'
        f"  Rotate about the gripper's current local axis; {angle}. GC stays approximately fixed; the "
        "rotation is executed as waypoints of at most 10°.",
        f'- {{"action": "gripper.open"{arm}}} | {{"action": "gripper.close"{arm}}}\n'
        "  Open or close the gripper.",
    ]
    if space.dual_arm:
        lines += [
            "- left_gripper.open | left_gripper.close | right_gripper.open | right_gripper.close\n"
            '  The same as gripper.open/close with "arm" set, e.g. {"action": "left_gripper.close"}.',
            '- {"action": "dual_gripper.open"} | {"action": "dual_gripper.close"}\n'
            "  Open or close both grippers in the same step.",
            '- {"action": "dual_gripper.move_world", "left": {"axis": ..., "sign": ..., "distance_mm": D}, '
            '"right": {...}}\n'
            "  Translate both grippers in one synchronized motion; each side as in gripper.move_world.",
            'This is a dual-arm task: every single-gripper action above must name "arm".',
        ]
    else:
        lines.append(f'This task exposes only the {" and ".join(space.arms)} arm; "arm" may be omitted.')
    lines.append(
        "The planner may fail to reach a target; the next observation then reports planner success: no."
    )
    return "\n".join(lines)


def _views_section(space: ActionSpace) -> str:
    if not space.camera:
        views = "\n".join(f"- {view}: {VIEW_DESCRIPTIONS[view]}" for view in SEMANTIC_VIEWS)
        return (
            "## Views\nThere are no camera actions in this protocol. Every observation supplies five fixed "
            f"views, always in this order: {', '.join(SEMANTIC_VIEWS)}.\n{views}"
        )
    centre = "the midpoint of both grippers" if space.dual_arm else "the gripper (GC)"
    lines = [
        "## Camera actions (each uses one step of the shared budget)",
        "A camera action only changes your view; it never changes the world-frame meaning of robot "
        f"actions. At most {MAX_CONSECUTIVE_CAMERA_ACTIONS} camera actions may be issued in a row.",
        f"Semantic views, centred on {centre}:",
        *(f'- {{"action": "camera.view_{view}"}}: {VIEW_DESCRIPTIONS[view]}' for view in SEMANTIC_VIEWS),
    ]
    if space.dual_arm:
        targets = ", ".join(VIEW_TARGETS)
        lines.append(
            f"- camera.view_<target>_<view> with <target> one of {targets} and <view> one of the five above "
            "centres that view on the left gripper, the right gripper or both, e.g. camera.view_left_side."
        )
    lines += [
        "Incremental adjustments of the current view:",
        *(f"- {line}" for line in _INCREMENTAL_CAMERA_LINES),
    ]
    return "\n".join(lines)


def _tools_section(space: ActionSpace) -> str:
    lines = ["## Tools (they do not change the scene and use no budget)"]
    for name in space.tools:
        args, description = _TOOLS.get(name, ("{...}", ""))
        lines.append(f'- {{"tool": "{name}", "args": {args}}}' + (f": {description}" if description else ""))
    return "\n".join(lines)
