"""Task cards, generated from an experiment's specification and instance (never written beside them).

A card states the objective, the public parameters with their values, the scored quantities with units and
tolerances, every part with its function, the rules (evidence, bench state at submission, budget, one
submission) and nothing else: no method, no hidden value, no seed.
"""

from __future__ import annotations

from actloop.suites.lab.instance import Instance
from actloop.suites.lab.spec import ExperimentSpec, Part

RESTORE_TEXT = {
    "place": "must be back where it started",
    "off": "must be switched off",
}


def _restore_rules(parts: tuple[Part, ...]) -> list[str]:
    rules = []
    for kind, text in RESTORE_TEXT.items():
        names = [p.name for p in parts if p.restore == kind]
        if names:
            rules.append(f"{', '.join(names)} {text}")
    return rules


def task_card(spec: ExperimentSpec, instance: Instance) -> str:
    """The card of ``instance`` as Markdown."""
    if instance.experiment != spec.key:
        raise ValueError(f"instance of {instance.experiment} given for {spec.key}")
    lines = [f"# {spec.title}", "", "## Objective", spec.question, ""]
    lines += ["## What to submit"]
    for q in spec.quantities:
        unit = f" in {q.unit}" if q.unit else " (dimensionless)"
        lines.append(f"- `{q.name}`: {q.description}{unit}; scored within {q.tolerance_text}")
    if spec.public:
        lines += ["", "## Public parameters"]
        for p in spec.public:
            lines.append(f"- {p.description} (`{p.name}`): {instance.public[p.name]:.6g} {p.unit}".rstrip())
    lines += ["", "## Apparatus"]
    lines += [f"- **{part.name}**: {part.function}" for part in spec.parts]
    lines += ["", "## Rules"]
    lines.append(f"- Evidence: cite the readings your result rests on; the run must contain {spec.evidence}.")
    lines += [f"- {rule}" for rule in spec.rules]
    at_end = [
        *_restore_rules(spec.parts),
        "the robot must hold nothing",
        "nothing may be tipped over or off the bench",
    ]
    lines.append(f"- At submission: {'; '.join(at_end)}.")
    lines.append(
        f"- Budget: {spec.budget_s:g} s of simulated time (every physics step counts, waiting included) "
        f"and {spec.wall_clock_s / 60:g} min of wall-clock time."
    )
    lines.append("- Submit once; nothing can be changed after the submission.")
    return "\n".join(lines) + "\n"
