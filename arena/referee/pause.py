"""Games paused because the results store cannot be written, and when to try it again.

The referee sends nothing of a game that is not stored first (``Journal``). When a step
cannot be stored (a full disk, an I/O error, a read-only file), the game stops where it
stands: its lines wait unsent, nothing is asked and no deadline runs, and the referee
tries the write again after ``FIRST_RETRY`` seconds, twice as long after each failure up
to ``LONGEST_RETRY``. Once it works the waiting lines go out and the game goes on.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..store.database import TransactionLost, Unavailable

if TYPE_CHECKING:
    from .match import Match

FIRST_RETRY = 1.0
"""Seconds from a failed write to the first try again."""
LONGEST_RETRY = 10.0
"""The longest wait between two tries: a store that can be written again is found soon."""
STORE_DOWN = "the results store cannot be written"
"""Why a game is paused, as ``PAUSE`` and the log say it."""


def unwritable(exc: BaseException) -> bool:
    """Whether ``exc`` says the store cannot be written now (a full disk, an I/O error, a
    locked or read-only file, a database server gone), which trying again later may cure;
    any other failure is a bug, which it would not."""
    return isinstance(exc, (sqlite3.OperationalError, OSError, TransactionLost, Unavailable))


def failure(exc: BaseException) -> str:
    """A failure in a few words, for the log: its type and message."""
    return f"{type(exc).__name__}: {exc}"


@dataclass
class Backoff:
    """Failed writes since ``since``, and when to try again (``at``)."""

    since: float
    delay: float = FIRST_RETRY
    at: float = field(init=False)

    def __post_init__(self) -> None:
        self.at = self.since + self.delay

    def failed(self, now: float) -> None:
        """Another try failed: wait twice as long (up to ``LONGEST_RETRY``)."""
        self.delay = min(self.delay * 2, LONGEST_RETRY)
        self.at = now + self.delay


@dataclass
class Pause:
    """A paused game: what it holds back, and what it does once its step is stored."""

    match: Match
    backoff: Backoff
    held: list[tuple[Callable[..., object], tuple[Any, ...]]] = field(default_factory=list)
    """What the game sent since its last stored step (lines, mode changes, deadline starts),
    in order: it goes out once the step is stored."""
    ending: bool = False
    """The game is over: once its end is stored, it is recorded and its end goes out."""
    waiting: bool = False
    """A game taken up after a restart that still waits for its bots: once stored, it
    waits on (its referee's ``go_on`` carries it on)."""
