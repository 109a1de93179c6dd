"""Visits: who went to whom tonight.

A night action aimed at players visits each of them when it settles (unless its actor is
blocked), where it lands after tonight's swaps (redirects.py), and a follower's copy visits
them too (copies.py); the wolves' kill visits its target from every wolf who voted for it.
A visit may be forged (the trickster's): recorded like any other, by no act of its visitor.
Roles that learn about visits read them at dawn, when the whole night has settled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import WerewolfGame


@dataclass(frozen=True)
class Visit:
    visitor: int
    target: int
    kind: str
    """The decision kind that made the visit (``seer_check``, ``wolf_vote``...)."""
    step: float
    """The step of that action (rules/werewolf.md §3.2)."""


def visit(game: WerewolfGame, visitor: int, target: int, kind: str, step: float) -> None:
    """Record a visit; an absent target (banished tonight, mechanics/blocks.py) gets none."""
    if target not in game.plan.absent:
        game.plan.visits.append(Visit(visitor, target, kind, step))


def visitors_of(game: WerewolfGame, target: int) -> list[int]:
    """Everyone who visited ``target`` tonight, by seat, once each."""
    return sorted({v.visitor for v in game.plan.visits if v.target == target})


def visited_by(game: WerewolfGame, visitor: int) -> list[int]:
    """Everyone ``visitor`` visited tonight, by seat, once each."""
    return sorted({v.target for v in game.plan.visits if v.visitor == visitor})
