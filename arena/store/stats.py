"""Per-bot statistics of the stored games: results and win rates by role, the game's role
figures, and each bot's conduct (refusals, warnings, missed deadlines, fallbacks)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..ratings.model import ABORTED, FORFEIT, WIN
from ..ratings.stats import wilson
from .database import Database
from .figures import FIGURES
from .logs import FELL_BACK, REFUSED, TIMED_OUT, WARNED
from .records import BotStats, Conduct, RateStat, RoleStats


class Stats:
    """Read only: what ``arena stats`` and the report show of each bot."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def bots(self, game: str, bot: str | None = None, tournament: str | None = None) -> dict[str, BotStats]:
        """Per bot: games, wins, win rate with a Wilson 95% interval, overall and per role,
        plus the game's role figures (``figures.FIGURES``); only ``tournament``'s games if given."""
        sql = "SELECT bot, NULLIF(role, ''), result, reason, SUM(seats) FROM role_results WHERE game = ?"
        args: list[Any] = [game]
        if bot is not None:
            sql += " AND bot = ?"
            args.append(bot)
        if tournament is not None:
            sql += " AND tournament = ?"
            args.append(tournament)
        sql += " GROUP BY bot, role, result, reason"
        counts: dict[str, list[tuple[str | None, str, str, int]]] = defaultdict(list)
        for b, role, result, reason, n in self.db.execute(sql, args):
            counts[b].append((role, result, reason, n))
        figures = FIGURES.get(game, ())
        conduct = self._conduct(game, tournament)
        out: dict[str, BotStats] = {}
        for b in sorted(counts):
            rows = counts[b]
            roles = sorted({r for r, _, _, _ in rows if r is not None})
            out[b] = BotStats(
                b,
                game,
                _role_stats(None, rows, figures),
                {r: _role_stats(r, [x for x in rows if x[0] == r], figures) for r in roles},
                conduct.get(b, Conduct({}, 0, 0, 0)),
            )
        return out

    def _conduct(self, game: str, tournament: str | None = None) -> dict[str, Conduct]:
        """Per bot, the totals its games' logs were counted into as they were stored
        (``logs.conduct``): refusals by error code, warnings, missed deadlines by what the
        referee did, its SDK's answers by ``fallback=`` marker."""
        sql = "SELECT bot, kind, what, SUM(n) FROM conduct WHERE game = ?"
        args = [game]
        if tournament is not None:
            sql += " AND tournament = ?"
            args.append(tournament)
        counts: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
        for bot, kind, what, n in self.db.execute(sql + " GROUP BY bot, kind, what", args):
            counts[bot][kind][what] = n
        return {
            bot: Conduct(
                dict(sorted(kinds[REFUSED].items())),
                sum(kinds[WARNED].values()),
                kinds[TIMED_OUT].get("default", 0),
                kinds[TIMED_OUT].get("forfeit", 0),
                dict(sorted(kinds[FELL_BACK].items())),
            )
            for bot, kinds in counts.items()
        }


def _rate(successes: int, trials: int) -> RateStat:
    low, high = wilson(successes, trials)
    return RateStat(successes, trials, successes / trials if trials else None, low, high)


def _role_stats(
    role: str | None, rows: Sequence[tuple[str | None, str, str, int]], figures: Sequence[Any]
) -> RoleStats:
    by_result: dict[str, int] = defaultdict(int)
    for _, result, _, n in rows:
        by_result[result] += n
    played = sum(by_result.values()) - by_result[ABORTED]
    figs: dict[str, RateStat] = {}
    for f in figures:
        if role is not None and f.role != role:
            continue
        mine = [(reason, n) for r, _, reason, n in rows if r == f.role]
        if role is None and not mine:
            continue
        counted = sum(n for reason, n in mine if reason in f.counted)
        hits = sum(n for reason, n in mine if reason in f.success)
        figs[f.name] = _rate(hits, counted)
    return RoleStats(
        role,
        played,
        by_result[WIN],
        by_result["loss"],
        by_result["draw"],
        by_result[FORFEIT],
        by_result[ABORTED],
        _rate(by_result[WIN], played),
        figs,
    )
