"""Resyncs that wait for their bot to rejoin the game's channel.

A bot that comes back is told again everything its seat was told (``RESYNC``). Where the
game has a channel it must rejoin first: channel lines said meanwhile would be lost to it,
so the block after ``RESYNC begin`` waits until the bot is there, or ``REJOIN_WAIT`` seconds
pass (it then plays by DM only, as one that never joined).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .match import Match

REJOIN_WAIT = 5.0
"""Seconds a resync waits for its bot to rejoin the game's channel before it goes on anyway
(the bot then plays by DM only, as one that never joined)."""


class Rejoins:
    """The resyncs waiting for their bot in a game's channel, and until when they wait."""

    def __init__(self, matches: Mapping[str, Match], game_in: Callable[[str], Match | None]) -> None:
        self.matches = matches
        """The referee's games by id (read only)."""
        self.game_in = game_in
        """The running game whose channel this is, if any."""
        self.member: Callable[[str, str], bool] | None = None
        """Set by a transport with channels (IRC): whether a nick is in a channel now. A
        resync then waits for its bot to rejoin the game's channel (``joined``)."""
        self.waiting: dict[tuple[str, int], float] = {}
        """Resyncs waiting for their bot in the game's channel: (game, seat) -> until when,
        soonest first (every wait is as long)."""
        self._seats: dict[str, set[int]] = {}
        """The seats of each game whose resync waits: a join, or a game's end, looks at its
        own game's."""

    def resync(self, match: Match, seat: int, now: float) -> None:
        """Resync a seat's bot; where it must rejoin the game's channel first, the block
        after ``RESYNC begin`` waits until it is there (``joined``) or ``REJOIN_WAIT``
        seconds pass."""
        nick = match.nicks[seat]
        if self.member is None or match.channel is None or match.over or self.member(nick, match.channel):
            match.resync_begin(seat)  # (a game over says nothing more in its channel: its block ends with END)
            match.resync_rest(seat, now)
            return
        match.resync_begin(seat)
        self._drop(match.gid, seat)  # (a wait starting again goes last)
        self.waiting[(match.gid, seat)] = now + REJOIN_WAIT
        self._seats.setdefault(match.gid, set()).add(seat)

    def _drop(self, gid: str, seat: int) -> bool:
        """Forget the seat's wait; whether it had one."""
        if self.waiting.pop((gid, seat), None) is None:
            return False
        seats = self._seats[gid]
        seats.discard(seat)
        if not seats:
            del self._seats[gid]
        return True

    def next(self) -> float | None:
        """When the soonest wait ends, if one does."""
        return next(iter(self.waiting.values()), None)

    def joined(self, nick: str, channel: str, now: float) -> None:
        """``nick`` joined ``channel``: a resync that waited for it goes on."""
        match = self.game_in(channel)
        if match is None:
            return
        for seat in sorted(self._seats.get(match.gid, ())):
            if match.nicks[seat].lower() == nick.lower() and self._drop(match.gid, seat):
                match.resync_rest(seat, now)

    def due(self, now: float) -> None:
        """The resyncs whose bot did not rejoin in time go on: it plays by DM."""
        while self.waiting:
            (gid, seat), until = next(iter(self.waiting.items()))
            if until > now:
                return
            self._drop(gid, seat)
            match = self.matches.get(gid)
            if match is not None and not match.over:
                match.resync_rest(seat, now)

    def gone(self, gid: str, seat: int) -> None:
        """The seat's connection is gone: the next one gets a resync of its own."""
        self._drop(gid, seat)

    def ended(self, match: Match) -> None:
        """``match`` is over: a replay still waiting for its bot ends with END now."""
        for seat in sorted(self._seats.get(match.gid, ())):
            self._drop(match.gid, seat)
            match.resync_rest(seat, 0.0)
