"""Miller (P3, village): a villager who looks like a werewolf to every check (rules/werewolf.md §2;
the specification: "村民但在查验中显示为邪恶"): the seer, the wolf seer and the detective see the werewolf side.
No night action; wins and loses with the village."""

from __future__ import annotations

from .base import Role, Team
from .registry import register


@register
class Miller(Role):
    id = "miller"
    team = Team.VILLAGE
    priority = "P3"

    @classmethod
    def seen_as(cls) -> str:
        return Team.WEREWOLF.value
