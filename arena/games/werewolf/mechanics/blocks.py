"""Blocking: a player who cannot act tonight (jailed, roleblocked, exiled).

A block is a fact of the night (``NightPlan.blocked``), set when the blocking step settles:
from then on the blocked player's night answers are dropped when their step settles (the
engine's ``_settle``), requests not yet asked are not asked, and their kills and
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


def is_blocked(game: "WerewolfGame", seat: int, step: float | None = None) -> bool:
    """Whether ``seat`` is blocked tonight; with ``step``, whether its action of that step
    is: a block settles as soon as its answers are in, and must not void an answer of an
    earlier step that arrived after it (a roleblocked Cupid's link)."""
    since = game.plan.blocked.get(seat)
    return since is not None and (step is None or since <= step)
