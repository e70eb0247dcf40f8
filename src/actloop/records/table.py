"""A query-friendly table of every episode: the result rows of output directories as one Parquet file.

``results.jsonl`` stays the source of truth; the table is derived from it (and rewritten) after each
run and report, so it can be queried with DuckDB, pandas or any Parquet reader, e.g.
``duckdb -c "SELECT model, task, avg(success::INT) FROM 'runs/x/episodes.parquet' GROUP BY ALL"``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from actloop.core.text import readable
from actloop.errors import RecordError
from actloop.records.results import deduplicate, read_results

EPISODES_TABLE = "episodes.parquet"


def write_episode_table(out_dirs: list[Path], path: Path) -> int:
    """Write one row per episode of the ``results.jsonl`` files under ``out_dirs`` to ``path``; returns
    the row count.

    Of several rows of one episode, the one the report counts is kept (see :mod:`actloop.records.results`);
    rows that cannot be read (see :func:`~actloop.records.results.read_results`) are left out, as in
    the report.
    Each row gains ``source_dir``, the output directory it came from. Parquet strings are UTF-8, so a lone
    surrogate (from a model's text) becomes U+FFFD.
    """
    import duckdb

    found = [(row, d) for d in out_dirs for row in read_results(d).rows]
    rows = [{**row.to_json(), "source_dir": str(d)} for row, d in deduplicate(found, lambda pair: pair[0])[0]]
    if not rows:
        raise RecordError(f"no result rows in {', '.join(map(str, out_dirs))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    target = str(path).replace("'", "''")  # COPY takes its target as a literal, not a parameter
    with tempfile.TemporaryDirectory() as scratch, duckdb.connect() as db:
        lines = Path(scratch) / "rows.jsonl"
        lines.write_text("".join(map(_utf8_json_line, rows)), encoding="utf-8")
        db.execute(
            f"COPY (SELECT * FROM read_json(?, format = 'newline_delimited')) TO '{target}' (FORMAT parquet)",
            [str(lines)],
        )
    return len(rows)


def _utf8_json_line(row: dict[str, Any]) -> str:
    """``row`` as one JSON line that DuckDB accepts (:func:`~actloop.core.text.readable`)."""
    return readable(json.dumps(row, ensure_ascii=False) + "\n")
