"""What a judge is asked and how its reply is read: the rubric, the answer format and a strict parser.

The answer is one JSON object with exactly one entry per item (:data:`~.records.ITEMS`): the two gates,
then the nine criteria, each ``{"value": 0 | 1 | null, "justification": "..."}``. A gate is 0 or 1; a
criterion is null exactly when its gate is 0, else 0 or 1 (the always-applicable ones, FG among them,
never null). Anything else is a list of problems to send back as a repair.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from actloop.suites.vabench.diagnostics.records import GATE_ITEMS, ITEMS
from actloop.suites.vabench.diagnostics.rubric import CRITERIA, RUBRIC_VERSION, Criterion, rubric_document
from actloop.suites.vabench.protocol.parse import DecisionError, extract_json

ENTRY_KEYS = ("value", "justification")


@dataclass(frozen=True)
class JudgeAnswer:
    """A parsed, consistent answer: every item's value (None for a criterion its gate made NA) and its
    justification."""

    values: dict[str, int | None]
    justifications: dict[str, str]


def gate_item(c: Criterion) -> str | None:
    """The gate item deciding whether ``c`` applies (None: it always applies)."""
    return None if c.gate.kind == "always" else f"gate:{c.gate.kind}"


def required_items(gates: Mapping[str, int]) -> list[str]:
    """The items a complete answer holds given its gate values: both gates, the criteria that always
    apply and those whose gate is 1."""
    return list(GATE_ITEMS) + [c.code for c in CRITERIA if (g := gate_item(c)) is None or gates.get(g) == 1]


def is_complete(answers: Mapping[str, int]) -> bool:
    """True when ``answers`` (item -> 0/1, NA items absent) answers every required item."""
    gates_known = all(answers.get(g) in (0, 1) for g in GATE_ITEMS)
    return gates_known and all(answers.get(item) in (0, 1) for item in required_items(answers))


def system_prompt() -> str:
    """The judge's instructions: its task, the rubric document annotators see, and the answer format."""
    always = [c.code for c in CRITERIA if gate_item(c) is None]
    gated = {g: [c.code for c in CRITERIA if gate_item(c) == g] for g in GATE_ITEMS}
    return (
        "You annotate one complete episode of a multimodal model controlling a simulated robot arm: you "
        "are shown the instruction, what the model saw (observation text and camera frames), its replies, "
        "every action with its validity and planner outcome, and the terminal outcome. Judge the "
        "trajectory with the rubric below exactly as a human annotator would.\n\n"
        f"## Rubric ({RUBRIC_VERSION})\n{json.dumps(rubric_document(), indent=1)}\n\n"
        "## How to answer\n"
        "First decide the applicability gates, 1 for yes and 0 for no: "
        + "; ".join(
            f'"{g}" answers the {g[5:]} gate\'s question (it gates {", ".join(gated[g])})' for g in GATE_ITEMS
        )
        + ". Then judge each criterion: 1 when the trajectory holds its positive evidence, 0 when it does "
        "not. A criterion whose gate you answered 0 is not applicable: its value is null. "
        f"{', '.join(always)} apply to every episode and are never null.\n\n"
        "Reply with exactly one JSON object and nothing else: these keys, in this order, each with a "
        '"value" as stated and a "justification" of one sentence citing the step(s) that decide it:\n'
        + _template()
    )


def _template() -> str:
    """The answer's shape, one key a line, with the values each key allows."""
    allowed = {g: "0 or 1" for g in GATE_ITEMS}
    for c in CRITERIA:
        gate = gate_item(c)
        allowed[c.code] = "0 or 1" if gate is None else f"0 or 1, or null when {gate} is 0"
    lines = [f'"{item}": {{"value": <{allowed[item]}>, "justification": "..."}}' for item in ITEMS]
    return "{\n " + ",\n ".join(lines) + "\n}"


def repair_prompt(problems: list[str], attempt: int, limit: int) -> str:
    """Why the previous reply was not accepted, as the next user turn."""
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        f"Your previous reply was not accepted:\n{listed}\n"
        f"Repair attempt {attempt} of {limit}: reply with the complete JSON object again, every key, and "
        "nothing else."
    )


def parse_answer(text: str) -> JudgeAnswer | list[str]:
    """The answer in a judge's reply, or what is wrong with it (see the module docstring)."""
    obj = extract_json(text)
    if isinstance(obj, DecisionError):
        return [obj.message]
    problems = []
    missing = [item for item in ITEMS if item not in obj]
    unknown = [key for key in obj if key not in ITEMS]
    if missing:
        problems.append(f"missing key(s): {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown key(s): {', '.join(map(str, unknown))}; the keys are {', '.join(ITEMS)}")
    values: dict[str, int | None] = {}
    justifications: dict[str, str] = {}
    for item in ITEMS:
        if item in obj:
            problem = _entry(item, obj[item], values, justifications)
            if problem:
                problems.append(problem)
    problems += _consistency(values)
    if problems:
        return problems
    return JudgeAnswer(values, justifications)


def _entry(item: str, entry: Any, values: dict[str, int | None], notes: dict[str, str]) -> str | None:
    """Read one item's entry into ``values`` and ``notes``; returns what is wrong with it, if anything."""
    if not isinstance(entry, dict) or set(entry) != set(ENTRY_KEYS):
        return f'{item}: expected {{"value": 0, 1 or null, "justification": "..."}}, got {_show(entry)}'
    value, justification = entry["value"], entry["justification"]
    if value is not None and (type(value) is not int or value not in (0, 1)):
        return f"{item}: value must be 0, 1 or null, not {_show(value)}"
    if not isinstance(justification, str) or not justification.strip():
        return f"{item}: the justification must be a non-empty sentence"
    values[item], notes[item] = value, justification.strip()
    return None


def _consistency(values: dict[str, int | None]) -> list[str]:
    """Gates that are null, and criteria answered against their gate (each item read without error)."""
    problems = [f"{g}: a gate is 0 or 1, not null" for g in GATE_ITEMS if g in values and values[g] is None]
    for c in CRITERIA:
        if c.code not in values:
            continue
        gate, value = gate_item(c), values[c.code]
        if gate is None:
            if value is None:
                problems.append(f"{c.code}: it applies to every episode, so its value is 0 or 1, not null")
        elif values.get(gate) == 0 and value is not None:
            problems.append(f"{c.code}: answered {value} although {gate} is 0; a criterion it gates is null")
        elif values.get(gate) == 1 and value is None:
            problems.append(f"{c.code}: null although {gate} is 1; an applicable criterion is 0 or 1")
    return problems


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
