"""The episode record R_t: an append-only sequence of entries chained by SHA-256, sealed at submission.

Each entry holds its position, a kind (``display``, ``observation``, ``robot``, ``part_state``, ``call``, …;
the record does not interpret them), JSON data, the hash of the entry before it and its own hash over all
of that in canonical JSON (sorted keys, no NaN or infinity, floats by their shortest repr). The seal is the
last entry: it holds the submission and the hash of the entry before it, and its own hash is the record's
final hash, which the result row keeps. :meth:`Record.verify` then finds any entry changed, removed,
reordered or inserted after sealing and names the first one; a rewrite that recomputes every hash is caught
only by comparing the final hash with the kept one. On disk a record is JSON Lines, one entry per line.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from actloop.errors import RecordError

GENESIS = "0" * 64
"""The ``prev`` hash of the first entry."""

SEAL = "seal"
"""The kind of the entry that seals the record; :meth:`Record.seal` alone writes it."""

_FIELDS = ("index", "kind", "data", "prev", "hash")


def canonical_json(obj: Any) -> str:
    """``obj`` as canonical JSON: sorted keys, no whitespace, ASCII, floats by repr; NaN, infinity and
    values JSON cannot hold raise :class:`RecordError`."""
    try:
        return json.dumps(obj, sort_keys=True, allow_nan=False, ensure_ascii=True, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        raise RecordError(f"cannot record {obj!r}: {err}") from err


def entry_hash(index: int, kind: str, data: Mapping[str, Any], prev: str) -> str:
    """SHA-256 (hex) of an entry's canonical JSON without its own hash."""
    body = canonical_json({"index": index, "kind": kind, "data": data, "prev": prev})
    return hashlib.sha256(body.encode("ascii")).hexdigest()


@dataclass(frozen=True)
class Entry:
    """One entry of the record (see the module docstring)."""

    index: int
    kind: str
    data: dict[str, Any]
    prev: str
    hash: str

    def line(self) -> str:
        """The entry as one canonical JSON line (without the newline)."""
        return canonical_json({name: getattr(self, name) for name in _FIELDS})


class Record:
    """The record of one episode: append while it runs, seal once at submission, verify when scoring."""

    def __init__(self) -> None:
        self._entries: list[Entry] = []

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(self._entries)

    @property
    def final_hash(self) -> str:
        """The hash of the last entry (the seal's once sealed), or :data:`GENESIS` when empty."""
        return self._entries[-1].hash if self._entries else GENESIS

    @property
    def sealed(self) -> bool:
        return bool(self._entries) and self._entries[-1].kind == SEAL

    @property
    def submission(self) -> dict[str, Any]:
        """The submission the seal holds."""
        if not self.sealed:
            raise RecordError("the record is not sealed")
        submission: dict[str, Any] = self._entries[-1].data["submission"]
        return submission

    def append(self, kind: str, data: Mapping[str, Any]) -> Entry:
        """Append an entry; its data is stored as its canonical JSON reads back (a copy)."""
        if kind == SEAL:
            raise RecordError("only Record.seal writes a seal entry")
        return self._append(kind, data)

    def seal(self, submission: Mapping[str, Any]) -> str:
        """Seal the record with ``submission``; returns the final hash to keep beside the result."""
        self._append(SEAL, {"submission": submission, "sealed_hash": self.final_hash})
        return self.final_hash

    def events(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """``(kind, data)`` of every entry before the seal, in order."""
        return ((entry.kind, entry.data) for entry in self._entries if entry.kind != SEAL)

    def verify(self, expected_hash: str | None = None, *, sealed: bool = True) -> None:
        """Raise :class:`RecordError` naming the first entry that is not what the chain says, if the record
        is not sealed (when ``sealed``), or if its final hash differs from ``expected_hash``."""
        prev = GENESIS
        for position, entry in enumerate(self._entries):
            where = f"record entry {position} ({entry.kind})"
            if entry.index != position:
                raise RecordError(
                    f"{where} claims to be entry {entry.index}: entries were removed, inserted or reordered"
                )
            if entry.prev != prev:
                raise RecordError(f"{where} does not chain to entry {position - 1}: an entry was changed")
            if entry.hash != entry_hash(entry.index, entry.kind, entry.data, entry.prev):
                raise RecordError(f"{where} was changed: its hash does not match its content")
            if entry.kind == SEAL and position != len(self._entries) - 1:
                raise RecordError(f"{where} seals the record, yet entries follow it")
            prev = entry.hash
        if sealed and not self.sealed:
            raise RecordError("the record is not sealed (its seal or its last entries are missing)")
        if expected_hash is not None and self.final_hash != expected_hash:
            raise RecordError(
                f"the record's final hash {self.final_hash} is not the one kept at sealing, {expected_hash}"
            )

    def text(self) -> str:
        """The record as JSON Lines."""
        return "".join(entry.line() + "\n" for entry in self._entries)

    def save(self, path: Path) -> None:
        """Write the record to ``path`` as JSON Lines (replacing it whole)."""
        partial = path.with_name(path.name + ".partial")
        partial.write_text(self.text(), encoding="ascii")
        os.replace(partial, path)

    @classmethod
    def load(cls, path: Path) -> Record:
        """The record in ``path``, as written; call :meth:`verify` before trusting it."""
        record = cls()
        for number, line in enumerate(path.read_bytes().split(b"\n"), start=1):
            if not line.strip():
                continue
            try:
                value = json.loads(line.decode("utf-8"))
                if not isinstance(value, dict) or sorted(value) != sorted(_FIELDS):
                    raise ValueError(f"an entry has exactly the fields {', '.join(_FIELDS)}")
                if [type(value[name]) for name in _FIELDS] != [int, str, dict, str, str]:
                    raise ValueError("an entry's index is an integer, its data an object, the others strings")
                record._entries.append(Entry(**value))
            except ValueError as err:  # covers UnicodeDecodeError and JSON errors
                raise RecordError(f"{path}:{number}: not a record entry: {err}") from err
        return record

    def _append(self, kind: str, data: Mapping[str, Any]) -> Entry:
        if self.sealed:
            raise RecordError("the record is sealed: nothing can be appended after the submission")
        stored = json.loads(canonical_json(data))
        index, prev = len(self._entries), self.final_hash
        entry = Entry(index, kind, stored, prev, entry_hash(index, kind, stored, prev))
        self._entries.append(entry)
        return entry
