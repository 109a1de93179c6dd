"""Where a local tournament's games are played: in this process, or in worker processes
that each play whole games and send back their records.

The games go out in batches of consecutive games (``BATCH``), a worker taking the next one
as it finishes one (so a slow batch does not hold up the others), and come back in schedule
order: the caller stores each batch in one transaction and rates it in that order, so the
stored games and ratings are the same with any number of workers. Workers are started with
``spawn`` (a fresh interpreter: nothing of the parent, no open store, no threads) and ignore
Ctrl-C, which is the parent's to handle; a worker whose parent dies (even by SIGKILL) sees
its task pipe closed and ends. What the bots log in a worker is sent back with its batch
and logged by the parent, in schedule order.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any

from ..config import Config, parse_config
from ..sdk.faults import Faults
from ..store import GameRecord
from ..store.records import BotRecord
from .player import GamePlayer
from .schedule import Settings, TournamentError

BATCH = 8
"""Games per batch: a worker's unit of work and a group commit of the store."""

AHEAD = 2
"""Batches given to each worker at a time: the next one is there when it finishes one, and
the records waiting to be stored stay a few batches, however long the tournament."""

LogLine = tuple[str, int, str]
"""A log record of a worker: its logger's name, level and whole text (traceback included)."""

FaultCounts = tuple[str, Counter[str], dict[str, str]]
"""A bot's faults as a worker counted them: its class name, the counts, the first of each."""


@dataclass(frozen=True)
class Job:
    """What a worker needs to play any game of the tournament."""

    settings: Settings
    options: Any
    config: dict[str, Any]
    """The configuration as data (``Config.to_dict``), read again by the worker."""
    log_level: int


def batches(indexes: Sequence[int]) -> list[list[int]]:
    """``indexes`` cut into batches of ``BATCH`` consecutive games."""
    return [list(indexes[i : i + BATCH]) for i in range(0, len(indexes), BATCH)]


class Players:
    """Plays games in this process (``jobs`` 1) or in ``jobs`` worker processes; a context
    manager, which stops the workers on its way out."""

    def __init__(self, settings: Settings, options: Any, config: Config, jobs: int) -> None:
        """Starts the bots, in each worker: a bot that cannot start is a TournamentError
        here, before anything is stored or played."""
        self.faults: dict[str, Faults] = {}
        """Every bot's faults, summed over the workers once they have stopped."""
        self.registered: list[BotRecord] = []
        """What the bots said of themselves when they registered (``begin``)."""
        self._local: GamePlayer | None = None
        self._workers: list[_Worker] = []
        if jobs <= 1:
            self._local = GamePlayer(settings, options, config)
            return
        job = Job(settings, options, config.to_dict(), logging.getLogger().getEffectiveLevel())
        context = multiprocessing.get_context("spawn")
        try:
            self._workers = [_Worker(context, job, n) for n in range(jobs)]
            for worker in self._workers:
                reply = worker.receive()
                if reply[0] == "error":
                    raise TournamentError(reply[1])
        except BaseException:
            self._stop(force=True)
            raise

    def begin(self, key: bytes) -> None:
        """Give the players the tournament's key (its schedule); the bots register."""
        if self._local is not None:
            self._local.begin(key)
            self.registered = self._local.registered()
            return
        for worker in self._workers:
            worker.tasks.send(key)
        for worker in self._workers:
            self.registered = worker.receive()

    def __enter__(self) -> Players:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop(force=exc is not None)

    def play(self, indexes: Sequence[int]) -> Iterator[list[GameRecord]]:
        """The records of these games, a batch at a time, in this order."""
        if self._local is not None:
            for batch in batches(indexes):
                yield self._local.play(batch)
            return
        todo = list(enumerate(batches(indexes)))
        todo.reverse()
        done: dict[int, list[GameRecord]] = {}
        given: dict[int, list[int]] = {}
        """Batch numbers each worker has been given and not yet sent back."""
        following = 0
        for worker in self._workers:
            given[worker.number] = []
            while todo and len(given[worker.number]) < AHEAD:
                number, batch = todo.pop()
                worker.give(number, batch)
                given[worker.number].append(number)
        by_pipe = {worker.results: worker for worker in self._workers}
        while any(given.values()):
            for pipe in wait([w.results for w in self._workers if given[w.number]]):
                worker = by_pipe[pipe]
                reply = worker.receive()
                if reply[0] != "games":
                    raise RuntimeError(f"tournament worker {worker.number} failed:\n{reply[1]}")
                _, number, records, logged = reply
                _relog(logged)
                given[worker.number].remove(number)
                done[number] = records
                if todo:
                    number, batch = todo.pop()
                    worker.give(number, batch)
                    given[worker.number].append(number)
            while following in done:
                yield done.pop(following)
                following += 1

    def _stop(self, force: bool) -> None:
        """Stop the workers: after they have sent their bots' faults, or at once (``force``)."""
        if self._local is not None:
            self.faults = self._local.faults()
            return
        for worker in self._workers:
            worker.stop()
        for worker in self._workers:
            if not force:
                try:
                    reply = worker.receive()
                except RuntimeError:
                    continue
                if reply[0] == "faults":
                    _relog(reply[2])
                    for nick, (bot, counts, first) in reply[1].items():
                        self.faults.setdefault(nick, Faults(bot)).add(counts, first)
            worker.end(force)


