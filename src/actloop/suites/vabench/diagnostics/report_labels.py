"""The diagnostic labels of a report's episodes: every run directory's annotation and judge records, read
once, aggregated under each label rule and keyed by episode so the report's tables can pool any set of
episodes (a condition, a subset of tasks) across run directories."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from actloop.report.analysis import Analysis
from actloop.report.records import Episode
from actloop.suites.vabench.diagnostics.aggregate import (
    RULES,
    EpisodeLabels,
    Rule,
    label_values,
    rater_values,
)
from actloop.suites.vabench.diagnostics.records import DIAGNOSTICS_DIR, RATER_KINDS, RaterKind, read_judgments


def episode_key(episode: Episode) -> str:
    """The key of an episode's labels: its run directory and record directory name (an episode without a
    record gets a key no label has)."""
    if episode.record_dir is None:
        return f"{episode.source}#{episode.task}#{episode.seed}#{episode.run}"
    return _key(episode.source, episode.record_dir.name)


@dataclass
class ReportLabels:
    """Labels of each rater kind under each rule, keyed by :func:`episode_key`."""

    labels: dict[tuple[RaterKind, Rule], dict[str, EpisodeLabels]] = field(default_factory=dict)
    raters: dict[RaterKind, list[str]] = field(default_factory=dict)
    """Rater names of each kind, over every run directory."""
    problems: list[str] = field(default_factory=list)
    """What could not be read or was left out, and judged episodes the report does not hold."""

    def of(self, kind: RaterKind, rule: Rule = "majority") -> dict[str, EpisodeLabels]:
        return self.labels.get((kind, rule), {})

    def kinds(self) -> list[RaterKind]:
        """The rater kinds that labelled some episode, humans first."""
        return [kind for kind in RATER_KINDS if self.of(kind)]

    def kind_for(self, keys: Iterable[str]) -> RaterKind | None:
        """The labels a set of episodes is scored by: human when a human labelled any of them, else the
        judges' when a judge did, else None."""
        wanted = set(keys)
        return next((kind for kind in self.kinds() if wanted & self.of(kind).keys()), None)


def report_labels(a: Analysis) -> ReportLabels | None:
    """The labels of ``a``'s episodes from their run directories; None when no run directory has a
    diagnostics directory. Labels of episodes the report does not hold are kept out of every table only
    because no table asks for them; they are named in ``problems``."""
    sources = sorted({e.source for e in a.episodes})
    sources = [s for s in sources if (s / DIAGNOSTICS_DIR).is_dir()]
    if not sources:
        return None
    found = ReportLabels()
    names: dict[RaterKind, set[str]] = {kind: set() for kind in RATER_KINDS}
    known = {episode_key(e) for e in a.episodes}
    for source in sources:
        judgments = read_judgments(source)
        found.problems += judgments.problems
        for kind in RATER_KINDS:
            values = rater_values(judgments, kind)
            names[kind].update(values)
            for rule in RULES:
                labels = found.labels.setdefault((kind, rule), {})
                labels.update({_key(source, n): v for n, v in label_values(values, rule).items()})
        strangers = sorted({j.episode for j in judgments.judgments if _key(source, j.episode) not in known})
        if strangers:
            found.problems.append(
                f"{source}: judgments of {len(strangers)} episode(s) the report does not hold, left out: "
                + ", ".join(strangers[:5])
                + (" …" if len(strangers) > 5 else "")
            )
    found.raters = {kind: sorted(names[kind]) for kind in RATER_KINDS if names[kind]}
    return found


def _key(source: Path, name: str) -> str:
    return f"{source}/{name}"
