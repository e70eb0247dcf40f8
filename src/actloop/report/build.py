"""Builds a report from output directories: Markdown, one CSV per table, HTML, and episode viewers."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from actloop.core.suite import suites
from actloop.core.text import write_text
from actloop.errors import ConfigError, RecordError
from actloop.records.recorder import EVENTS_FILE
from actloop.report.analysis import Analysis, analyse
from actloop.report.page import render_page
from actloop.report.records import EpisodeKey, Records, load_records
from actloop.report.tables import Table, all_tables, step_episodes, suite_parts
from actloop.report.tasks import TaskLookup, registry_lookup, resolve_tasks
from actloop.report.text import markdown_table, write_csv
from actloop.viewer import episode_data, write_viewer
from actloop.viewer.page import Panel

REPORT_DIR = "report"
MARKDOWN_FILE = "report.md"
HTML_FILE = "report.html"


@dataclass
class Report:
    """What :func:`build_report` computed and wrote."""

    out_dir: Path
    records: Records
    analysis: Analysis
    tables: list[Table]
    markdown: str
    files: list[Path]
    viewers: dict[EpisodeKey, Path]

    @property
    def summary_markdown(self) -> str:
        """The first table (table 3, the per-condition macro-average summary, when there are step
        episodes; else a suite's first) as Markdown, then every table a suite marked ``printed``."""
        printed = [self.tables[0], *(t for t in self.tables[1:] if t.printed)]
        return "\n\n".join(markdown_table(table) for table in printed)


def build_report(
    directories: list[Path],
    out_dir: Path | None = None,
    lookup: TaskLookup | None = None,
    viewers: bool = True,
) -> Report:
    """Load the directories' records and write the report into ``out_dir`` (default: first/report).

    ``lookup`` stands in for the suite registry's task metadata (tests); rows naming a task neither it
    nor the row's suite knows are left out. With ``viewers`` a ``viewer.html`` is (re)written into every
    episode's record directory.
    Raises RecordError for a directory without ``results.jsonl`` or when none holds rows.
    """
    if not directories:
        raise ConfigError("give at least one output directory")
    records = load_records([Path(d) for d in directories], lookup)
    if not records.episodes:
        raise RecordError(f"no readable episode rows in {', '.join(str(d) for d in directories)}")
    budgets: dict[str, int] = {}
    record_dirs: dict[str, list[Path]] = defaultdict(list)
    for episode in records.episodes:
        if episode.budget is not None:
            budgets[episode.task] = max(budgets.get(episode.task, 0), episode.budget)
        if episode.record_dir is not None:
            record_dirs[episode.task].append(episode.record_dir)
    tasks = resolve_tasks([e.task for e in records.episodes], lookup or registry_lookup, budgets, record_dirs)
    analysis = analyse(records.episodes, tasks)
    analysis.notes[:0] = records.notes
    tables = all_tables(analysis)
    charts = [
        chart for _, suite, part in suite_parts(analysis) if suite for chart in suite.report_charts(part)
    ]

    out = Path(out_dir) if out_dir is not None else Path(directories[0]) / REPORT_DIR
    out.mkdir(parents=True, exist_ok=True)
    written = write_viewers(records, analysis) if viewers else {}
    markdown = render_markdown(records, analysis, tables)
    files = [write_text(out / MARKDOWN_FILE, markdown)]
    files += [write_csv(table, out) for table in tables]
    files.append(
        write_text(out / HTML_FILE, render_page(records, analysis, tables, out.resolve(), written, charts))
    )
    return Report(out, records, analysis, tables, markdown, files, written)


def write_viewers(records: Records, analysis: Analysis) -> dict[EpisodeKey, Path]:
    """Write a viewer into every episode record that exists; a record that cannot be read gets a note."""
    written = {}
    panels: dict[tuple[str, Path], dict[str, list[Panel]]] = {}  # a suite's extra panels, per source
    for episode in records.episodes:
        if episode.record_dir is None or not (episode.record_dir / EVENTS_FILE).is_file():
            continue
        source = (episode.suite, episode.source)
        if source not in panels:
            suite = suites().get(episode.suite)
            panels[source] = suite.viewer_panels(episode.source) if suite else {}
        try:
            data = episode_data(episode.record_dir)
            extra = panels[source].get(episode.record_dir.name)
            written[episode.key] = write_viewer(episode.record_dir, extra, data)
        except (OSError, ValueError, RecordError) as err:
            analysis.notes.append(f"no viewer for {episode.record_dir}: {err}")
            continue
        analysis.notes += [f"left out of a viewer: {line}" for line in data["unreadable_lines"]]
    return written


def render_markdown(records: Records, analysis: Analysis, tables: list[Table]) -> str:
    """The whole report as Markdown: data notes, then every table."""
    infra = sum(e.status == "infra_error" for e in records.episodes)
    errors = sum(e.status == "error" for e in records.episodes)
    lines = ["# actloop report", ""]
    lines += [f"- source: `{source}`" for source in records.sources]
    tasks = (
        f"{len(analysis.base_tasks)} base task(s), {len(analysis.variants)} held-out variant(s)"
        if step_episodes(analysis)
        else f"{len({e.task for e in records.episodes})} task(s)"
    )
    lines.append(f"- {len(records.episodes)} episodes, {len(analysis.conditions)} condition(s), {tasks}")
    lines.append(f"- {infra} infra error(s), {errors} harness error(s): kept in every success denominator")
    if records.superseded:
        lines.append(f"- {records.superseded} duplicate row(s) superseded by a later or completed row")
    lines += [f"- unreadable row: {line}" for line in records.unreadable]
    lines += [f"- note: {note}" for note in analysis.notes]
    lines.append("")
    for table in tables:
        lines += [markdown_table(table), ""]
    return "\n".join(lines).rstrip() + "\n"
