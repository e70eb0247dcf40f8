"""Citations and the gates that judge them: evidence, measurement conditions and refit.

A citation names a reading the result rests on: an observation, an instrument and the value the agent read
there, or a row and column of an exported logger file and its value. The evidence gate accepts it only if
the observation was served in this episode, the instrument was readable in at least one of its cameras and
the value equals what the instrument showed then within its resolution (half a display step for a digital
display, the reading resolution of a scale), or if the file was exported in this episode, the row and column
exist, the logged rows still give the exported file and the value matches. The condition gate accepts a
reading only if every measurement condition its experiment requires held at the reading's simulated time.
The refit gate (∗ experiments) compares the result with the evaluator's refit of the valid cited readings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from actloop.errors import ConfigError, RecordError
from actloop.suites.lab.instruments import (
    OVERLOAD,
    TIME_COLUMN,
    InstrumentLog,
    InstrumentSpec,
    ScaleDisplay,
    Shown,
    Sink,
)
from actloop.suites.lab.scoring import Check, ScoredQuantity, finite_number, tolerance_width
from actloop.suites.lab.spec import ReadingsAt

CONDITION_KIND = "condition"
"""The record entry kind of a condition interval."""


@dataclass(frozen=True)
class ReadingCitation:
    """A reading from a camera image: what ``instrument`` showed in observation ``observation_id``."""

    observation_id: str
    instrument: str
    value: float
    quantity: str | None = None
    note: str = ""


@dataclass(frozen=True)
class RowCitation:
    """A reading from a logger file: ``column`` of data row ``row`` (0-based after the header) of ``file``."""

    file: str
    row: int
    column: str
    value: float
    quantity: str | None = None
    note: str = ""


Citation = ReadingCitation | RowCitation


def parse_citation(data: Mapping[str, Any]) -> Citation:
    """A citation from its JSON form (the fields of either class); :class:`ConfigError` if malformed."""
    kind = RowCitation if "file" in data else ReadingCitation
    value = finite_number(data.get("value"))
    if value is None:
        raise ConfigError(f"citation {dict(data)!r}: value must be a finite number")
    try:
        citation = kind(**{**data, "value": value})
    except TypeError as err:
        raise ConfigError(f"citation {dict(data)!r} is not a reading or logger-row citation: {err}") from err
    for name in ("observation_id", "instrument", "file", "column", "note"):
        if not isinstance(getattr(citation, name, ""), str):
            raise ConfigError(f"citation {dict(data)!r}: {name} must be a string")
    if isinstance(citation, RowCitation) and type(citation.row) is not int:
        raise ConfigError(f"citation {dict(data)!r}: row must be an integer")
    return citation


@dataclass(frozen=True)
class Verdict:
    """A gate's verdict on one citation: ``reason`` says why it fails, or what it matched; ``time_s`` is
    the simulated time of the cited reading (s), when the citation could be placed in the episode."""

    citation: Citation
    valid: bool
    reason: str
    time_s: float | None = None


def shown_text(spec: InstrumentSpec, shown: Shown | None) -> str:
    """What ``spec`` showed, for a verdict: a display's digits as printed; a pointer's position on a scale
    to a tenth of its reading resolution (finer is nothing a reader sees, and would only publish the
    hidden true value to whoever reads the verdicts)."""
    if isinstance(spec.display, ScaleDisplay) and isinstance(shown, float):
        decimals = max(0, math.ceil(-math.log10(spec.resolution / 10)))
        return f"{shown:.{decimals}f}"
    return spec.text(shown)


def _matches(spec: InstrumentSpec, value: float, shown: Shown | None) -> str:
    """Why ``value`` is not a reading of ``shown`` on ``spec``'s display, or ``""``."""
    if shown is None:
        return f"{spec.name} showed nothing yet"
    if shown == OVERLOAD:
        return f"{spec.name} showed {OVERLOAD} (out of range)"
    slack = spec.resolution * 1e-9 + 4 * math.ulp(float(shown))
    if abs(value - float(shown)) <= spec.resolution + slack:
        return ""
    return f"cited {value:g} {spec.unit}, {spec.name} showed {shown_text(spec, shown)} {spec.unit}"


