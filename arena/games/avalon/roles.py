"""Avalon roles, their sides and the visibility table of the optional rules, cell by cell."""

from __future__ import annotations

from enum import Enum


class Side(str, Enum):
    GOOD = "good"
    EVIL = "evil"


class Role(str, Enum):
    MERLIN = "merlin"
    PERCIVAL = "percival"
    GOOD_LANCELOT = "good_lancelot"
    SERVANT = "servant"
    ASSASSIN = "assassin"
    MORDRED = "mordred"
    MORGANA = "morgana"
    EVIL_LANCELOT = "evil_lancelot"
    OBERON = "oberon"
    MINION = "minion"


GOOD_ROLES = frozenset({Role.MERLIN, Role.PERCIVAL, Role.GOOD_LANCELOT, Role.SERVANT})
LANCELOTS = frozenset({Role.GOOD_LANCELOT, Role.EVIL_LANCELOT})


def starting_side(role: Role) -> Side:
    return Side.GOOD if role in GOOD_ROLES else Side.EVIL


R = Role
SEES: dict[Role, frozenset[Role]] = {
    R.MERLIN: frozenset({R.ASSASSIN, R.MORGANA, R.EVIL_LANCELOT, R.OBERON, R.MINION}),
    R.PERCIVAL: frozenset({R.MERLIN, R.MORGANA}),
    R.GOOD_LANCELOT: frozenset(),
    R.SERVANT: frozenset(),
    R.ASSASSIN: frozenset({R.MORDRED, R.MORGANA, R.EVIL_LANCELOT, R.MINION}),
    R.MORDRED: frozenset({R.ASSASSIN, R.MORGANA, R.EVIL_LANCELOT, R.MINION}),
    R.MORGANA: frozenset({R.ASSASSIN, R.MORDRED, R.EVIL_LANCELOT, R.MINION}),
    R.EVIL_LANCELOT: frozenset(),
    R.OBERON: frozenset(),
    R.MINION: frozenset({R.ASSASSIN, R.MORDRED, R.MORGANA, R.EVIL_LANCELOT, R.MINION}),
}
"""The ``V`` cells: whom each role sees in every game."""

SEES_WITH_VARIANT_3: dict[Role, frozenset[Role]] = {
    R.GOOD_LANCELOT: frozenset({R.EVIL_LANCELOT}),
    R.EVIL_LANCELOT: frozenset({R.GOOD_LANCELOT, R.ASSASSIN, R.MORDRED, R.MORGANA, R.MINION}),
}
"""The ``?`` cells: seen only under Lancelot variant 3."""
del R


def seen_roles(role: Role, lancelot_variant: int) -> frozenset[Role]:
    """The roles a player of ``role`` sees at the start of the game."""
    if lancelot_variant == 3:
        return SEES[role] | SEES_WITH_VARIANT_3.get(role, frozenset())
    return SEES[role]
