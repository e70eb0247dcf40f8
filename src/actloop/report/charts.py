"""Inline SVG plots: macro-average bars with ±SD error bars, a per-task success heatmap, grouped bars of
the trajectory-diagnostics criteria, and a suite's grouped bar charts (:class:`BarChart`)."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from actloop.report.analysis import SUBSETS, Analysis
from actloop.report.tables import SUBSET_NAMES, Table, mean_sd

BAR_COLORS = {"single": "#4c78a8", "dual": "#f58518", "all": "#54a24b"}
FONT = 'font-family="system-ui, sans-serif"'
SERIES_COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")
DIAGNOSTICS_TABLE = "table11_diagnostics"
"""The key of the table whose records :func:`criteria_chart` draws (and after which the page places it)."""


def macro_bar_chart(a: Analysis) -> str:
    """Grouped bars (single-arm, dual-arm, all) per condition on a 0–100 % axis with ±SD error bars."""
    bar, gap, left, top, plot_h, label_h = 22, 34, 150, 34, 240, 130
    group_w = bar * len(SUBSETS) + gap
    width = max(left + max(1, len(a.conditions)) * group_w + 20, left + 110 * len(SUBSETS))
    height = top + plot_h + label_h

    def y(value: float) -> float:
        """A fraction of the axis as a pixel row."""
        return top + plot_h * (1 - value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" {FONT} font-size="11">',
        "<title>Task-family macro-average success per condition, mean ± sample SD across runs</title>",
    ]
    for tick in range(0, 101, 20):
        ty = y(tick / 100)
        parts.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{width - 10}" y2="{ty:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end">{tick}</text>')
    ax, ay = left - 40, top + plot_h / 2
    parts.append(
        f'<text x="{ax}" y="{ay}" transform="rotate(-90 {ax} {ay})" text-anchor="middle">success (%)</text>'
    )
    for i, subset in enumerate(SUBSETS):
        lx = left + i * 110
        parts.append(f'<rect x="{lx}" y="8" width="12" height="12" fill="{BAR_COLORS[subset]}"/>')
        parts.append(f'<text x="{lx + 16}" y="18">{SUBSET_NAMES[subset]}</text>')
    for g, cond in enumerate(a.conditions):
        gx = left + g * group_w + gap / 2
        for i, subset in enumerate(SUBSETS):
            stat = a.macro(cond, subset)
            bx = gx + i * bar
            if stat is None:
                parts.append(
                    f'<text x="{bx + bar / 2}" y="{y(0) - 4}" text-anchor="middle" fill="#888">n/a</text>'
                )
                continue
            tip = escape(f"{cond.label} · {SUBSET_NAMES[subset]}: {mean_sd(stat)} % ({stat.n} runs)")
            parts.append(
                f'<rect class="bar" x="{bx + 1}" y="{y(stat.mean):.1f}" width="{bar - 2}" '
                f'height="{plot_h * stat.mean:.1f}" fill="{BAR_COLORS[subset]}"><title>{tip}</title></rect>'
            )
            if stat.sd is not None:
                lo, hi = max(0.0, stat.mean - stat.sd), min(1.0, stat.mean + stat.sd)
                cx = bx + bar / 2
                parts.append(
                    f'<path class="errorbar" d="M{cx} {y(hi):.1f}V{y(lo):.1f}M{cx - 4} {y(hi):.1f}h8'
                    f'M{cx - 4} {y(lo):.1f}h8" stroke="#222" stroke-width="1.2" fill="none"/>'
                )
        label_x, label_y = gx + bar * len(SUBSETS) / 2, top + plot_h + 12
        parts.append(
            f'<text x="{label_x}" y="{label_y}" text-anchor="end" '
            f'transform="rotate(-30 {label_x} {label_y})">'
            f"{escape(_short(cond.label))}<title>{escape(cond.label)}</title></text>"
        )
    parts.append(f'<line x1="{left}" y1="{y(0)}" x2="{width - 10}" y2="{y(0)}" stroke="#444"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def task_heatmap(a: Analysis) -> str:
    """Tasks × conditions, each cell shaded by its mean success across runs and labelled with it."""
    cell_w, cell_h, left, top = 86, 24, 230, 130
    width = left + max(1, len(a.conditions)) * cell_w + 180
    height = top + max(1, len(a.base_tasks)) * cell_h + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" role="img" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" {FONT} font-size="11">',
        "<title>Per-task success (%), mean across runs</title>",
    ]
    for c, cond in enumerate(a.conditions):
        x = left + c * cell_w + cell_w / 2
        parts.append(
            f'<text x="{x}" y="{top - 8}" transform="rotate(-35 {x} {top - 8})">'
            f"{escape(_short(cond.label))}<title>{escape(cond.label)}</title></text>"
        )
    for r, task in enumerate(a.base_tasks):
        y = top + r * cell_h
        parts.append(f'<text x="{left - 8}" y="{y + cell_h / 2 + 4}" text-anchor="end">{escape(task)}</text>')
        for c, cond in enumerate(a.conditions):
            x = left + c * cell_w
            stat = a.task_stat(cond, task)
            fill, ink, label = (
                ("#eee", "#888", "–") if stat is None else (*_shade(stat.mean), f"{100 * stat.mean:.1f}")
            )
            tip = escape(f"{task} · {cond.label}: {mean_sd(stat)} %")
            parts.append(
                f'<rect class="cell" x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{fill}"><title>{tip}</title></rect>'
            )
            parts.append(
                f'<text x="{x + cell_w / 2 - 1}" y="{y + cell_h / 2 + 3}" text-anchor="middle" fill="{ink}">'
                f"{label}</text>"
            )
    parts.append("</svg>")
    return "\n".join(parts)


def criteria_chart(table: Table) -> str:
    """Grouped bars: per criterion, one bar per condition on a 0–100 % axis, criteria grouped by module;
    a criterion with no applicable episode is labelled NA.

    Draws ``table.records`` rows holding ``condition``, ``module``, ``criterion``, ``rate_pct`` (blank: NA),
    ``positive`` and ``applicable``, in their order.
    """
    conditions = list(dict.fromkeys(r["condition"] for r in table.records))
    criteria = list(dict.fromkeys((r["module"], r["criterion"]) for r in table.records))
    cells = {(r["condition"], r["criterion"]): r for r in table.records}
    bar = max(6, min(20, 140 // max(1, len(conditions))))
    gap, module_gap, left, top, plot_h = 14, 18, 60, 30 + 16 * len(conditions), 220
    group_w = bar * len(conditions) + gap
    starts, x = [], float(left)
    for g, (module, _) in enumerate(criteria):
        x += module_gap if g and module != criteria[g - 1][0] else 0
        starts.append(x)
        x += group_w
    width, height = x + 20, top + plot_h + 48

    def y(value: float) -> float:
        """A percentage as a pixel row."""
        return top + plot_h * (1 - value / 100)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart diagnostics" role="img" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} font-size="11">',
        "<title>Trajectory diagnostics per criterion and condition (% of applicable episodes)</title>",
    ]
    for tick in range(0, 101, 20):
        ty = y(tick)
        parts.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{width - 10}" y2="{ty:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end">{tick}</text>')
    ax, ay = left - 38, top + plot_h / 2
    parts.append(f'<text x="{ax}" y="{ay}" transform="rotate(-90 {ax} {ay})" text-anchor="middle">%</text>')
    for i, cond in enumerate(conditions):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        parts.append(f'<rect x="{left}" y="{8 + 16 * i}" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{left + 16}" y="{18 + 16 * i}">{escape(_short(cond, 80))}</text>')
    for (_, code), start in zip(criteria, starts, strict=True):
        for i, cond in enumerate(conditions):
            record = cells.get((cond, code))
            bx = start + gap / 2 + i * bar
            if record is None or record["rate_pct"] == "":
                parts.append(
                    f'<text class="na" x="{bx + bar / 2}" y="{y(0) - 3}" text-anchor="middle" fill="#888" '
                    f'font-size="8">NA<title>{escape(f"{cond} · {code}: NA (no applicable episode)")}</title>'
                    "</text>"
                )
                continue
            rate = float(record["rate_pct"])
            tip = escape(f"{cond} · {code}: {rate:.1f} % ({record['positive']}/{record['applicable']})")
            parts.append(
                f'<rect class="bar" x="{bx + 0.5}" y="{y(rate):.1f}" width="{bar - 1}" '
                f'height="{plot_h * rate / 100:.1f}" fill="{SERIES_COLORS[i % len(SERIES_COLORS)]}">'
                f"<title>{tip}</title></rect>"
            )
        parts.append(
            f'<text x="{start + group_w / 2}" y="{y(0) + 15}" text-anchor="middle">{escape(code)}</text>'
        )
    for module in dict.fromkeys(m for m, _ in criteria):
        spans = [start for (m, _), start in zip(criteria, starts, strict=True) if m == module]
        mid = (spans[0] + spans[-1] + group_w) / 2
        parts.append(
            f'<text x="{mid}" y="{y(0) + 33}" text-anchor="middle" font-weight="600">{escape(module)}</text>'
        )
    parts.append(f'<line x1="{left}" y1="{y(0)}" x2="{width - 10}" y2="{y(0)}" stroke="#444"/>')
    parts.append("</svg>")
    return "\n".join(parts)


@dataclass(frozen=True)
class BarChart:
    """Grouped bars a suite puts on the report page: per category one bar per series, on a 0–``top`` axis.

    ``categories`` are ``(group, label)`` pairs in order (groups are labelled once under their categories);
    ``series`` are ``(name, one value per category)`` with None where there is nothing to show (drawn NA).
    """

    key: str
    title: str
    after: str
    """The key of the table the chart follows on the page."""
    categories: list[tuple[str, str]]
    series: list[tuple[str, list[float | None]]]
    axis: str = "%"
    top: float = 100.0


def bar_chart(chart: BarChart) -> str:
    """``chart`` as an inline SVG; each bar's tooltip names its series, category and value."""
    bar = max(6, min(20, 140 // max(1, len(chart.series))))
    gap, group_gap, left, plot_h, label_h = 14, 30, 120, 220, 120
    top = 30 + 16 * len(chart.series)
    group_w = max(bar * len(chart.series) + gap, 40)
    starts, x = [], float(left)
    for i, (group, _) in enumerate(chart.categories):
        x += group_gap if i and group != chart.categories[i - 1][0] else 0
        starts.append(x)
        x += group_w
    width, height = max(x + 20, left + 300), top + plot_h + label_h

    def y(value: float) -> float:
        return top + plot_h * (1 - min(value, chart.top) / chart.top)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart suite-chart" id="{escape(chart.key)}" '
        f'role="img" viewBox="0 0 {width} {height}" width="{width}" height="{height}" {FONT} font-size="11">',
        f"<title>{escape(chart.title)}</title>",
    ]
    for tick in range(0, 101, 20):
        ty = y(chart.top * tick / 100)
        parts.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{width - 10}" y2="{ty:.1f}" stroke="#ddd"/>')
        parts.append(
            f'<text x="{left - 6}" y="{ty + 4:.1f}" text-anchor="end">{chart.top * tick / 100:g}</text>'
        )
    ax, ay = left - 38, top + plot_h / 2
    parts.append(
        f'<text x="{ax}" y="{ay}" transform="rotate(-90 {ax} {ay})" text-anchor="middle">'
        f"{escape(chart.axis)}</text>"
    )
    for i, (name, _) in enumerate(chart.series):
        color = SERIES_COLORS[i % len(SERIES_COLORS)]
        parts.append(f'<rect x="{left}" y="{8 + 16 * i}" width="12" height="12" fill="{color}"/>')
        parts.append(f'<text x="{left + 16}" y="{18 + 16 * i}">{escape(_short(name, 80))}</text>')
    for c, ((group, label), start) in enumerate(zip(chart.categories, starts, strict=True)):
        for i, (name, values) in enumerate(chart.series):
            value, bx = values[c], start + gap / 2 + i * bar
            if value is None:
                parts.append(
                    f'<text class="na" x="{bx + bar / 2}" y="{y(0) - 3}" text-anchor="middle" fill="#888" '
                    f'font-size="8">NA<title>{escape(f"{name} · {label}: nothing to show")}</title></text>'
                )
                continue
            tip = escape(f"{name} · {group} {label}: {value:.1f} {chart.axis}")
            parts.append(
                f'<rect class="bar" x="{bx + 0.5}" y="{y(value):.1f}" width="{bar - 1}" '
                f'height="{y(0) - y(value):.1f}" fill="{SERIES_COLORS[i % len(SERIES_COLORS)]}">'
                f"<title>{tip}</title></rect>"
            )
        lx, ly = start + group_w / 2, y(0) + 12
        parts.append(
            f'<text x="{lx}" y="{ly}" text-anchor="end" transform="rotate(-35 {lx} {ly})">'
            f"{escape(_short(label, 22))}<title>{escape(label)}</title></text>"
        )
    for group in dict.fromkeys(g for g, _ in chart.categories):
        spans = [start for (g, _), start in zip(chart.categories, starts, strict=True) if g == group]
        mid = (spans[0] + spans[-1] + group_w) / 2
        parts.append(
            f'<text x="{mid}" y="{y(0) + label_h - 8}" text-anchor="middle" font-weight="600">'
            f"{escape(group)}</text>"
        )
    parts.append(f'<line x1="{left}" y1="{y(0)}" x2="{width - 10}" y2="{y(0)}" stroke="#444"/>')
    parts.append("</svg>")
    return "\n".join(parts)


def _shade(value: float) -> tuple[str, str]:
    """Fill colour from pale (0 %) to deep blue (100 %), and a text colour readable on it."""
    lo, hi = (240, 244, 250), (16, 60, 130)
    rgb = [round(a + (b - a) * min(1.0, max(0.0, value))) for a, b in zip(lo, hi, strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*rgb), "#fff" if value > 0.5 else "#111"


def _short(text: str, limit: int = 34) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
