"""Plain-text tables for the CLI (``arena leaderboard``, ``arena games``, ``arena stats``).

Pure formatting of what the store returns, so the commands stay thin and the output is
testable without a terminal.
"""

from __future__ import annotations

import time
from typing import Iterable, Sequence

from .records import BotStats, GameSummary, LeaderRow, RateStat


def _pct(stat: RateStat) -> str:
    if stat.rate is None:
        return "-"
    return f"{stat.rate * 100:5.1f}% [{stat.low * 100:4.1f}-{stat.high * 100:5.1f}]"


def leaderboard_lines(rows: Sequence[LeaderRow], system: str) -> list[str]:
    """Rank, bot, owner, rating (TrueSkill: mu ± sigma and the sorted-by mu - 3 sigma), games, win rate."""
    width = max([len(r.bot) for r in rows] + [3])
    owners = max([len(r.owner) for r in rows] + [5])
    if system == "trueskill":
        head = (f"{'#':>3} {'bot':{width}} {'owner':{owners}} {'score':>6} {'mu':>6} {'sigma':>5} {'games':>6}"
                "  win rate [95% CI]")
        body = [f"{r.rank:>3} {r.bot:{width}} {r.owner:{owners}} {r.score:6.2f} {r.mu:6.2f} {r.sigma:5.2f} "
                f"{r.games:>6}  {_pct(r.win_rate)}" for r in rows]
    else:
        head = f"{'#':>3} {'bot':{width}} {'owner':{owners}} {system:>7} {'games':>6}  win rate [95% CI]"
        body = [f"{r.rank:>3} {r.bot:{width}} {r.owner:{owners}} {r.score:7.1f} {r.games:>6}  {_pct(r.win_rate)}"
                for r in rows]
    return [head, *body]


def games_lines(games: Iterable[GameSummary]) -> list[str]:
    """One line per game: id, finish time (UTC), type, players, how it ended, who played."""
    out = []
    for g in games:
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(g.finished))
        end = g.kind if g.kind != "ranked" else f"{g.winner} ({g.reason})"
        out.append(f"{g.id}  {when}  {g.game} {g.players}p  {end}  {' '.join(g.bots)}")
    return out


def stats_lines(stats: BotStats) -> list[str]:
    """A bot's record overall and per role, with the role figures."""
    o = stats.overall
    lines = [f"{stats.bot} ({stats.game}): {o.games} games, {o.wins} wins, {o.losses} losses, {o.draws} draws, "
             f"{o.forfeits} forfeits, {o.aborted} aborted; win rate {_pct(o.win_rate)}"]
    for role, r in stats.roles.items():
        extra = "".join(f"; {name} {_pct(f)} of {f.trials}" for name, f in r.figures.items())
        lines.append(f"  {role:14s} {r.games:>5} games  win rate {_pct(r.win_rate)}{extra}")
    c = stats.conduct
    codes = ", ".join(f"{code} {n}" for code, n in c.refused.items())
    lines.append(f"  lines refused: {sum(c.refused.values())}{f' ({codes})' if codes else ''}; "
                 f"late: {c.warnings} warned, {c.defaults} answered by default, {c.forfeits} forfeited")
    return lines
