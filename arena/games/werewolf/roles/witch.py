"""Witch (P0, village): one healing potion and one poison for the whole game
(rules/werewolf.md §3.10).

She learns the wolves' final target (§3.8), then (step 10) may heal it: the heal cancels one
death event of that player and nothing else, and is spent even when it turns out useless
(§3.10's last example). Then she may poison a living player; poison bypasses every protection unless
``protectAgainstPoison``, and even then no bodyguard intercepts it. Both potions may be used on
the same night (Miller's Hollow). With
no wolf target, or when healing herself is not allowed (``witchCanSaveSelf``), or after the
first night with ``witchSaveFirstNightOnly``, no heal is offered that night: ``witch_save``
offers ``none`` alone, and a spent potion's request too (``Night.cover``, night.py). The heal is
aimed at the wolves' target as their kill is, so a bus driver's swap moves both alike
(mechanics/redirects.py): it saves whoever the kill landed on, and no one else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import NONE, SAVE, Choice
from ..mechanics.redirects import land
from ..mechanics.visits import visit
from ..resolution import HEAL, Protection
from .base import Action, NightKill, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame


class WitchSave(Action):
    kind = "witch_save"
    step = 10
    needs = "wolf_vote"

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice | None:
        target = game.plan.wolf_target
        if cls.exhausted(game, seat) or target is None:
            return None
        if target == seat and not game.options.witchCanSaveSelf:
            return None
        if game.options.witchSaveFirstNightOnly and game.day != 1:
            return None
        return Choice(seat, cls.kind, (SAVE, NONE))

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == SAVE:
            game.state[seat]["save"] = False
        cls.copy(game, seat, value)

    @classmethod
    def copy(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        """The heal itself, which spends nothing (a follower's copy, or the potion ``apply``
        spent): aimed at the wolves' target, it lands where a swap sends it, as their kill."""
        if value == SAVE:
            target = game.plan.wolf_target
            assert target is not None, "the heal is offered only against a wolf target"
            healed = land(game, cls.step, target)
            game.plan.protections.append(Protection(seat, healed, HEAL))
            visit(game, seat, healed, cls.kind, cls.step)

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        return not game.state[seat]["save"]


class Poison(NightKill):
    """A poison held once per game (``state["poison"]``): the witch's, the wolf witch's."""

    cause = "poison"
    ordinary = False
    """Not an ordinary kill: no bodyguard intercepts it (§3.10), even with
    ``protectAgainstPoison``, which lets only blocks and heals stop it."""

    @classmethod
    def spend(cls, game: WerewolfGame, seat: int) -> None:
        game.state[seat]["poison"] = False

    @classmethod
    def exhausted(cls, game: WerewolfGame, seat: int) -> bool:
        return not game.state[seat]["poison"]

    @classmethod
    def stoppable(cls, game: WerewolfGame) -> bool:
        return game.options.protectAgainstPoison


class WitchPoison(Poison):
    kind = "witch_poison"
    step = 10.5
    needs = "wolf_vote"
    """She chooses knowing the wolves' target, as she always did (§3.2: the witch acts after the wolves)."""


@register
class Witch(Role):
    id = "witch"
    team = Team.VILLAGE
    priority = "P0"
    actions = (WitchSave, WitchPoison)
    learns_wolf_target = True

    @classmethod
    def initial_state(cls, game: WerewolfGame) -> dict[str, Any]:
        return {"save": True, "poison": True}
