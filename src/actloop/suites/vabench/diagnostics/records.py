"""Annotation records: every individual judgment of every rater, kept as append-only JSON Lines in the run.

A rater is a human annotator (``kind="human"``) or an LLM judge (``kind="judge"``). Each rater writes its own
file, ``RUN_DIR/diagnostics/<kind>/<rater>.jsonl``; one line is one judgment of one *item* of one episode:

- ``gate:ambiguity`` and ``gate:recovery`` answer the applicability gates (AE's, and ED/OC/PF's shared one);
- a criterion code (``TL`` ... ``PF``) is the binary behavioural judgment of that criterion.

``value`` is 1 or 0; ``None`` withdraws an earlier answer. A rater may change its mind: every line stays in
the file, and the latest line per (episode, item, vote) is the rater's current answer. A judge asked for
several votes writes each under its own ``vote`` number (humans always write vote 0). Every line names the
rubric version and digest it was made under, so labels made under another rubric are never mixed in.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from actloop.errors import RecordError
from actloop.records.jsonl import append_line, read_json_lines
from actloop.suites.vabench.diagnostics.rubric import CRITERIA, RUBRIC_VERSION, rubric_digest

RaterKind = Literal["human", "judge"]
RATER_KINDS: tuple[RaterKind, ...] = ("human", "judge")
DIAGNOSTICS_DIR = "diagnostics"
GATE_ITEMS = ("gate:ambiguity", "gate:recovery")
CRITERION_ITEMS = tuple(c.code for c in CRITERIA)
ITEMS = GATE_ITEMS + CRITERION_ITEMS

_RATER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class Judgment:
    """One rater's answer to one item of one episode (``episode`` is the record directory's name)."""

    rater: str
    kind: RaterKind
    episode: str
    item: str
    value: int | None
    vote: int = 0
    justification: str | None = None
    rubric_version: str = RUBRIC_VERSION
    rubric_digest: str = field(default_factory=rubric_digest)
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="milliseconds"))

    def __post_init__(self) -> None:
        check_rater_name(self.rater)
        if self.kind not in RATER_KINDS:
            raise RecordError(f"rater kind must be one of {', '.join(RATER_KINDS)}, not {self.kind!r}")
        if not isinstance(self.item, str) or self.item not in ITEMS:
            raise RecordError(f"unknown item {brief(self.item)}; items are {', '.join(ITEMS)}")
        if self.value is not None and (type(self.value) is not int or self.value not in (0, 1)):
            raise RecordError(f"a judgment's value is 0, 1 or null, not {brief(self.value)}")
        if type(self.vote) is not int or self.vote < 0:
            raise RecordError(f"a vote number is a non-negative integer, not {brief(self.vote)}")
        if (
            not isinstance(self.episode, str)
            or not self.episode
            or "/" in self.episode
            or self.episode[0] == "."
        ):
            raise RecordError(f"an episode is named by its record directory, not {brief(self.episode)}")
        if self.justification is not None and not isinstance(self.justification, str):
            raise RecordError(f"a justification is text or null, not {brief(self.justification)}")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def check_rater_name(name: str) -> str:
    """``name`` if it can name a rater's file (letters, digits, ``_.-``; up to 64), else a RecordError."""
    if not isinstance(name, str) or not _RATER_NAME.fullmatch(name):
        raise RecordError(
            f"a rater's name is 1-64 ASCII letters, digits, '_', '.' or '-' starting with a letter or digit, "
            f"not {brief(name)}"
        )
    return name


def brief(value: Any, limit: int = 60) -> str:
    """A bad value named in an error message: ``repr`` cut to ``limit`` characters; a JSON array or object
    only by its kind (it may be nested too deeply to show)."""
    if isinstance(value, list | dict):
        return "a JSON array" if isinstance(value, list) else "a JSON object"
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def record_path(run_dir: Path, kind: RaterKind, rater: str) -> Path:
    """The file holding every judgment of ``rater``."""
    return run_dir / DIAGNOSTICS_DIR / kind / f"{check_rater_name(rater)}.jsonl"


def append_judgment(run_dir: Path, judgment: Judgment) -> Path:
    """Append one judgment to its rater's file (created on first use); safe across processes."""
    path = record_path(run_dir, judgment.kind, judgment.rater)
    path.parent.mkdir(parents=True, exist_ok=True)
    append_line(path, judgment.to_json())
    return path


@dataclass
class Judgments:
    """Every judgment found under a run's diagnostics, and what could not be read or was left out."""

    judgments: list[Judgment] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def raters(self, kind: RaterKind | None = None) -> list[str]:
        """Rater names in sorted order (of one kind when ``kind`` is given)."""
        return sorted({j.rater for j in self.judgments if kind is None or j.kind == kind})

    def current(self) -> dict[tuple[RaterKind, str, int], dict[str, dict[str, int]]]:
        """Each (kind, rater, vote)'s current answers: ``{episode: {item: value}}``; a withdrawn answer is
        absent. Lines are taken in file order, so the latest line per item wins."""
        answers: dict[tuple[RaterKind, str, int], dict[str, dict[str, int]]] = {}
        for j in self.judgments:
            episode = answers.setdefault((j.kind, j.rater, j.vote), {}).setdefault(j.episode, {})
            if j.value is None:
                episode.pop(j.item, None)
            else:
                episode[j.item] = j.value
        return answers

    def justifications(self) -> dict[tuple[RaterKind, str, int], dict[str, dict[str, str]]]:
        """The latest non-empty justification per (kind, rater, vote), episode and item."""
        notes: dict[tuple[RaterKind, str, int], dict[str, dict[str, str]]] = {}
        for j in self.judgments:
            if j.justification:
                rater = notes.setdefault((j.kind, j.rater, j.vote), {})
                rater.setdefault(j.episode, {})[j.item] = j.justification
        return notes


def read_judgments(run_dir: Path) -> Judgments:
    """Every judgment under ``run_dir/diagnostics`` made under the current rubric. Unreadable lines and
    lines made under another rubric version or digest are reported in ``problems``, never used."""
    found = Judgments()
    digest = rubric_digest()
    for kind in RATER_KINDS:
        for path in sorted((run_dir / DIAGNOSTICS_DIR / kind).glob("*.jsonl")):
            rows, unreadable = read_json_lines(path)
            found.problems += unreadable
            stale = 0
            for line, row in rows:
                try:
                    judgment = _judgment(row)
                except (RecordError, TypeError) as err:
                    found.problems.append(f"{path}:{line}: {err}")
                    continue
                if judgment.kind != kind or judgment.rater != path.stem:
                    found.problems.append(f"{path}:{line}: a judgment of {judgment.kind} {judgment.rater}")
                elif (judgment.rubric_version, judgment.rubric_digest) != (RUBRIC_VERSION, digest):
                    stale += 1
                else:
                    found.judgments.append(judgment)
            if stale:
                found.problems.append(
                    f"{path}: left out {stale} judgment(s) made under another rubric than {RUBRIC_VERSION}"
                )
    return found


def _judgment(row: Any) -> Judgment:
    if not isinstance(row, dict):
        raise RecordError("a judgment is a JSON object")
    known = {f for f in Judgment.__dataclass_fields__}
    return Judgment(**{key: value for key, value in row.items() if key in known})