def check_citation(log: InstrumentLog, citation: Citation) -> Verdict:
    """The evidence gate's verdict on one citation."""
    if isinstance(citation, ReadingCitation):
        return _check_reading(log, citation)
    return _check_row(log, citation)


def _check_reading(log: InstrumentLog, citation: ReadingCitation) -> Verdict:
    name, obs_id = citation.instrument, citation.observation_id
    observation = log.observations.get(obs_id)
    if observation is None:
        return Verdict(citation, False, f"observation {obs_id} was never served in this episode")
    spec = log.instruments.get(name)
    if spec is None:
        return Verdict(citation, False, f"no instrument named {name}", observation.time_s)
    views = observation.views_of(name)
    readable = [view.camera for view in views if view.readable]
    if not readable:
        why = "; ".join(f"{view.camera}: {view.reason}" for view in views) or "in no camera's view"
        reason = f"{name} not readable in observation {obs_id} ({why})"
        return Verdict(citation, False, reason, observation.time_s)
    shown = observation.shown[name]
    mismatch = _matches(spec, citation.value, shown)
    if mismatch:
        return Verdict(citation, False, f"{mismatch} in observation {obs_id}", observation.time_s)
    seen = f"{shown_text(spec, shown)} {spec.unit}"
    reason = f"{name} showed {seen} in observation {obs_id} ({', '.join(readable)})"
    return Verdict(citation, True, reason, observation.time_s)


def _check_row(log: InstrumentLog, citation: RowCitation) -> Verdict:
    file = citation.file
    export = log.exports.get(file)
    if export is None:
        return Verdict(citation, False, f"no logger file {file} was exported in this episode")
    columns = log.loggers[export.logger].columns
    if citation.column not in columns:
        return Verdict(citation, False, f"{file} has no column {citation.column} ({', '.join(columns)})")
    if not 0 <= citation.row < export.rows:
        return Verdict(citation, False, f"{file} has no row {citation.row} (it has {export.rows})")
    if not log.file_matches(export):
        return Verdict(citation, False, f"the rows logged by {export.logger} do not give the exported {file}")
    row = log.rows(export.logger)[citation.row]
    where = f"row {citation.row} of {file}"
    if citation.column == TIME_COLUMN:
        valid = math.isclose(citation.value, row.time_s, rel_tol=1e-12, abs_tol=1e-9)
        reason = f"{where} is at {row.time_s!r} s" + ("" if valid else f", not {citation.value:g} s")
        return Verdict(citation, valid, reason, row.time_s)
    spec = log.instruments[citation.column]
    shown = row.values[columns.index(citation.column) - 1]
    mismatch = _matches(spec, citation.value, shown)
    if mismatch:
        return Verdict(citation, False, f"{mismatch} in {where}", row.time_s)
    seen = f"{shown_text(spec, shown)} {spec.unit}"
    return Verdict(citation, True, f"{where}: {spec.name} = {seen}", row.time_s)


def _gate(name: str, verdicts: Sequence[Verdict], judged: str) -> Check:
    """A gate that passes when there are verdicts and all are valid; its evidence names the failures."""
    failures = [f"citation {i}: {v.reason}" for i, v in enumerate(verdicts) if not v.valid]
    if not verdicts:
        return Check(name, False, f"no citation {judged}")
    summary = f"{len(verdicts) - len(failures)} of {len(verdicts)} citations {judged}"
    return Check(name, not failures, "; ".join([summary, *failures]))


