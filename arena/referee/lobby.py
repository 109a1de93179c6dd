"""Who plays next, when, and in which seat order — free of IRC and of the clock.

Registered bots wait in the lobby and are seated ``max_players`` at a time, longest-waiting
first and, among bots that began waiting together (back from one game), those that played
fewest games first: so every bot plays about as often as any other, and bots left out
of one table are the first seated at the next. (Going by seat order instead would leave
out the same bots again and again, since a roster keeps its order.) A full table
opens at once, since waiting cannot make it fuller; with ``auto_start``, a smaller one
(at least ``min_players``) opens once no bot has begun waiting for ``countdown`` seconds,
and at the latest ``max_wait`` seconds after the longest-waiting bot began waiting, so
neither a registration storm nor one client's REGISTER/UNREGISTER toggle holds the lobby
back. Another table opens while enough bots still wait. An operator may start one at any
time.

Each roster (the set of bots at a table) keeps its seat order for ``keep`` games whenever
it sits again, then it is reshuffled; the orders derive from the service's secret master
key, and each roster's place in its series is kept in the store (``RosterBook``), so a
restart neither resets it nor brings the first order back. Each game deals its roles from
its own secret seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..config import LobbyConfig
from ..core.keys import derive
from ..core.seating import shuffled


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
    waiting: list[str]
    """The bots waiting to be seated, longest-waiting first."""

    def add(self, nick: str, now: float) -> None: ...
    def remove(self, nick: str) -> None: ...
    def due(self, now: float) -> bool: ...
    def take(self, smallest: int) -> Table | None: ...
    def wanted(self) -> list[str] | None:
        """The bots the next game waits for by name (a tournament's table), so an operator
        can be told whom; None when it waits for enough bots, whoever they are."""
        ...


class RosterBook(Protocol):
    """Where a roster's place in its series of seat orders outlives the process (``Store``)."""

    def roster(self, game: str, roster: str) -> tuple[int, int] | None: ...
    def save_roster(self, game: str, roster: str, block: int, games: int) -> None: ...


class Lobby:
    """Seats the bots that wait, ``max_players`` at a time, for the configured game."""

    def __init__(self, settings: LobbyConfig, options: Any, keep: int, key: bytes,
                 book: RosterBook | None = None) -> None:
        """``keep``: games a roster plays in one seat order; ``key``: the secret master key
        the seat orders derive from; ``book``: where rosters' series persist (None: memory only)."""
        self.settings = settings
        self.options = options
        self.keep = keep
        self._key = key
        self._book = book
        self.waiting: list[str] = []
        self._since: dict[str, float] = {}
        """When each waiting bot (folded name) began waiting."""
        self._last_arrival: float | None = None
        """When a bot last began waiting: the countdown runs from there."""
        self._played: dict[str, int] = {}
        """Games each bot (folded name) was seated at by this lobby: who goes first among equals."""
        self._rosters: dict[str, tuple[int, int]] = {}
        """Folded roster -> (block of its seat order, games seated in that block)."""
        self.deadline: float | None = None

    def add(self, nick: str, now: float) -> None:
        """A bot begins waiting (one already waiting keeps its place)."""
        if nick.lower() not in self._since:
            self.waiting.append(nick)
            self._since[nick.lower()] = now
            self._last_arrival = now
        self._plan()

    def remove(self, nick: str) -> None:
        if self._since.pop(nick.lower(), None) is not None:
            self.waiting = [n for n in self.waiting if n.lower() != nick.lower()]
        self._plan()

    def _plan(self) -> None:
        """When a table of fewer than ``max_players`` falls due: ``countdown`` after the
        last arrival, but never later than ``max_wait`` after the first waiter's arrival."""
        s = self.settings
        if not s.auto_start or len(self.waiting) < s.min_players or self._last_arrival is None:
            self.deadline = None
        else:
            first = self._since[self.waiting[0].lower()]
            self.deadline = min(self._last_arrival + s.countdown, first + s.max_wait)

    def due(self, now: float) -> bool:
        """Whether a table should open now by itself: a full one, or one whose countdown ran out."""
        s = self.settings
        if not s.auto_start or len(self.waiting) < s.min_players:
            return False
        return len(self.waiting) >= s.max_players or (self.deadline is not None and now >= self.deadline)

    def wanted(self) -> None:
        """Any bots will do: the lobby waits for a number, not for names."""
        return None

    def take(self, smallest: int) -> Table | None:
        """Seat the next game: up to ``max_players`` bots, longest-waiting first (then
        fewest games played), in their roster's seat order; None if fewer than ``smallest``
        wait. Seated bots leave the waiting list until they return."""
        if len(self.waiting) < max(smallest, 1):
            return None
        queue = sorted(self.waiting, key=lambda n: (self._since[n.lower()], self._played.get(n.lower(), 0)))
        players = queue[: self.settings.max_players]
        seated = {p.lower() for p in players}
        self.waiting = [n for n in self.waiting if n.lower() not in seated]
        for nick in players:
            del self._since[nick.lower()]
            self._played[nick.lower()] = self._played.get(nick.lower(), 0) + 1
        self._plan()
        return Table(self.settings.game, self.options, list(self._order(players)))

    def _order(self, players: list[str]) -> tuple[str, ...]:
        """The roster's seat order for this game, moving it one game on in its series."""
        roster = sorted(players, key=str.lower)
        name = ",".join(n.lower() for n in roster)
        game = self.settings.game
        stored = self._book.roster(game, name) if self._book is not None and name not in self._rosters else None
        block, games = self._rosters.get(name) or stored or (0, 0)
        if games >= self.keep:
            block, games = block + 1, 0
        self._rosters[name] = (block, games + 1)
        if self._book is not None:
            self._book.save_roster(game, name, block, games + 1)
        return shuffled(roster, derive(self._key, "seating", game, name, block))
