"""Task cards, generated from an experiment's specification and instance (never written beside them).

A card states the objective, the public parameters with their values, the scored quantities with units and
tolerances, every part with its function, the rules (evidence, bench state at submission, budget, one
submission) and nothing else: no method, no hidden value, no seed.
"""

from __future__ import annotations

from collections.abc import Sequence

from actloop.suites.lab.instance import Instance
from actloop.suites.lab.instruments import DigitalDisplay, InstrumentSpec, LoggerSpec
from actloop.suites.lab.sandbox import sandbox_rule
from actloop.suites.lab.spec import REFIT_FRACTION, ExperimentSpec, Part, Quantity

RESTORE_TEXT = {
    "place": "must be back where it started",
    "off": "must be switched off",
    "closed": "must be closed",
}


def _restore_rules(parts: tuple[Part, ...]) -> list[str]:
    rules = []
    for kind, text in RESTORE_TEXT.items():
        names = [p.name for p in parts if p.restore == kind]
        if names:
            rules.append(f"{', '.join(names)} {text}")
    return rules


def _instrument_line(spec: InstrumentSpec) -> str:
    display = spec.display
    if isinstance(display, DigitalDisplay):
        shows = f"a digital display with {display.decimals} decimals, updated {spec.refresh_hz:g} times a s"
        readable = f"its digits are at least {display.min_digit_px:g} px tall"
    else:
        shows = f"a scale graduated every {display.graduation:g} {spec.unit}"
        readable = f"its graduations are at least {display.min_graduation_px:g} px apart"
    within = f"{spec.resolution:g} {spec.unit}"
    return (
        f"- **{spec.name}** ({spec.unit}): {shows}; a cited value counts within {within} of what it showed, "
        f"from an image in which {readable} and nothing hides it"
    )


def _quantity_line(q: Quantity) -> str:
    if q.categorical:
        labels = ", ".join(f"`{label}`" for label in q.labels)
        return f"- `{q.name}`: {q.description}, one of {labels}; scored {q.tolerance_text}"
    unit = f" in {q.unit}" if q.unit else " (dimensionless)"
    return f"- `{q.name}`: {q.description}{unit}; scored within {q.tolerance_text}"


def _set_up_line(q: Quantity, instance: Instance) -> str:
    if q.setpoint:
        value = f"{instance.public[q.setpoint]:.6g} {q.unit}".rstrip()
        return f"- {q.description}: {value} (`{q.setpoint}`), within {q.tolerance_text}"
    labels = ", ".join(f"`{label}`" for label in q.labels) if q.labels else ""
    choice = f", one of {labels}" if labels else ""
    return f"- `{q.name}`: {q.description}{choice}; scored {q.tolerance_text}"


def refit_text(spec: ExperimentSpec) -> str:
    """The refit agreement a ∗ experiment's card states (the refit gate's threshold)."""
    bounds = ", ".join(
        f"`{q.name}` within {100 * REFIT_FRACTION * q.tolerance:g} % of the refit value"
        if q.relative
        else f"`{q.name}` within {REFIT_FRACTION * q.tolerance:g} {q.unit}"
        for q in spec.quantities
    )
    return (
        f"the submitted result must agree with the evaluator's least-squares fit of the experiment's law to "
        f"your valid cited readings ({REFIT_FRACTION:g} of the tolerance): {bounds}"
    )


def task_card(
    spec: ExperimentSpec,
    instance: Instance,
    instruments: Sequence[InstrumentSpec] = (),
    loggers: Sequence[LoggerSpec] = (),
) -> str:
    """The card of ``instance`` as Markdown, with the bench's ``instruments`` and data ``loggers``."""
    if instance.experiment != spec.key:
        raise ValueError(f"instance of {instance.experiment} given for {spec.key}")
    lines = [f"# {spec.title}", "", "## Objective", spec.question, ""]
    lines += ["## What to submit"]
    lines += [_quantity_line(q) for q in spec.answered]
    configured = [q for q in spec.quantities if not q.submitted]
    if configured:
        lines += ["", "## What to set up"]
        lines += [_set_up_line(q, instance) for q in configured]
    if spec.objective != "measure":
        lines.append(
            f"- Scored against what the apparatus does in a continuation run of {spec.continuation_s:g} s "
            f"after your submission, from the state you leave it in, with no one acting and the robot "
            f"holding its last commands."
        )
    if spec.public:
        lines += ["", "## Public parameters"]
        for p in spec.public:
            lines.append(f"- {p.description} (`{p.name}`): {instance.public[p.name]:.6g} {p.unit}".rstrip())
    lines += ["", "## Apparatus"]
    lines += [f"- **{part.name}**: {part.function}" for part in spec.parts]
    if instruments:
        lines += ["", "## Instruments (cite readings by these names, in these units)"]
        lines += [_instrument_line(spec) for spec in instruments]
        lines += [
            f"- **{logger.name}** (data logger): records {', '.join(logger.channels)} as shown, "
            f"{logger.sample_hz:g} rows a second while on; `export` writes its rows to a CSV file whose "
            f"first column is `time_s`; cite a row as file, row (0 = the first after the header), column and "
            f"value"
            for logger in loggers
        ]
    lines += ["", "## Rules"]
    lines.append(
        "- Evidence: cite the readings your result rests on; each must match what its instrument showed in "
        "this episode, in an image where it is readable, or a row of a logger file exported in it."
    )
    if spec.minima:
        lines.append(f"- The run must contain {'; '.join(rule.text for rule in spec.minima)}.")
    if spec.refit:
        lines.append(f"- Refit: {refit_text(spec)}.")
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
    lines.append(sandbox_rule())  # what the agent's programs may reach and use (the sandbox's limits)
    lines.append("- Submit once; nothing can be changed after the submission.")
    return "\n".join(lines) + "\n"
