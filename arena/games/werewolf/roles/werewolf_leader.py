"""Werewolf leader (P3, werewolf): "可决定夜晚击杀目标（替代合议）" — decides the pack's night
kill in place of the vote (rules/werewolf.md §2; the specification's
NIGHT_WEREWOLF_LEADER_SET_KILL).

Each night the leader votes with the pack like any wolf and, at the same step (8), may name
the victim (``werewolf_leader_kill``): a living player other than itself. A name replaces
the vote's outcome, a tie or no vote included; ``none`` leaves the kill to the vote. The
leader then carries out the kill (its ``actor``: whom a bomb takes along, whom an avenger
avenges) and visits the victim, with the wolves who voted for them. The pack, the doctor
and the witch learn only the final target (``WOLF_VOTES``, ``WOLF_TARGET``). A blocked
leader's choice is void and the vote stands. At most one: two leaders could name two
victims.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE
from .base import Action
from .registry import register
from .werewolf import ORDER, Werewolf, WolfVote

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class WerewolfLeaderKill(Action):
    kind = "werewolf_leader_kill"
    step = 8
    visits = False
    """The kill visits its victim when the pack's step settles (roles/werewolf.py)."""

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value != NONE:
            game.plan.notes[ORDER] = (seat, value)


@register
class WerewolfLeader(Werewolf):
    id = "werewolf_leader"
    priority = "P3"
    max_count = 1
    actions = (WolfVote, WerewolfLeaderKill)
