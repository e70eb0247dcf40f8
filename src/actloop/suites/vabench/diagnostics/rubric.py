"""The nine trajectory-level criteria of the seed's appendix C.9, as data shown alike to human annotators and
to LLM judges.

Three modules of three criteria each: spatial perception and understanding (TL, AE, SR), robot manipulation
(MS, MP, FG) and error recovery (ED, OC, PF). Each criterion has a definition, positive and negative
evidence rules and an applicability gate:

- ``always``: scored on every episode (TL, SR, MS, MP, FG; FG scores 0 when no pre-contact analysis is
  shown, including when no contact opportunity was reached);
- ``ambiguity``: AE is scored only when the episode holds an assessable task-relevant ambiguity;
- ``recovery``: ED, OC and PF share one gate, whether the episode contains an observable execution error;
  error-free episodes are NA for all three.

A gate is decided first, by majority over the annotators (equation 9); an activated criterion then gets one
binary judgment per annotator, also aggregated by majority (equation 10). ``RUBRIC_VERSION`` names this
text; ``rubric_digest()`` fingerprints it, so every annotation or judgment record can say exactly which
rubric it was made under.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Literal

RUBRIC_VERSION = "vabench-c9/1"
Module = Literal["SPU", "RM", "ER"]
GateKind = Literal["always", "ambiguity", "recovery"]


@dataclass(frozen=True)
class Gate:
    """When a criterion applies: the question annotators answer before judging it (None: always)."""

    kind: GateKind
    question: str | None


ALWAYS = Gate("always", None)
AMBIGUITY = Gate(
    "ambiguity",
    "Did some observation leave a task-relevant spatial or geometric fact underdetermined for the next "
    "action (object orientation, depth, the contact region, the relative pose of two arms, whether a "
    "container's opening is visible)? Doubt about whether an executed action worked does not count here.",
)
RECOVERY = Gate(
    "recovery",
    "Does the episode contain an observable execution error (a visible miss, a dropped or slipping object, "
    "an unstable placement, a developing misalignment, repeated planner rejections)?",
)


@dataclass(frozen=True)
class Criterion:
    """One binary trajectory criterion: 1 when the trajectory holds the positive evidence, else 0."""

    code: str
    module: Module
    name: str
    definition: str
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    gate: Gate
    notes: tuple[str, ...] = ()


MODULE_NAMES: dict[Module, str] = {
    "SPU": "spatial perception and understanding",
    "RM": "robot manipulation",
    "ER": "error recovery",
}

CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "TL",
        "SPU",
        "target perception and localization",
        "The executed behaviour identifies the task-relevant object and localizes it well enough to guide "
        "what follows.",
        (
            "end-effector motion directed towards the correct object",
            "camera actions that keep the target in the region of interest",
            "later operations organized around that target",
        ),
        (
            "sustained motion towards an unrelated object or workspace region",
            "grasping a distractor",
            "repeatedly operating far from the target",
        ),
        ALWAYS,
        ("A single exploratory motion elsewhere is not enough to judge localization failed.",),
    ),
    Criterion(
        "AE",
        "SPU",
        "informative active exploration",
        "The executed behaviour actively acquires and uses visual evidence that resolves a task-relevant "
        "ambiguity.",
        (
            "all three together: (i) a semantic view or camera motion chosen in response to the ambiguity; "
            "(ii) the resulting observation exposes information that reduces it; (iii) a later action or "
            "estimate is consistent with the new observation",
        ),
        (
            "a redundant or task-irrelevant viewpoint",
            "a view change whose observation does not reduce the ambiguity",
            "visiting an informative view, then switching straight to an ineffective one without using "
            "what it showed",
        ),
        AMBIGUITY,
        (
            "A later irrelevant view does not erase positive evidence once the informative observation was "
            "used.",
            "Scored on trajectory evidence of acquiring and using evidence, not on terminal success.",
        ),
    ),
    Criterion(
        "SR",
        "SPU",
        "robot-object spatial relations",
        "The trajectory is consistent with a correct reading of relative height, distance, direction and "
        "alignment between the gripper and the target.",
        (
            "successive translations or rotations reduce the visible robot-object offset",
            "contact, grasping or release initiated at a geometrically plausible state",
        ),
        (
            "closing the gripper while it is visibly above or beside the object",
            "descending at a wrong lateral position",
            "confusing an image-plane direction with a world-axis motion",
            "declaring alignment while a substantial separation remains",
        ),
        ALWAYS,
    ),
    Criterion(
        "MS",
        "RM",
        "manipulation-semantics understanding",
        "Behaviour consistent with correct use of the available control commands and with choosing "
        "task-relevant actions.",
        (
            "purposeful use of world-axis translation, local-axis rotation, aperture or dual-arm commands to "
            "produce the intended physical effect",
        ),
        (
            "evidently meaningless rotations",
            "uncontrolled large motions",
            "repeated open/close commands without a contact opportunity",
            "actions fundamentally unrelated to the task",
        ),
        ALWAYS,
        ("Numerical imprecision alone belongs to SR; pre-contact analysis to FG.",),
    ),
    Criterion(
        "MP",
        "RM",
        "goal-directed manipulation planning",
        "A coherent, goal-directed metric action sequence from the current state to the desired interaction "
        "state.",
        (
            "an appropriate order of the phases the task needs: approach, alignment, grasp or contact, "
            "lift or actuation, transport, placement, release, retreat",
            "intermediate actions that progressively reduce the relevant spatial error or establish a needed "
            "precondition",
        ),
        (
            "large purposeless excursions",
            "repeated movement in unrelated regions",
            "an approach direction incompatible with the intended contact",
            "a sequence whose phases cannot lead to the goal",
        ),
        ALWAYS,
    ),
    Criterion(
        "FG",
        "RM",
        "fine-grained pre-contact analysis",
        "Fine-grained spatial analysis while approaching an intended contact: fingertip placement, gripper "
        "orientation and aperture, contact location, approach or placement height, relative arm geometry.",
        (
            "a task-specific assessment of these details reflected in the decisions and actions before "
            "contact",
        ),
        (
            "a generic intention to manipulate carefully with no corresponding behaviour",
            "no such analysis, including never reaching an opportunity for it (scored 0)",
        ),
        ALWAYS,
        (
            "Every episode is scored.",
            "Completion is not required: a later miss, an unsuitable release or a terminal failure does not "
            "negate analysis already shown, and terminal success alone does not establish it.",
        ),
    ),
    Criterion(
        "ED",
        "ER",
        "error detection",
        "After an observable error, later behaviour shows the agent no longer treats the preceding action as "
        "successful.",
        (
            "stopping the current sequence",
            "obtaining another view",
            "rechecking the grasp",
            "beginning a materially different adjustment",
        ),
        (
            "continuing the same plan while ignoring a visible miss, a dropped object, an unstable placement "
            "or repeated planner rejections",
        ),
        RECOVERY,
    ),
    Criterion(
        "OC",
        "ER",
        "online correction",
        "The agent notices and corrects a developing spatial deviation before it becomes an explicit "
        "operation failure.",
        (
            "adjusting lateral alignment or gripper orientation before closing",
            "re-centring an object during transport",
            "restoring bimanual levelness before the payload slips",
        ),
        ("letting the error progress into failure", "no timely corrective action"),
        RECOVERY,
        ("OC and PF are stage-specific, not exclusive: one episode may earn both.",),
    ),
    Criterion(
        "PF",
        "ER",
        "post-failure adjustment",
        "After an error becomes an explicit failure, the agent re-evaluates the new state and changes its "
        "observation strategy, geometric hypothesis, approach or numerical parameters before retrying.",
        ("a clearly targeted, materially revised attempt, whether or not it finally completes the task",),
        (
            "repeating the failed action without a meaningful change",
            "persisting with an invalid, stale plan",
            "terminating despite a recoverable state",
            "an error with no post-failure adjustment (scored 0)",
        ),
        RECOVERY,
    ),
)
"""In the seed's order: module by module, as tables 11-14 and 28 list them."""

