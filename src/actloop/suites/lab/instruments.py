"""Instruments: what a display shows for a true value, and the evaluator's log of what it showed.

An instrument turns the true value of a physics model into what its display shows: a first-order lag
(exact exponential update, the true value held over each physics step), seeded noise, quantization to the
display's step, and its range (outside it the display shows ``OL``), refreshed at the display's update rate.
Refreshes fall on the instants ``k / refresh_hz`` of simulated time, and refresh ``k`` draws noise sample
``k`` of the instrument's own stream (``<name>/display``) under the instance's noise key, so the same
actions give the same readings, one instrument never shifts another's noise, and one long step gives the
display the same values as many short ones while the true value holds. A data logger samples the values
its channels show and exports them as CSV; only loggers export files.

The :class:`InstrumentLog` (evaluator side) records every change of a display, every logger row and export,
and for every observation served what each instrument showed and whether a camera could read it. It writes
each event as a ``(kind, data)`` entry to a sink (the episode record) and can be rebuilt from those entries,
so the evidence gate can be run again on a sealed record.
"""

from __future__ import annotations

import bisect
import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Final, Literal

from actloop.errors import ConfigError, RecordError
from actloop.suites.lab.physics.linear import exp
from actloop.suites.lab.physics.noise import seeded_normal

OVERLOAD: Final = "OL"
"""What a display shows when its value is outside the instrument's range."""

Shown = float | Literal["OL"]
"""A displayed value: a number in the instrument's unit, or ``OL``."""

TIME_COLUMN = "time_s"
"""The first column of every logger file: the simulated time of the row, seconds."""

LOG_KINDS = ("instrument", "logger", "display", "observation", "logger_row", "export")
"""The record entry kinds an :class:`InstrumentLog` writes and reads back."""

_SLOT_EPS = 1e-9
"""Slack in refresh counting, so a step landing on a refresh instant up to rounding still refreshes."""

Sink = Callable[[str, dict[str, Any]], object]
"""Where log entries go: ``sink(kind, data)``, e.g. ``Record.append``."""


def _slot(time_s: float, rate_hz: float) -> int:
    """The number of the latest refresh instant ``k / rate_hz`` at or before ``time_s``."""
    return math.floor(time_s * rate_hz + _SLOT_EPS)


@dataclass(frozen=True)
class DigitalDisplay:
    """A numeric display of ``digits`` digits, ``decimals`` of them after the point. It reads to half a
    step and is readable when a digit is at least ``min_digit_px`` pixels tall in a camera image."""

    digits: int
    decimals: int
    min_digit_px: float
    kind: ClassVar[str] = "digital"

    def __post_init__(self) -> None:
        if self.digits < 1 or not 0 <= self.decimals <= self.digits or not self.min_digit_px > 0:
            raise ConfigError(f"bad digital display {self}")

    @property
    def step(self) -> float:
        """The value of one count of the last digit."""
        return 10.0**-self.decimals

    @property
    def resolution(self) -> float:
        """How far a correct reading may be from the shown value: half a step."""
        return self.step / 2

    @property
    def bounds(self) -> tuple[float, float]:
        """The largest magnitude the digits can show, either sign."""
        capacity = (10**self.digits - 1) / 10**self.decimals
        return -capacity, capacity

    def quantize(self, value: float) -> float:
        """``value`` rounded to the display step (halves up), as the nearest float to the decimal shown."""
        return math.floor(value * 10**self.decimals + 0.5) / 10**self.decimals

    def text(self, value: float) -> str:
        return f"{value:.{self.decimals}f}"

    def illegible(self, pixel_size: float) -> str:
        """Why a display imaged at ``pixel_size`` (digit height, px) cannot be read, or ``""``."""
        if pixel_size >= self.min_digit_px:
            return ""
        return f"digits {pixel_size:g} px < {self.min_digit_px:g} px"


