"""Godfather (P3, werewolf): a werewolf who looks innocent to every check (rules/werewolf.md
§2; the specification: "查验时显示为无辜"): the seer, the wolf seer and the detective see the village side. Otherwise
a werewolf: knows the pack, votes and talks with it at night, counts for the wolves' parity.
At most one.
"""

from __future__ import annotations

from .base import Team
from .registry import register
from .werewolf import Werewolf


@register
class Godfather(Werewolf):
    id = "godfather"
    priority = "P3"
    max_count = 1

    @classmethod
    def seen_as(cls) -> str:
        return Team.VILLAGE.value
