"""Worker processes that each hold a long-lived handler (bots, a referee) and answer tasks
sent to them, with the answers taken back in the order the tasks were given.

Why not ``concurrent.futures``: its workers hold state between tasks only in module
globals (an initializer's), and a tournament's workers hold bots and a referee. Here each
worker has its own pipes, and the parent's ends are the only ones left open: a worker whose
parent dies (even by SIGKILL) reads the end of its task pipe and stops, so none outlives
it (``bench/kill_resume.py`` checks). Workers are forked where that is safe (Linux, a
parent with no other thread): a forked worker starts with the arena imported, where a
fresh interpreter (``spawn``, elsewhere) takes about a CPU-second to import it, as much as
a hundred games. A forked worker closes the parent's ends of every worker's pipes that it
inherited, and never touches what else it inherits (the parent's open store). Workers
ignore Ctrl-C, which is the parent's to handle.
What a worker logs is sent back with its next answer and logged by the parent, so the log
reads in the order of the tasks.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from types import TracebackType
from typing import Any

AHEAD = 2
"""Tasks given to each worker at a time: the next one is there when it finishes one, and
the answers waiting for their turn stay a few, however many tasks there are."""

LogLine = tuple[str, int, str]
"""A worker's log record: its logger's name, level and whole text (traceback included)."""


class WorkerFailed(RuntimeError):
    """A worker raised anything else, or ended without a word (its traceback or exit code)."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def start_method() -> str:
    """``fork`` where a worker may be forked safely (see the module's docstring), else ``spawn``."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "spawn"


def settle() -> None:
    """Take what the process has built so far (its imports, configuration, bots) out of the
    cyclic collector's reach: it lives as long as the process, and a full collection would
    walk it every time (some 45,000 objects after the imports, about 0.4 M instructions a
    ten-player game over a short run). Called by long-running commands and workers once
    they are set up; garbage is collected first, so none of it is kept for good."""
    gc.collect()
    gc.freeze()


class Workers:
    """``count`` worker processes, each holding a handler ``factory(*args)``: it answers
    each task (``handler(task)``), and a last time when stopped (``handler.close()``). A
    context manager that stops them on its way out (at once if an exception is on its way)."""

    def __init__(
        self,
        factory: Callable[..., Any],
        args: tuple[Any, ...],
        count: int,
        refuses: tuple[type[Exception], ...] = (),
    ) -> None:
        """Start the workers and wait until each has built its handler: a factory that
        raises one of ``refuses`` (a handler that cannot start says why) raises it here."""
        context = multiprocessing.get_context(start_method())
        forked = context.get_start_method() == "fork"
        level = logging.getLogger().getEffectiveLevel()
        self._workers: list[_Worker] = []
        self.finals: list[Any] = []
        """Each worker's last answer (its handler's ``close``), once stopped."""
        try:
            for number in range(count):
                theirs = [end for w in self._workers for end in (w.tasks, w.results)] if forked else None
                self._workers.append(_Worker(context, number, (factory, args, refuses), level, theirs))
            for worker in self._workers:
                worker.answer()  # built, or refused
        except BaseException:
            self._stop(force=True)
            raise

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop(force=exc is not None)

    def each(self, task: Any) -> list[Any]:
        """Give every worker the same task; their answers."""
        for worker in self._workers:
            worker.give(task)
        return [worker.answer() for worker in self._workers]

    def ordered(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """The answers to ``tasks``, in their order: each worker takes the next task as it
        answers one, so a slow task holds up no other worker."""
        pending = iter(enumerate(tasks))
        answers: dict[int, Any] = {}
        given: dict[_Worker, list[int]] = {worker: [] for worker in self._workers}
        following = 0

        def give(worker: _Worker) -> None:
            for number, task in pending:
                worker.give(task)
                given[worker].append(number)
                return

        for worker in self._workers:
            for _ in range(AHEAD):
                give(worker)
        by_pipe = {worker.results: worker for worker in self._workers}
        while any(given.values()):
            for pipe in wait([w.results for w, numbers in given.items() if numbers]):
                worker = by_pipe[pipe]
                answers[given[worker].pop(0)] = worker.answer()
                give(worker)
            while following in answers:
                yield answers.pop(following)
                following += 1

    def _stop(self, force: bool) -> None:
        for worker in self._workers:
            worker.stop()
        for worker in self._workers:
            if not force:
                try:
                    self.finals.append(worker.answer())
                except WorkerFailed:
                    pass  # it had ended already; what it said then was raised then
            worker.end(force)


class _Worker:
    """The parent's end of one worker process."""

    def __init__(
        self, context: Any, number: int, build: tuple[Any, ...], level: int, others: list[Connection] | None
    ) -> None:
        """``build``: the handler's factory, its arguments and the exceptions it refuses with.
        ``others``: where the worker is forked, the parent's ends of the workers' pipes
        started before it (None: not forked, it inherits none)."""
        self.number = number
        tasks_in, self.tasks = context.Pipe(duplex=False)
        self.results, results_out = context.Pipe(duplex=False)
        inherited = [] if others is None else [self.tasks, self.results, *others]
        self.process = context.Process(
            target=_serve, args=(*build, level, tasks_in, results_out, inherited), name=f"arena-worker-{number}"
        )
        self.process.daemon = True
        self.process.start()
        tasks_in.close()  # the worker's ends: closed here, so each side sees the other go
        results_out.close()

    def give(self, task: Any) -> None:
        self.tasks.send(task)

    def answer(self) -> Any:
        """The worker's next answer, its log relogged here; raises what it could not do."""
        try:
            kind, value, logged = self.results.recv()
        except EOFError:
            self.process.join(5)
            raise WorkerFailed(f"worker {self.number} ended unexpectedly (exit code {self.process.exitcode})") from None
        for name, level, text in logged:
            logging.getLogger(name).log(level, "%s", text)
        if kind == "refused":
            raise value
        if kind == "failed":
            raise WorkerFailed(f"worker {self.number} failed:\n{value}")
        return value

    def stop(self) -> None:
        try:
            self.tasks.send(None)
            self.tasks.close()
        except OSError:
            pass  # already gone

    def end(self, force: bool) -> None:
        if force:
            self.process.terminate()
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.results.close()


