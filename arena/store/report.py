"""Plain-text tables for the CLI (``arena leaderboard``, ``arena games``, ``arena stats``,
``arena bots list``).

Pure formatting of what the store returns, so the commands stay thin and the output is
testable without a terminal. Columns are laid out by ``rich``, so they align whatever the
widths of names and figures; the result is plain text (no colour codes, no box-drawing
characters, no wrapping) so that ``cut``, ``grep`` and ``sort`` keep working on it.
"""

from __future__ import annotations

import io
import time
from typing import Iterable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .records import BotRecord, BotStats, GameSummary, LeaderRow, RateStat

WIDTH = 1000
"""Characters a table may take before rich would wrap it: more than any table here needs,
so a line is never broken, on a terminal or in a pipe (a terminal wraps long lines itself)."""


def _table(*headers: str, right: Sequence[str] = ()) -> Table:
    """A borderless table; the columns named in ``right`` hold numbers and align right."""
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="", padding=(0, 2, 0, 0))
    for head in headers:
        table.add_column(head, justify="right" if head in right else "left", no_wrap=True)
    return table


def _row(table: Table, *cells: object) -> None:
    """Cells as literal text: a bot's name like ``[b]x`` is not rich markup."""
    table.add_row(*(Text(str(cell)) for cell in cells))


def _lines(table: Table, indent: str = "") -> list[str]:
    console = Console(file=io.StringIO(), width=WIDTH, no_color=True, force_terminal=False, color_system=None,
                      highlight=False, markup=False, emoji=False)
    console.print(table)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return [indent + line.rstrip() for line in out.splitlines()]


def _pct(stat: RateStat) -> str:
    if stat.rate is None:
        return "-"
    return f"{stat.rate * 100:5.1f}% [{stat.low * 100:4.1f}-{stat.high * 100:5.1f}]"


def leaderboard_lines(rows: Sequence[LeaderRow], system: str) -> list[str]:
    """Rank, bot, owner, rating (TrueSkill: mu ± sigma and the sorted-by mu - 3 sigma), games, win rate."""
    if system == "trueskill":
        table = _table("#", "bot", "owner", "score", "mu", "sigma", "games", "win rate [95% CI]",
                       right=("#", "score", "mu", "sigma", "games"))
        for r in rows:
            _row(table, r.rank, r.bot, r.owner, f"{r.score:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}", r.games,
                 _pct(r.win_rate))
    else:
        table = _table("#", "bot", "owner", system, "games", "win rate [95% CI]", right=("#", system, "games"))
        for r in rows:
            _row(table, r.rank, r.bot, r.owner, f"{r.score:.1f}", r.games, _pct(r.win_rate))
    return _lines(table)


def games_lines(games: Iterable[GameSummary]) -> list[str]:
    """A header, then one line per game: id, finish time (UTC), type, players, how it ended, who played."""
    table = _table("id", "finished (UTC)", "game", "players", "result", "bots", right=("players",))
    for g in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished))
        end = g.kind if g.kind != "ranked" else f"{g.winner} ({g.reason})"
        _row(table, g.id, when, g.game, g.players, end, " ".join(g.bots))
    return _lines(table)


def stats_lines(stats: BotStats) -> list[str]:
    """A bot's record overall, a table of its roles with their figures, and its conduct."""
    o = stats.overall
    lines = [f"{stats.bot} ({stats.game}): {o.games} games, {o.wins} wins, {o.losses} losses, {o.draws} draws, "
             f"{o.forfeits} forfeits, {o.aborted} aborted; win rate {_pct(o.win_rate)}"]
    table = _table("role", "games", "win rate [95% CI]", "figures", right=("games",))
    for role, r in stats.roles.items():
        figures = "; ".join(f"{name} {_pct(f)} of {f.trials}" for name, f in r.figures.items())
        _row(table, role, r.games, _pct(r.win_rate), figures)
    lines += _lines(table, indent="  ")
    c = stats.conduct
    codes = ", ".join(f"{code} {n}" for code, n in c.refused.items())
    lines.append(f"  lines refused: {sum(c.refused.values())}{f' ({codes})' if codes else ''}; "
                 f"late: {c.warnings} warned, {c.defaults} answered by default, {c.forfeits} forfeited")
    return lines


def bots_lines(bots: Iterable[BotRecord]) -> list[str]:
    """Every bot: owner, version, how it proves who it is, when it last registered (UTC)."""
    table = _table("bot", "owner", "version", "proven by", "last seen (UTC)")
    for b in bots:
        proof = " + ".join(p for p, on in (("key", b.key_hash), (f"account {b.account}", b.account)) if on)
        seen = time.strftime("%Y-%m-%d %H:%M", time.gmtime(b.seen)) if b.seen else "never"
        _row(table, b.name, b.owner, b.version, proof or "name only", seen)
    return _lines(table)
