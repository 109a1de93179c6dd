"""Cult leader (P3, neutral): each night (step 11.3) recruits a living player into its
cult (rules/werewolf.md §2; the specification's NIGHT_RECRUIT, "将目标加入邪教阵营或转换阵营（按实现）").

A recruit changes side, not role: they keep their role and its powers (a recruited seer
still checks, a recruited hunter still shoots) and play for the cult from then on
(``CULT``, mechanics/statuses.py, for the rest of the game). As in most Mafia games:

- the werewolf side and the hostile neutral killers (serial killer, arsonist) cannot be
  recruited: the recruitment fails, and nobody is told; the leader may infer it;
- a recruitment that succeeds tells every living member, the leader included, who the
  cult is and who joined (``cult``);
- the seer, the detective and the rest see a recruit as before (a role's look, §2:
  every neutral looks like the village); love is no side: a recruited lover stays linked;
- the cult lives by its leader: when the leader dies the cult dissolves, its members
  return to their old sides (the status is lifted) and win or lose with them.

The cult wins (``cult_recruited_all``, winner ``cult``) when the leader is alive and every
living player is in the cult; the leader and every member win, dead or alive. While the
leader lives it is a threat to both teams (``hostile``): neither the village nor the
wolves have won. So a recruit's change of side never enters the teams' count (the
wolves' parity, the village's win): by the time a team can win, the leader is dead and
the cult dissolved. Since no wolf can join, the cult wins only once the wolves are dead.
The cult's win is checked after the piper's, before the serial killer's. Blocks and
banishment stop a recruitment (the leader's, or the absent target's); protections do not.
A swap moves it like any action aimed at a player (``new`` names who actually joined); a
shadow following the leader recruits nobody. At most one cult leader.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....core.errors import ErrorCode
from ....core.game import Result
from ..choice import NONE, Choice
from ..mechanics import statuses
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

CULT = statuses.CULT


def living_members(game: WerewolfGame) -> list[int]:
    """The living recruits (the leader holds no ``CULT`` status: its role says it all)."""
    return [s for s in statuses.holders(game, CULT) if game.alive[s]]


class CultRecruit(Action):
    kind = "cult_recruit"
    step = 11.3

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        exclude = {s: (ErrorCode.TARGET_INVALID, f"seat {s} is already in the cult") for s in living_members(game)}
        choice = target_choice(game, seat, cls.kind, exclude=exclude)
        return choice if len(choice.options) > 1 else None

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == NONE:
            return
        role = game.role_of(value)
        if role.team is Team.WEREWOLF or role.hostile:
            return
        statuses.add(game, CULT, value)
        members = sorted({seat, *living_members(game)})
        game.tell("cult", {"night": game.day, "leader": seat, "members": members, "new": value}, members)

    @classmethod
    def copy(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """A shadow recruits nobody: the cult is its leader's, and a follower leads none."""


@register
class CultLeader(Role):
    id = "cult_leader"
    team = Team.NEUTRAL
    priority = "P3"
    win_side = "cult"
    win_reason = "cult_recruited_all"
    max_count = 1
    actions = (CultRecruit,)
    win_order = 25
    hostile = True

    @classmethod
    def on_death(cls, game: WerewolfGame, seat: int, causes: list[str]) -> None:
        """The cult lives by its leader: its members go back to their old sides."""
        for member in statuses.holders(game, CULT):
            statuses.remove(game, member, (CULT,))

    @classmethod
    def special_win(cls, game: WerewolfGame) -> Result | None:
        heads = [s for s in game.living() if game.role_of(s) is cls]
        if heads and all(s in heads or statuses.has(game, CULT, s) for s in game.living()):
            return Result(cls.win_side, frozenset(heads + statuses.holders(game, CULT)), cls.win_reason)
        return None
