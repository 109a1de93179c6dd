"""Who plays next, when, and in which seat order — free of IRC and of the clock.

Registered bots wait in the lobby. With ``auto_start`` a game starts once at least
``min_players`` wait and no one has registered for ``countdown`` seconds (each
registration restarts the countdown); an operator may start one at any time. The same
roster keeps its seat order for ``keep`` games, then it is reshuffled (``Seating``), from
the service's secret master key; each game deals its roles from its own secret seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..core.keys import derive
from ..core.seating import Seating


@dataclass(frozen=True)
class Table:
    """A game to seat: what is played, by whom and in which seat order.

    ``gid`` and ``seed`` are None when the referee should number the game and derive its
    seed; a tournament fixes both so that its games are the same on every run.
    """

    game: str
    options: Any
    seats: list[str]
    gid: str | None = None
    seed: int | None = field(default=None, repr=False)
    """Secret: the engine deals the roles from it."""


class Seater(Protocol):
    """What the IRC service asks of whoever decides the next game (``Lobby``, a tournament)."""

    deadline: float | None
    """When ``due`` may next become true by itself (a countdown); None: only on an event."""

    def add(self, nick: str, now: float) -> None: ...
    def remove(self, nick: str) -> None: ...
    def due(self, now: float) -> bool: ...
    def take(self, smallest: int) -> Table | None: ...


class Lobby:
    """Seats the bots that wait, ``max_players`` at a time, for the configured game."""

    def __init__(
        self, game: str, options: Any, min_players: int, max_players: int, countdown: float, auto_start: bool,
        keep: int, key: bytes,
    ) -> None:
        """``key``: the secret master key the seat orders derive from."""
        self.game = game
        self.options = options
        self.min_players = min_players
        self.max_players = max_players
        self.countdown = countdown
        self.auto_start = auto_start
        self.keep = keep
        self._key = key
        self.waiting: list[str] = []
        """Registered bots not seated in a game, in order of registration."""
        self.deadline: float | None = None
        self._seating: Seating | None = None
        self._played = 0

    def add(self, nick: str, now: float) -> None:
        if nick.lower() not in (n.lower() for n in self.waiting):
            self.waiting.append(nick)
        if self.auto_start and len(self.waiting) >= self.min_players:
            self.deadline = now + self.countdown

    def remove(self, nick: str) -> None:
        self.waiting = [n for n in self.waiting if n.lower() != nick.lower()]
        if len(self.waiting) < self.min_players:
            self.deadline = None

    def due(self, now: float) -> bool:
        """Whether the automatic countdown has run out with enough bots waiting."""
        return self.deadline is not None and now >= self.deadline and len(self.waiting) >= self.min_players

    def take(self, smallest: int) -> Table | None:
        """Seat the next game: up to ``max_players`` waiting bots in seat order; None if
        fewer than ``smallest`` wait. Seated bots leave the waiting list until they return."""
        if len(self.waiting) < smallest:
            return None
        players = self.waiting[: self.max_players]
        roster = tuple(sorted(players))
        if self._seating is None or self._seating.players != roster:
            self._seating = Seating(roster, self.keep, derive(self._key, "seating", *roster))
            self._played = 0
        order = list(self._seating.order(self._played))
        self._played += 1
        self.waiting = self.waiting[len(players):]
        self.deadline = None
        return Table(self.game, self.options, order)
