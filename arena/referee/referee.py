"""The referee's brain, free of any transport: registrations, games, routing of lines.

A transport (IRC or in-memory) feeds it incoming lines and membership changes with the
current time, and gives it a ``send(target, text)`` function. It never blocks and never
sleeps; callers ask ``next_deadline()`` and call ``poll(now)`` then.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..core.errors import ErrorCode
from ..core.game import Game
from ..games import GAMES, LINES, RESERVED_NICKS
from ..protocol import (
    ANSWER,
    BYE,
    TEAM,
    ERROR,
    PROTOCOL_VERSION,
    REGISTER,
    REGISTERED,
    UNREGISTER,
    WELCOME,
    WHO,
    Message,
    ProtocolError,
    parse,
    valid_nick,
)
from .match import Match, Timeouts

log = logging.getLogger(__name__)


@dataclass
class BotInfo:
    nick: str
    name: str
    owner: str
    version: str


class Referee:
    def __init__(
        self, nick: str, timeouts: Timeouts, send: Callable[[str, str], object],
        id_taken: Callable[[str], bool] = lambda gid: False,
        send_many: Callable[[Sequence[str], str], object] | None = None,
    ) -> None:
        self.nick = nick
        self.timeouts = timeouts
        self.send = send
        self.send_many = send_many
        """Sends one line to several nicks at once where the transport can (IRC's
        multi-target PRIVMSG); None: one ``send`` each."""
        self.bots: dict[str, BotInfo] = {}
        self.matches: dict[str, Match] = {}
        self._ids = itertools.count(1)
        self._id_taken = id_taken
        """Game ids already used (by earlier runs, in the store): new ids skip them."""
        self.on_game_start: list[Callable[[Match], None]] = []
        self.on_game_end: list[Callable[[Match], None]] = []
        self.mode: Callable[[str, str], None] | None = None
        """Set by a transport whose server has channel modes (IRC): then a game with turns at
        the floor runs in a moderated channel and the speaker is voiced."""
        self._channel_games: dict[str, Match] = {}
        """Game channels to their running match, to judge what players say there."""

    # -- incoming -------------------------------------------------------------------

    def on_message(self, sender: str, target: str, text: str, now: float) -> None:
        """A line from IRC or the local hub. Channel chat that is not protocol is ignored;
        a direct message that is not protocol gets an ERROR saying why."""
        direct = target.lower() == self.nick.lower()
        if not direct:
            match = self._channel_games.get(target.lower())
            if match is not None and match.game.floor_kinds:
                match.said(sender, text)
                return
        try:
            msg = parse(text)
        except ProtocolError as exc:
            if direct:
                self._error(sender, exc.code, exc.reason)
            return
        if not direct:
            return  # answers and registrations count only in private
        handler = self._handlers.get(msg.verb)
        if handler is None:
            self._error(sender, ErrorCode.UNKNOWN_COMMAND, f"{msg.verb} is sent by the referee, not to it")
            return
        handler(self, sender, msg, now)

    def on_rename(self, old: str, new: str) -> None:
        info = self.bots.pop(old.lower(), None)
        if info is not None:
            info.nick = new
            self.bots[new.lower()] = info
        for match in self.matches.values():
            match.rename(old, new)

    def on_leave(self, nick: str) -> None:
        """A bot that leaves the server is unregistered; a seat it holds keeps running on
        deadlines (warn, default, forfeit) so the game goes on."""
        self.bots.pop(nick.lower(), None)

    # -- commands -------------------------------------------------------------------

    def _register(self, sender: str, msg: Message, now: float) -> None:
        version = msg.args[0]
        if version != str(PROTOCOL_VERSION):
            self._error(sender, ErrorCode.UNSUPPORTED_VERSION, f"this referee speaks protocol {PROTOCOL_VERSION}, not {version[:10]}")
            return
        if not valid_nick(sender):
            self._error(sender, ErrorCode.NAME_INVALID, "nicks of players are 1-16 letters, digits or -[]\\^_`{|}, not starting with a digit or -")
            return
        if sender.lower() in RESERVED_NICKS:
            self._error(sender, ErrorCode.NAME_INVALID, f"{sender} is a reserved word of the games' answers; choose another nick")
            return
        info = BotInfo(sender, msg.get("name") or sender, msg.get("owner") or "unknown", msg.get("version") or "unknown")
        self.bots[sender.lower()] = info
        self._tell(sender, Message.make(WELCOME, sender, protocol=PROTOCOL_VERSION, name=info.name))

    def _unregister(self, sender: str, msg: Message, now: float) -> None:
        self.bots.pop(sender.lower(), None)
        self._tell(sender, Message.make(BYE))

    def _who(self, sender: str, msg: Message, now: float) -> None:
        bots = sorted(self.bots.values(), key=lambda b: b.nick.lower())
        running = [f"{gid}:{m.game.name}" for gid, m in self.matches.items() if not m.over]
        self._tell(sender, Message.make(REGISTERED, bots=[b.nick for b in bots], games=running))

    def _answer(self, sender: str, msg: Message, now: float) -> None:
        match = self.matches.get(msg.args[0])
        if match is None:
            self._error(sender, ErrorCode.UNKNOWN_GAME, f"no game {msg.args[0][:20]!r} is running", msg.args[0])
            return
        match.answer(sender, msg, now)

    def _team(self, sender: str, msg: Message, now: float) -> None:
        match = self.matches.get(msg.args[0])
        if match is None:
            self._error(sender, ErrorCode.UNKNOWN_GAME, f"no game {msg.args[0][:20]!r} is running", msg.args[0])
            return
        match.team(sender, msg)

    _handlers: dict[str, Callable[["Referee", str, Message, float], None]] = {
        REGISTER: _register,
        UNREGISTER: _unregister,
        WHO: _who,
        ANSWER: _answer,
        TEAM: _team,
    }

    def _error(self, nick: str, code: ErrorCode, reason: str, *context: str) -> None:
        self._tell(nick, Message.make(ERROR, code.value, *context, text=reason))

    def _tell(self, target: str, msg: Message) -> None:
        for line in msg.lines():  # a long list (WHO with many bots) is continued
            self.send(target, line)

    # -- games ----------------------------------------------------------------------

    def new_game_id(self) -> str:
        while True:
            gid = f"g{next(self._ids)}"
            if gid not in self.matches and not self._id_taken(gid):
                return gid

    def start_game(
        self, game_name: str, seats: list[str], options: Any, seed: int, channel: str, now: float,
        gid: str | None = None,
    ) -> Match:
        """Start a game with ``seats`` (nicks in seat order) in ``channel``; the engine deals
        the roles from ``seed``, so a seed nobody else knows keeps the deal hidden."""
        game: Game = GAMES[game_name](len(seats), options, seed)
        gid = gid or self.new_game_id()
        match = Match(
            gid, game, list(seats), LINES[game_name], self.timeouts,
            say=lambda line: self.send(channel, line),
            tell=self.send,
            tell_many=self.send_many,
            on_end=self._ended,
        )
        self.matches[gid] = match
        self._channel_games[channel.lower()] = match
        if game.floor_kinds and self.mode is not None:
            self._moderate(match, channel)
        for callback in self.on_game_start:
            callback(match)
        match.start(now)
        return match

    def _moderate(self, match: Match, channel: str) -> None:
        """Only the voiced may talk in a moderated channel: voice whoever has the floor."""
        mode = self.mode
        assert mode is not None
        mode(channel, "+m")

        def floor(old: str | None, new: str | None) -> None:
            if old is not None:
                mode(channel, f"-v {old}")
            if new is not None:
                mode(channel, f"+v {new}")

        match.on_floor = floor

    def _ended(self, match: Match) -> None:
        for channel, m in list(self._channel_games.items()):
            if m is match:
                del self._channel_games[channel]
        for callback in self.on_game_end:
            callback(match)

    def next_deadline(self) -> float | None:
        return min((d for m in self.matches.values() if (d := m.next_deadline()) is not None), default=None)

    def poll(self, now: float) -> None:
        for match in list(self.matches.values()):
            if not match.over:
                match.poll(now)
