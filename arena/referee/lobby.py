"""Who plays next, when, and in which seat order — free of IRC and of the clock.

Registered bots wait in the lobby and are seated ``max_players`` at a time. A full table
opens at once, since waiting cannot make it fuller; with ``auto_start``, a smaller one (at
least ``min_players``) opens once no bot has begun waiting for ``countdown`` seconds, and
at the latest ``max_wait`` seconds after the longest-waiting bot began waiting, so neither
a registration storm nor one client's REGISTER/UNREGISTER toggle holds the lobby back.
Another table opens while enough bots still wait. An operator may start one at any time.

A table keeps its roster (the set of bots at it) and its seat order for ``keep`` games in
a row, a block: as soon as all its bots are back from a game they sit again, in the same
order, whoever else waits. A table whose bot left (unregistered, quit) is broken up: its
other bots wait like anyone. When a table's block ends, its bots wait for every other
table's block to end too, and then new tables are drawn from everyone waiting: the bots
that played fewest games first (so every bot plays about as often as any other, and bots
left out of one draw are the first seated at the next), then, among equals, the bots that
have sat together least, one at a time. Without that wait, bots back from one table would
only ever find each other in the lobby, and with a number of bots that is a multiple of
``max_players`` the pools of the first tables would never meet. The draw is made with a
generator keyed by the service's secret master key (and a nonce of the process), so no
public line tells who will sit together next.

Each roster's seat order for a block derives from the secret master key, and its place in
its series is kept in the store (``RosterBook``), so a restart neither resets it nor brings
the first order back. Each game deals its roles from its own secret seed.
"""

from __future__ import annotations

import itertools
import random
import secrets
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from collections.abc import Iterable
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

    @property
    def deadline(self) -> float | None:
        """When ``due`` may next become true by itself (a countdown); None: only on an event."""
        ...

    @property
    def waiting(self) -> list[str]:
        """The bots waiting to be seated, longest-waiting first."""
        ...

    def add(self, nick: str, now: float) -> None: ...
    def remove(self, nick: str) -> None: ...
    def due(self, now: float) -> bool: ...
    def take(self, smallest: int, by_hand: bool = False) -> Table | None:
        """The next game, or None; ``by_hand``: an operator's ``!start``, which seats whoever
        waits now, whatever the lobby would wait for."""
        ...

    def withdraw(self, table: Table) -> None:
        """``table`` was taken but never started (one of its bots left first): as if it had
        not been taken. Its bots that can still play are then added again."""
        ...

    def wanted(self) -> list[str] | None:
        """The bots the next game waits for by name (a tournament's table), so an operator
        can be told whom; None when it waits for enough bots, whoever they are."""
        ...


class RosterBook(Protocol):
    """Where a roster's place in its series of seat orders outlives the process (``Store``)."""

    def get(self, game: str, roster: str) -> tuple[int, int] | None: ...
    def save(self, game: str, roster: str, block: int, games: int) -> None: ...


DRAW_TRIES = 8
"""Splits of the pool a draw tries, for a pool of up to ``DRAW_TABLES`` tables (fewer for a
larger one, at least one): with a single try the last tables of a split take whoever is
left; eight find splits that bring every pair together about as fast as can be."""
DRAW_TABLES = 4

DRAW_CANDIDATES = 40
"""Bots of the fewest games a draw weighs for each seat, at most: the first of them in the
draw's shuffled order. A pool of a thousand bots then costs a thousand picks among forty,
not a million comparisons, and a smaller one is drawn exactly as before."""


def _score(counts: Iterable[int]) -> tuple[int, int]:
    """(pairs that sat together before, games they did), from each pair's count."""
    listed = list(counts)
    return sum(1 for c in listed if c), sum(listed)


def _roster(players: Iterable[str]) -> str:
    """A roster's name: its bots, folded and sorted (as the store keeps it)."""
    return ",".join(sorted(n.lower() for n in players))


def _pair(a: str, b: str) -> tuple[str, str]:
    """Two bots as a pair counts them: folded, in order."""
    a, b = a.lower(), b.lower()
    return (a, b) if a < b else (b, a)


def _pairs(players: Iterable[str]) -> Iterable[tuple[str, str]]:
    return (_pair(a, b) for a, b in combinations(players, 2))


