"""The self-contained static ``report.html``: inline CSS, inline SVG plots, tables and an episode index."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from urllib.parse import quote

from actloop.report.analysis import Analysis
from actloop.report.charts import (
    DIAGNOSTICS_TABLE,
    BarChart,
    bar_chart,
    criteria_chart,
    macro_bar_chart,
    task_heatmap,
)
from actloop.report.records import EpisodeKey, Records
from actloop.report.tables import Table, step_episodes

NUMERIC = re.compile(r"^([-+−]?\d|–$|n/a|NA$)")
CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1400px; padding: 0 16px;
       color: #1b1f24; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0 4px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: left; white-space: nowrap; }
td.num { text-align: right; }
thead th { background: #f3f5f8; position: sticky; top: 0; }
tr.section th { background: #eef2f7; text-align: left; }
tr.total td { font-weight: 600; background: #fafbfc; }
.note { color: #57606a; font-size: 12px; margin: 2px 0; }
.warn { color: #8a4b00; }
.scroll { overflow-x: auto; }
table.episodes td { text-align: left; }
tr.ok td.outcome { color: #116329; } tr.fail td.outcome { color: #a40e26; }
tr.infra td, tr.error td { background: #fff5e6; }
td.err { max-width: 360px; overflow: hidden; text-overflow: ellipsis; }
"""


def render_page(
    records: Records,
    analysis: Analysis,
    tables: list[Table],
    out_dir: Path,
    viewers: dict[EpisodeKey, Path],
    charts: list[BarChart] | None = None,
) -> str:
    """The complete HTML document; ``viewers`` maps episode keys to their written ``viewer.html``; the
    suites' ``charts`` follow the tables they name. The shared step-episode charts and the episode index
    cover the episodes of :func:`~actloop.report.tables.step_episodes` and appear only when there are any."""
    step = analysis.part(step_episodes(analysis))
    body = [
        "<h1>actloop report</h1>",
        f'<p class="note">Generated {escape(datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))} from '
        + ", ".join(f"<code>{escape(str(s))}</code>" for s in records.sources)
        + "</p>",
        _data_notes(records, analysis),
    ]
    if step.episodes:
        body += ["<h2>Macro-average success</h2>", '<div class="scroll">', macro_bar_chart(step), "</div>"]
    for table in tables:
        body.append(_table_html(table, out_dir, viewers))
        if table.key == "table3_summary":
            body += [
                "<h2>Per-task success heatmap</h2>",
                '<div class="scroll">',
                task_heatmap(step),
                "</div>",
            ]
        elif table.key == DIAGNOSTICS_TABLE and table.records:
            body += [
                "<h2>Trajectory diagnostics by criterion</h2>",
                '<div class="scroll">',
                criteria_chart(table),
                "</div>",
            ]
        for chart in charts or []:
            if chart.after == table.key:
                body += [
                    f"<h2>{escape(chart.title)}</h2>",
                    '<div class="scroll">',
                    bar_chart(chart),
                    "</div>",
                ]
    if step.episodes:
        body.append(_episode_index(step, out_dir, viewers))
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>actloop report</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _data_notes(records: Records, analysis: Analysis) -> str:
    total = len(records.episodes)
    infra = sum(e.status == "infra_error" for e in records.episodes)
    errors = sum(e.status == "error" for e in records.episodes)
    items = [
        f"{total} episodes in {len(analysis.conditions)} condition(s); {infra} infra error(s) and "
        f"{errors} harness error(s), all kept in the success denominators."
    ]
    if records.superseded:
        items.append(f"{records.superseded} duplicate row(s) superseded by a later or completed row.")
    items += [f'<span class="warn">{escape(line)}</span>' for line in records.unreadable]
    items += [f'<span class="warn">{escape(note)}</span>' for note in analysis.notes]
    return "<ul>" + "".join(f"<li>{item}</li>" for item in items) + "</ul>"


def _table_html(table: Table, out_dir: Path, viewers: dict[EpisodeKey, Path]) -> str:
    """The table; one whose rows name episodes gets a last column linking each to its viewer."""
    linked = any(row.episode is not None for row in table.rows)
    columns = [*table.columns, "Trajectory"] if linked else table.columns
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    rows = []
    for row in table.rows:
        if row.kind == "section":
            rows.append(
                f'<tr class="section"><th colspan="{len(table.columns)}">{escape(row.cells[0])}</th></tr>'
            )
        else:
            cls = ' class="total"' if row.kind == "total" else ""
            link = _viewer_link(viewers.get(row.episode), out_dir) if row.episode is not None else ""
            cells = "".join(_td(c) for c in row.cells) + (f"<td>{link}</td>" if linked else "")
            rows.append(f"<tr{cls}>{cells}</tr>")
    notes = "".join(f'<p class="note">{escape(n)}</p>' for n in table.notes)
    return (
        f'<h2 id="{escape(table.key)}">{escape(table.title)}</h2>\n<div class="scroll"><table>'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>{notes}"
    )


def _td(cell: str) -> str:
    """A table cell, right-aligned when it holds a number."""
    cls = ' class="num"' if NUMERIC.match(cell) else ""
    return f"<td{cls}>{escape(cell)}</td>"


def _episode_index(analysis: Analysis, out_dir: Path, viewers: dict[EpisodeKey, Path]) -> str:
    order = {c: i for i, c in enumerate(analysis.conditions)}
    episodes = sorted(analysis.episodes, key=lambda e: (order[e.condition], e.task, e.seed, e.run))
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "Condition",
            "Task",
            "Seed",
            "Run",
            "Outcome",
            "Steps",
            "Stop reason",
            "Checkpoints",
            "Time (s)",
        )
    )
    rows = []
    for e in episodes:
        names = analysis.checkpoint_names.get(e.task, [])
        reached = sum(e.checkpoints.get(n, False) for n in names)
        cls = {"infra_error": "infra", "error": "error"}.get(e.status, "ok" if e.success else "fail")
        link = _viewer_link(viewers.get(e.key), out_dir)
        steps = f"{e.steps if e.steps is not None else '?'}/{e.budget if e.budget is not None else '?'}"
        duration = "" if e.duration_s is None else f"{e.duration_s:.1f}"
        error = (
            f'<td class="err" title="{escape(e.error)}">{escape(e.error)}</td>' if e.error else "<td></td>"
        )
        cells = [
            escape(e.condition.label),
            escape(e.task),
            str(e.seed),
            str(e.run),
            "success" if e.success else "failure",
            steps,
            escape(e.stop_reason),
            f"{reached}/{len(names)}",
            duration,
        ]
        tds = "".join(
            f'<td class="outcome">{c}</td>' if i == 4 else f"<td>{c}</td>" for i, c in enumerate(cells)
        )
        rows.append(f'<tr class="{cls}">{tds}{error}<td>{link}</td></tr>')
    return (
        f'<h2 id="episodes">Episodes ({len(episodes)})</h2>\n<div class="scroll"><table class="episodes">'
        f"<thead><tr>{head}<th>Error</th><th>Trajectory</th></tr></thead><tbody>{''.join(rows)}</tbody>"
        "</table></div>"
    )


def _viewer_link(viewer: Path | None, out_dir: Path) -> str:
    """A link to an episode's viewer, or a note that it has no record."""
    if viewer is None:
        return '<span class="note">no record</span>'
    return f'<a class="viewer" href="{_href(viewer, out_dir)}">view</a>'


def _href(target: Path, out_dir: Path) -> str:
    """A relative, percent-encoded link from ``out_dir`` to ``target``."""
    relative = Path(os.path.relpath(target, out_dir)).as_posix()
    return escape(quote(relative, safe="/"))
