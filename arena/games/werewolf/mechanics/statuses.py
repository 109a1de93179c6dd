"""Statuses: marks on players with a lifetime (charmed, silenced, doused, warded...).

A status is held from the moment it is given until the end of day ``until`` (None: for the
rest of the game). ``expire`` runs at the start of every night and drops what has run out,
so a player silenced on night 3 (``until=3``) is silent through day 3 only. ``remove``
takes statuses away (a cleansing). Every status still held at the end is revealed in
``END`` (``statuses_at_end``). The store is ``game.statuses``: name to seat to ``until``,
plain data, so a game pickles and replays.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import WerewolfGame

CHARMED = "charmed"
"""The piper's charm (for the rest of the game)."""
SILENCED = "silenced"
"""No turn at the floor (through the day after the silencer's night): the engine reads it."""
VOTELESS = "voteless"
"""No vote in the day's executions (a scapegoat's punishment, through the next day): the engine reads it."""
WARDED = "warded"
"""A warder's charm, held until it stops a kill: beneficial, so no cleansing lifts it."""
OILED = "oiled"
"""The arsonist's douse (for the rest of the game, or until a cleansing)."""
HARMFUL = (CHARMED, SILENCED, VOTELESS, OILED)
"""What a priest's cleansing lifts."""
CULT = "cult"
"""A cult leader's recruit (while the cult leader lives): a change of side, not a harm."""


def add(game: WerewolfGame, name: str, seat: int, until: int | None = None) -> None:
    game.statuses.setdefault(name, {})[seat] = until


def has(game: WerewolfGame, name: str, seat: int) -> bool:
    return seat in game.statuses.get(name, {})


def holders(game: WerewolfGame, name: str) -> list[int]:
    """The seats that hold ``name``, dead or alive, by seat."""
    return sorted(game.statuses.get(name, {}))


def remove(game: WerewolfGame, seat: int, names: Iterable[str]) -> list[str]:
    """Take ``names`` away from ``seat``; the ones it held, in the order given."""
    removed = []
    for name in names:
        seats = game.statuses.get(name, {})
        if seat in seats:
            del seats[seat]
            removed.append(name)
    return removed


def expire(game: WerewolfGame) -> None:
    """Drop every status whose last day is over (called as each night begins)."""
    for seats in game.statuses.values():
        for seat in [s for s, until in seats.items() if until is not None and until < game.day]:
            del seats[seat]


def statuses_at_end(game: WerewolfGame) -> dict[str, list[int]]:
    return {name: sorted(seats) for name, seats in sorted(game.statuses.items())}
