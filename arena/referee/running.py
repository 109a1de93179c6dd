"""The games a referee runs: by id, by the bots that play them, and by when each next has
work. Whatever a line changes, the referee finds what it touches here without going over
every game in flight.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Iterator, MutableMapping
from typing import TypeVar, overload

from .match import Match

_T = TypeVar("_T")


class Running(MutableMapping[str, Match]):
    """The running matches by id, with an index from each bot (folded name) to the matches
    it plays: a registration or a departure touches its own games only."""

    def __init__(self) -> None:
        self._by_id: dict[str, Match] = {}
        self._by_bot: dict[str, dict[str, Match]] = {}

    def __getitem__(self, gid: str) -> Match:
        return self._by_id[gid]

    def __setitem__(self, gid: str, match: Match) -> None:
        if gid in self._by_id:
            del self[gid]
        self._by_id[gid] = match
        for bot in match.bots:
            self._by_bot.setdefault(bot.lower(), {})[gid] = match

    def __delitem__(self, gid: str) -> None:
        match = self._by_id.pop(gid)
        for bot in match.bots:
            games = self._by_bot.get(bot.lower())
            if games is not None:
                games.pop(gid, None)
                if not games:
                    del self._by_bot[bot.lower()]

    @overload
    def get(self, gid: str, /) -> Match | None: ...
    @overload
    def get(self, gid: str, default: Match | _T, /) -> Match | _T: ...
    def get(self, gid: str, default: object = None, /) -> object:
        return self._by_id.get(gid, default)  # (read on every answer: not through __getitem__)

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, gid: object) -> bool:
        return gid in self._by_id

    def of(self, bot: str) -> list[Match]:
        """The matches ``bot`` (a bot's name) plays a seat of, oldest first."""
        return list(self._by_bot.get(bot.lower(), {}).values())


class Timetable:
    """When each running match next has work (``Match.next_deadline``), in a heap: a match
    is looked at again only once something may have changed it (``touch``), so the next
    deadline of a thousand games costs what changed since, not a thousand looks."""

    def __init__(self, matches: Running) -> None:
        self._matches = matches
        self._heap: list[tuple[float, int, str]] = []
        """(time, order, gid): the current entry of each match in ``_at``, and stale ones,
        dropped as they reach the top (or all at once, once they outnumber the rest)."""
        self._at: dict[str, float] = {}
        """When each match next has work, as last looked at."""
        self._touched: dict[str, None] = {}
        """Matches to look at again, in the order they were touched."""
        self._order = itertools.count()

    def touch(self, gid: str) -> None:
        """``gid`` may have changed: look at it again before saying what is next."""
        self._touched[gid] = None

    def when_sent(
        self, after_sent: Callable[[Callable[[float], None]], object], gid: str
    ) -> Callable[[Callable[[float], None]], object]:
        """A transport's ``after_sent`` as game ``gid`` uses it: what runs once its lines
        went out starts its clocks, so the game is looked at again after."""

        def register(then: Callable[[float], None]) -> object:
            def went(at: float) -> None:
                then(at)
                self.touch(gid)

            return after_sent(went)

        return register

    def _settle(self) -> None:
        at, heap = self._at, self._heap
        if self._touched:
            matches = self._matches
            for gid in self._touched:
                match = matches.get(gid)
                when = None if match is None else match.next_deadline()
                if when is None:
                    at.pop(gid, None)
                elif at.get(gid) != when:
                    at[gid] = when
                    heapq.heappush(heap, (when, next(self._order), gid))
            self._touched.clear()
            if len(heap) > 2 * len(at) + 64:
                self._heap = heap = [(when, next(self._order), gid) for gid, when in at.items()]
                heapq.heapify(heap)
        while heap and at.get(heap[0][2]) != heap[0][0]:
            heapq.heappop(heap)

    def next(self) -> float | None:
        """The soonest time a running match has work, if any has."""
        self._settle()
        return self._heap[0][0] if self._heap else None

    def due(self, now: float) -> list[str]:
        """The matches whose time has come by ``now``, soonest first: each is looked at
        again after (its poll moves its clocks)."""
        self._settle()
        heap, at = self._heap, self._at
        due: list[str] = []
        while heap and heap[0][0] <= now:
            when, _, gid = heapq.heappop(heap)
            if at.get(gid) == when:
                del at[gid]
                due.append(gid)
                self._touched[gid] = None
        return due
