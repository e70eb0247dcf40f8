"""A query-friendly table of every episode: the result rows of output directories as one Parquet file.

``results.jsonl`` stays the source of truth; the table is derived from it (and rewritten) after each
run and report, so it can be queried with DuckDB, pandas or any Parquet reader, e.g.
``duckdb -c "SELECT model, task, avg(success::INT) FROM 'runs/x/episodes.parquet' GROUP BY ALL"``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from actloop.records.jsonl import RESULTS_FILE, read_lines

EPISODES_TABLE = "episodes.parquet"


def write_episode_table(out_dirs: list[Path], path: Path) -> int:
    """Write the rows of every ``results.jsonl`` under ``out_dirs`` to ``path``; returns the row count.

    Each row gains ``source_dir``, the output directory it came from. Lines a killed writer left
    incomplete are skipped, as everywhere else.
    """
    import duckdb

    rows = [{**row, "source_dir": str(d)} for d in out_dirs for row in read_lines(d / RESULTS_FILE)]
    if not rows:
        raise FileNotFoundError(f"no result rows in {', '.join(map(str, out_dirs))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    target = str(path).replace("'", "''")  # COPY takes its target as a literal, not a parameter
    with tempfile.TemporaryDirectory() as scratch, duckdb.connect() as db:
        lines = Path(scratch) / "rows.jsonl"
        lines.write_text("".join(json.dumps(row) + "\n" for row in rows))
        db.execute(
            f"COPY (SELECT * FROM read_json(?, format = 'newline_delimited')) TO '{target}' (FORMAT parquet)",
            [str(lines)],
        )
    return len(rows)
