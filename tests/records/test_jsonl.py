"""JSON Lines: any text a model sends is written as valid UTF-8 JSON, and unreadable lines are skipped."""

from __future__ import annotations

import json
from pathlib import Path

from actloop.core.result import ResultRow
from actloop.core.text import readable, write_text
from actloop.records.jsonl import RESULTS_FILE, json_line, read_json_lines, read_lines
from actloop.records.results import read_results, write_result

ODD = "lone \ud800 and \udfff, line\u2028separator, next\x85line, paired \ud83d\ude00"
"""What a model reply may carry: lone surrogates, Unicode line breaks, a pair left as two code points."""
READABLE = "Würfel 立方体 😀 naïve"


def test_json_line_is_one_valid_utf8_line_that_keeps_normal_text_readable() -> None:
    line = json_line({"reason": ODD, "text": READABLE})
    text = line.decode("utf-8")  # strict: valid UTF-8
    assert text.splitlines() == [text[:-1]]  # one line, whatever splits it
    for escape in ("\\ud800", "\\udfff", "\\u2028", "\\u0085"):
        assert escape in text
    assert READABLE.encode() in line  # not escaped
    assert json.loads(text) == {"reason": ODD.replace("\ud83d\ude00", "😀"), "text": READABLE}


def test_results_with_any_text_round_trip(tmp_path: Path) -> None:
    rows = [
        ResultRow("vabench", "t", seed, 1, "m", "active", error=text)
        for seed, text in enumerate(("lone \ud800, line\u2028separator", READABLE))
    ]
    for row in rows:
        write_result(tmp_path, row)
    (tmp_path / RESULTS_FILE).read_bytes().decode("utf-8")
    assert read_results(tmp_path).rows == rows


def test_undecodable_and_torn_lines_are_reported_and_the_rest_kept(tmp_path: Path) -> None:
    path = tmp_path / RESULTS_FILE
    raw_separator = '{"a": "line\u2028separator"}\n'.encode()  # as written before it was escaped
    path.write_bytes(raw_separator + b'{"b": "\xff"}\n\n[2]\n{"c": 3}\n{"d": ')
    values, unreadable = read_json_lines(path)
    assert values == [(1, {"a": "line\u2028separator"}), (4, [2]), (5, {"c": 3})]
    assert len(unreadable) == 2
    assert unreadable[0].startswith(f"{path}:2: unreadable line, not text (") and "utf-8" in unreadable[0]
    assert unreadable[1] == (
        f"{path}:6: unreadable line, cut off without a line end, so the file is incomplete: "
        "not JSON (Expecting value: column 7)"
    )
    assert read_lines(path) == [{"a": "line\u2028separator"}, {"c": 3}]
    assert read_lines(tmp_path / "missing.jsonl") == []


def test_rendered_text_shows_a_lone_surrogate_as_the_replacement_character(tmp_path: Path) -> None:
    assert readable(ODD) == ODD.replace("\ud800", "\ufffd").replace("\udfff", "\ufffd").replace(
        "\ud83d\ude00", "😀"
    )
    assert readable(READABLE) is READABLE
    path = write_text(tmp_path / "page.html", ODD)
    assert path.read_bytes().decode("utf-8") == readable(ODD)