class _Worker:
    """The parent's end of one worker process."""

    def __init__(self, context: Any, job: Job, number: int) -> None:
        self.number = number
        tasks_in, self.tasks = context.Pipe(duplex=False)
        self.results, results_out = context.Pipe(duplex=False)
        self.process = context.Process(
            target=work, args=(job, tasks_in, results_out), name=f"arena-tournament-{number}", daemon=True
        )
        self.process.start()
        tasks_in.close()  # the worker's ends: closed here, so each side sees the other go
        results_out.close()

    def give(self, number: int, batch: list[int]) -> None:
        self.tasks.send((number, batch))

    def receive(self) -> Any:
        try:
            return self.results.recv()
        except EOFError:
            self.process.join(5)
            raise RuntimeError(
                f"tournament worker {self.number} ended unexpectedly (exit code {self.process.exitcode})"
            ) from None

    def stop(self) -> None:
        try:
            self.tasks.send(None)
        except OSError:
            pass  # already gone
        self.tasks.close()

    def end(self, force: bool) -> None:
        if force:
            self.process.terminate()
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.results.close()


class _Kept(logging.Handler):
    """Keeps a worker's log records, to be sent to the parent with its next reply."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[LogLine] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        self.lines.append((record.name, record.levelno, text))

    def take(self) -> list[LogLine]:
        lines, self.lines = self.lines, []
        return lines


def _relog(lines: list[LogLine]) -> None:
    for name, level, text in lines:
        logging.getLogger(name).log(level, "%s", text)


def work(job: Job, tasks: Connection, results: Connection) -> None:
    """A worker process: start the bots, take the tournament's key, then play each batch it
    is given and send back its records, until told to stop (None) or its parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    kept = _Kept()
    root = logging.getLogger()
    root.handlers[:] = [kept]
    root.setLevel(job.log_level)
    try:
        try:
            player = GamePlayer(job.settings, job.options, parse_config(job.config))
        except TournamentError as exc:
            results.send(("error", str(exc)))
            return
        results.send(("ready",))
        key = tasks.recv()
        if key is None:
            return  # nothing to play after all
        player.begin(key)
        results.send(player.registered())
        while (task := tasks.recv()) is not None:
            number, batch = task
            try:
                records = player.play(batch)
            except Exception:
                results.send(("failed", traceback.format_exc()))
                return
            results.send(("games", number, records, kept.take()))
        counted = {nick: (f.bot, f.counts, f.first) for nick, f in player.faults().items()}
        results.send(("faults", counted, kept.take()))
    except (EOFError, OSError):
        return  # the parent is gone: nobody to play for
