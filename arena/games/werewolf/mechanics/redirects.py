"""Redirects: swaps that move where the night's actions land (the bus driver's).

A swap of A and B made at step ``s`` remaps the targets of every action of a later step:
what is aimed at A lands on B and what is aimed at B lands on A (the spec's 目标重映射).
The engine lands each answer of an action that ``visits`` when its step settles, before
the action takes effect, so checks, protections, kills, blocks, statuses and visits all
follow the swap alike; an effect made from someone else's answer (the pack's kill from its
votes, the witch's heal of the wolves' target) is landed by its role. Actions of earlier
steps (the jail, the roleblock) are not moved: they were settled first.

A result names the player its actor aimed at (``aimed``), with what was found where the
action landed: a seer who checks A while A and B are swapped is told A's name and B's side,
as in Mafia's bus driver, whose passengers' visitors never learn of the ride. Swaps of one
night compose in step order; the store is ``NightPlan.swaps``, plain data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import WerewolfGame


def swap(game: WerewolfGame, a: int, b: int, step: float) -> None:
    """From ``step`` on, tonight's actions aimed at ``a`` land on ``b`` and the reverse."""
    game.plan.swaps.append((step, a, b))
    game.plan.swaps.sort()


def land(game: WerewolfGame, step: float, value: Any) -> Any:
    """Where an answer of ``step`` (a seat, a tuple of seats, or a word) lands tonight."""
    for made, a, b in game.plan.swaps:
        if made < step:
            value = _swapped(value, a, b)
    return value


def aimed(game: WerewolfGame, step: float, value: Any) -> Any:
    """What an actor of ``step`` aimed at, from where its action landed (``land`` undone)."""
    for made, a, b in reversed(game.plan.swaps):
        if made < step:
            value = _swapped(value, a, b)
    return value


def _swapped(value: Any, a: int, b: int) -> Any:
    if isinstance(value, tuple):
        return tuple(_swapped(v, a, b) for v in value)
    if type(value) is not int:
        return value
    return b if value == a else a if value == b else value
