"""The result row: one per finished episode, the only schema of ``results.jsonl``.

Rows are written by :meth:`ResultRow.to_json` and read by :meth:`ResultRow.from_json`, nowhere else.
The JSON form is flat (the suite's own fields sit beside the shared ones) so ``results.jsonl`` and the
Parquet table stay easy to query; ``schema`` says which version of this layout a row follows. Rows
written before the version was recorded read as version 1 (same fields, no ``schema`` key).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

from actloop.errors import RecordError

SCHEMA_VERSION = 2
NO_SUMMARY = "none"
DEFAULT_SUITE = "vabench"
"""The suite of rows written before rows named their suite."""

StopReason = Literal["success", "budget", "stop", "invalid_decisions", "tool_loop", "infra_error", "error"]
STOP_REASONS: tuple[str, ...] = StopReason.__args__  # type: ignore[attr-defined]
FAILURES = ("infra_error", "error")
"""Stop reasons of episodes that did not complete: the model provider or the harness failed."""

EpisodeKey = tuple[str, str, int, int, str, str, str]
"""(suite, task, seed, run, model, protocol, summary): what identifies an episode."""


def model_slug(name: str) -> str:
    """A directory name for a model or condition name (``openai/gpt-4o`` -> ``openai__gpt-4o``)."""
    return name.replace("/", "__").replace(":", "_")


@dataclass(frozen=True, order=True)
class Condition:
    """One evaluated setting: a model under an observation protocol and a demonstration-summary source."""

    model: str
    protocol: str
    summary: str = NO_SUMMARY

    @property
    def label(self) -> str:
        extra = "" if self.summary == NO_SUMMARY else f", summary {self.summary}"
        return f"{self.model} ({self.protocol}{extra})"

    @property
    def slug(self) -> str:
        """The condition's directory name in a run matrix."""
        return f"{model_slug(self.model)}__{self.protocol}__{model_slug(self.summary)}"


@dataclass(frozen=True)
class ResultRow:
    """What one episode came to. ``scores`` holds the suite's own fields (vabench: the hardened and
    paper-literal verdicts, checkpoints, repairs); everything else is shared by every suite."""

    suite: str
    task: str
    seed: int
    run: int
    model: str
    protocol: str
    summary: str = NO_SUMMARY
    success: bool = False
    steps: int = 0
    budget: int | None = None
    stop_reason: str = "error"
    record_dir: str | None = None
    model_calls: int = 0
    tokens: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    error: str | None = None
    error_kind: str | None = None
    """``configuration`` (a wrong key, model or endpoint: fix and rerun) or ``provider``; None otherwise."""
    scores: dict[str, Any] = field(default_factory=dict)
    schema: int = SCHEMA_VERSION

    @property
    def key(self) -> EpisodeKey:
        return (self.suite, self.task, self.seed, self.run, self.model, self.protocol, self.summary)

    @property
    def condition(self) -> Condition:
        return Condition(self.model, self.protocol, self.summary)

    @property
    def episode(self) -> tuple[str, int, int]:
        """(task, seed, run): the episode within its condition."""
        return (self.task, self.seed, self.run)

    @property
    def failed(self) -> bool:
        """The episode did not complete: the provider or the harness failed."""
        return self.stop_reason in FAILURES

    def to_json(self) -> dict[str, Any]:
        """The row as written: shared fields, then the suite's fields, flat."""
        shared = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("scores", "schema")}
        clash = sorted(set(shared) & set(self.scores))
        if clash:
            raise ValueError(f"suite result fields {clash} would overwrite shared fields")
        return {"schema": self.schema, **shared, **self.scores}

    @classmethod
    def from_json(cls, data: Any) -> ResultRow:
        """Read one row; raises :class:`~actloop.errors.RecordError` naming the first field of the wrong
        type (a flag must be true or false, a count a whole number, never a boolean)."""
        if not isinstance(data, dict):
            raise RecordError("the row is not a JSON object")
        schema = _integer(data, "schema", 1)
        if schema > SCHEMA_VERSION:
            raise RecordError(f"schema {schema!r} is newer than this actloop reads ({SCHEMA_VERSION})")
        shared = {f.name for f in fields(cls)} - {"scores", "schema"}
        return cls(
            suite=_text(data, "suite", DEFAULT_SUITE),
            task=_text(data, "task"),
            seed=_integer(data, "seed"),
            run=_integer(data, "run"),
            model=_text(data, "model"),
            protocol=_text(data, "protocol", "active"),
            summary=_text(data, "summary", NO_SUMMARY),
            success=_field(data, "success", bool, "true or false", False),
            steps=_integer(data, "steps", 0),
            budget=_integer(data, "budget", None),
            stop_reason=_stop_reason(data),
            record_dir=_text(data, "record_dir", None),
            model_calls=_integer(data, "model_calls", 0),
            tokens=dict(_field(data, "tokens", dict, "an object", {})),
            duration_s=float(_field(data, "duration_s", (int, float), "a number", 0.0)),
            error=_text(data, "error", None),
            error_kind=_text(data, "error_kind", None),
            scores={k: v for k, v in data.items() if k not in shared and k != "schema"},
            schema=schema,
        )


_REQUIRED = object()


def _field(data: dict[str, Any], name: str, kind: type | tuple[type, ...], what: str, default: Any) -> Any:
    """``data[name]`` when it is a ``kind`` (a boolean only where ``kind`` is bool); ``default`` when it is
    absent or null (an empty string too, for text); RecordError naming the field otherwise."""
    value = data.get(name)
    if value is None or (value == "" and kind is str):
        if default is _REQUIRED:
            raise RecordError(f"the row has no {name}")
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(f"{name} is {value!r}, not {what}")
    return value


def _text(data: dict[str, Any], name: str, default: Any = _REQUIRED) -> Any:
    return _field(data, name, str, "a string", default)


def _integer(data: dict[str, Any], name: str, default: Any = _REQUIRED) -> Any:
    return _field(data, name, int, "a whole number", default)


def _stop_reason(data: dict[str, Any]) -> str:
    """Why the episode ended; a row without one counts as a harness ``error``."""
    value = _text(data, "stop_reason", "error")
    if value not in STOP_REASONS:
        raise RecordError(f"stop_reason is {value!r}, not one of {', '.join(STOP_REASONS)}")
    return str(value)
