"""Where a local tournament's games are played: in this process, or in worker processes
(``arena.parallel``) that each hold the tournament's bots and an in-memory referee
(``GamePlayer``) and play whole games.

The games go out in batches of consecutive games (``BATCH``) and come back in schedule
order: the caller stores each batch in one transaction and rates it in that order, so the
stored games and ratings are the same with any number of workers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Any

from ..config import Config, parse_config
from ..parallel import Workers
from ..sdk.faults import Faults
from ..store import GameRecord
from ..store.records import BotRecord
from .player import GamePlayer
from .schedule import Settings, TournamentError

BATCH = 8
"""Games per batch: a worker's unit of work and a group commit of the store."""

GAMES_PER_WORKER = 100
"""Games a worker process plays at least: starting one costs up to a second (a
spawned interpreter imports the arena; a forked one still sets up its bots and referee),
which fewer games would not pay back."""

FaultCounts = tuple[str, Counter[str], dict[str, str]]
"""A bot's faults as one worker counted them: its class name, the counts, the first of each."""


def batches(indexes: Sequence[int]) -> list[list[int]]:
    """``indexes`` cut into batches of ``BATCH`` consecutive games."""
    return [list(indexes[i : i + BATCH]) for i in range(0, len(indexes), BATCH)]


class _Share:
    """A worker's part of the tournament: its own bots and referee, playing the batches it
    is given (a bytes task is the tournament's key, which registers the bots)."""

    def __init__(self, settings: Settings, options: Any, config: dict[str, Any]) -> None:
        self.player = GamePlayer(settings, options, parse_config(config))

    def __call__(self, task: bytes | list[int]) -> list[BotRecord] | list[GameRecord]:
        if isinstance(task, bytes):
            self.player.begin(task)
            return self.player.registered()
        return self.player.play(task)

    def close(self) -> dict[str, FaultCounts]:
        return {nick: (f.bot, f.counts, f.first) for nick, f in self.player.faults().items()}


class Players:
    """Plays games in this process (``jobs`` 1) or in ``jobs`` worker processes; a context
    manager, which stops the workers on its way out."""

    def __init__(self, settings: Settings, options: Any, config: Config, jobs: int) -> None:
        """Starts the bots (in each worker): a bot that cannot start is a TournamentError
        here, before anything is stored or played."""
        self.faults: dict[str, Faults] = {}
        """Every bot's faults, summed over the workers once they have stopped."""
        self.registered: list[BotRecord] = []
        """What the bots said of themselves when they registered (``begin``)."""
        self._local: GamePlayer | None = None
        self._workers: Workers | None = None
        if jobs <= 1:
            self._local = GamePlayer(settings, options, config)
        else:
            args = (settings, options, config.to_dict())  # the configuration as data: read again there
            self._workers = Workers(_Share, args, jobs, refuses=(TournamentError,))

    def __enter__(self) -> Players:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._local is not None:
            self.faults = self._local.faults()
            return
        assert self._workers is not None
        self._workers.__exit__(kind, exc, tb)
        for counted in self._workers.finals:
            for nick, (bot, counts, first) in counted.items():
                self.faults.setdefault(nick, Faults(bot)).add(counts, first)

    def begin(self, key: bytes) -> None:
        """Give the players the tournament's key (its schedule); the bots register."""
        if self._local is not None:
            self._local.begin(key)
            self.registered = self._local.registered()
        else:
            assert self._workers is not None
            self.registered = self._workers.each(key)[0]

    def play(self, indexes: Sequence[int]) -> Iterator[list[GameRecord]]:
        """The records of these games, a batch at a time, in this order."""
        if self._local is not None:
            return (self._local.play(batch) for batch in batches(indexes))
        assert self._workers is not None
        return self._workers.ordered(batches(indexes))
