"""Alpha werewolf (P3, werewolf): "查验时不显示为狼人" (rules/werewolf.md §2), it does not show as a
werewolf when checked: the same disguise as the godfather's (roles/godfather.py), under its
own name, as the specification lists both. Many tables give the alpha (狼王) a shot on death
instead; the specification does not, so neither does the arena. At most one.
"""

from __future__ import annotations

from .godfather import Godfather
from .registry import register


@register
class AlphaWerewolf(Godfather):
    id = "alpha_werewolf"