@dataclass(frozen=True)
class ScaleDisplay:
    """A graduated scale read where a needle (an analog meter) or a pointer (a printed ruler) stands.
    Marks are ``graduation`` apart in value; a reader resolves ``reading_fraction`` of a graduation, and the
    scale is readable when its marks are at least ``min_graduation_px`` pixels apart in a camera image. The
    pointer itself moves continuously, so the shown value is not quantized."""

    graduation: float
    reading_fraction: float
    min_graduation_px: float
    style: Literal["needle", "ruler"] = "needle"
    kind: ClassVar[str] = "scale"

    def __post_init__(self) -> None:
        if not (self.graduation > 0 and 0 < self.reading_fraction <= 1 and self.min_graduation_px > 0):
            raise ConfigError(f"bad scale display {self}")

    @property
    def resolution(self) -> float:
        """How far a correct reading may be from the pointer's value: the reading resolution."""
        return self.reading_fraction * self.graduation

    @property
    def bounds(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def quantize(self, value: float) -> float:
        return value

    def text(self, value: float) -> str:
        return repr(value)

    def illegible(self, pixel_size: float) -> str:
        """Why a scale imaged at ``pixel_size`` (graduation spacing, px) cannot be read, or ``""``."""
        if pixel_size >= self.min_graduation_px:
            return ""
        return f"graduations {pixel_size:g} px < {self.min_graduation_px:g} px"


Display = DigitalDisplay | ScaleDisplay
_DISPLAYS: dict[str, type[DigitalDisplay] | type[ScaleDisplay]] = {
    DigitalDisplay.kind: DigitalDisplay,
    ScaleDisplay.kind: ScaleDisplay,
}


@dataclass(frozen=True)
class InstrumentSpec:
    """One instrument: ``name`` (unique on its bench), ``unit``, ``display``, display refreshes per second,
    lag time constant (s, 0 = none), noise standard deviation (in ``unit``, before quantization) and range
    ``[low, high]`` (None = only the display's own limit)."""

    name: str
    unit: str
    display: Display
    refresh_hz: float = 4.0
    time_constant_s: float = 0.0
    noise_sd: float = 0.0
    low: float | None = None
    high: float | None = None

    def __post_init__(self) -> None:
        low, high = self.bounds
        if not self.name or not self.refresh_hz > 0 or self.time_constant_s < 0 or self.noise_sd < 0:
            raise ConfigError(f"bad instrument {self}")
        if not low < high:
            raise ConfigError(f"instrument {self.name}: empty range [{low}, {high}]")

    @property
    def resolution(self) -> float:
        """How far a cited value may be from the shown one and still count as equal, in ``unit``."""
        return self.display.resolution

    @property
    def bounds(self) -> tuple[float, float]:
        """The range the display shows; outside it, ``OL``."""
        display_low, display_high = self.display.bounds
        low = display_low if self.low is None else max(self.low, display_low)
        high = display_high if self.high is None else min(self.high, display_high)
        return low, high

    def text(self, shown: Shown | None) -> str:
        """What the display reads: digits as printed, ``OL``, or ``""`` before the first refresh."""
        if shown is None:
            return ""
        if shown == OVERLOAD:
            return OVERLOAD
        return self.display.text(float(shown))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["display"]["kind"] = self.display.kind
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> InstrumentSpec:
        try:
            display = dict(data["display"])
            display_cls = _DISPLAYS[display.pop("kind")]
            return cls(**{**data, "display": display_cls(**display)})
        except (KeyError, TypeError) as err:
            raise RecordError(f"not an instrument: {dict(data)!r} ({err!r})") from err


@dataclass(frozen=True)
class LoggerSpec:
    """A data logger: ``sample_hz`` rows per second while recording, one column per channel (the name of
    an instrument of the bench, whose shown value it records) after the time column."""

    name: str
    channels: tuple[str, ...]
    sample_hz: float

    def __post_init__(self) -> None:
        if not self.name or not self.channels or not self.sample_hz > 0:
            raise ConfigError(f"bad logger {self}")
        if TIME_COLUMN in self.channels or len(set(self.channels)) != len(self.channels):
            raise ConfigError(f"logger {self.name}: channel names repeat or shadow {TIME_COLUMN}")

    @property
    def columns(self) -> tuple[str, ...]:
        return (TIME_COLUMN, *self.channels)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LoggerSpec:
        try:
            return cls(**{**data, "channels": tuple(data["channels"])})
        except (KeyError, TypeError) as err:
            raise RecordError(f"not a logger: {dict(data)!r} ({err!r})") from err


class Instrument:
    """The running state of one instrument: true values in, display changes out."""

    def __init__(self, spec: InstrumentSpec, seed: int | str) -> None:
        self.spec = spec
        self.seed = seed
        self.shown: Shown | None = None
        self._time = -math.inf
        self._lagged = 0.0
        self._slot = -1

    def step(self, time_s: float, true_value: float) -> list[tuple[float, Shown]]:
        """Advance to ``time_s`` (s), the true value holding ``true_value`` since the previous step; returns
        the display changes as ``(simulated time, shown)``, in time order."""
        if not math.isfinite(true_value):
            raise ValueError(f"instrument {self.spec.name}: true value {true_value} at t = {time_s} s")
        if time_s < self._time:
            raise ValueError(f"instrument {self.spec.name}: time went back to {time_s} s")
        if self.shown is None:  # the first step: the instrument starts settled at the true value
            self._time, self._lagged = time_s, true_value
            self._slot = _slot(time_s, self.spec.refresh_hz) - 1
        changes: list[tuple[float, Shown]] = []
        for slot in range(self._slot + 1, _slot(time_s, self.spec.refresh_hz) + 1):
            self._lag_to(max(slot / self.spec.refresh_hz, self._time), true_value)
            self._slot = slot
            if (shown := self._display(slot)) != self.shown:
                self.shown = shown
                changes.append((self._time, shown))
        self._lag_to(time_s, true_value)
        return changes

    def _lag_to(self, time_s: float, true_value: float) -> None:
        """The first-order response, exact for a true value held from the last update to ``time_s`` (with
        the physics models' bit-identical ``exp``)."""
        tau = self.spec.time_constant_s
        decay = exp(-(time_s - self._time) / tau) if tau > 0 else 0.0
        self._lagged = true_value + (self._lagged - true_value) * decay
        self._time = time_s

    def _display(self, slot: int) -> Shown:
        """What refresh ``slot`` shows: lagged value plus noise sample ``slot``, quantized, range-checked."""
        value = self._lagged
        if self.spec.noise_sd > 0:
            value += self.spec.noise_sd * seeded_normal(self.seed, f"{self.spec.name}/display", slot)
        shown = self.spec.display.quantize(value)
        low, high = self.spec.bounds
        return shown if low <= shown <= high else OVERLOAD


@dataclass(frozen=True)
class Visibility:
    """What the renderer reports about one instrument in one camera image: whether it is in the view,
    whether nothing covers it, and the size in the image of what must be resolved to read it (digit height
    for a digital display, graduation spacing for a scale), pixels."""

    instrument: str
    camera: str
    in_view: bool
    unoccluded: bool
    pixel_size: float


@dataclass(frozen=True)
class View:
    """The log's verdict on one instrument in one camera of an observation (``reason`` is ``""`` when
    readable)."""

    instrument: str
    camera: str
    readable: bool
    reason: str
    pixel_size: float


@dataclass(frozen=True)
class Observation:
    """An observation served to the agent: its id, simulated time (s), what every instrument in any view
    showed then, and per camera whether it could be read."""

    observation_id: str
    time_s: float
    shown: dict[str, Shown | None]
    views: tuple[View, ...]

    def views_of(self, instrument: str) -> list[View]:
        return [view for view in self.views if view.instrument == instrument]


@dataclass(frozen=True)
class LoggerRow:
    """One row of a logger: its index (0-based, the data row of the exported CSV), time (s), values."""

    index: int
    time_s: float
    values: tuple[Shown | None, ...]


@dataclass(frozen=True)
class Export:
    """A logger file written to the workspace: its first ``rows`` rows, and the SHA-256 of its text."""

    file: str
    logger: str
    time_s: float
    rows: int
    sha256: str


@dataclass
class _Displays:
    """The display changes of one instrument, in time order."""

    times: list[float] = field(default_factory=list)
    values: list[Shown] = field(default_factory=list)


class InstrumentLog:
    """The evaluator's log of instruments, observations and logger files (see the module docstring).

    Every mutation goes through :meth:`_apply` with the entry it writes to ``sink``, so an entry replayed by
    :meth:`from_entries` rebuilds exactly the state its writing built.
    """

    def __init__(self, sink: Sink | None = None) -> None:
        self.sink = sink
        self.instruments: dict[str, InstrumentSpec] = {}
        self.loggers: dict[str, LoggerSpec] = {}
        self.observations: dict[str, Observation] = {}
        self.exports: dict[str, Export] = {}
        self._displays: dict[str, _Displays] = {}
        self._rows: dict[str, list[LoggerRow]] = {}
        self._checked: dict[Export, bool] = {}
        """Whether each export's rows still give its file (rows are only ever appended, so an export's first
        rows, and the answer, never change)."""

    @classmethod
    def from_entries(cls, entries: Iterable[tuple[str, Mapping[str, Any]]]) -> InstrumentLog:
        """The log rebuilt from record entries ``(kind, data)``, skipping kinds not in :data:`LOG_KINDS`."""
        log = cls()
        for kind, data in entries:
            if kind in LOG_KINDS:
                log._apply(kind, data)
        return log

    def register(self, spec: InstrumentSpec) -> None:
        self._emit("instrument", spec.to_dict())

    def register_logger(self, spec: LoggerSpec) -> None:
        self._emit("logger", spec.to_dict())

    def record_display(self, instrument: str, time_s: float, shown: Shown) -> None:
        """The display of ``instrument`` changed to ``shown`` at ``time_s`` (s)."""
        self._emit("display", {"instrument": instrument, "time_s": time_s, "shown": shown})

    def record_row(self, logger: str, time_s: float, values: Sequence[Shown | None]) -> None:
        self._emit("logger_row", {"logger": logger, "time_s": time_s, "values": list(values)})

    def serve_observation(
        self, observation_id: str, time_s: float, visibility: Iterable[Visibility]
    ) -> Observation:
        """Log an observation served at ``time_s`` (s): for every instrument the renderer reports, what it
        showed and whether each camera could read it. Instruments not reported were in no view."""
        views = []
        for v in visibility:
            spec = self._spec(v.instrument)
            reason = (
                f"not in view of {v.camera}"
                if not v.in_view
                else f"occluded in {v.camera}"
                if not v.unoccluded
                else spec.display.illegible(v.pixel_size)
            )
            views.append(View(v.instrument, v.camera, not reason, reason, v.pixel_size))
        shown = {view.instrument: self.shown_at(view.instrument, time_s) for view in views}
        data = {
            "observation_id": observation_id,
            "time_s": time_s,
            "shown": shown,
            "views": [asdict(view) for view in views],
        }
        self._emit("observation", data)
        return self.observations[observation_id]

    def export(self, logger: str, file: str, time_s: float) -> str:
        """Log the export of every row of ``logger`` so far as ``file`` (a name in the workspace) and return
        the CSV text to write there."""
        rows = self.rows(logger)
        text = self.csv_text(logger, len(rows))
        self._emit(
            "export",
            {"file": file, "logger": logger, "time_s": time_s, "rows": len(rows), "sha256": _sha256(text)},
        )
        return text

    def shown_at(self, instrument: str, time_s: float) -> Shown | None:
        """What ``instrument`` showed at ``time_s`` (s): its last change up to then (None before any)."""
        self._spec(instrument)
        displays = self._displays[instrument]
        index = bisect.bisect_right(displays.times, time_s)
        return displays.values[index - 1] if index else None

    def rows(self, logger: str) -> list[LoggerRow]:
        if logger not in self.loggers:
            raise ConfigError(f"no logger named {logger!r}")
        return self._rows[logger]

    def csv_text(self, logger: str, rows: int) -> str:
        """The CSV file of the first ``rows`` rows of ``logger``: a header of its columns, then each row,
        times by their shortest repr and values as the channel's display prints them."""
        spec = self.loggers[logger]
        channels = [self.instruments[name] for name in spec.channels]
        lines = [",".join(spec.columns)]
        for row in self.rows(logger)[:rows]:
            cells = [channel.text(value) for channel, value in zip(channels, row.values, strict=True)]
            lines.append(",".join([repr(row.time_s), *cells]))
        return "\n".join(lines) + "\n"

    def file_matches(self, export: Export) -> bool:
        """Whether the logged rows still give exactly the file that was exported (checked once per export:
        a file's every cited row asks)."""
        checked = self._checked.get(export)
        if checked is None:
            checked = _sha256(self.csv_text(export.logger, export.rows)) == export.sha256
            self._checked[export] = checked
        return checked

    def _spec(self, instrument: str) -> InstrumentSpec:
        try:
            return self.instruments[instrument]
        except KeyError:
            raise ConfigError(f"no instrument named {instrument!r}") from None

    def _emit(self, kind: str, data: dict[str, Any]) -> None:
        self._apply(kind, data)
        if self.sink is not None:
            self.sink(kind, data)

    def _apply(self, kind: str, data: Mapping[str, Any]) -> None:
        try:
            getattr(self, f"_apply_{kind}")(data)
        except (KeyError, TypeError, ValueError) as err:
            raise RecordError(f"bad {kind} log entry {dict(data)!r}: {err!r}") from err

    def _apply_instrument(self, data: Mapping[str, Any]) -> None:
        spec = InstrumentSpec.from_dict(data)
        if spec.name in self.instruments:
            raise ConfigError(f"instrument {spec.name!r} registered twice")
        self.instruments[spec.name] = spec
        self._displays[spec.name] = _Displays()

    def _apply_logger(self, data: Mapping[str, Any]) -> None:
        spec = LoggerSpec.from_dict(data)
        if spec.name in self.loggers:
            raise ConfigError(f"logger {spec.name!r} registered twice")
        for channel in spec.channels:
            self._spec(channel)
        self.loggers[spec.name] = spec
        self._rows[spec.name] = []

    def _apply_display(self, data: Mapping[str, Any]) -> None:
        self._spec(data["instrument"])
        displays = self._displays[data["instrument"]]
        if displays.times and data["time_s"] < displays.times[-1]:
            raise ValueError("display changes out of time order")
        displays.times.append(float(data["time_s"]))
        displays.values.append(data["shown"])

    def _apply_observation(self, data: Mapping[str, Any]) -> None:
        if data["observation_id"] in self.observations:
            raise ConfigError(f"observation id {data['observation_id']!r} served twice")
        self.observations[data["observation_id"]] = Observation(
            observation_id=data["observation_id"],
            time_s=float(data["time_s"]),
            shown=dict(data["shown"]),
            views=tuple(View(**view) for view in data["views"]),
        )

    def _apply_logger_row(self, data: Mapping[str, Any]) -> None:
        rows = self.rows(data["logger"])
        values = tuple(data["values"])
        if len(values) != len(self.loggers[data["logger"]].channels):
            raise ValueError("row width differs from the logger's channels")
        rows.append(LoggerRow(len(rows), float(data["time_s"]), values))

    def _apply_export(self, data: Mapping[str, Any]) -> None:
        export = Export(**data)
        if not 0 <= export.rows <= len(self.rows(export.logger)):
            raise ValueError("export of rows not logged")
        self.exports[export.file] = export  # a later export under the same name replaces the file


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class InstrumentPanel:
    """The instruments and loggers of one bench, stepped with the physics; every change goes to ``log``.

    ``seed`` (the instance's noise key, :attr:`~actloop.suites.lab.instance.Instance.noise_key`) keys every
    instrument's noise together with its name.
    """

    def __init__(
        self,
        instruments: Sequence[InstrumentSpec],
        loggers: Sequence[LoggerSpec],
        seed: int | str,
        log: InstrumentLog,
    ) -> None:
        self.log = log
        self.instruments = {spec.name: Instrument(spec, seed) for spec in instruments}
        if len(self.instruments) != len(instruments):
            raise ConfigError("instrument names repeat")
        for spec in instruments:
            log.register(spec)
        for logger in loggers:
            log.register_logger(logger)
        self._next_row: dict[str, int | None] = {logger.name: None for logger in loggers}

    def step(self, time_s: float, true_values: Mapping[str, float]) -> None:
        """Advance every instrument to ``time_s`` (s) with the true values of the physics models, and let
        every recording logger take the rows that fall due."""
        missing = self.instruments.keys() - true_values.keys()
        if missing:
            raise ConfigError(f"no true value for instruments {sorted(missing)}")
        before = {name: instrument.shown for name, instrument in self.instruments.items()}
        changes = {name: inst.step(time_s, true_values[name]) for name, inst in self.instruments.items()}
        for name, instrument_changes in changes.items():
            for change_time, shown in instrument_changes:
                self.log.record_display(name, change_time, shown)
        for logger, next_row in self._next_row.items():
            if next_row is None:
                continue
            spec = self.log.loggers[logger]
            last = _slot(time_s, spec.sample_hz)
            for slot in range(next_row, last + 1):
                row_time = slot / spec.sample_hz
                values = [_value_at(changes[c], before[c], row_time) for c in spec.channels]
                self.log.record_row(logger, row_time, values)
            self._next_row[logger] = max(next_row, last + 1)

    def shown(self, instrument: str) -> Shown | None:
        """What the display of ``instrument`` shows now (for the renderer)."""
        return self.instruments[instrument].shown

    def start_logging(self, logger: str, time_s: float) -> None:
        """Start recording rows at the first sampling instant at or after ``time_s`` (s)."""
        rate = self.log.loggers[logger].sample_hz
        if self._next_row[logger] is None:
            self._next_row[logger] = math.ceil(time_s * rate - _SLOT_EPS)

    def stop_logging(self, logger: str) -> None:
        self._next_row[logger] = None

    def export(self, logger: str, file: str, time_s: float) -> str:
        """The CSV text of every row ``logger`` recorded, logged as exported to ``file``."""
        return self.log.export(logger, file, time_s)


def _value_at(changes: list[tuple[float, Shown]], before: Shown | None, time_s: float) -> Shown | None:
    """The value shown at ``time_s`` given the step's changes and the value shown before the step."""
    value = before
    for change_time, shown in changes:
        if change_time > time_s:
            break
        value = shown
    return value
