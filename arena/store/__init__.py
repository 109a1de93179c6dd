"""The results store: finished games, their event logs, outcomes and ratings, games in
progress, bots and their keys, tournaments.

``Store(path)`` opens (and migrates) a database and holds its repositories:
``store.games.record`` writes a game and its rating changes in one transaction;
``store.ratings.leaderboard``, ``store.games.find``, ``store.games.load``,
``store.stats.bots`` read; ``store.ratings.rebuild`` recomputes every rating and checks
the stored values.
"""

from __future__ import annotations

from .db import Store
from .figures import FIGURES, Figure
from .live import LiveGame
from .ratings import ParametersChanged, system_params
from .records import (
    BotStats,
    GameRecord,
    GameSummary,
    LeaderRow,
    Mismatch,
    PlayerOutcome,
    RateStat,
    RebuildReport,
    RoleStats,
    StoredGame,
    build_match,
    record_from_game,
)
from .schema import MIGRATIONS, SchemaError, migrate

__all__ = [
    "FIGURES",
    "MIGRATIONS",
    "BotStats",
    "Figure",
    "GameRecord",
    "GameSummary",
    "LeaderRow",
    "LiveGame",
    "Mismatch",
    "ParametersChanged",
    "PlayerOutcome",
    "RateStat",
    "RebuildReport",
    "RoleStats",
    "SchemaError",
    "Store",
    "StoredGame",
    "build_match",
    "migrate",
    "record_from_game",
    "system_params",
]
