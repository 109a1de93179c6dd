"""Bomb (P2, neutral): killed at night, it takes its attacker along (rules/werewolf.md §2).

Every night kill that lands on the bomb has an attacker: the wolf who carried out the pack's
kill (roles/werewolf.py), the vigilante, the serial killer, the witch who poisoned it, the
arsonist whose fire burnt it. They
die at the same dawn (cause ``bomb``, which no protection stops: the kill already landed).
A kill stopped by a protection, or taken by a bodyguard, does not touch the bomb and sets
nothing off; a bomb executed in the day, shot or dead of grief takes nobody along. No night
action.

Side: the specification makes the bomb neutral and gives it no win of its own; like the
roleblocker (the neutral "survivor" of Mafia games) it wins alongside whichever side wins
if it is alive at the end.
"""

from __future__ import annotations

from .base import Role, Team
from .registry import register


@register
class Bomb(Role):
    id = "bomb"
    team = Team.NEUTRAL
    priority = "P2"
    retaliation = "bomb"
    survivor = True
