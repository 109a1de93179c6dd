"""The results store: finished games, their event logs, outcomes and ratings in SQLite.

``Store(path)`` opens (and migrates) a database; ``record_game`` writes a game and its
rating changes in one transaction; ``leaderboard``, ``list_games``, ``load_game``,
``bot_stats`` read; ``rebuild`` recomputes every rating and checks the stored values.
"""

from __future__ import annotations

from .db import ParametersChanged, Store, system_params
from .figures import FIGURES, Figure
from .live import LiveGame
from .records import (BotStats, GameRecord, GameSummary, LeaderRow, Mismatch, PlayerOutcome, RateStat,
                      RebuildReport, RoleStats, StoredGame, build_match, record_from_game)
from .schema import MIGRATIONS, SchemaError, migrate

__all__ = [
    "FIGURES", "MIGRATIONS", "BotStats", "Figure", "GameRecord", "GameSummary", "LeaderRow", "LiveGame", "Mismatch",
    "ParametersChanged", "PlayerOutcome", "RateStat", "RebuildReport", "RoleStats", "SchemaError", "Store", "StoredGame",
    "build_match", "migrate", "record_from_game", "system_params",
]
