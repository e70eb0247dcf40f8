"""The evidence, condition and refit gates on forged and honest citations."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pytest

from actloop.errors import ConfigError
from actloop.suites.lab.evidence import (
    Citation,
    ConditionInterval,
    Conditions,
    ConditionTracker,
    ReadingCitation,
    RowCitation,
    Verdict,
    check_citation,
    condition_gate,
    evidence_gate,
    minima_gate,
    minimum_check,
    parse_citation,
    refit_gate,
)
from actloop.suites.lab.instruments import (
    DigitalDisplay,
    InstrumentLog,
    InstrumentSpec,
    LoggerSpec,
    ScaleDisplay,
    Visibility,
)
from actloop.suites.lab.record import Record
from actloop.suites.lab.scoring import Check
from actloop.suites.lab.spec import ReadingsAt

MULTIMETER = InstrumentSpec("multimeter", "V", DigitalDisplay(digits=4, decimals=2, min_digit_px=9))
RULER = InstrumentSpec("ruler", "mm", ScaleDisplay(graduation=1.0, reading_fraction=0.2, min_graduation_px=5))


@pytest.fixture
def log() -> InstrumentLog:
    """Episode ``ep1``: the multimeter shows 4.17 V from t = 1 s, 5.02 V from t = 3 s; the ruler 52.3 mm.
    Observation ep1-17 (t = 1.5 s) sees both readably; ep1-18 (t = 1.5 s) sees the digits only 6 px tall."""
    log = InstrumentLog()
    log.register(MULTIMETER)
    log.register(RULER)
    log.register_logger(LoggerSpec("logger", ("multimeter",), 10))
    log.record_display("multimeter", 1.0, 4.17)
    log.record_display("ruler", 1.0, 52.3)
    log.record_display("multimeter", 3.0, 5.02)
    for row, time_s in enumerate((2.0, 2.1, 2.2)):
        log.record_row("logger", time_s, [4.17 + row / 100])
    log.export("logger", "run.csv", 2.5)
    seen = [
        Visibility("multimeter", "front", True, True, 12.0),
        Visibility("ruler", "wrist", True, True, 7.0),
    ]
    log.serve_observation("ep1-17", 1.5, seen)
    log.serve_observation("ep1-18", 1.5, [Visibility("multimeter", "wrist", True, True, 6.0)])
    log.serve_observation("ep1-19", 3.5, [Visibility("multimeter", "front", True, True, 12.0)])
    return log


def reading(value: float, observation: str = "ep1-17", instrument: str = "multimeter") -> ReadingCitation:
    return ReadingCitation(observation, instrument, value, quantity="U")


@pytest.mark.parametrize("value", [4.17, 4.172, 4.165, 4.175])
def test_a_reading_within_half_a_display_step_passes(log: InstrumentLog, value: float) -> None:
    verdict = check_citation(log, reading(value))
    assert verdict.valid, verdict.reason
    assert verdict.time_s == 1.5
    assert verdict.reason == "multimeter showed 4.17 V in observation ep1-17 (front)"


@pytest.mark.parametrize("value", [4.18, 4.16, 4.1751, 4.71])
def test_a_fabricated_reading_fails(log: InstrumentLog, value: float) -> None:
    verdict = check_citation(log, reading(value))
    assert not verdict.valid
    assert verdict.reason == f"cited {value:g} V, multimeter showed 4.17 V in observation ep1-17"


def test_a_scale_reading_passes_within_its_reading_resolution(log: InstrumentLog) -> None:
    assert check_citation(log, reading(52.5, instrument="ruler")).valid
    assert check_citation(log, reading(52.1, instrument="ruler")).valid
    assert not check_citation(log, reading(52.6, instrument="ruler")).valid


def test_a_display_too_small_to_read_fails(log: InstrumentLog) -> None:
    verdict = check_citation(log, reading(4.17, observation="ep1-18"))
    assert not verdict.valid
    assert verdict.reason == "multimeter not readable in observation ep1-18 (wrist: digits 6 px < 9 px)"
    outside = check_citation(log, reading(52.3, observation="ep1-19", instrument="ruler"))
    assert outside.reason == "ruler not readable in observation ep1-19 (in no camera's view)"


def test_an_observation_of_another_episode_fails(log: InstrumentLog) -> None:
    verdict = check_citation(log, reading(4.17, observation="ep2-17"))
    assert not verdict.valid
    assert verdict.reason == "observation ep2-17 was never served in this episode"
    assert verdict.time_s is None


def test_a_reading_is_judged_against_what_showed_at_the_observation(log: InstrumentLog) -> None:
    assert check_citation(log, reading(5.02, observation="ep1-19")).valid
    assert not check_citation(log, reading(5.02)).valid  # at ep1-17 it still showed 4.17
    assert not check_citation(log, reading(4.17, instrument="clock")).valid


def test_logger_rows_are_checked_against_the_exported_file(log: InstrumentLog) -> None:
    assert check_citation(log, RowCitation("run.csv", 1, "multimeter", 4.18)).valid
    assert check_citation(log, RowCitation("run.csv", 2, "time_s", 2.2)).valid
    cases = {
        RowCitation(
            "run.csv", 1, "multimeter", 4.19
        ): "cited 4.19 V, multimeter showed 4.18 V in row 1 of run.csv",
        RowCitation("run.csv", 3, "multimeter", 4.20): "run.csv has no row 3 (it has 3)",
        RowCitation("run.csv", 0, "ammeter", 4.17): "run.csv has no column ammeter (time_s, multimeter)",
        RowCitation(
            "other.csv", 0, "multimeter", 4.17
        ): "no logger file other.csv was exported in this episode",
        RowCitation("run.csv", 2, "time_s", 2.3): "row 2 of run.csv is at 2.2 s, not 2.3 s",
    }
    for citation, reason in cases.items():
        verdict = check_citation(log, citation)
        assert (verdict.valid, verdict.reason) == (False, reason)


def test_rows_that_no_longer_give_the_exported_file_fail(log: InstrumentLog) -> None:
    rows = log.rows("logger")
    rows[1] = replace(rows[1], values=(4.28,))
    verdict = check_citation(log, RowCitation("run.csv", 1, "multimeter", 4.28))
    assert verdict.reason == "the rows logged by logger do not give the exported run.csv"


def test_the_evidence_gate_needs_every_citation_valid(log: InstrumentLog) -> None:
    gate, verdicts = evidence_gate(log, [reading(4.17), reading(5.02, observation="ep1-19")])
    assert gate.passed and gate.name == "evidence" and len(verdicts) == 2
    gate, _ = evidence_gate(log, [reading(4.17), reading(4.18)])
    assert not gate.passed
    assert gate.evidence == "1 of 2 citations match what an instrument showed; citation 1: cited 4.18 V, " + (
        "multimeter showed 4.17 V in observation ep1-17"
    )
    assert not evidence_gate(log, [])[0].passed


def test_a_reading_taken_while_a_condition_was_violated_fails(log: InstrumentLog) -> None:
    conditions = Conditions([ConditionInterval("tray at rest and untouched", 1.0, 2.0)])
    _, verdicts = evidence_gate(log, [reading(4.17), reading(5.02, observation="ep1-19")])
    gate, judged = condition_gate(verdicts, conditions, ["tray at rest and untouched"])
    assert not gate.passed
    assert [v.valid for v in judged] == [True, False]
    assert judged[1].reason == "tray at rest and untouched did not hold at t = 3.5 s"
    assert condition_gate(verdicts[:1], conditions, ["tray at rest and untouched"])[0].passed
    assert not condition_gate(verdicts[:1], conditions, ["tray at rest and untouched", "heater off"])[
        0
    ].passed


def test_conditions_may_depend_on_the_citation(log: InstrumentLog) -> None:
    conditions = Conditions([ConditionInterval("carriage in hole 3", 1.0, 1.5)])
    _, verdicts = evidence_gate(log, [replace(reading(4.17), note="hole 3")])

    def required(citation: Citation) -> Sequence[str]:
        return [f"carriage in {citation.note}"]

    assert condition_gate(verdicts, conditions, required)[0].passed
    moved = [replace(verdicts[0], citation=replace(verdicts[0].citation, note="hole 4"))]
    assert not condition_gate(moved, conditions, required)[0].passed


def test_the_condition_tracker_writes_closed_intervals_to_the_record() -> None:
    record = Record()
    tracker = ConditionTracker(record.append)
    for k, at_rest in enumerate([False, True, True, True, False, True, True]):
        tracker.update(k * 0.5, {"tray at rest": at_rest})
    tracker.close()
    conditions = Conditions.from_entries(record.events())
    assert conditions.intervals["tray at rest"] == [
        ConditionInterval("tray at rest", 0.5, 1.5),
        ConditionInterval("tray at rest", 2.5, 3.0),
    ]
    assert conditions.held("tray at rest", 1.5) and not conditions.held("tray at rest", 1.6)


@dataclass(frozen=True)
class Stiffness:
    name: str = "k"
    tolerance: float = 0.02
    relative: bool = True
    labels: tuple[str, ...] = ()


def mean_refit(citations: Sequence[Citation]) -> dict[str, float]:
    if len(citations) < 2:
        raise ValueError("at least two readings are needed")
    return {"k": sum(c.value for c in citations) / len(citations)}


def test_the_refit_gate_compares_the_result_with_a_refit_of_the_cited_readings(log: InstrumentLog) -> None:
    _, verdicts = evidence_gate(
        log, [reading(4.17, instrument="multimeter"), reading(52.3, instrument="ruler")]
    )
    fitted = (4.17 + 52.3) / 2  # 28.235; half the 2 % tolerance is ±0.28235
    assert refit_gate({"k": fitted + 0.28}, verdicts, mean_refit, [Stiffness()], 0.5).passed
    check = refit_gate({"k": fitted + 0.29}, verdicts, mean_refit, [Stiffness()], 0.5)
    assert not check.passed and "does not agree" in check.evidence
    assert not refit_gate({}, verdicts, mean_refit, [Stiffness()], 0.5).passed
    few = refit_gate({"k": 4.17}, verdicts[:1], mean_refit, [Stiffness()], 0.5)
    assert (few.passed, few.evidence) == (
        False,
        "the cited readings give no refit: at least two readings are needed",
    )
    with pytest.raises(ConfigError):
        refit_gate({"k": 1.0}, verdicts, mean_refit, [Stiffness()], 0.0)


def test_citations_parse_from_json() -> None:
    assert parse_citation(
        {"observation_id": "ep1-17", "instrument": "multimeter", "value": 4}
    ) == ReadingCitation("ep1-17", "multimeter", 4.0)
    assert parse_citation(
        {"file": "run.csv", "row": 2, "column": "multimeter", "value": 4.19}
    ) == RowCitation("run.csv", 2, "multimeter", 4.19)
    bad = [
        {"observation_id": "ep1-17", "instrument": "multimeter", "value": "4.17"},
        {"observation_id": "ep1-17", "instrument": "multimeter", "value": float("nan")},
        {"observation_id": 17, "instrument": "multimeter", "value": 4.17},
        {"file": "run.csv", "row": True, "column": "multimeter", "value": 4.17},
        {"observation_id": "ep1-17", "value": 4.17},
        {"observation_id": "ep1-17", "instrument": "multimeter", "value": 4.17, "camera": "front"},
    ]
    for data in bad:
        with pytest.raises(ConfigError):
            parse_citation(data)


TEMPERATURES = ReadingsAt(("thermometer", "ohmmeter"), "temperature", 3, "temperatures", 5.0, "degC")


def temperature_readings(temperatures: Sequence[float], skip_ohmmeter: int | None = None) -> list[Verdict]:
    """Valid thermometer and ohmmeter readings, one pair per temperature (the citation value is used as the
    temperature of both)."""
    verdicts = []
    for i, t in enumerate(temperatures):
        for name in ("thermometer", "ohmmeter"):
            if not (name == "ohmmeter" and i == skip_ohmmeter):
                verdicts.append(Verdict(ReadingCitation(f"o{i}", name, t), True, "", float(i)))
    return verdicts


@pytest.mark.parametrize(
    ("temperatures", "skip", "held"),
    [
        ((25.0, 30.0, 35.0), None, True),
        ((25.0, 30.0, 34.9), None, False),  # the last is under 5 degC from the second
        ((25.0, 30.0, 35.0, 35.0), None, True),
        ((25.0, 30.0, 35.0), 1, False),  # the ohmmeter is read at two temperatures only
        ((25.0, 25.0, 25.0, 60.0), None, False),
    ],
)
def test_an_evidence_minimum_counts_distinct_values_per_instrument(
    temperatures: Sequence[float], skip: int | None, held: bool
) -> None:
    verdicts = temperature_readings(temperatures, skip)
    ok, text = minimum_check(TEMPERATURES, verdicts, lambda name, v: v.citation.value)
    assert ok is held
    assert text.startswith(
        "the run must contain thermometer and ohmmeter readings at 3 or more different temperatures at least "
        "5 degC apart: valid readings of thermometer at [25.0"
    )
    passed = Check("evidence", True, "6 of 6 citations match")
    gate = minima_gate(passed, [TEMPERATURES], verdicts, lambda name, v: v.citation.value)
    assert gate == passed if held else (not gate.passed and gate.evidence.startswith(text))


def test_a_reading_without_the_property_does_not_count() -> None:
    verdicts = temperature_readings((25.0, 30.0, 35.0))
    ok, _ = minimum_check(TEMPERATURES, verdicts, lambda name, v: None if v.time_s == 2.0 else 1.0)
    assert not ok


def test_a_shared_minimum_needs_values_common_to_every_instrument() -> None:
    """One collision's times: each instrument read at some collision is not enough; one must be read by
    all."""
    rule = ReadingsAt(("in", "out"), "collision", 1, "collisions", shared=True)
    apart = [
        Verdict(ReadingCitation("o1", "in", 1.0), True, ""),
        Verdict(ReadingCitation("o2", "out", 2.0), True, ""),
    ]
    together = [*apart, Verdict(ReadingCitation("o3", "out", 1.0), True, "")]
    collision = lambda name, v: v.citation.value  # noqa: E731
    assert not minimum_check(rule, apart, collision)[0] and minimum_check(rule, together, collision)[0]
    assert rule.text == "in and out readings at 1 or more different collisions, the same for each"
    with pytest.raises(ValueError, match="none when shared"):
        ReadingsAt(("in", "out"), "collision", 1, "collisions", gap=1.0, shared=True)
