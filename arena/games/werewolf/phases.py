"""The phases of a Werewolf game (rules/werewolf.md §3 and §4), in ``WerewolfGame.phase``:
the engine and the collaborators that run the night and the day set them."""

from __future__ import annotations

NIGHT, DAY_ANNOUNCE, DAY_DISCUSSION, DAY_VOTE, DAY_EXECUTION, ENDED = (
    "night",
    "day_announce",
    "day_discussion",
    "day_vote",
    "day_execution",
    "ended",
)
