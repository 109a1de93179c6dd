"""The tables announced in the lobby whose game has not started yet, kept so that a line
costs what it changes: a join looks at the table of its channel, a bot at its own table,
and the clock at the tables whose wait is over, never at every table.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .lobby import Table


@dataclass
class Waiting:
    """An announced table: its channel, and until when it waits for its bots (from when its
    ``TABLE`` went out; until then, for ever) and for the operator's watchers."""

    table: Table
    channel: str
    start_by: float = math.inf
    watch_by: float = math.inf


class Announced:
    """Announced tables by game id, by channel and by bot, those that may have become ready
    since they were last looked at (``touch``), and the times they must be looked at anyway."""

    def __init__(self, fold: Callable[[str], str]) -> None:
        self.fold = fold
        self.tables: dict[str, Waiting] = {}
        self._by_channel: dict[str, str] = {}
        self._by_bot: dict[str, str] = {}
        """Folded bot name -> the table it sits at."""
        self._touched: dict[str, None] = {}
        self._timers: list[tuple[float, str]] = []
        """(time, gid) of every wait that ends, stale ones among them (``_valid``)."""

    def __len__(self) -> int:
        return len(self.tables)

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    def add(self, gid: str, table: Table, channel: str) -> None:
        self.tables[gid] = Waiting(table, channel)
        self._by_channel[self.fold(channel)] = gid
        for name in table.seats:
            self._by_bot[name.lower()] = gid
        self._touched[gid] = None

    def told(self, gid: str, start_by: float, watch_by: float) -> None:
        """The table's ``TABLE`` went out: its waits end at these times."""
        waiting = self.tables.get(gid)
        if waiting is not None:
            waiting.start_by, waiting.watch_by = start_by, watch_by
            heapq.heappush(self._timers, (start_by, gid))
            heapq.heappush(self._timers, (watch_by, gid))

    def pop(self, gid: str) -> Waiting:
        waiting = self.tables.pop(gid)
        self._by_channel.pop(self.fold(waiting.channel), None)
        for name in waiting.table.seats:
            if self._by_bot.get(name.lower()) == gid:
                del self._by_bot[name.lower()]
        self._touched.pop(gid, None)
        return waiting

    def of_bot(self, name: str) -> str | None:
        """The table bot ``name`` sits at, if any."""
        return self._by_bot.get(name.lower())

    def touch(self, gid: str | None) -> None:
        """Table ``gid`` may be ready now (None: no table)."""
        if gid is not None and gid in self.tables:
            self._touched[gid] = None

    def touch_channel(self, channel: str) -> None:
        self.touch(self._by_channel.get(self.fold(channel)))

    def touch_all(self) -> None:
        self._touched.update(dict.fromkeys(self.tables))

    def due(self, now: float) -> list[str]:
        """The tables to look at now: those touched, and those a wait of which is over."""
        timers = self._timers
        while timers and timers[0][0] <= now:
            _, gid = heapq.heappop(timers)
            self.touch(gid)
        due, self._touched = list(self._touched), {}
        return due

    def next_time(self) -> float | None:
        """When the next wait ends, if one does."""
        timers = self._timers
        while timers and not self._valid(*timers[0]):
            heapq.heappop(timers)
        return timers[0][0] if timers and timers[0][0] < math.inf else None

    def _valid(self, at: float, gid: str) -> bool:
        waiting = self.tables.get(gid)
        return waiting is not None and at in (waiting.start_by, waiting.watch_by)
