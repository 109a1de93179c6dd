"""A tournament's progress as its games finish: how far, how fast lately, who leads.

The rate is taken over a moving window (the last ``Pace.games`` games, none older than
``Pace.seconds``), not since the start: a tournament whose games grow slower or faster
(bots that learn, a busy machine, a store that grows) is told its present pace, and the
ETA follows it instead of the average of the whole run.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Progress:
    """What a progress display needs after each game."""

    done: int
    total: int
    played_now: int
    """Games played by this run (a resumed tournament counts from its resumption)."""
    seconds: float
    """Since this run started."""
    leaders: list[tuple[str, float]]
    recent_games: int = 0
    """Games in the moving window (0: no window, the rate is since the start)."""
    recent_seconds: float = 0.0
    """The time the window's games took."""

    @property
    def rate(self) -> float:
        """Games per second over the moving window (since the start without one)."""
        games, seconds = (
            (self.recent_games, self.recent_seconds) if self.recent_games else (self.played_now, self.seconds)
        )
        return games / seconds if seconds > 0 else 0.0

    @property
    def eta(self) -> float | None:
        """Seconds left at the present rate."""
        return (self.total - self.done) / self.rate if self.rate > 0 else None


ProgressCallback = Callable[[Progress], None]


class Pace:
    """The moving window of finished games: their end times, from the end of the game
    before the first of them."""

    def __init__(self, start: float, games: int = 100, seconds: float = 30.0) -> None:
        self.games = games
        self.seconds = seconds
        self._ends: deque[float] = deque([start])

    def finished(self, now: float) -> tuple[int, float]:
        """One more game ended at ``now``: how many games the window holds and how long
        they took. It keeps at least the last game, however long it took."""
        ends = self._ends
        ends.append(now)
        while len(ends) > self.games + 1 or (len(ends) > 2 and now - ends[1] > self.seconds):
            ends.popleft()
        return len(ends) - 1, now - ends[0]
