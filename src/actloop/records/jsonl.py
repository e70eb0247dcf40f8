"""Append-only JSON Lines files that several processes may write at once, and reading them back."""

from __future__ import annotations

import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any

RESULTS_FILE = "results.jsonl"

_ESCAPED = re.compile("[\x85\u2028\u2029\ud800-\udfff]")
"""Characters ``json.dumps(ensure_ascii=False)`` leaves raw that UTF-8 cannot encode or that
``str.splitlines`` takes for line breaks."""


def json_text(obj: Any, indent: int | None = None) -> str:
    """``obj`` as JSON text that always encodes to valid UTF-8 (compact unless ``indent`` is given).

    Non-ASCII text is kept as is, except surrogate code points (a model reply may carry a lone one, which
    UTF-8 cannot encode) and the line breaks U+0085, U+2028 and U+2029: they are written as ``\\uXXXX``
    escapes, so a JSON Lines line stays one valid UTF-8 line, and a lone surrogate reads back unchanged.
    """
    separators = (",", ":") if indent is None else None
    text = json.dumps(obj, ensure_ascii=False, indent=indent, separators=separators)
    return _ESCAPED.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def json_line(obj: Any) -> bytes:
    """One compact JSON object followed by a newline, UTF-8 encoded (see :func:`json_text`)."""
    return (json_text(obj) + "\n").encode()


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` completely to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_line(path: Path, obj: Any) -> None:
    """Append ``obj`` as one line to ``path`` under an exclusive lock (safe across processes).

    If a killed writer left a torn last line, it is terminated first so the new line stays whole.
    """
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
        write_all(fd, (b"\n" if torn else b"") + json_line(obj))
    finally:
        os.close(fd)  # closing releases the lock


def read_json_lines(path: Path) -> tuple[list[tuple[int, Any]], list[str]]:
    """``(line number, decoded value)`` for every readable non-blank line of ``path``, and
    ``path:line: why`` for every line that is not UTF-8 JSON (see :func:`line_problem`).

    Only ``\\n`` ends a line: other Unicode line breaks may appear unescaped inside JSON strings.
    """
    values: list[tuple[int, Any]] = []
    unreadable: list[str] = []
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            values.append((number, json.loads(line.decode("utf-8"))))
        except (ValueError, RecursionError) as err:  # ValueError covers UnicodeDecodeError and JSON errors
            unreadable.append(line_problem(path, number, err, torn=number == len(lines)))
    return values, unreadable


def line_problem(path: Path, number: int, err: Exception, torn: bool = False) -> str:
    """``path:number: why`` for a line that could not be read; ``torn``: it is the last line and has no
    line end, so its writer stopped mid-line (a crash or a kill) and the file is incomplete."""
    if isinstance(err, json.JSONDecodeError):
        why = f"not JSON ({err.msg}: column {err.colno})"
    elif isinstance(err, RecursionError):
        why = "not JSON this reader accepts (nested too deeply)"
    else:
        why = f"not text ({err})"
    cut = "cut off without a line end, so the file is incomplete: " if torn else ""
    return f"{path}:{number}: unreadable line, {cut}{why}"


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file (none if it does not exist), skipping unreadable lines."""
    if not path.exists():
        return []
    return [value for _, value in read_json_lines(path)[0] if isinstance(value, dict)]
