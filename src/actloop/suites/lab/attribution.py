"""Failure attribution (the seed's §4.5): a failed run's first decisive error, derived from its score and
record.

The causes follow the stages of acting to know: acting on the apparatus (motion, contact), observing it
(locating parts, reading instruments), knowing (procedure, analysis, deciding when to stop) and restoring
the bench. The milestones are nested, so the first milestone a run fails marks where it stopped; the rule
table :data:`RULES` turns that stage and what the record shows there into one cause, the first rule that
matches winning:

====  =========================================================  ======================
ℓ     what the record shows                                      cause
====  =========================================================  ======================
0     the robot never moved (arm at home, never commanded)       acting: motion
0     the robot moved but never touched the apparatus            observing: locating
1     it touched the apparatus, never made it measurable         acting: contact
2     a cited reading does not match or is unreadable            observing: reading
2     measurable, but no observation shows the instrument        observing: locating
3     a cited reading does not match or is unreadable            observing: reading
3     a cited reading was taken while a condition did not hold   knowing: procedure
3     valid readings that do not suffice, submitted              knowing: stopping
3     valid readings that do not suffice, nothing submitted      knowing: procedure
4     the evidence gate fails a reading (mismatch, unreadable)   observing: reading
4     the evidence gate fails only an evidence minimum           knowing: stopping
4     the conditions gate fails                                  knowing: procedure
4     nothing submitted                                          knowing: stopping
4     the refit gate fails or e > 1 on valid readings            knowing: analysis
5     the bench is not restored                                  restoring
====  =========================================================  ======================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from actloop.suites.lab.evidence import Verdict
from actloop.suites.lab.scoring import Score

GROUPS = ("acting", "observing", "knowing", "restoring")
CAUSES = (
    "acting: motion",
    "acting: contact",
    "observing: locating",
    "observing: reading",
    "knowing: procedure",
    "knowing: analysis",
    "knowing: stopping",
    "restoring",
)
"""Every cause, in the order of the stages of acting to know."""


@dataclass(frozen=True)
class RunFacts:
    """What the attribution needs of a run beyond its score."""

    moved: bool
    """The robot moved (its arm left home or was commanded)."""
    submitted: bool
    evidence_failures: int = 0
    """Citations the evidence gate rejected (no such reading, unreadable, a value that does not match)."""
    condition_failures: int = 0
    """Citations placed in the episode but taken while a required condition did not hold."""


@dataclass(frozen=True)
class Attribution:
    """A failed run's cause (one of :data:`CAUSES`) and why."""

    cause: str
    evidence: str

    @property
    def group(self) -> str:
        return self.cause.split(":")[0]


@dataclass(frozen=True)
class Rule:
    """At level ``level``, when ``holds``, the run's first decisive error is ``cause``."""

    level: int
    holds: Callable[[Score, RunFacts], bool]
    cause: str
    why: str


def _minimum_only(score: Score, facts: RunFacts) -> bool:
    gate = score.gates["evidence"]
    return not gate.passed and facts.evidence_failures == 0 and "the run must contain" in gate.evidence


def _gate_failed(name: str) -> Callable[[Score, RunFacts], bool]:
    return lambda score, _: name in score.gates and not score.gates[name].passed


RULES: tuple[Rule, ...] = (
    Rule(0, lambda s, f: not f.moved, "acting: motion", "the robot never moved"),
    Rule(0, lambda s, f: True, "observing: locating", "the robot moved but never acted on the apparatus"),
    Rule(1, lambda s, f: True, "acting: contact", "it handled the apparatus but never made it measurable"),
    Rule(2, lambda s, f: f.evidence_failures > 0, "observing: reading", "a cited reading was not valid"),
    Rule(2, lambda s, f: True, "observing: locating", "no observation shows the instrument readable"),
    Rule(3, lambda s, f: f.evidence_failures > 0, "observing: reading", "a cited reading was not valid"),
    Rule(3, lambda s, f: f.condition_failures > 0, "knowing: procedure", "a reading broke a condition"),
    Rule(3, lambda s, f: f.submitted, "knowing: stopping", "it submitted before its readings sufficed"),
    Rule(3, lambda s, f: True, "knowing: procedure", "its readings never sufficed and it did not submit"),
    Rule(4, lambda s, f: f.evidence_failures > 0, "observing: reading", "a cited reading was not valid"),
    Rule(4, _minimum_only, "knowing: stopping", "it submitted before the evidence the card asks for"),
    Rule(4, _gate_failed("conditions"), "knowing: procedure", "a reading broke a condition"),
    Rule(4, lambda s, f: not f.submitted, "knowing: stopping", "it never submitted"),
    Rule(4, lambda s, f: True, "knowing: analysis", "its result is off (refit or e > 1) on valid readings"),
    Rule(5, lambda s, f: True, "restoring", "the bench was not restored"),
)


def attribute(score: Score, facts: RunFacts) -> Attribution | None:
    """The first decisive error of a failed run (None for a success), by the first matching rule."""
    if score.success:
        return None
    for rule in RULES:
        if rule.level == score.level and rule.holds(score, facts):
            failed = score.milestones[f"L{score.level + 1}"]
            return Attribution(rule.cause, f"{rule.why} (L{score.level + 1}: {failed.evidence})")
    raise AssertionError(f"no attribution rule for level {score.level}")


def facts_of(
    verdicts: Sequence[Verdict], judged: Sequence[Verdict], moved: bool, submitted: bool
) -> RunFacts:
    """The facts of a run from its citations' evidence verdicts and their condition verdicts."""
    placed = {id(v.citation) for v in verdicts if v.valid}
    condition_failures = sum(not v.valid for v in judged if id(v.citation) in placed)
    return RunFacts(moved, submitted, sum(not v.valid for v in verdicts), condition_failures)
