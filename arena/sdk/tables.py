"""The games one bot sits in: its view of each, the channel each is played in, and those
whose past the referee is replaying.

A game's channel is announced before the game starts (``TABLE``) and may change while it
runs: a restarted referee takes its games up in new channels (``RESUME``) and replays each
bot's past to it (``RESYNC``). The bot follows its games wherever they go, through the
transport's ``join`` and ``part``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..protocol import Message
from .view import GameView, new_view


class Tables:
    """One bot's games, from the table that seats it to the game's end."""

    def __init__(self, join: Callable[[str], None] | None, part: Callable[[str], None] | None) -> None:
        self.games: dict[str, GameView[Any]] = {}
        """Our view of each game we play, from its ``START`` to its ``END``."""
        self.ended: set[str] = set()
        """Games of ours that have ended (an end told twice, by a restarted referee, once)."""
        self.channels: dict[str, str] = {}
        """The channel of each game we sit in, started or not."""
        self.replaying: dict[str, str] = {}
        """Games whose history the referee is replaying (``RESYNC``), with our seat's name
        in them: their requests are past, answered or not, and get no answer."""
        self._spoken: dict[str, int] = {}
        """Bytes said in games being replayed (``RESYNC``): the new view takes them up, so a
        speech budget still counts what was said before the bot came back."""
        self._join = join
        self._part = part

    def ours(self, gid: str) -> bool:
        """Whether we play game ``gid`` (a game not started yet is ours if its TABLE seated us)."""
        return gid in self.games or gid in self.channels

    def table(self, gid: str, msg: Message, nick: str) -> None:
        """``TABLE GID channel=... seats=...``: a game is about to start; if it seats us, go
        to its channel."""
        channel = msg.get("channel")
        me = nick.lower()
        if channel and me in (n.lower() for n in msg.list("seats")):
            self.channels[gid] = channel
            if self._join is not None:
                self._join(channel)
        elif gid not in self.games and (old := self.channels.pop(gid, None)) is not None:
            # Announced again without us (withdrawn before its start): we wait in the lobby.
            if self._part is not None:
                self._part(old)

    def start(self, gid: str, msg: Message, nick: str) -> GameView[Any] | None:
        """``START``: the new view of game ``gid``, if we play it (as ``nick``, or as the seat
        a replay named)."""
        me = self.replaying.get(gid, nick)
        if me.lower() not in msg.get("seats", "").lower().split(","):
            return None
        game = new_view(msg, me)
        game.spoken = self._spoken.pop(gid, 0)
        self.games[gid] = game
        return game

    def end(self, gid: str) -> None:
        """Game ``gid`` of ours is over: count it, forget its view, leave its channel."""
        del self.games[gid]
        self.ended.add(gid)
        channel = self.channels.pop(gid, None)
        if channel and self._part is not None:
            self._part(channel)

    def resync(self, gid: str, msg: Message, nick: str) -> bool:
        """``RESYNC GID begin``: we came back to a game in progress; forget what we had of it
        (the referee now replays all of it) and rejoin its channel. ``RESYNC GID end``: the
        view is whole again, and the next ASK is live. True at the beginning: the request
        open in the game, if any, is past."""
        if msg.args[1:] != ("begin",):
            self.replaying.pop(gid, None)
            return False
        old = self.games.pop(gid, None)
        if old is not None:
            self._spoken[gid] = old.spoken
        self.replaying[gid] = msg.get("seat") or nick
        self._follow(gid, msg.get("channel"))
        return True

    def resume(self, gid: str, msg: Message, nick: str) -> None:
        """``RESUME GID channel=... seats=...`` (in the lobby, then first in the new
        channel): a restarted referee took up a game in a new channel, and waits for its
        bots to be there. If we play it, go there at once: our ``RESYNC`` may wait behind
        the other bots' at the referee's line rate, and the wait is for all of us."""
        if gid in self.replaying:
            return  # an earlier restart's, replayed in a RESYNC block: the game is elsewhere now
        game = self.games.get(gid)
        me = (game.me if game is not None else nick).lower()
        if me in (n.lower() for n in msg.list("seats")):
            self._follow(gid, msg.get("channel"))

    def _follow(self, gid: str, channel: str | None) -> None:
        """Play ``gid`` in ``channel``: join it, and leave the one it had (the game moved:
        a restarted referee takes it up elsewhere)."""
        old = self.channels.get(gid)
        if channel and old != channel:
            self.channels[gid] = channel
            if old is not None and self._part is not None:
                self._part(old)
            if self._join is not None:
                self._join(channel)