def evidence_gate(
    log: InstrumentLog, citations: Sequence[Citation], one_per_observation: bool = False
) -> tuple[Check, list[Verdict]]:
    """The evidence gate over every citation of a submission, with the verdict on each; with
    ``one_per_observation``, a reading citing an observation an earlier reading cited fails."""
    verdicts = [check_citation(log, citation) for citation in citations]
    if one_per_observation:
        verdicts = _one_per_observation(verdicts)
    return _gate("evidence", verdicts, "match what an instrument showed"), verdicts


def _one_per_observation(verdicts: Sequence[Verdict]) -> list[Verdict]:
    """``verdicts`` with every valid reading after the first from one observation failed."""
    cited: set[str] = set()
    out = []
    for verdict in verdicts:
        citation = verdict.citation
        if verdict.valid and isinstance(citation, ReadingCitation):
            if citation.observation_id in cited:
                reason = (
                    f"observation {citation.observation_id} is cited already: each reading must come from a "
                    "different observation"
                )
                verdict = replace(verdict, valid=False, reason=reason)
            cited.add(citation.observation_id)
        out.append(verdict)
    return out


@dataclass(frozen=True)
class ConditionInterval:
    """A measurement condition (e.g. ``tray at rest and untouched``) held from ``start_s`` to ``end_s`` (s),
    both included."""

    name: str
    start_s: float
    end_s: float


class Conditions:
    """When each named measurement condition held, from the intervals in the record."""

    def __init__(self, intervals: Iterable[ConditionInterval]) -> None:
        self.intervals: dict[str, list[ConditionInterval]] = {}
        for interval in intervals:
            self.intervals.setdefault(interval.name, []).append(interval)

    @classmethod
    def from_entries(cls, entries: Iterable[tuple[str, Mapping[str, Any]]]) -> Conditions:
        """The conditions of the record entries ``(kind, data)`` of kind :data:`CONDITION_KIND`."""
        try:
            return cls(ConditionInterval(**data) for kind, data in entries if kind == CONDITION_KIND)
        except TypeError as err:
            raise RecordError(f"bad condition entry: {err}") from err

    def held(self, name: str, time_s: float) -> bool:
        return any(i.start_s <= time_s <= i.end_s for i in self.intervals.get(name, ()))


class ConditionTracker:
    """Turns per-step truth values of named conditions into closed intervals, written to ``sink`` as
    entries of kind :data:`CONDITION_KIND` when each ends (call :meth:`close` at the submission)."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self._open: dict[str, tuple[float, float]] = {}  # name -> (start, last time it held)

    def update(self, time_s: float, states: Mapping[str, bool]) -> None:
        """Each condition in ``states`` holds (or not) at ``time_s`` (s)."""
        for name, holds in states.items():
            if holds:
                start = self._open.get(name, (time_s, time_s))[0]
                self._open[name] = (start, time_s)
            elif name in self._open:
                self._end(name)

    def close(self) -> None:
        """End every open interval at the last time it held."""
        for name in list(self._open):
            self._end(name)

    def _end(self, name: str) -> None:
        start, end = self._open.pop(name)
        self.sink(CONDITION_KIND, {"name": name, "start_s": start, "end_s": end})


Required = Sequence[str] | Callable[[Citation], Sequence[str]]
"""The conditions a reading must have been taken under: the same for every citation, or per citation."""


def check_conditions(verdict: Verdict, conditions: Conditions, required: Required) -> Verdict:
    """The condition gate's verdict on one citation the evidence gate placed in time."""
    if verdict.time_s is None:
        raise ConfigError("a citation without a time cannot be checked against the conditions")
    names = required(verdict.citation) if callable(required) else required
    broken = [name for name in names if not conditions.held(name, verdict.time_s)]
    at = f"at t = {verdict.time_s:g} s"
    if broken:
        return replace(verdict, valid=False, reason=f"{' and '.join(broken)} did not hold {at}")
    return replace(verdict, valid=True, reason=f"{', '.join(names) or 'no condition'} held {at}")


