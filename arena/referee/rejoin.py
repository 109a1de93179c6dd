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

    def __init__(self, matches: Mapping[str, Match]) -> None:
        self.matches = matches
        """The referee's games by id (read only)."""
        self.member: Callable[[str, str], bool] | None = None
        """Set by a transport with channels (IRC): whether a nick is in a channel now. A
        resync then waits for its bot to rejoin the game's channel (``joined``)."""
        self.waiting: dict[tuple[str, int], float] = {}
        """Resyncs waiting for their bot in the game's channel: (game, seat) -> until when."""

    def resync(self, match: Match, seat: int, now: float) -> None:
        """Resync a seat's bot; where it must rejoin the game's channel first, the block
        after ``RESYNC begin`` waits until it is there (``joined``) or ``REJOIN_WAIT``
        seconds pass."""
        nick = match.nicks[seat]
        if self.member is None or match.channel is None or match.over or self.member(nick, match.channel):
            match.resync(seat, now)  # (a game over says nothing more in its channel: its block ends with END)
            return
        match.resync_begin(seat)
        self.waiting[(match.gid, seat)] = now + REJOIN_WAIT

    def joined(self, nick: str, channel: str, now: float) -> None:
        """``nick`` joined ``channel``: a resync that waited for it goes on."""
        for (gid, seat), _ in list(self.waiting.items()):
            match = self.matches.get(gid)
            if match is None or match.over:
                del self.waiting[(gid, seat)]
            elif (match.channel or "").lower() == channel.lower() and match.nicks[seat].lower() == nick.lower():
                del self.waiting[(gid, seat)]
                match.resync_rest(seat, now)

    def due(self, now: float) -> None:
        """The resyncs whose bot did not rejoin in time go on: it plays by DM."""
        for (gid, seat), until in list(self.waiting.items()):
            if until <= now:
                del self.waiting[(gid, seat)]
                match = self.matches.get(gid)
                if match is not None and not match.over:
                    match.resync_rest(seat, now)

    def gone(self, gid: str, seat: int) -> None:
        """The seat's connection is gone: the next one gets a resync of its own."""
        self.waiting.pop((gid, seat), None)

    def ended(self, match: Match) -> None:
        """``match`` is over: a replay still waiting for its bot ends with END now."""
        for gid, seat in [key for key in self.waiting if key[0] == match.gid]:
            del self.waiting[(gid, seat)]
            match.resync_rest(seat, 0.0)
