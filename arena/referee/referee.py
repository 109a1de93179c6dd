"""The referee's brain, free of any transport: registrations, games, routing of lines.

A transport (IRC or in-memory) feeds it incoming lines and membership changes with the
current time, and gives it a ``send(target, text)`` function. It never blocks and never
sleeps; callers ask ``next_deadline()`` and call ``poll(now)`` then.

The referee coordinates; its collaborators keep their own parts: ``Registry`` (who is
who, and the commands that register), ``GameLines`` (the lines bots send about a game),
``Rejoins`` (resyncs waiting for their bot in a game's channel) and ``WriteAhead`` (the
journal written before the lines go out, and the games paused when it cannot be).
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ..core.errors import ErrorCode
from ..core.game import Game
from ..games import GAMES, LINES, rebuild
from ..store import LiveGame
from ..protocol import (
    ANSWER,
    BUNDLES_SINCE,
    ERROR,
    PROOF,
    REGISTER,
    TEAM,
    UNREGISTER,
    WHO,
    Message,
    ProtocolError,
    parse,
    redacted,
)
from .budget import ReplyBudget
from .gamelines import GameLines, leading_ids, line_ids
from .identity import Identities
from .journal import Journal, stored_state
from .deadlines import Timeouts
from .match import Match
from .output import MatchOutput, moderating, posting
from .pause import unwritable
from .registry import Registry
from .rejoin import Rejoins
from .running import Running, Timetable
from .writeahead import WriteAhead

log = logging.getLogger(__name__)

READ_MEMORY = 64
"""Distinct lines from bots the referee keeps parsed (``Referee._read``): a round's answers."""


