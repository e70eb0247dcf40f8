"""The episode record: hash chain, seal, tamper detection and JSON Lines round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from actloop.errors import RecordError
from actloop.suites.lab.record import GENESIS, Record, canonical_json

SUBMISSION = {
    "values": {"k": 12.5},
    "citations": [{"observation_id": "ep1-3", "instrument": "ruler", "value": 52.3}],
}


def sealed_record() -> tuple[Record, str]:
    record = Record()
    record.append("display", {"instrument": "ruler", "time_s": 0.1, "shown": 52.3})
    record.append("observation", {"observation_id": "ep1-3", "time_s": 0.25, "views": []})
    record.append("robot", {"joints": [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785], "gripper": "open"})
    record.append("call", {"name": "move_joints", "steps": 240})
    record.append("part_state", {"part": "tray", "position": [0.4, 0.1, 0.82]})
    return record, record.seal(SUBMISSION)


def test_a_sealed_record_verifies_and_round_trips(tmp_path: Path) -> None:
    record, final = sealed_record()
    record.verify(final)
    assert record.sealed and record.submission == SUBMISSION
    assert record.entries[0].prev == GENESIS
    assert record.entries[-1].data["sealed_hash"] == record.entries[-2].hash
    path = tmp_path / "record.jsonl"
    record.save(path)
    assert len(path.read_text().splitlines()) == 6
    loaded = Record.load(path)
    loaded.verify(final)
    assert loaded.entries == record.entries
    assert [kind for kind, _ in loaded.events()] == ["display", "observation", "robot", "call", "part_state"]


def test_appending_after_the_seal_raises() -> None:
    record, _ = sealed_record()
    with pytest.raises(RecordError, match="sealed"):
        record.append("display", {"instrument": "ruler", "time_s": 9.0, "shown": 52.4})
    with pytest.raises(RecordError, match="sealed"):
        record.seal(SUBMISSION)
    with pytest.raises(RecordError, match=r"only Record\.seal"):
        Record().append("seal", {})


def test_data_must_be_canonical_json() -> None:
    record = Record()
    for bad in ({"x": float("nan")}, {"x": float("inf")}, {"x": object()}, {"x": {1: 2, "a": 3}}):
        with pytest.raises(RecordError):
            record.append("display", bad)
    assert canonical_json({"b": 0.1, "a": [1, 2.5e-300]}) == '{"a":[1,2.5e-300],"b":0.1}'
    entry = record.append("display", {"t": (1, 2), "x": 1 / 3})
    assert entry.data == {"t": [1, 2], "x": 1 / 3}  # stored as it reads back from disk


def lines_of(tmp_path: Path) -> tuple[Path, list[bytes], str]:
    record, final = sealed_record()
    path = tmp_path / "record.jsonl"
    record.save(path)
    return path, path.read_bytes().splitlines(keepends=True), final


def reload(path: Path, lines: list[bytes]) -> Record:
    path.write_bytes(b"".join(lines))
    return Record.load(path)


def test_one_changed_byte_is_detected_and_names_the_entry(tmp_path: Path) -> None:
    path, lines, final = lines_of(tmp_path)
    lines[2] = lines[2].replace(b"-0.785", b"-0.786", 1)
    with pytest.raises(RecordError, match=r"record entry 2 \(robot\) was changed"):
        reload(path, lines).verify(final)
    path, lines, final = lines_of(tmp_path)
    lines[5] = lines[5].replace(b"12.5", b"12.6")  # the submission in the seal
    with pytest.raises(RecordError, match=r"record entry 5 \(seal\) was changed"):
        reload(path, lines).verify(final)


def test_every_single_byte_change_is_detected(tmp_path: Path) -> None:
    path, lines, final = lines_of(tmp_path)
    for position in range(len(lines[1]) - 1):  # keep the newline
        changed = list(lines)
        line = bytearray(lines[1])
        line[position] = ord("7") if line[position] != ord("7") else ord("8")
        changed[1] = bytes(line)
        with pytest.raises(RecordError, match=r"record entry 1 |record\.jsonl:2: "):
            reload(path, changed).verify(final)


def test_removed_reordered_and_inserted_entries_are_named(tmp_path: Path) -> None:
    path, lines, final = lines_of(tmp_path)
    with pytest.raises(RecordError, match=r"record entry 2 \(call\) claims to be entry 3"):
        reload(path, lines[:2] + lines[3:]).verify(final)
    with pytest.raises(RecordError, match=r"record entry 1 \(robot\) claims to be entry 2"):
        reload(path, [lines[0], lines[2], lines[1], *lines[3:]]).verify(final)
    with pytest.raises(RecordError, match=r"record entry 3 \(observation\) claims to be entry 1"):
        reload(path, [*lines[:3], lines[1], *lines[3:]]).verify(final)
    with pytest.raises(RecordError, match="not sealed"):
        reload(path, lines[:-1]).verify()


def test_a_rewritten_chain_is_caught_by_the_kept_final_hash() -> None:
    record, final = sealed_record()
    forged = Record()
    for entry in record.entries[:-1]:
        data = dict(entry.data)
        if entry.kind == "display":
            data["shown"] = 52.4
        forged.append(entry.kind, data)
    forged.seal(SUBMISSION)
    forged.verify()  # a consistent chain ...
    with pytest.raises(RecordError, match="not the one kept at sealing"):
        forged.verify(final)  # ... but not the one sealed


def test_unreadable_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "record.jsonl"
    path.write_text('{"index": 0}\n')
    with pytest.raises(RecordError, match=r"record\.jsonl:1: not a record entry"):
        Record.load(path)
    path.write_text("{oops\n")
    with pytest.raises(RecordError, match=r"record\.jsonl:1"):
        Record.load(path)
    assert json.loads(canonical_json({"ok": True})) == {"ok": True}
