"""What a tournament's page and the whole store's page show for a game type: the
leaderboards, the ratings over time and the win rates per role, read from the store."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Mapping

from markupsafe import Markup

from ..ratings.stats import wilson
from ..store import BotStats, LeaderRow, RateStat, Store
from .charts import MAX_POINTS, Point, rating_chart

SYSTEMS = ("elo", "trueskill")
BANDED = frozenset({"trueskill"})
"""Systems whose charts show mu ± sigma."""


@dataclass(frozen=True)
class RoleRow:
    """A role over every bot that held it: games, wins and the win rate's 95% interval."""

    role: str
    rate: RateStat


@dataclass(frozen=True)
class Standings:
    game: str
    boards: Mapping[str, list[LeaderRow]]
    charts: Mapping[str, Markup]
    roles: list[RoleRow]
    bots: Mapping[str, BotStats]


def _rate(wins: int, games: int) -> RateStat:
    low, high = wilson(wins, games)
    return RateStat(wins, games, wins / games if games else None, low, high)


def standings(store: Store, game: str, tournament: str | None = None) -> Standings:
    """A game type's standings over every stored game, or over ``tournament``'s alone (rated
    afresh, as ``arena leaderboard --tournament``)."""
    boards = {}
    charts = {}
    for system in SYSTEMS:
        boards[system], history = store.ratings.standings(game, system, tournament, MAX_POINTS)
        series = {bot: [Point(n, r.mu, r.sigma) for n, r in points] for bot, points in history.items()}
        label = "TrueSkill μ ± σ" if system in BANDED else "Elo"
        charts[system] = rating_chart(series, f"{label} after each game", system in BANDED)
    bots = store.stats.bots(game, tournament=tournament)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for stats in bots.values():
        for role, r in stats.roles.items():
            tally[role][0] += r.wins
            tally[role][1] += r.games
    roles = [RoleRow(role, _rate(wins, games)) for role, (wins, games) in sorted(tally.items())]
    return Standings(game, boards, charts, roles, bots)