class Referee:
    """One referee: its transport's hooks, its games, and the collaborators it routes lines
    and time to."""

    def __init__(
        self,
        nick: str,
        timeouts: Timeouts,
        send: Callable[[str, str], object],
        send_many: Callable[[Sequence[str], str], object] | None = None,
        identities: Identities | None = None,
        reply: Callable[[str, str], object] | None = None,
        budget: ReplyBudget | None = None,
        after_sent: Callable[[Callable[[float], None]], object] | None = None,
        journal: Journal | None = None,
        post: Callable[[str, str, Message], object] | None = None,
    ) -> None:
        self.nick = nick
        self.timeouts = timeouts
        self.send = send
        self.send_many = send_many
        """Sends one line to several nicks at once where the transport can (IRC's
        multi-target PRIVMSG); None: one ``send`` each."""
        self.post = post
        """Sends a game's line together with the message it carries (``msg.format()`` is
        the line), where the transport can hand the message on: the in-memory hub gives it
        to bots in its own process, which need not parse the line again. None: ``send``."""
        self.reply = reply
        """Sends a line that answers someone's line (an ERROR, a WELCOME) where the transport
        puts it behind the games' lines (IRC: ``IrcLink.reply``), so answering a flood cannot
        delay a game; None: ``send``."""
        self.budget = budget
        """What one sender may cost in replies; past it they are dropped. None: no limit
        (the in-memory transport, whose games must not depend on the wall clock, or an
        operator's ``flood.reply_interval: 0``)."""
        self.after_sent = after_sent
        """Calls back with the time every line sent so far actually went out, where a
        transport queues lines (IRC): deadlines start then. None: lines go out at once."""
        self.identities = Identities() if identities is None else identities
        self.matches = Running()
        self.timetable = Timetable(self.matches)
        """When each game next has work: ``next_deadline`` and ``poll`` look at the games
        that changed since, not at every game."""
        self._read = functools.lru_cache(maxsize=READ_MEMORY)(parse)
        """``parse`` for the lines bots send, each text read once while it recurs: the
        lines of a round repeat (ten votes are two texts), and no handler changes the
        message it is given."""
        self._ids = itertools.count(1)
        self.journal = journal
        """Where games in progress are written ahead of their lines (None: nowhere; a
        game then ends with the process that runs it)."""
        self._now = 0.0
        """The latest time a caller passed in: when a pause began, for calls that pass none."""
        self.on_game_start: list[Callable[[Match], None]] = []
        self.on_game_end: list[Callable[[Match], None]] = []
        self.on_bot: list[Callable[[str, bool], None]] = []
        """Called with a bot's name and True when a connection starts playing it, False
        when none does any more (unregistered, left the server, replaced)."""
        self.on_join_game: list[Callable[[str, str], None]] = []
        """Called with a nick and a channel (one of ours) it joined (``on_join``)."""
        self.mode: Callable[[str, str], None] | None = None
        """Set by a transport whose server has channel modes (IRC): then a game with turns at
        the floor runs in a moderated channel and the speaker is voiced."""
        self._channel_games: dict[str, Match] = {}
        """Game channels to their running match, to judge what players say there."""
        self.bundles = False
        """Set by a transport that pays per line (IRC): a game whose bots all speak protocol 2
        and that asks nothing in secret sends the channel lines that go out together as one
        (``Record.bundle``). A secret request's DM between two channel lines would keep them
        apart, and so tell that it was sent."""
        # (``send`` read when a pause is said: a transport or a test may replace it)
        self.writeahead = WriteAhead(
            journal, lambda target, text: self.send(target, text), lambda: self._now, self.on_game_end, after_sent
        )
        self.rejoins = Rejoins(self.matches, lambda channel: self._channel_games.get(channel.lower()))
        self.registry = registry = Registry(
            self.identities, self.matches, self.rejoins, self.on_bot, self._tell, self._error
        )
        self.game_lines = lines = GameLines(
            self.matches, registry.bots, registry.bot_of, self.writeahead.paused, self._error
        )
        # The collaborators' parts that callers and every line read, bound once.
        self.bots = registry.bots
        """Registered connections by folded nick (``Registry.bots``)."""
        self.bot_of = registry.bot_of
        self.bot_named = registry.bot_named
        self.behind = self.writeahead.behind
        self.batch = self.writeahead.batch
        """What the lines handled inside have their games store in one commit (``WriteAhead.batch``)."""
        # The store's state, as the room reads it: see ``WriteAhead``.
        self.paused = self.writeahead.since
        self.writable = self.writeahead.writable
        self.store_failed = self.writeahead.store_failed
        self.store_works = self.writeahead.store_works
        self._paused = self.writeahead.paused
        self._commit = self.writeahead.commit
        self._handlers: dict[str, Callable[[str, Message, float, str | None, str], None]] = {
            REGISTER: registry.register,
            PROOF: registry.proof,
            UNREGISTER: registry.unregister,
            WHO: registry.who,
            ANSWER: lines.answer,
            TEAM: lines.team,
        }

    @property
    def nick(self) -> str:
        """The nick the referee runs under now; DMs to it are protocol."""
        return self._nick

    @nick.setter
    def nick(self, value: str) -> None:
        self._nick = value
        self._folded = value.lower()  # compared with every line's target

    @property
    def member(self) -> Callable[[str, str], bool] | None:
        """Set by a transport with channels (IRC): whether a nick is in a channel now. A
        resync then waits for its bot to rejoin the game's channel (``on_join``)."""
        return self.rejoins.member

    @member.setter
    def member(self, value: Callable[[str, str], bool] | None) -> None:
        self.rejoins.member = value

    @property
    def host_of(self) -> Callable[[str], str | None] | None:
        """Set by a transport that knows where connections come from (IRC): a nick's host,
        by which wrong proofs are slowed down beside their connection's."""
        return self.registry.host_of

    @host_of.setter
    def host_of(self, value: Callable[[str], str | None] | None) -> None:
        self.registry.host_of = value

    @property
    def store_retry(self) -> float | None:
        """When a new game may try the store again, after it refused a write (``store_failed``)."""
        return self.writeahead.store_retry

    # -- incoming -------------------------------------------------------------------

    def on_message(
        self, sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        """A line from IRC or the local hub (``account``: the sender's services account,
        where the server tells it). Channel chat that is not protocol is ignored; a direct
        message that is not protocol gets an ERROR saying why. ``msg``: what ``text``
        parses to, where the sender's process has it already (a bot of the local hub
        formatted its answer from it): the line is then not parsed again, and every check
        after parsing is the same."""
        self._now = now
        try:  # (one call: this runs on every line)
            direct = target.lower() == self._folded
            if not direct:
                match = self._channel_games.get(target.lower())
                if match is not None:
                    if self._paused and match.gid in self._paused:
                        return  # nothing said while it is paused is part of the game: none of it could be stored
                    info = self.bot_of(sender, account)
                    name = None if info is None else info.name
                    match.said(name, sender, text, now)
                    return
            if msg is None:
                try:
                    msg = self._read(text)
                except ProtocolError as exc:
                    if direct:
                        self.game_lines.refuse(sender, account, exc.code, exc.reason, line_ids(text))
                    return
            if not direct:
                return  # answers and registrations count only in private
            handler = self._handlers.get(msg.verb)
            if handler is None:
                self._error(sender, ErrorCode.UNKNOWN_COMMAND, f"{msg.verb} is sent by the referee, not to it")
                return
            try:
                handler(sender, msg, now, account, text)
            except Exception as exc:
                if self.journal is None and unwritable(exc):
                    # A game ended that its recorder could not store, and no journal can pause it:
                    # its runner (a local tournament) must stop, and play it again once it can.
                    raise
                # A bug, not the sender's fault: a referee left running must outlive it, and
                # the sender must still learn its line did nothing.
                log.exception("line from %s could not be handled: %r", sender, redacted(text[:200]))
                self.game_lines.refuse(
                    sender,
                    account,
                    ErrorCode.MALFORMED,
                    "the referee failed on this line (logged); it changed nothing",
                    leading_ids(msg.verb, msg.args),
                )
        finally:
            if self.journal is not None:  # (``WriteAhead.commit``'s own first test, without the call)
                self._commit()

    def on_rename(self, old: str, new: str) -> None:
        """A nick change keeps the bot: its connection is the same (and so are its
        registration under way and its wrong proofs)."""
        if self.registry.rename(old, new):
            self._commit()

    def on_leave(self, nick: str, split: bool = False) -> None:
        """A connection that leaves the server no longer plays its bot; a seat the bot holds
        keeps running on deadlines (warn, default, forfeit) until it registers again.
        ``split``: it is out of reach after a netsplit, and may be playing still, with the
        referees of a shared lobby on its side of the split."""
        if self.registry.leave(nick, split):
            self._commit()

    def on_join(self, nick: str, channel: str, now: float) -> None:
        """``nick`` joined ``channel``: a resync that waited for it goes on."""
        self._now = now
        self.rejoins.joined(nick, channel, now)
        for callback in self.on_join_game:
            callback(nick, channel)
        self._commit()

    def _error(self, nick: str, code: ErrorCode, reason: str, *context: str) -> None:
        self._tell(nick, Message.make(ERROR, code.value, *context, text=reason))

    def _tell(self, target: str, msg: Message, ordered: bool = False) -> None:
        """Answer ``target`` (whose line this is about) with ``msg``; ``ordered``: in line
        with the games' lines rather than behind them."""
        for line in msg.lines():  # a long list (WHO with many bots) is continued
            self._reply(target, line, ordered)

    def _reply(self, target: str, line: str, ordered: bool = False) -> None:
        """Send a reply to ``target``, if its budget allows: behind the games' lines, or,
        ``ordered``, in their queue."""
        if self.budget is None or self.budget.allow(target):
            (self.send if self.reply is None or ordered else self.reply)(target, line)

    # -- games ----------------------------------------------------------------------

    def new_game_id(self) -> str:
        """An id no game had: from the journal's store (never given twice, across restarts
        and referees sharing it), or else counted in this process."""
        if self.journal is not None:
            return self.journal.new_game_id()
        while True:
            gid = f"g{next(self._ids)}"
            if gid not in self.matches:
                return gid

    def start_game(
        self,
        game_name: str,
        seats: list[str],
        options: Any,
        seed: int,
        channel: str,
        now: float,
        gid: str | None = None,
    ) -> Match:
        """Start a game in ``channel`` with the bots named in ``seats`` (seat order); each
        seat is announced under its bot's nick now, and only its bot can play it. The
        engine deals the roles from ``seed``, so a seed nobody else knows keeps the deal
        hidden."""
        self._now = now
        game: Game = GAMES[game_name](len(seats), options, seed)
        gid = gid or self.new_game_id()
        by_name = self.registry.by_name  # (``bot_named`` without a call per seat)
        connections = [by_name.get(name.lower()) for name in seats]
        names = [name if c is None else c.nick for name, c in zip(seats, connections)]
        match = self._seat(gid, game, names, list(seats), channel)
        if self.journal is not None:
            self.journal.opened(match)
        for callback in self.on_game_start:
            callback(match)
        match.start(now)
        self._commit()
        return match

    def resume_game(self, live: LiveGame, channel: str, now: float, announce: Message | None = None) -> Match:
        """Take up a game that an earlier run of the referee left in progress (its journal
        kept it), in ``channel``: its engine is rebuilt from its stored answers, its lines
        and bookkeeping restored, ``announce`` said first in the channel (and kept in the
        transcript), and it waits for ``go_on`` while its bots come back (each one that
        registers is resynced). A game that was over (its end stored, perhaps never heard)
        waits too: its bots learn its end from their resync, and ``go_on`` ends it here."""
        self._now = now
        game = rebuild(live.game, len(live.names), live.options, live.seed, live.deal, live.history)
        match = self._seat(live.id, game, list(live.names), list(live.bots), channel)
        match.started = live.started
        # Its talk and answers go on counting from its first start, the time it was stopped included.
        elapsed = 0.0 if self.journal is None else self.journal.wall() - live.started
        match.record.origin = now - max(elapsed, *(t.at for t in live.talk), *(a.at for a in live.answers), 0.0)
        match.restore(live.lines, stored_state(live), live.resumes, live.talk, live.answers)
        if self.journal is not None:
            self.journal.resumed(match, live)
        if announce is not None:
            match.announce(announce)
        for callback in self.on_game_start:
            callback(match)
        for seat, bot in enumerate(live.bots):
            if self.bot_named(bot) is not None:  # registered before the game was taken up
                self.rejoins.resync(match, seat, now)
        self._commit()
        return match

    def go_on(self, gid: str, now: float) -> None:
        """A resumed game's bots are back: it carries on (``Match.go_on``), or, if it is
        paused, once it can be stored."""
        self._now = now
        match = self.matches.get(gid)
        pause = self._paused.get(gid)
        if pause is not None:
            pause.waiting = False
        elif match is not None:
            match.go_on(now)
            self._commit()

    def abort_game(self, gid: str, why: str, now: float) -> bool:
        """Stop a running game with nobody at fault; False if no game ``gid`` runs."""
        self._now = now
        match = self.matches.get(gid)
        if match is None or match.over:
            return False
        match.abort(why, now)
        self._commit()
        return True

    def _seat(self, gid: str, game: Game, names: list[str], bots: list[str], channel: str) -> Match:
        """A match for ``game`` in ``channel``, its seats announced as ``names`` and played
        by ``bots``; a seat whose bot has no connection now gets its lines when it registers."""
        held, mode = self.writeahead.held, self.mode
        # (moderated where turns at the floor need a voice and the server has modes)
        on_floor = (
            None
            if mode is None or not game.floor_kinds
            else moderating(mode, functools.partial(self.behind, gid), channel)
        )
        output = MatchOutput(
            say=functools.partial(held(gid, self.send), channel),
            tell=held(gid, self.send),
            tell_many=None if self.send_many is None else held(gid, self.send_many),
            reply=held(gid, self._reply),
            after_sent=None if self.after_sent is None else held(gid, self.timetable.when_sent(self.after_sent, gid)),
            post=None if self.post is None else held(gid, posting(self.post, channel)),
            on_end=self._ended,
            on_floor=on_floor,
            on_change=functools.partial(self._changed, gid),
        )
        by_name = self.registry.by_name
        infos = [by_name.get(bot.lower()) for bot in bots]
        bundles = (
            self.bundles
            and not game.secret_kinds
            and all(info is not None and info.protocol >= BUNDLES_SINCE for info in infos)
        )
        match = Match(
            gid, game, names, LINES[game.name], self.timeouts, output, bots=bots, channel=channel, bundles=bundles
        )
        for seat, info in enumerate(infos):
            match.route(seat, None if info is None else info.nick)
        self.matches[gid] = match
        self._channel_games[channel.lower()] = match
        return match

    def _changed(self, gid: str) -> None:
        """Game ``gid`` may have moved on or changed its clocks (``MatchOutput.on_change``)."""
        self.timetable.touch(gid)
        if self.journal is not None:
            self.journal.touch(gid)

    def _ended(self, match: Match) -> None:
        """``match`` is over: late lines about it are told so, its channel and the resyncs
        waiting in it are forgotten, and its end is stored and recorded."""
        self.game_lines.ended(match)
        if match.channel is not None and self._channel_games.get(match.channel.lower()) is match:
            del self._channel_games[match.channel.lower()]
        self.rejoins.ended(match)
        self.writeahead.end(match)

    def next_deadline(self) -> float | None:
        """The soonest time ``poll`` has work: a game's deadline, a resync's wait, a paused
        game's next try of the store."""
        retries = (pause.backoff.at for pause in self._paused.values())
        soonest = (self.timetable.next(), self.rejoins.next())
        return min((*(t for t in soonest if t is not None), *retries), default=None)

    def poll(self, now: float) -> None:
        """Do what is due by ``now``: in the games whose time has come, and no other."""
        self._now = now
        self.writeahead.retry(now)
        self.rejoins.due(now)
        paused, matches = self._paused, self.matches
        for gid in self.timetable.due(now):
            match = matches.get(gid)
            if match is not None and not match.over and gid not in paused:
                match.poll(now)
        self._commit()