class _Kept(logging.Handler):
    """Keeps a worker's log records, to be sent to the parent with its next answer."""

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


def _reader(tasks: Connection) -> Callable[[], Any]:
    """The next task, as a thread reads them off the pipe while the handler works: so the
    parent's sending of a task never waits for this worker to answer the one before (a task
    and an answer each larger than a pipe holds would wait for each other for ever). The
    parent gives a few tasks ahead (``AHEAD``), not more; when it is gone, EOFError."""
    received: queue.SimpleQueue[tuple[Any, ...]] = queue.SimpleQueue()

    def read() -> None:
        try:
            while True:
                task = tasks.recv()
                received.put((task,))
                if task is None:
                    return
        except (EOFError, OSError):
            received.put(())  # the parent is gone

    threading.Thread(target=read, name="arena-worker-tasks", daemon=True).start()

    def following() -> Any:
        item = received.get()
        if not item:
            raise EOFError
        return item[0]

    return following


def _serve(
    factory: Callable[..., Any],
    args: tuple[Any, ...],
    refuses: tuple[type[Exception], ...],
    level: int,
    tasks: Connection,
    results: Connection,
    inherited: list[Connection],
) -> None:
    """A worker process: build the handler, then answer each task until told to stop (None)
    or the parent is gone. ``inherited``: the parent's pipe ends a forked worker holds, closed
    first (the parent's being the only ones open is how a worker sees it go)."""
    for end in inherited:
        end.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    kept = _Kept()
    root = logging.getLogger()
    root.handlers[:] = [kept]
    root.setLevel(level)
    try:
        try:
            handler = factory(*args)
        except refuses as exc:
            results.send(("refused", exc, kept.take()))
            return
        settle()
        results.send(("ready", None, kept.take()))
        following = _reader(tasks)
        while (task := following()) is not None:
            try:
                answer = handler(task)
            except Exception:
                results.send(("failed", traceback.format_exc(), kept.take()))
                return
            results.send(("answer", answer, kept.take()))
        results.send(("answer", handler.close(), kept.take()))
    except (EOFError, OSError):
        return  # the parent is gone: nobody to answer
