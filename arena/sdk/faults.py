"""Exceptions raised by a bot's own code, counted instead of printed every time.

A bug in a decision repeats at every request of its kind: fifty games printed eighty-one
tracebacks of one bug in ``quest`` and no summary. Here the first traceback of each
decision (or hook) is logged once, the later ones only counted; a game's end logs that
game's count, and ``report`` the whole run's (the runner calls it when it stops). The SDK
answers every such request with a random legal choice, so a bug costs choices, not seats.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter

log = logging.getLogger("arena.sdk")


def _counted(counts: Counter[str]) -> str:
    return ", ".join(f"{where} x{n}" for where, n in counts.most_common())


class Faults:
    """The exceptions of one bot (one session), by where they were raised: a decision
    kind (``quest``), or a hook (``speech``, ``team_talk``, ``on_event``, ...)."""

    def __init__(self, bot: str) -> None:
        self.bot = bot
        """The bot's class name, for the log."""
        self.counts: Counter[str] = Counter()
        """Every exception so far, by where it was raised."""
        self.first: dict[str, str] = {}
        """The first exception raised in each place, as ``Type: message``."""
        self._games: dict[str, Counter[str]] = {}
        self._lock = threading.Lock()
        """Decisions of different games run on different threads (the IRC runner)."""

    def record(self, where: str, gid: str | None, exc: BaseException) -> None:
        """Count ``exc``, raised by the bot in ``where`` during game ``gid``; call it from the
        ``except`` block, so the first one's traceback can be logged."""
        with self._lock:
            first = where not in self.counts
            self.counts[where] += 1
            if gid is not None:
                self._games.setdefault(gid, Counter())[where] += 1
            if first:
                self.first[where] = f"{type(exc).__name__}: {exc}"
        if first:
            log.error(
                "%s.%s raised %s in game %s; the bot plays on (a failed decision is answered at random). This "
                "traceback is shown once: later exceptions in %s are counted and summed up at each game's end.",
                self.bot,
                where,
                type(exc).__name__,
                gid,
                where,
                exc_info=exc,
            )

    def add(self, counts: Counter[str], first: dict[str, str]) -> None:
        """Count what another session of the same bot counted (the workers of a local
        tournament each run one), so that the run's summary is the bot's whole."""
        with self._lock:
            for where, n in counts.items():
                self.first.setdefault(where, first[where])
                self.counts[where] += n

    def game_over(self, gid: str) -> None:
        """Log what the bot's code raised during game ``gid``, if anything."""
        with self._lock:
            counts = self._games.pop(gid, None)
        if counts:
            log.warning(
                "%s raised %d exception(s) in game %s: %s", self.bot, sum(counts.values()), gid, _counted(counts)
            )

    def summary(self) -> str | None:
        """Every exception so far in one line, with the first of each place; None if none."""
        with self._lock:
            if not self.counts:
                return None
            firsts = "; ".join(f"{where}: {self.first[where]}" for where in self.counts)
            return (
                f"{self.bot} raised {sum(self.counts.values())} exception(s): {_counted(self.counts)} "
                f"(first of each: {firsts})"
            )

    def report(self) -> None:
        """Log ``summary``, if there is anything to say (at the end of a run)."""
        text = self.summary()
        if text is not None:
            log.warning("%s", text)
