"""What one sender can make the referee say: a few replies at once, then a trickle.

Every line the referee sends in answer to someone's direct message (an ERROR, a WELCOME,
the REGISTERED list) costs a line of the referee's rate-limited connection, which the games
share. Without a limit, anyone who sends garbage fast enough takes that capacity: each
refused line would cost a reply. The budget is per sender (by nick, case-folded as the
referee folds nicks): a sender's first ``burst`` replies go out, then one every
``1 / per_second`` seconds; replies past that are dropped silently (the lines themselves are
still handled: a registration still counts, a bad answer is still refused and recorded).
The operator sets both in the configuration's ``flood`` section (10 replies, then one every
5 s, by default).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

SENDERS = 10_000
"""Senders whose budget is remembered; the least recently charged is forgotten first (and
gets a fresh budget if it comes back), so memory stays bounded whoever sends."""


class ReplyBudget:
    """A token bucket per sender; ``allow(sender)`` spends one token if there is one."""

    def __init__(
        self, burst: int, per_second: float, *, clock: Callable[[], float] = time.monotonic, senders: int = SENDERS
    ) -> None:
        if burst < 1 or per_second <= 0 or senders < 1:
            raise ValueError("a reply budget needs burst >= 1, per_second > 0 and senders >= 1")
        self.burst = burst
        self.per_second = per_second
        self.clock = clock
        self.senders = senders
        self.dropped = 0
        """Replies refused so far, for the operator's log and the tests."""
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Folded nick -> (tokens, when they were counted), least recently charged first."""

    def allow(self, sender: str) -> bool:
        """Whether a reply to ``sender`` may go out now; counts it if so, else counts a drop."""
        key = sender.lower()
        now = self.clock()
        tokens, since = self._buckets.pop(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - since) * self.per_second)
        allowed = tokens >= 1
        if allowed:
            tokens -= 1
        else:
            self.dropped += 1
        self._buckets[key] = (tokens, now)
        if len(self._buckets) > self.senders:
            self._buckets.popitem(last=False)
        return allowed