def condition_gate(
    verdicts: Sequence[Verdict], conditions: Conditions, required: Required
) -> tuple[Check, list[Verdict]]:
    """The condition gate over the citations the evidence gate placed in time (the others fail that gate)."""
    judged = [check_conditions(v, conditions, required) for v in verdicts if v.time_s is not None]
    return _gate("conditions", judged, "taken while the required conditions held"), judged


def instrument_of(citation: Citation) -> str:
    """The instrument a citation reads (a logger row's column names its instrument)."""
    return citation.instrument if isinstance(citation, ReadingCitation) else citation.column


def distinct(values: Iterable[float], gap: float) -> list[float]:
    """The values at least ``gap`` apart, greedily from the lowest (equal values are one)."""
    kept: list[float] = []
    for value in sorted(values):
        if not kept or (value > kept[-1] and value - kept[-1] >= gap):
            kept.append(value)
    return kept


PropertyOf = Callable[[str, Verdict], float | None]
"""The evaluator's value of a named property for a valid reading (None: the reading does not count)."""


def minimum_check(rule: ReadingsAt, valid: Sequence[Verdict], property_of: PropertyOf) -> tuple[bool, str]:
    """Whether the valid readings meet ``rule``, and what they hold (for the evidence gate)."""
    found = []
    for instrument in rule.instruments:
        values = [property_of(rule.over, v) for v in valid if instrument_of(v.citation) == instrument]
        found.append((instrument, distinct((x for x in values if x is not None), rule.gap)))
    if rule.shared:
        common = set.intersection(*(set(values) for _, values in found))
        held = len(common) >= rule.count
    else:
        held = all(len(values) >= rule.count for _, values in found)
    seen = ", ".join(f"{name} at {[round(x, 4) for x in values]}" for name, values in found)
    return held, f"the run must contain {rule.text}: valid readings of {seen}"


def minima_gate(
    evidence: Check, rules: Sequence[ReadingsAt], valid: Sequence[Verdict], property_of: PropertyOf
) -> Check:
    """The evidence gate with the experiment's evidence minima checked over the valid readings: it fails
    naming each rule the readings do not meet."""
    unmet = [text for held, text in (minimum_check(r, valid, property_of) for r in rules) if not held]
    if not unmet:
        return evidence
    return Check("evidence", False, "; ".join([*unmet, evidence.evidence]))


def refit_gate(
    submitted: Mapping[str, object],
    verdicts: Sequence[Verdict],
    refit: Callable[[Sequence[Citation]], Mapping[str, float | str]],
    quantities: Sequence[ScoredQuantity],
    fraction: float,
) -> Check:
    """The refit gate (∗ experiments): ``refit`` computes the evaluator's fit from the valid citations (or
    raises ValueError when they cannot give one); every submitted quantity must agree with it within
    ``fraction`` of its tolerance (relative tolerances taken around the refit value, so the gate never
    depends on the hidden target)."""
    if not 0 < fraction <= 1:
        raise ConfigError(f"refit fraction {fraction} is not in (0, 1]")
    try:
        fitted = refit([v.citation for v in verdicts if v.valid])
    except ValueError as err:
        return Check("refit", False, f"the cited readings give no refit: {err}")
    lines, passed = [], True
    for q in quantities:
        reference = fitted[q.name]
        if q.labels or isinstance(reference, str):
            label = submitted.get(q.name)
            passed = passed and label == reference
            verdict = "is" if label == reference else "is not"
            lines.append(f"{q.name}: submitted {label!r} {verdict} the refit's {reference!r}")
            continue
        value = finite_number(submitted.get(q.name))
        allowed = fraction * tolerance_width(q, reference)
        ok = value is not None and abs(value - reference) <= allowed
        passed = passed and ok
        verdict = "agrees" if ok else "does not agree"
        lines.append(f"{q.name}: submitted {value!r} {verdict} with refit {reference:.6g} ± {allowed:.3g}")
    return Check("refit", passed, "; ".join(lines))