GUIDANCE: tuple[str, ...] = (
    "Judge one complete episode from the instruction, the model-facing images, camera and robot actions, "
    "the resulting scene changes, action validity, planner outcomes and the terminal task state.",
    "A model's stated rationale can show intent but does not establish a capability: the executed "
    "trajectory must contain the corresponding behaviour.",
    "A single planner rejection is not a planning failure by itself: judge whether the model then changes "
    "its estimate or keeps issuing actions inconsistent with the visible task.",
    "Terminal success is decided by the environment's checker and is never annotated.",
)


def criterion(code: str) -> Criterion:
    """The criterion with this code (``TL`` ... ``PF``)."""
    for c in CRITERIA:
        if c.code == code:
            return c
    raise KeyError(f"unknown criterion {code!r}; known: {', '.join(c.code for c in CRITERIA)}")


def module_criteria(module: Module) -> tuple[Criterion, ...]:
    return tuple(c for c in CRITERIA if c.module == module)


def rubric_document() -> dict:
    """The whole rubric as plain JSON data (lists, not tuples): version, guidance, gates and criteria."""
    document = {
        "version": RUBRIC_VERSION,
        "guidance": GUIDANCE,
        "modules": MODULE_NAMES,
        "gates": {gate.kind: gate.question for gate in (ALWAYS, AMBIGUITY, RECOVERY)},
        "criteria": [asdict(c) for c in CRITERIA],
    }
    return json.loads(json.dumps(document))


def rubric_digest(document: dict | None = None) -> str:
    """A short fingerprint of a rubric document's content (by default this rubric's): the sha256 of its
    canonical JSON, 16 hex digits."""
    text = json.dumps(
        rubric_document() if document is None else document, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]
