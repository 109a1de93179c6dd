"""Blocking: a player who cannot act tonight (jailed, roleblocked, exiled).

A block is a fact of the night (``NightPlan.blocked``), set when the blocking step settles:
the blocked player's answers of that step and later ones are dropped when their step
settles (the engine's ``_settle``, ``stops``), requests not yet asked are not asked, and their kills and
protections never reach the resolver. The blocked player is told (``blocked``, to them
alone) as most Werewolf and Mafia games tell a roleblocked player, so a bot knows why its
action did nothing. A one-shot power whose use was blocked is not spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import WerewolfGame


def block(game: "WerewolfGame", seat: int, step: float) -> None:
    """Block ``seat`` from ``step`` (the blocking action's) to the end of tonight, and tell
    them (once). What the seat did at an earlier step stands: 4.2 has already settled it
    (a roleblocked Cupid has linked the lovers)."""
    if seat in game.plan.blocked:
        return
    game.plan.blocked[seat] = step
    game.tell("blocked", {"night": game.day}, (seat,))


def is_blocked(game: "WerewolfGame", seat: int) -> bool:
    return seat in game.plan.blocked


def stops(game: "WerewolfGame", seat: int, step: float) -> bool:
    """Whether ``seat``'s answer of ``step`` is dropped: blocked at that step or before.
    An answer of an earlier step stands even when it settles after the block (a Cupid who
    answers once the roleblock has settled): the night never depends on answer order."""
    blocked = game.plan.blocked.get(seat)
    return blocked is not None and blocked <= step
