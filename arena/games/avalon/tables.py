"""Numbers that depend on the player count (settled in the rules README)."""

from __future__ import annotations

MIN_PLAYERS = 5
MAX_PLAYERS = 10

EVIL_COUNT = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}
"""Evil seats by player count; 9 players may be set to 4 evil with the ``evil_at_nine`` option."""

QUEST_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}

MAX_REJECTIONS = 5
"""Rejected proposals in a row that hand the game to evil."""

QUESTS_TO_WIN = 3


def fails_needed(players: int, quest: int) -> int:
    """Fail cards that sink quest ``quest`` (0-based): two on the fourth quest at 7+ players."""
    return 2 if players >= 7 and quest == 3 else 1
