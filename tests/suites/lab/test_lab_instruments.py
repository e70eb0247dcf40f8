"""Instruments: lag, quantization, range, seeded noise, refresh rate, loggers and the evaluator's log."""

from __future__ import annotations

import math

import pytest

from actloop.errors import ConfigError
from actloop.suites.lab.instruments import (
    OVERLOAD,
    DigitalDisplay,
    Instrument,
    InstrumentLog,
    InstrumentPanel,
    InstrumentSpec,
    LoggerSpec,
    ScaleDisplay,
    Visibility,
)
from actloop.suites.lab.record import Record

DT = 1 / 240
METER = DigitalDisplay(digits=3, decimals=2, min_digit_px=9)
NEEDLE = ScaleDisplay(graduation=0.1, reading_fraction=0.2, min_graduation_px=4)


def run(
    instrument: Instrument, until_s: float, value: float, start_s: float = 0.0
) -> list[tuple[float, object]]:
    """Step ``instrument`` at 240 Hz from ``start_s`` to ``until_s`` with a constant true value."""
    changes = []
    for k in range(round(start_s / DT), round(until_s / DT) + 1):
        changes += instrument.step(k * DT, value)
    return changes


def test_lag_follows_the_first_order_response() -> None:
    tau = 2.0
    thermometer = Instrument(
        InstrumentSpec("thermometer", "°C", NEEDLE, refresh_hz=4, time_constant_s=tau), 7
    )
    thermometer.step(0.0, 20.0)
    changes = run(thermometer, 6.0, 80.0, start_s=DT)
    assert len(changes) == 24  # one refresh every 0.25 s
    for time_s, shown in changes:
        assert time_s == pytest.approx(round(time_s * 4) / 4, abs=1e-12)
        assert shown == pytest.approx(80.0 - 60.0 * math.exp(-time_s / tau), rel=1e-12)


def test_one_long_step_shows_what_many_short_steps_show() -> None:
    spec = InstrumentSpec("thermometer", "°C", METER, refresh_hz=4, time_constant_s=1.5, noise_sd=0.02)
    fine, coarse = Instrument(spec, 3), Instrument(spec, 3)
    fine.step(0.0, 20.0)
    coarse.step(0.0, 20.0)
    assert run(fine, 30.0, 60.0, start_s=DT) == coarse.step(30.0, 60.0)


def test_digital_display_quantizes_to_its_step_and_shows_overload() -> None:
    meter = InstrumentSpec("voltmeter", "V", METER)
    assert Instrument(meter, 0).step(0.0, 4.174) == [(0.0, 4.17)]
    assert Instrument(meter, 0).step(0.0, 4.176) == [(0.0, 4.18)]
    assert Instrument(meter, 0).step(0.0, 9.99) == [(0.0, 9.99)]
    assert Instrument(meter, 0).step(0.0, 9.996) == [(0.0, OVERLOAD)]  # past the three digits
    limited = InstrumentSpec("voltmeter", "V", METER, low=0.0, high=5.0)
    assert Instrument(limited, 0).step(0.0, 5.2) == [(0.0, OVERLOAD)]
    assert Instrument(limited, 0).step(0.0, -0.01) == [(0.0, OVERLOAD)]
    assert meter.resolution == 0.005
    assert meter.text(4.1) == "4.10"
    assert meter.text(OVERLOAD) == OVERLOAD


def test_a_display_changes_only_at_its_refresh_instants() -> None:
    meter = Instrument(InstrumentSpec("voltmeter", "V", METER, refresh_hz=4, noise_sd=0.05), 11)
    changes = run(meter, 2.0, 4.0)
    assert 1 < len(changes) <= 9  # refreshes at 0, 0.25, ..., 2.0 s; a repeated value is no change
    assert all(t == pytest.approx(round(t * 4) / 4, abs=1e-12) for t, _ in changes)
    quiet = Instrument(InstrumentSpec("voltmeter", "V", METER, refresh_hz=4), 11)
    assert run(quiet, 2.0, 4.0) == [(0.0, 4.0)]


def test_noise_is_deterministic_for_its_key_and_independent_across_instruments() -> None:
    spec = InstrumentSpec("voltmeter", "V", NEEDLE, refresh_hz=10, noise_sd=0.1)
    first, again, other_seed = Instrument(spec, 5), Instrument(spec, 5), Instrument(spec, 6)
    assert run(first, 3.0, 1.0) == run(again, 3.0, 1.0)
    assert run(first, 6.0, 1.0, start_s=3.0 + DT) == run(again, 6.0, 1.0, start_s=3.0 + DT)
    assert run(Instrument(spec, 5), 3.0, 1.0) != run(other_seed, 3.0, 1.0)
    renamed = Instrument(InstrumentSpec("ammeter", "V", NEEDLE, refresh_hz=10, noise_sd=0.1), 5)
    assert run(Instrument(spec, 5), 3.0, 1.0) != run(renamed, 3.0, 1.0)

    def voltmeter_log(with_ammeter: bool) -> list[object]:
        specs = [spec, renamed.spec] if with_ammeter else [spec]
        log = InstrumentLog()
        panel = InstrumentPanel(specs, [], seed=5, log=log)
        for k in range(241):
            panel.step(k * DT, {"voltmeter": 1.0, "ammeter": 2.0})
        return [log.shown_at("voltmeter", k / 10) for k in range(11)]

    assert voltmeter_log(with_ammeter=True) == voltmeter_log(with_ammeter=False)


