"""Driving a reactor: one daemon thread runs the select() loop of any number of links."""

from __future__ import annotations

import errno
import logging
import threading
from concurrent.futures import Future
from collections.abc import Callable
from typing import Any, TypeVar

import irc.client

log = logging.getLogger("arena.irc.link")

_T = TypeVar("_T")


class ReactorThread:
    """Drive one reactor (and so every link on it) from one daemon thread.

    ``tick`` bounds the select() wait, hence the latency of scheduled work (rate-limited
    lines, ``call``) queued from other threads; 0.05 s costs ~20 idle wake-ups per second.
    Use as a context manager, or ``start()``/``stop()``.
    """

    def __init__(
        self, reactor: irc.client.Reactor | None = None, *, tick: float = 0.05, name: str = "irc-reactor"
    ) -> None:
        self.reactor = reactor if reactor is not None else irc.client.Reactor()
        self.tick = tick
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> ReactorThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop and join the thread. Close links first: their close completes at
        the next tick, which this runs once more after the loop has ended."""
        self._stop.set()
        if threading.current_thread() is self._thread:
            return
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            try:
                self.reactor.process_timeout()  # due work, e.g. a deferred close
            except Exception:
                log.exception("irc reactor: scheduled work failed at stop")

    @property
    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def call(self, fn: Callable[..., _T], *args: Any) -> Future[_T]:
        """Run ``fn(*args)`` in the reactor thread at its next tick; the Future carries the
        result or exception. For code that is not already thread-safe."""
        future: Future[_T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # delivered to the caller, never to the scheduler
                future.set_exception(exc)

        with self.reactor.mutex:
            self.reactor.scheduler.execute_after(0, run)
        return future

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.reactor.process_once(self.tick)
            except OSError as exc:
                if exc.errno != errno.EBADF:
                    log.exception("irc reactor loop error")
                    self._stop.wait(self.tick)
                # EBADF: a socket was closed by another thread while we were in select()
                # (the library's own race); the next turn takes a fresh socket list.
            except Exception:
                log.exception("irc reactor loop error")
                self._stop.wait(self.tick)

    def __enter__(self) -> ReactorThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_in_thread(reactor: irc.client.Reactor | None = None, *, tick: float = 0.05) -> ReactorThread:
    """Start and return a ``ReactorThread`` for ``reactor`` (a new one if None)."""
    return ReactorThread(reactor, tick=tick).start()
