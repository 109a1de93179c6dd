"""Blocking: a player who cannot act tonight (jailed, roleblocked, exiled), and absence.

A block is a fact of the night (``NightPlan.blocked``), set when the blocking step settles:
from then on the blocked player's night answers of that step or a later one are dropped
when their step settles (``Night.settle``, night.py; an answer of an earlier step stands
even if it settles after the block, as a late Cupid's link does), requests not yet asked
offer ``none`` alone (``Night.cover``: asked all the same, so that the night
lasts as long), and their kills and protections never reach the resolver. The blocked
player is told (``blocked``, to them alone) as most Werewolf and Mafia games tell a
roleblocked player, so a bot knows why its action did nothing. A one-shot power whose use
was blocked is not spent.

Absence (the exile's banishment, ``ABSENT``, rules/werewolf.md §3.4) is a block and more: the absent player
is out of the night from the banishing step on. They cannot act, and every action that
lands on them, a two-player one too (a swap naming them), takes no effect
(``Night.settle``). A vote for them (the pack's, the werewolf leader's choice) still
counts, so the pack cannot fall back on another victim, but no kill or protection aimed
at them reaches the resolver (``Night.dawn``) and nobody visits them, an earlier step
of the night (a jail) included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import WerewolfGame


def block(game: WerewolfGame, seat: int, step: float) -> None:
    """Block ``seat`` from ``step`` (the blocking action's) to the end of tonight, and tell
    them (once). What the seat did at an earlier step stands: §3.2's order has already settled it
    (a roleblocked Cupid has linked the lovers)."""
    if seat in game.plan.blocked:
        return
    game.plan.blocked[seat] = step
    game.tell("blocked", {"night": game.day}, (seat,))


def is_blocked(game: WerewolfGame, seat: int, step: float | None = None) -> bool:
    """Whether ``seat`` is blocked tonight; with ``step``, whether its action of that step
    is: a block settles as soon as its answers are in, and must not void an answer of an
    earlier step that arrived after it (a roleblocked Cupid's link)."""
    since = game.plan.blocked.get(seat)
    return since is not None and (step is None or since <= step)


def banish(game: WerewolfGame, seat: int, step: float) -> None:
    """Take ``seat`` out of the rest of tonight from ``step``: blocked, and beyond reach."""
    block(game, seat, step)
    game.plan.absent[seat] = step
    game.plan.visits = [v for v in game.plan.visits if v.target != seat]


def aimed_at_absent(game: WerewolfGame, value: object, step: float) -> bool:
    """Whether an answer of ``step`` names a player absent by then (a seat, or one of two)."""
    targets = value if isinstance(value, tuple) else (value,)
    return any(type(t) is int and game.plan.absent.get(t, step + 1) <= step for t in targets)
