"""Ratings over time and Tuvalon's map as inline SVG, drawn here rather than in the browser,
so that a report opens anywhere without a script or a network."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from markupsafe import Markup

from ..store.ratings import spaced

if TYPE_CHECKING:
    from .views import MapRound, Names

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#0000ff",
    "#ff22ff",
    "#0055ee",
    "#445500",
    "#ff0077",
    "#8800aa",
    "#77bb88",
    "#aa7722",
    "#ff8888",
    "#881155",
)
"""Line colours, one per bot: ten classic ones, then each the farthest (in CIELAB) from all
before it among colours readable on white; no two are closer than the first ten are."""
DASHES = ("", "6 3", "2 3")
"""Line patterns: past ``len(PALETTE)`` bots the colours come round again, dashed, then dotted."""
LEGEND_STEP = 16
"""Pixels between the legend's lines: the chart grows to hold one per bot."""


def line_style(i: int) -> tuple[str, str]:
    """The colour and dash pattern of the ``i``-th line of a chart: no two of the first
    ``len(PALETTE) * len(DASHES)`` alike."""
    return PALETTE[i % len(PALETTE)], DASHES[i // len(PALETTE) % len(DASHES)]


MAX_POINTS = 400
"""Points drawn per line at most: a long series is thinned to evenly spaced games (its
last kept), which a chart a few hundred pixels wide cannot tell from the whole."""


def thin(points: Sequence[Point], most: int = MAX_POINTS) -> Sequence[Point]:
    if len(points) <= most:
        return points
    return [points[i] for i in spaced(len(points), most)]


@dataclass(frozen=True)
class Point:
    game: int
    """The game's number in the series (1 = the first)."""
    mu: float
    sigma: float


def rating_chart(
    series: Mapping[str, Sequence[Point]], title: str, band: bool, width: int = 520, height: int = 280
) -> Markup:
    """One line per bot (its rating after each of its games); ``band`` draws mu ± sigma
    around it (TrueSkill). Empty series give a note instead of a chart."""
    points = [p for ps in series.values() for p in ps]
    if not points:
        return Markup(f'<p class="note">{escape(title)}: no rated games.</p>')
    left, right, top, bottom = 56, 146, 24, 28
    height = max(height, top + LEGEND_STEP * len(series) + bottom)
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

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="{left}" y="14" class="chart-title">{escape(title)}</text>',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" class="chart-frame"/>',
    ]
    for i in range(5):
        value = y_min + (y_max - y_min) * i / 4
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'class="chart-grid"/><text x="{left - 6}" y="{y(value) + 4:.1f}" class="chart-axis" '
            f'text-anchor="end">{value:.1f}</text>'
        )
    parts.append(
        f'<text x="{left}" y="{height - 8}" class="chart-axis">game 1</text>'
        f'<text x="{left + plot_w}" y="{height - 8}" class="chart-axis" text-anchor="end">game {x_max}</text>'
    )
    for i, (bot, whole) in enumerate(sorted(series.items())):
        colour, dash = line_style(i)
        stroke = f'stroke="{colour}" stroke-width="2"' + (f' stroke-dasharray="{dash}"' if dash else "")
        ps = thin(whole)
        line = " ".join(f"{x(p.game):.1f},{y(p.mu):.1f}" for p in ps)
        if band and ps:
            upper = [f"{x(p.game):.1f},{y(p.mu + p.sigma):.1f}" for p in ps]
            lower = [f"{x(p.game):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(ps)]
            parts.append(
                f'<polygon points="{" ".join(upper + lower)}" fill="{colour}" fill-opacity="0.12" stroke="none"/>'
            )
        parts.append(f'<polyline points="{line}" fill="none" {stroke}/>')
        last = ps[-1]
        key_y = top + 14 + LEGEND_STEP * i
        parts.append(
            f'<line x1="{left + plot_w + 6}" x2="{left + plot_w + 20}" y1="{key_y - 4}" y2="{key_y - 4}" '
            f'{stroke}/><text x="{left + plot_w + 24}" y="{key_y}" fill="{colour}" class="chart-legend">'
            f"{escape(bot)} {last.mu:.1f}{f' ± {last.sigma:.1f}' if band else ''}</text>"
        )
    parts.append("</svg>")
    return Markup("".join(parts))


MAP_SIZE = 9
"""Tuvalon's map is 9×9: columns ``a``–``i`` west to east, rows ``1``–``9`` south to north."""
CELL = 26
"""A map cell's side, in pixels."""


def seat_colour(seat: int) -> str:
    return PALETTE[seat % len(PALETTE)]


def tuvalon_map(rnd: MapRound, names: Names) -> Markup:
    """One round on Tuvalon's map: each player a disc of its seat's colour, numbered by seat
    (from 1, as the players table), where it stood after the round's moves; a move a line
    from a hollow ring (where it stood before) to the disc. The leader's disc has a dark
    ring, the proposed team's a gold one."""
    left, top, bottom = 18, 6, 18
    side = CELL * MAP_SIZE
    width, height = left + side + 6, top + side + bottom

    def centre(cell: tuple[int, int]) -> tuple[float, float]:
        return left + CELL * (cell[0] + 0.5), top + CELL * (MAP_SIZE - 1 - cell[1] + 0.5)

    def cell_name(cell: tuple[int, int]) -> str:
        return f"{chr(ord('a') + cell[0])}{cell[1] + 1}"

    label = f"round {rnd.label} on the map"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="map" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(label)}">'
    ]
    for x in range(MAP_SIZE):
        for y in range(MAP_SIZE):
            cx, cy = left + CELL * x, top + CELL * (MAP_SIZE - 1 - y)
            parts.append(
                f'<rect x="{cx}" y="{cy}" width="{CELL}" height="{CELL}" '
                f'class="map-cell{" dark" if (x + y) % 2 == 0 else ""}"/>'
            )
    parts.append(f'<rect x="{left}" y="{top}" width="{side}" height="{side}" class="map-frame"/>')
    for i in range(MAP_SIZE):
        parts.append(
            f'<text x="{left + CELL * (i + 0.5):.0f}" y="{top + side + 13}" class="map-axis" '
            f'text-anchor="middle">{chr(ord("a") + i)}</text>'
            f'<text x="{left - 5}" y="{top + CELL * (MAP_SIZE - 1 - i + 0.5) + 4:.0f}" class="map-axis" '
            f'text-anchor="end">{i + 1}</text>'
        )
    for seat, before, after in rnd.moves:
        (x1, y1), (x2, y2) = centre(before), centre(after)
        colour = seat_colour(seat)
        parts.append(
            f'<g class="move"><title>{escape(names.of(seat))}: {cell_name(before)} → {cell_name(after)}'
            f'</title><circle cx="{x1:.0f}" cy="{y1:.0f}" r="5" fill="#fff" stroke="{colour}" '
            f'stroke-width="2"/><line x1="{x1:.0f}" y1="{y1:.0f}" x2="{x2:.0f}" y2="{y2:.0f}" '
            f'stroke="{colour}" stroke-width="2.5" stroke-linecap="round"/></g>'
        )
    for seat, cell in sorted(rnd.cells.items()):
        px, py = centre(cell)
        leads, member = seat == rnd.leader, seat in rnd.team
        ring = ' class="map-member"' if member else ""
        role = ", ".join(w for w, yes in (("leader", leads), ("on the team", member)) if yes)
        parts.append(
            f'<g class="player"><title>{escape(names.of(seat))} at {cell_name(cell)}'
            f"{f' ({role})' if role else ''}</title>"
            + (f'<circle cx="{px:.0f}" cy="{py:.0f}" r="12.5" class="map-leader"/>' if leads else "")
            + f'<circle cx="{px:.0f}" cy="{py:.0f}" r="10" fill="{seat_colour(seat)}"'
            f"{ring}/>"
            f'<text x="{px:.0f}" y="{py + 4:.0f}" text-anchor="middle" class="map-seat">{seat + 1}</text></g>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