class Lobby:
    """Seats the bots that wait, ``max_players`` at a time, for the configured game."""

    def __init__(
        self,
        settings: LobbyConfig,
        options: Any,
        keep: int,
        key: bytes,
        book: RosterBook | None = None,
        nonce: str | None = None,
    ) -> None:
        """``keep``: games a table plays in one seat order; ``key``: the secret master key
        the seat orders and draws derive from; ``book``: where rosters' series persist
        (None: memory only); ``nonce``: what makes this lobby's draws its own (default: a
        fresh random one, so a restart does not draw again what its first run drew)."""
        self.settings = settings
        self.options = options
        self.keep = keep
        self._key = key
        self._book = book
        self._nonce = secrets.token_hex(16) if nonce is None else nonce
        self._draws = 0
        self.waiting: list[str] = []
        self._since: dict[str, float] = {}
        """When each waiting bot (folded name) began waiting."""
        self._last_arrival: float | None = None
        """When a bot last began waiting: the countdown runs from there."""
        self._played: Counter[str] = Counter()
        """Games each bot (folded name) was seated at by this lobby: who goes first."""
        self._met: Counter[tuple[str, str]] = Counter()
        """Games each pair of bots (folded, sorted) sat at together: who sits with whom."""
        self._away: dict[str, str | None] = {}
        """Bots seated and not back (folded) -> the roster of their table, None once it broke up."""
        self._kept: dict[str, list[str]] = {}
        """Tables in the middle of their block: roster -> its bots, away or waiting for the others."""
        self._kept_of: dict[str, str] = {}
        """Each bot (folded) of a kept table -> its roster."""
        self._full: dict[str, int] = {}
        """Kept tables whose bots are all back, with their place in ``_kept``: the first of
        them sits again first, and finding it costs nothing per line."""
        self._places = itertools.count()
        self._place: dict[str, int] = {}
        """Each kept roster's place in ``_kept`` (its first keeping)."""
        self._held: set[str] = set()
        """Waiting bots (folded) whose table's block ended: drawn again once no table is in a block."""
        self._planned: tuple[frozenset[str], list[list[str]]] | None = None
        """The rest of the last draw's split: the pool it is for (folded), its tables."""
        self._rosters: dict[str, tuple[int, int]] = {}
        """Roster -> (block of its seat order, games seated in that block)."""
        self.deadline: float | None = None
        self._pooled: list[str] = []
        """``_pool()`` as the last change left it (every change ends in ``_plan``): asked on
        every line, it costs nothing however many bots wait."""

    def add(self, nick: str, now: float) -> None:
        """A bot begins waiting (one already waiting keeps its place); one back from a
        game waits for its table, or, its block over, for the next draw."""
        key = nick.lower()
        if key not in self._since:
            self.waiting.append(nick)
            self._since[key] = now
            self._last_arrival = now
            table = self._away.pop(key, None)
            if table is not None and table not in self._kept:
                self._held.add(key)
            roster = self._kept_of.get(key)
            if roster is not None and all(p.lower() in self._since for p in self._kept[roster]):
                self._full[roster] = self._place[roster]
        self._plan()

    def remove(self, nick: str) -> None:
        """A bot left: it is seated nowhere, and the table it belonged to is broken up."""
        key = nick.lower()
        if self._since.pop(key, None) is not None:
            self.waiting = [n for n in self.waiting if n.lower() != key]
        self._held.discard(key)
        table = self._away.pop(key, None)
        if table is not None:
            self._break(table)
        roster = self._kept_of.get(key)
        if roster is not None:
            self._break(roster)
        self._plan()

    def _break(self, roster: str) -> None:
        """The table of ``roster`` plays no more: its bots still in a game come back free."""
        self._unkeep(roster)
        for key in roster.split(","):  # (a roster names its bots, folded: ``_roster``)
            if self._away.get(key, "") == roster:
                self._away[key] = None

    def _keep(self, roster: str, players: list[str]) -> None:
        """``roster``'s table is in its block: its bots, away now, sit together again."""
        if roster not in self._kept:
            self._place[roster] = next(self._places)
        self._kept[roster] = list(players)
        self._full.pop(roster, None)
        for p in players:
            self._kept_of[p.lower()] = roster

    def _unkeep(self, roster: str) -> None:
        players = self._kept.pop(roster, None)
        self._full.pop(roster, None)
        self._place.pop(roster, None)
        for p in players or ():
            if self._kept_of.get(p.lower()) == roster:
                del self._kept_of[p.lower()]

    def _free(self) -> list[str]:
        """The waiting bots no table keeps (a kept table's bots wait only for each other)."""
        kept = self._kept_of
        return [n for n in self.waiting if n.lower() not in kept]

    def _pool(self) -> list[str]:
        """Whom the lobby may draw by itself now: the free bots, but not those whose block
        ended while another table is still playing (they would only meet each other)."""
        return [n for n in self._free() if n.lower() not in self._held]

    def _ready(self) -> list[str] | None:
        """The bots of a kept table that are all back, if one is."""
        if not self._full:
            return None
        return self._kept[min(self._full, key=self._full.__getitem__)]

    def _plan(self) -> None:
        """Release the bots held for a draw once no table is in a block; then when a table
        of fewer than ``max_players`` falls due: ``countdown`` after the last arrival, but
        never later than ``max_wait`` after the first waiter's arrival."""
        if self._held and not self._away and not self._kept:
            self._held.clear()
        s = self.settings
        pool = self._pooled = self._pool()
        if not s.auto_start or len(pool) < s.min_players or self._last_arrival is None:
            self.deadline = None
        else:
            first = self._since[pool[0].lower()]  # (``waiting`` is longest-waiting first)
            self.deadline = min(self._last_arrival + s.countdown, first + s.max_wait)

    def due(self, now: float) -> bool:
        """Whether a table should open now by itself: a kept table whose bots are back, a
        full one, or one whose countdown ran out."""
        s = self.settings
        if not s.auto_start:
            return False
        if self._ready() is not None:
            return True
        pool = self._pooled
        if len(pool) < s.min_players:
            return False
        return len(pool) >= s.max_players or (self.deadline is not None and now >= self.deadline)

    def wanted(self) -> None:
        """Any bots will do: the lobby waits for a number, not for names."""
        return None

    def take(self, smallest: int, by_hand: bool = False) -> Table | None:
        """Seat the next game: a kept table whose bots are all back, or else up to
        ``max_players`` bots drawn from the pool (by hand: from every free bot); None if
        fewer than ``smallest`` may be drawn. Seated bots leave the waiting list until
        they return."""
        players = self._ready()
        if players is None:
            pool = self._free() if by_hand else self._pool()
            if len(pool) < max(smallest, 1):
                return None
            players = self._draw(pool)
        order, last = self._order(players)  # first: a store that cannot be written changes nothing
        seated = {p.lower() for p in players}
        self.waiting = [n for n in self.waiting if n.lower() not in seated]
        roster = _roster(players)
        for key in seated:
            del self._since[key]
            self._held.discard(key)
            self._away[key] = roster
            self._played[key] += 1
        self._met.update(_pairs(players))
        if last:
            self._unkeep(roster)
        else:
            self._keep(roster, players)
        self._plan()
        return Table(self.settings.game, self.options, list(order))

    def withdraw(self, table: Table) -> None:
        """A table that never started: as if it had not been seated, and not kept; its
        bots that can still play are then added again, free of it."""
        roster = _roster(table.seats)
        self._unkeep(roster)
        for nick in table.seats:
            key = nick.lower()
            self._away.pop(key, None)
            self._played[key] -= 1
        self._met.subtract(_pairs(table.seats))
        self._planned = None
        self._plan()

    def _draw(self, pool: list[str]) -> list[str]:
        """Up to ``max_players`` bots of ``pool``. The pool is split into as many tables as
        it fills, the bots that played fewest games first, and among equals so that the
        fewest pairs sit together again (then the fewest games together in all); a few
        splits are tried, their ties broken by the keyed generator, and the best one's
        tables are seated one by one while the pool stays as it left it."""
        seats = self.settings.max_players
        if len(pool) <= seats:
            return list(pool)
        if self._planned and frozenset(n.lower() for n in pool) == self._planned[0]:
            tables = self._planned[1]
        else:
            self._draws += 1
            rng = random.Random(derive(self._key, "draw", self.settings.game, self._nonce, self._draws))
            many = len(pool) > DRAW_TABLES * seats
            tries = max(1, DRAW_TRIES * DRAW_TABLES * seats // len(pool)) if many else DRAW_TRIES
            splits = [self._split(pool, seats, rng) for _ in range(tries)]
            tables = min(splits, key=lambda split: tuple(map(sum, zip(*map(self._cost, split)))))
        rest = [n.lower() for n in pool if n not in tables[0]]
        self._planned = (frozenset(rest), tables[1:]) if tables[1:] else None
        return tables[0]

    def _split(self, pool: list[str], seats: int, rng: random.Random) -> list[list[str]]:
        """One try: full tables filled bot by bot, each time with the bot (of the fewest
        games played, among the first ``DRAW_CANDIDATES`` of them) that has sat least with
        those at the table already."""
        played = self._played
        candidates = list(pool)
        rng.shuffle(candidates)
        candidates.sort(key=lambda n: played[n.lower()])  # (stable: equals stay shuffled)
        tables: list[list[str]] = []
        while len(candidates) >= seats:
            table: list[str] = []
            while len(table) < seats:
                level = played[candidates[0].lower()]
                equal = list(itertools.takewhile(lambda c: played[c.lower()] == level, candidates[:DRAW_CANDIDATES]))
                pick = min(equal, key=lambda c: _score(self._met[_pair(c, t)] for t in table))
                table.append(pick)
                candidates.remove(pick)
            tables.append(table)
        return tables

    def _cost(self, table: list[str]) -> tuple[int, int]:
        """(pairs that sat together before, games they did) of ``table``."""
        return _score(self._met[pair] for pair in _pairs(table))

    def _order(self, players: list[str]) -> tuple[tuple[str, ...], bool]:
        """The roster's seat order for this game, moving it one game on in its series, and
        whether this game is the last of its block."""
        roster = sorted(players, key=str.lower)
        name = _roster(roster)
        game = self.settings.game
        stored = self._book.get(game, name) if self._book is not None and name not in self._rosters else None
        block, games = self._rosters.get(name) or stored or (0, 0)
        if games >= self.keep:
            block, games = block + 1, 0
        if self._book is not None:
            self._book.save(game, name, block, games + 1)
        self._rosters[name] = (block, games + 1)
        return shuffled(roster, derive(self._key, "seating", game, name, block)), games + 1 >= self.keep
