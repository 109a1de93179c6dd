"""Tournaments: a reproducible schedule of games between chosen bots (``schedule``), played
in memory or over IRC with every game stored as it ends (``run``)."""

from __future__ import annotations

from ..bots import builtin_bots
from .run import open_tournament, play_irc, play_local
from .seater import TournamentSeater
from .progress import Progress
from .schedule import Entry, Schedule, Settings, Table, TournamentError, load_bot_class

__all__ = [
    "Entry",
    "Progress",
    "Schedule",
    "Settings",
    "Table",
    "TournamentError",
    "TournamentSeater",
    "builtin_bots",
    "load_bot_class",
    "open_tournament",
    "play_irc",
    "play_local",
]
