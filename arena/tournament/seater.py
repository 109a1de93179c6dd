"""The lobby of a tournament: its games seated in schedule order, each once its bots wait."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from ..referee.lobby import Table
from .schedule import Schedule


class TournamentSeater:
    """Seats the tournament's games in order over IRC, each once all its bots wait in the
    lobby (registered and not playing). Games whose bots are disjoint may run at once; a
    game withdrawn before its start (one of its bots left) is the next seated again."""

    def __init__(
        self,
        schedule: Schedule,
        options: Any,
        played: Callable[[str], bool],
        *,
        todo: Iterable[int] | None = None,
        one_at_a_time: bool = False,
        on_take: Callable[[Table, int], None] | None = None,
    ) -> None:
        """``played`` tells the games to skip: stored already, or in progress (a restarted
        referee takes those up where they stopped). ``todo``: the indexes of the games to
        seat, in order (default: every game of the schedule; a worker of a local tournament
        is given its share, ``extend``). ``one_at_a_time``: a game is seated only once every
        bot of the tournament waits (in memory, where the bots share a process and its
        ``random`` stream); ``on_take`` is told each table, and its index, as it is seated
        (to seed its bots' streams)."""
        self.schedule = schedule
        self.settings = schedule.settings
        self.options = options
        self._one_at_a_time = one_at_a_time
        self._on_take = on_take
        self.deadline: float | None = None
        self.waiting: list[str] = []
        self._played = played
        self._todo: deque[int] = deque(range(self.settings.games) if todo is None else todo)
        """The games still to seat, by index, in order."""
        self._again: list[int] = []
        """Games withdrawn before their start, by index: seated again before the others."""
        self._skip()

    def extend(self, indexes: Iterable[int]) -> None:
        """Seat these games too, after the ones still to seat."""
        self._todo.extend(indexes)
        self._skip()

    def _skip(self) -> None:
        todo = self._todo
        while todo and self._played(self.schedule.table(todo[0]).gid):
            todo.popleft()

    def _current(self) -> int | None:
        """The index of the next game to seat, if any is left."""
        if self._again:
            return min(self._again)
        return self._todo[0] if self._todo else None

    def _folded(self) -> set[str]:
        return {n.lower() for n in self.waiting}

    def add(self, nick: str, now: float) -> None:
        if nick.lower() not in self._folded():
            self.waiting.append(nick)

    def remove(self, nick: str) -> None:
        self.waiting = [n for n in self.waiting if n.lower() != nick.lower()]

    def due(self, now: float) -> bool:
        if self._one_at_a_time and len(self.waiting) < len(self.settings.bots):
            return False
        return not self.wanted() and self._current() is not None

    def wanted(self) -> list[str]:
        """The bots the next game needs that are not waiting (none once every game is seated)."""
        index = self._current()
        if index is None:
            return []
        waiting = self._folded()
        return [n for n in self.schedule.table(index).seats if n.lower() not in waiting]

    def take(self, smallest: int, by_hand: bool = False) -> Table | None:
        """The next game of the schedule once all its bots wait (by hand too: a tournament
        plays only its own games)."""
        index = self._current()
        if index is None or not self.due(0.0):
            return None
        if self._again:
            self._again.remove(index)
        else:
            self._todo.popleft()
            self._skip()
        planned = self.schedule.table(index)
        seats = {n.lower() for n in planned.seats}
        self.waiting = [n for n in self.waiting if n.lower() not in seats]
        table = Table(self.settings.game, self.options, list(planned.seats), planned.gid, planned.seed)
        if self._on_take is not None:
            self._on_take(table, index)
        return table

    def withdraw(self, table: Table) -> None:
        """The game of ``table`` did not start: it is seated again, first, once its bots wait."""
        assert table.gid is not None
        self._again.append(self.schedule.index(table.gid))
