"""Markdown and CSV renderings of report tables."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from actloop.core.text import write_text
from actloop.report.tables import Table


def markdown_table(table: Table) -> str:
    """The table as a titled GitHub-flavoured Markdown table with its notes below."""
    lines = [f"### {table.title}", "", _md_row(table.columns), _md_row(["---"] * len(table.columns))]
    for row in table.rows:
        cells = [_md_escape(c) for c in row.cells]
        if row.kind == "section":
            cells = [f"**{cells[0]}**", *cells[1:]]
        elif row.kind == "total":
            cells = [f"*{cells[0]}*", *cells[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"_{_md_escape(note)}_" for note in table.notes]
    return "\n".join(lines).rstrip() + "\n"


def write_csv(table: Table, directory: Path) -> Path:
    """Write the table's tidy records to ``directory/<key>.csv`` (a header only when it has none)."""
    path = directory / f"{table.key}.csv"
    fields: list[str] = []
    for record in table.records:
        fields += [k for k in record if k not in fields]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=fields or ["empty"])
    writer.writeheader()
    writer.writerows(table.records)
    return write_text(path, text.getvalue())


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(_md_escape(c) for c in cells) + " |"


def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
