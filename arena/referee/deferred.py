"""Registrations wait their turn behind the games' lines.

A registration costs the referee about a millisecond (a key's proof checked, the store read
and written); a storm of a thousand bots registering at once would hold every game's
answers behind a second of them, since lines are handled in the order they are read. So
the lines that register (``REGISTER``, ``PROOF``) are kept here and handled a few
milliseconds' worth at a time, after the games' lines of each turn. Each connection's lines
keep their order: once one of its lines waits, its next ones wait behind it, and anything
else that happens to it (a nick change, a quit, a join) first has its waiting lines
handled, as if they had never waited.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from ..protocol import PROOF, REGISTER

Line = tuple[str, str, str, str | None]
"""A waiting line: its sender, target and text, and the sender's services account as of it."""

REGISTERING = (f"{REGISTER} ", f"{PROOF} ")

TURN_BUDGET = 0.010
"""Seconds of waiting lines a turn handles at most (past the first line): what a storm of
registrations may add to a game's answer, per turn."""


class Deferred:
    """Waiting lines of connections that register, by connection (folded nick), oldest first."""

    def __init__(
        self,
        handle: Callable[[str, str, str, str | None], None],
        fold: Callable[[str], str],
        budget: float = TURN_BUDGET,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self._handle = handle
        self._fold = fold
        self._budget = budget
        self._clock = clock
        self._lines: dict[str, deque[Line]] = {}
        """Each connection's waiting lines; the connections in the order their first
        waiting line came."""

    def __bool__(self) -> bool:
        return bool(self._lines)

    def keep(self, sender: str, target: str, text: str, account: str | None) -> bool:
        """Keep the line to handle later, if it registers or its sender has lines waiting;
        False: handle it now."""
        folded = self._fold(sender)
        waiting = self._lines.get(folded)
        if waiting is None:
            if not text.startswith(REGISTERING):
                return False
            waiting = self._lines[folded] = deque()
        waiting.append((sender, target, text, account))
        return True

    def flush(self, nick: str) -> None:
        """Handle ``nick``'s waiting lines now (something else is about to happen to it)."""
        waiting = self._lines.pop(self._fold(nick), None)
        while waiting:
            self._handle(*waiting.popleft())

    def run(self) -> None:
        """Handle waiting lines, oldest connection first, for at most the turn's budget."""
        lines = self._lines
        end = self._clock() + self._budget
        while lines:
            folded, waiting = next(iter(lines.items()))
            line = waiting.popleft()
            if not waiting:
                del lines[folded]
            self._handle(*line)
            if self._clock() >= end:
                return
