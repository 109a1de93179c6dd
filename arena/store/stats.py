"""Per-bot statistics of the stored games: results and win rates by role, the game's role
figures, and each bot's conduct (refusals, warnings, missed deadlines, fallbacks)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..protocol import ERROR, TIMEOUT, WARN, parse
from ..ratings.model import ABORTED, FORFEIT, WIN
from ..ratings.stats import wilson
from .database import Database
from .figures import FIGURES
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
        """Per bot, from the stored transcripts: ``ERROR`` and ``WARN`` lines sent to it
        (under its seat's nick; an ``ERROR`` with ``count=N`` stands for N refusals) and
        ``TIMEOUT`` lines naming it (by its seat's nick); from its stored answer lines, those
        marked ``fallback=``, by marker."""
        # CROSS JOIN: the few such lines first, by their index (``lines_conduct``), then
        # their games; not every line of every game of the type.
        sql = (
            "SELECT g.nicks, COALESCE(g.bots, g.nicks), l.target, l.line FROM lines l"
            " CROSS JOIN games g ON g.seq = l.game_seq"
            " WHERE substr(l.line, 1, 5) IN ('ERROR', 'WARN ', 'TIMEO') AND g.game = ?"
            + (" AND g.tournament = ?" if tournament is not None else "")
        )
        refused: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        late: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        args = (game,) if tournament is None else (game, tournament)
        for nicks, bots, target, line in self.db.execute(sql, args):
            msg = parse(line)
            seated = {n.lower(): b for n, b in zip(json.loads(nicks), json.loads(bots))}
            if msg.verb == TIMEOUT:
                late[seated.get(msg.get("player", "").lower(), msg.get("player", ""))][msg.get("action", "")] += 1
                continue
            name = seated.get((target or "").lower())
            if name is None:
                continue  # said to someone else (a renamed nick, a bystander)
            if msg.verb == ERROR:  # ``count=N``: a match's tally of refusals not kept one by one
                refused[name][msg.args[0]] += msg.int("count", 1)
            elif msg.verb == WARN:
                late[name]["warn"] += 1
        fallbacks: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for bots, seat, marker, n in self.db.execute(
            "SELECT COALESCE(g.bots, g.nicks), a.seat, a.fallback, COUNT(*) FROM answers a"
            " CROSS JOIN games g ON g.seq = a.game_seq WHERE a.fallback IS NOT NULL AND g.game = ?"
            " GROUP BY a.game_seq, a.seat, a.fallback",
            (game,),
        ):
            fallbacks[json.loads(bots)[seat]][marker] += n
        return {
            name: Conduct(
                dict(sorted(refused[name].items())),
                late[name]["warn"],
                late[name]["default"],
                late[name]["forfeit"],
                dict(sorted(fallbacks[name].items())),
            )
            for name in {*refused, *late, *fallbacks}
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