def test_specs_reject_nonsense() -> None:
    with pytest.raises(ConfigError):
        DigitalDisplay(digits=2, decimals=3, min_digit_px=9)
    with pytest.raises(ConfigError):
        ScaleDisplay(graduation=1.0, reading_fraction=0.0, min_graduation_px=4)
    with pytest.raises(ConfigError):
        InstrumentSpec("meter", "V", METER, refresh_hz=0)
    with pytest.raises(ConfigError):
        InstrumentSpec("meter", "V", METER, low=2.0, high=1.0)
    with pytest.raises(ConfigError):
        LoggerSpec("logger", ("time_s",), 10)
    with pytest.raises(ConfigError):
        InstrumentPanel([InstrumentSpec("meter", "V", METER)], [], 0, InstrumentLog()).step(0.0, {})


def panel_with_logger(sink: Record | None = None) -> InstrumentPanel:
    specs = [
        InstrumentSpec("ph_meter", "pH", DigitalDisplay(4, 2, 9), refresh_hz=10),
        InstrumentSpec("thermometer", "°C", NEEDLE, refresh_hz=2),
    ]
    log = InstrumentLog(sink.append if sink is not None else None)
    return InstrumentPanel(specs, [LoggerSpec("logger", ("ph_meter", "thermometer"), 10)], seed=1, log=log)


def step_to(panel: InstrumentPanel, start_s: float, until_s: float) -> None:
    for k in range(round(start_s / DT), round(until_s / DT) + 1):
        t = k * DT
        panel.step(t, {"ph_meter": 7.0 - t, "thermometer": 20.0 + t})


def test_a_logger_records_rows_while_recording_and_exports_them_as_csv() -> None:
    panel = panel_with_logger()
    step_to(panel, 0.0, 0.5)
    panel.start_logging("logger", 0.5)
    step_to(panel, 0.5 + DT, 1.0)
    panel.stop_logging("logger")
    step_to(panel, 1.0 + DT, 1.5)
    rows = panel.log.rows("logger")
    assert [row.time_s for row in rows] == [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    assert rows[0].values == (6.5, 20.5)
    assert rows[1].values == (6.4, 20.5)  # the thermometer refreshes twice a second
    text = panel.export("logger", "ph_run1.csv", 1.5)
    lines = text.splitlines()
    assert lines[0] == "time_s,ph_meter,thermometer"
    assert lines[1] == "0.5,6.50,20.5"
    assert len(lines) == 7
    export = panel.log.exports["ph_run1.csv"]
    assert (export.rows, export.logger) == (6, "logger")
    assert panel.log.file_matches(export)


def test_observations_note_what_each_camera_could_read() -> None:
    log = InstrumentLog()
    log.register(InstrumentSpec("voltmeter", "V", METER))
    log.register(InstrumentSpec("ruler", "mm", ScaleDisplay(1.0, 0.5, 5, "ruler")))
    log.record_display("voltmeter", 1.0, 4.17)
    observation = log.serve_observation(
        "ep-1",
        1.0,
        [
            Visibility("voltmeter", "front", True, True, 12.0),
            Visibility("voltmeter", "wrist", True, True, 6.0),
            Visibility("voltmeter", "side", False, True, 20.0),
            Visibility("ruler", "front", True, False, 8.0),
            Visibility("ruler", "wrist", True, True, 3.0),
        ],
    )
    assert observation.shown == {"voltmeter": 4.17, "ruler": None}
    reasons = {(v.instrument, v.camera): (v.readable, v.reason) for v in observation.views}
    assert reasons == {
        ("voltmeter", "front"): (True, ""),
        ("voltmeter", "wrist"): (False, "digits 6 px < 9 px"),
        ("voltmeter", "side"): (False, "not in view of side"),
        ("ruler", "front"): (False, "occluded in front"),
        ("ruler", "wrist"): (False, "graduations 3 px < 5 px"),
    }
    with pytest.raises(ConfigError, match="served twice"):
        log.serve_observation("ep-1", 2.0, [])
    with pytest.raises(ConfigError, match="no instrument"):
        log.serve_observation("ep-2", 2.0, [Visibility("clock", "front", True, True, 12.0)])


def test_the_log_rebuilds_from_its_record_entries() -> None:
    record = Record()
    panel = panel_with_logger(record)
    panel.start_logging("logger", 0.0)
    step_to(panel, 0.0, 1.0)
    panel.log.serve_observation("ep-1", 0.5, [Visibility("ph_meter", "front", True, True, 10.0)])
    panel.export("logger", "run.csv", 1.0)
    record.append("robot", {"joints": [0.0] * 7})
    rebuilt = InstrumentLog.from_entries(record.events())
    assert rebuilt.instruments == panel.log.instruments
    assert rebuilt.observations == panel.log.observations
    assert rebuilt.exports == panel.log.exports
    assert rebuilt.rows("logger") == panel.log.rows("logger")
    assert rebuilt.csv_text("logger", 11) == panel.log.csv_text("logger", 11)
    assert [rebuilt.shown_at("ph_meter", k / 8) for k in range(9)] == [
        panel.log.shown_at("ph_meter", k / 8) for k in range(9)
    ]
