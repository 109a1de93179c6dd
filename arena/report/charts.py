"""Ratings over time as inline SVG, drawn here rather than in the browser, so that a report
opens anywhere without a script or a network."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Mapping, Sequence

from markupsafe import Markup

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22")
"""Line colours, one per bot, repeating after ten."""

MAX_POINTS = 400
"""Points drawn per line at most: a long series is thinned to evenly spaced games (its
last kept), which a chart a few hundred pixels wide cannot tell from the whole."""


def thin(points: Sequence[Point], most: int = MAX_POINTS) -> Sequence[Point]:
    if len(points) <= most:
        return points
    step = len(points) / (most - 1)
    return [points[round(i * step)] for i in range(most - 1)] + [points[-1]]


@dataclass(frozen=True)
class Point:
    game: int
    """The game's number in the series (1 = the first)."""
    mu: float
    sigma: float


def rating_chart(series: Mapping[str, Sequence[Point]], title: str, band: bool,
                 width: int = 520, height: int = 280) -> Markup:
    """One line per bot (its rating after each of its games); ``band`` draws mu ± sigma
    around it (TrueSkill). Empty series give a note instead of a chart."""
    points = [p for ps in series.values() for p in ps]
    if not points:
        return Markup(f'<p class="note">{escape(title)}: no rated games.</p>')
    left, right, top, bottom = 56, 130, 24, 28
    x_max = max(p.game for p in points)
    lows = [p.mu - (p.sigma if band else 0) for p in points]
    highs = [p.mu + (p.sigma if band else 0) for p in points]
    y_min, y_max = min(lows), max(highs)
    if y_max - y_min < 1e-9:
        y_min, y_max = y_min - 1, y_max + 1
    pad = (y_max - y_min) * 0.05
    y_min, y_max = y_min - pad, y_max + pad
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(game: float) -> float:
        return left + (plot_w * (game - 1) / (x_max - 1) if x_max > 1 else plot_w / 2)

    def y(value: float) -> float:
        return top + plot_h * (y_max - value) / (y_max - y_min)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
             f'<text x="{left}" y="14" class="chart-title">{escape(title)}</text>',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="chart-frame"/>']
    for i in range(5):
        value = y_min + (y_max - y_min) * i / 4
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
                     f'class="chart-grid"/><text x="{left - 6}" y="{y(value) + 4:.1f}" class="chart-axis" '
                     f'text-anchor="end">{value:.1f}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}" class="chart-axis">game 1</text>'
                 f'<text x="{left + plot_w}" y="{height - 8}" class="chart-axis" text-anchor="end">game {x_max}</text>')
    for i, (bot, whole) in enumerate(sorted(series.items())):
        colour = PALETTE[i % len(PALETTE)]
        ps = thin(whole)
        line = " ".join(f"{x(p.game):.1f},{y(p.mu):.1f}" for p in ps)
        if band and ps:
            upper = [f"{x(p.game):.1f},{y(p.mu + p.sigma):.1f}" for p in ps]
            lower = [f"{x(p.game):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(ps)]
            parts.append(f'<polygon points="{" ".join(upper + lower)}" fill="{colour}" fill-opacity="0.12" '
                         'stroke="none"/>')
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        last = ps[-1]
        parts.append(f'<text x="{left + plot_w + 8}" y="{top + 14 + 16 * i}" fill="{colour}" class="chart-legend">'
                     f'{escape(bot)} {last.mu:.1f}{f" ± {last.sigma:.1f}" if band else ""}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
