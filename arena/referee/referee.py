"""The referee's brain, free of any transport: registrations, games, routing of lines.

A transport (IRC or in-memory) feeds it incoming lines and membership changes with the
current time, and gives it a ``send(target, text)`` function. It never blocks and never
sleeps; callers ask ``next_deadline()`` and call ``poll(now)`` then.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections import OrderedDict
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from typing import Any

from ..core.errors import ErrorCode
from ..core.game import Game
from ..games import GAMES, LINES, RESERVED_NICKS, rebuild
from ..store import LiveGame
from ..protocol import (
    ANSWER,
    BYE,
    CHALLENGE,
    PROOF,
    SCRAM,
    TEAM,
    ERROR,
    PAUSE,
    PROTOCOL_VERSION,
    REGISTER,
    REGISTERED,
    UNREGISTER,
    WELCOME,
    WHO,
    Message,
    ProtocolError,
    game_id,
    pack_scram,
    parse,
    redacted,
    shown,
    unpack_scram,
    valid_id,
    valid_nick,
    valid_request_id,
)
from .budget import ReplyBudget
from .identity import AuthError, Challenge, Identities, Proof
from .journal import Journal, stored_state
from .deadlines import Timeouts
from .floor import game_over, not_playing
from .match import Match
from .output import MatchOutput
from .pause import STORE_DOWN, Backoff, Pause, unwritable

log = logging.getLogger(__name__)

ENDED_MEMORY = 500
"""Ended games whose ids the referee still knows (the oldest is forgotten first): a late answer to
one gets GAME_OVER, not UNKNOWN_GAME, and the memory stays bounded however long it runs."""

REJOIN_WAIT = 5.0
"""Seconds a resync waits for its bot to rejoin the game's channel before it goes on anyway
(the bot then plays by DM only, as one that never joined)."""

READ_MEMORY = 64
"""Distinct lines from bots the referee keeps parsed (``Referee._read``): a round's answers."""

_IDS = {ANSWER: 2, TEAM: 1}
"""How many ids (game, request) open each game line a bot sends."""
MAX_LABEL = 64
"""Longest ``owner=`` or ``version=`` a bot may give: both are stored and shown."""


def leading_ids(verb: str, args: Sequence[str]) -> tuple[str, ...]:
    """The game and request ids that open a game line, as far as they read as ids (a game
    id, then a request id: protocol.md, section 6): an ERROR names them, so the bot knows
    which answer failed, and never echoes a token that could make the ERROR itself too
    long or not an id."""
    ids: list[str] = []
    for token, valid in zip(args[: _IDS.get(verb, 0)], (valid_id, valid_request_id)):
        if not valid(token):
            break
        ids.append(token)
    return tuple(ids)


def line_ids(line: str) -> tuple[str, ...]:
    """``leading_ids`` of a line the grammar refused."""
    tokens = line.split(" ", 3)
    return leading_ids(tokens[0], tokens[1:])


@dataclass
class BotInfo:
    """A registered bot and the connection that plays it now."""

    name: str
    """The identity: ratings, seats and history belong to it."""
    nick: str
    """Where the connection that registered it is now (follows nick changes)."""
    owner: str
    version: str
    account: str | None = None
    """The services account that proved it, if one did: every line of it must come from
    that account."""


class Referee:
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
        self.bots: dict[str, BotInfo] = {}
        """Registered connections by folded nick."""
        self._by_name: dict[str, BotInfo] = {}
        """The same, by folded bot name: one connection per bot."""
        self.matches: dict[str, Match] = {}
        self._read = functools.lru_cache(maxsize=READ_MEMORY)(parse)
        """``parse`` for the lines bots send, each text read once while it recurs: the
        lines of a round repeat (ten votes are two texts), and no handler changes the
        message it is given."""
        self._ids = itertools.count(1)
        self.journal = journal
        """Where games in progress are written ahead of their lines (None: nowhere; a
        game then ends with the process that runs it)."""
        self._outbox: list[tuple[str, Callable[..., object], tuple[Any, ...]]] | None = None if journal is None else []
        """With a journal: what the games' steps send (by game id), held until ``_commit``
        stored them."""
        self._paused: dict[str, Pause] = {}
        """Games whose last step could not be stored: nothing of them goes out until it is."""
        self._store_down: Backoff | None = None
        """Set when the store refused a write outside any game (a new game's id): no game
        starts until a try after ``at`` works (``writable``, ``store_failed``)."""
        self._now = 0.0
        """The latest time a caller passed in: when a pause began, for calls that pass none."""
        self.on_game_start: list[Callable[[Match], None]] = []
        self.on_game_end: list[Callable[[Match], None]] = []
        self.on_bot: list[Callable[[str, bool], None]] = []
        """Called with a bot's name and True when a connection starts playing it, False
        when none does any more (unregistered, left the server, replaced)."""
        self.member: Callable[[str, str], bool] | None = None
        """Set by a transport with channels (IRC): whether a nick is in a channel now. A
        resync then waits for its bot to rejoin the game's channel (``on_join``)."""
        self._rejoining: dict[tuple[str, int], float] = {}
        """Resyncs waiting for their bot in the game's channel: (game, seat) -> until when."""
        self.host_of: Callable[[str], str | None] | None = None
        """Set by a transport that knows where connections come from (IRC): a nick's host,
        by which wrong proofs are slowed down beside their connection's."""
        self.mode: Callable[[str, str], None] | None = None
        """Set by a transport whose server has channel modes (IRC): then a game with turns at
        the floor runs in a moderated channel and the speaker is voiced."""
        self._channel_games: dict[str, Match] = {}
        """Game channels to their running match, to judge what players say there."""
        self._ended_games: OrderedDict[str, frozenset[str]] = OrderedDict()
        """The last ``ENDED_MEMORY`` ended games: id to the folded names of their bots."""

    @property
    def nick(self) -> str:
        """The nick the referee runs under now; DMs to it are protocol."""
        return self._nick

    @nick.setter
    def nick(self, value: str) -> None:
        self._nick = value
        self._folded = value.lower()  # compared with every line's target

    # -- write ahead ----------------------------------------------------------------

    def behind(self, gid: str, send: Callable[..., object], *args: Any) -> None:
        """Send for game ``gid``, behind the lines of the step in progress: at once without
        a journal, else once the step is stored (and the game is not paused)."""
        if self._outbox is None:
            send(*args)
        else:
            self._outbox.append((gid, send, args))

    def _held(self, gid: str, send: Callable[..., object]) -> Callable[..., object]:
        """``send`` as game ``gid`` uses it: itself without a journal, else held like ``behind``."""
        if self._outbox is None:
            return send
        return lambda *args: self.behind(gid, send, *args)

    def _commit(self) -> None:
        """Store the games' new steps, then send what they held back; a game whose step
        could not be stored is paused with its lines unsent (``_pause``). Every public entry
        point that can move a game ends here."""
        journal = self.journal
        if journal is None:
            return
        outbox = self._outbox or []
        if not outbox and not journal.unsaid():
            return  # (a line of speech sends nothing, and is stored all the same)
        for match, exc in journal.save(skip=self._paused).values():
            self._pause(match, exc)
        self._outbox = []
        paused = self._paused
        if not paused:  # (the usual case: one test, not one per line)
            for _, send, args in outbox:
                send(*args)
            return
        for gid, send, args in outbox:
            pause = paused.get(gid)
            if pause is None:
                send(*args)
            else:
                pause.held.append((send, args))

    # -- when the store cannot be written ---------------------------------------------

    def _pause(self, match: Match, exc: Exception, ending: bool = False) -> None:
        """Stop ``match``, whose step could not be stored: its lines wait (``_commit``
        holds them), nothing is asked and no deadline runs, and the store is tried again
        later (``poll``). Its channel and the log say why, once."""
        gid = match.gid
        pause = self._paused.get(gid)
        if pause is not None:
            pause.ending = pause.ending or ending
            return
        now = self._now
        pause = self._paused[gid] = Pause(match, Backoff(now), ending=ending, waiting=match.suspended)
        assert self.journal is not None
        match.pause(self.journal.stored_lines(gid), now)
        log.error("game %s paused: %s (%s); trying again in %.0f s", gid, STORE_DOWN, _why(exc), pause.backoff.delay)
        if match.channel is not None:
            self.send(match.channel, Message.make(PAUSE, gid, text=STORE_DOWN).format())

    def _retry(self, now: float) -> None:
        """Try again to store the steps of the paused games whose wait is over; each one
        stored goes on where it stopped: what it held goes out, and then (``Match.go_on``)
        its pending requests are asked again, or it ends as it was ending."""
        paused = self._paused
        due = [gid for gid, pause in paused.items() if pause.backoff.at <= now]
        if not due:
            return
        assert self.journal is not None
        failed = self.journal.save(skip=[gid for gid in paused if gid not in due])
        for gid, (running, why) in failed.items():
            if gid not in paused:  # (a running game with a step unstored: it pauses as in ``_commit``)
                self._pause(running, why)
        for gid in due:
            pause = paused[gid]
            match = pause.match
            exc = failed[gid][1] if gid in failed else None
            if exc is None and pause.ending:
                try:
                    exc = self._finish(match)
                except Exception as bug:  # (not the store's fault) logged whole, and tried again like it
                    log.exception("game %s could not be finished", gid)
                    exc = bug
            if exc is not None:
                pause.backoff.failed(now)
                log.error(
                    "game %s still paused: %s (%s); trying again in %.0f s",
                    gid,
                    STORE_DOWN,
                    _why(exc),
                    pause.backoff.delay,
                )
                continue
            del paused[gid]
            assert self._outbox is not None
            self._outbox[:0] = [(gid, send, args) for send, args in pause.held]
            log.warning(
                "game %s goes on after %.0f s: the results store can be written again", gid, now - pause.backoff.since
            )
            if not pause.ending and not pause.waiting:
                match.go_on(now)

    def paused(self) -> dict[str, float]:
        """The games paused because the store cannot be written, with since when."""
        return {gid: pause.backoff.since for gid, pause in self._paused.items()}

    def writable(self, now: float) -> bool:
        """Whether a new game may start: no game is paused, and the store did not refuse a
        write lately (once the wait after that is over, the next start is the try)."""
        return not self._paused and (self._store_down is None or now >= self._store_down.at)

    @property
    def store_retry(self) -> float | None:
        """When a new game may try the store again, after it refused a write (``store_failed``)."""
        return None if self._store_down is None else self._store_down.at

    def store_failed(self, exc: Exception, now: float) -> None:
        """The store refused a write outside any game (a new game's id): no game starts
        until a try after the wait works (``store_works``)."""
        down = self._store_down
        if down is None:
            self._store_down = down = Backoff(now)
        else:
            down.failed(now)
        log.error("no game starts: %s (%s); trying again in %.0f s", STORE_DOWN, _why(exc), down.delay)

    def store_works(self) -> None:
        """A write outside any game worked: games may start again."""
        if self._store_down is not None:
            log.warning("the results store can be written again: games start again")
            self._store_down = None

    # -- who is who -----------------------------------------------------------------

    def bot_of(self, nick: str, account: str | None = None) -> BotInfo | None:
        """The bot that the connection now on ``nick`` registered as, if it did; a bot
        proven by an account is the sender only when the line comes from that account."""
        info = self.bots.get(nick.lower())
        if info is None or (info.account is not None and (account or "").lower() != info.account.lower()):
            return None
        return info

    def bot_named(self, name: str) -> BotInfo | None:
        return self._by_name.get(name.lower())

    def _bind(self, info: BotInfo) -> None:
        self.bots[info.nick.lower()] = info
        self._by_name[info.name.lower()] = info
        self._route(info.name, info.nick)
        for callback in self.on_bot:
            callback(info.name, True)

    def _unbind(self, info: BotInfo) -> None:
        if self.bots.get(info.nick.lower()) is info:
            del self.bots[info.nick.lower()]
        if self._by_name.get(info.name.lower()) is info:
            del self._by_name[info.name.lower()]
            self._route(info.name, None)
            for callback in self.on_bot:
                callback(info.name, False)

    def _route(self, name: str, nick: str | None) -> None:
        """Send the private lines of ``name``'s seats to ``nick`` (None: to nobody, until
        the bot registers again: whoever takes its nick meanwhile is not the bot)."""
        for match in self.matches.values():
            seat = match.seat_of(name)
            if seat is not None:
                if nick is None:  # its connection is gone: the next one gets a resync of its own
                    self._rejoining.pop((match.gid, seat), None)
                match.route(seat, nick)

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
                    if match.game.floor_kinds:
                        match.floor.said(name, sender, text, now)
                    else:
                        match.floor.chatted(name, sender, text, now)
                    return
            if msg is None:
                try:
                    msg = self._read(text)
                except ProtocolError as exc:
                    if direct:
                        self._refuse(sender, account, exc.code, exc.reason, line_ids(text))
                    return
            if not direct:
                return  # answers and registrations count only in private
            handler = self._handlers.get(msg.verb)
            if handler is None:
                self._error(sender, ErrorCode.UNKNOWN_COMMAND, f"{msg.verb} is sent by the referee, not to it")
                return
            try:
                handler(self, sender, msg, now, account, text)
            except Exception as exc:
                if self.journal is None and unwritable(exc):
                    # A game ended that its recorder could not store, and no journal can pause it:
                    # its runner (a local tournament) must stop, and play it again once it can.
                    raise
                # A bug, not the sender's fault: a referee left running must outlive it, and
                # the sender must still learn its line did nothing.
                log.exception("line from %s could not be handled: %r", sender, redacted(text[:200]))
                self._refuse(
                    sender,
                    account,
                    ErrorCode.MALFORMED,
                    "the referee failed on this line (logged); it changed nothing",
                    leading_ids(msg.verb, msg.args),
                )
        finally:
            if self.journal is not None:  # (``_commit``'s own first test, without the call)
                self._commit()

    def on_rename(self, old: str, new: str) -> None:
        """A nick change keeps the bot: its connection is the same (and so are its
        registration under way and its wrong proofs)."""
        self.identities.rename(old, new)
        info = self.bots.pop(old.lower(), None)
        if info is not None:
            stale = self.bots.pop(new.lower(), None)
            if stale is not None:  # cannot happen on IRC (the nick was free); keep the maps exact
                self._unbind(stale)
            info.nick = new
            self.bots[new.lower()] = info
            self._route(info.name, new)
            self._commit()

    def on_leave(self, nick: str) -> None:
        """A connection that leaves the server no longer plays its bot; a seat the bot holds
        keeps running on deadlines (warn, default, forfeit) until it registers again."""
        self.identities.leave(nick)
        info = self.bots.get(nick.lower())
        if info is not None:
            self._unbind(info)
            self._commit()

    # -- commands -------------------------------------------------------------------

    def _register(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        version = msg.args[0]
        if version != str(PROTOCOL_VERSION):
            self._error(
                sender,
                ErrorCode.UNSUPPORTED_VERSION,
                f"this referee speaks protocol {PROTOCOL_VERSION}, not {version[:10]}",
            )
            return
        if not valid_nick(sender):
            self._error(
                sender,
                ErrorCode.NAME_INVALID,
                "nicks of players are 1-16 letters, digits or -[]\\^_`{|}, not starting with a digit or -",
            )
            return
        if sender.lower() in RESERVED_NICKS:
            self._error(
                sender,
                ErrorCode.NAME_INVALID,
                f"{sender} is a reserved word of the games' answers; choose another nick",
            )
            return
        name = msg.get("name") or sender
        if not valid_nick(name) or name.lower() in RESERVED_NICKS:
            self._error(
                sender,
                ErrorCode.NAME_INVALID,
                f"name={shown(name)} is not a bot name: a bot's name is 1-16 "
                "letters, digits or -[]\\^_`{|}, not starting with a digit "
                "or -, and not a reserved word",
            )
            return
        for label in ("owner", "version"):
            if len(msg.get(label, "")) > MAX_LABEL:
                self._error(sender, ErrorCode.MALFORMED, f"{label}= is at most {MAX_LABEL} characters")
                return
        if "key" in msg.fields:
            self._error(
                sender,
                ErrorCode.AUTH_FAILED,
                "a key is never sent: prove it by SCRAM (REGISTER with scram=, "
                "protocol.md section 3), as the current SDK does",
            )
            return
        owner, bot_version = msg.get("owner") or "unknown", msg.get("version") or "unknown"
        scram = msg.get(SCRAM)
        try:
            outcome = self.identities.prove(
                sender,
                name,
                None if scram is None else unpack_scram(scram),
                account,
                self._host(sender),
                (owner, bot_version),
            )
        except (AuthError, ProtocolError) as exc:
            self._error(sender, exc.code, exc.reason)
            return
        if isinstance(outcome, Challenge):
            self._tell(sender, Message.make(CHALLENGE, name=name, scram=pack_scram(outcome.server_first)))
            return
        self._admit(sender, name, owner, bot_version, outcome, now, {})

    def _proof(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        """The bot's proof of its key (SCRAM's client-final-message): admitted, the bot gets
        the referee's signature (server-final-message) in its WELCOME."""
        try:
            admitted = self.identities.finish(sender, unpack_scram(msg.get(SCRAM, "")), self._host(sender))
        except (AuthError, ProtocolError) as exc:
            self._error(sender, exc.code, exc.reason)
            return
        owner, bot_version = admitted.context
        self._admit(
            sender, admitted.name, owner, bot_version, admitted.proof, now, {SCRAM: pack_scram(admitted.server_final)}
        )

    def _host(self, sender: str) -> str | None:
        return None if self.host_of is None else self.host_of(sender)

    def _admit(
        self, sender: str, name: str, owner: str, bot_version: str, proof: Proof, now: float, signed: dict[str, str]
    ) -> None:
        """``sender`` proved it is bot ``name`` (``signed``: the referee's proof in return,
        for WELCOME)."""
        holder = self._by_name.get(name.lower())
        if holder is not None and holder.nick.lower() != sender.lower():
            if proof.how == "name":  # nothing proves this connection is the bot rather than the holder
                self._error(sender, ErrorCode.NAME_TAKEN, f"bot {name} is played by another connection now")
                return
            self._tell(holder.nick, Message.make(BYE, text=f"{name} registered from another connection"))
            self._unbind(holder)
        mine = self.bots.get(sender.lower())
        if mine is not None and mine.name.lower() != name.lower():
            self._unbind(mine)  # this connection plays another bot from now on
        try:
            self.identities.remember(name, owner, bot_version, proof)
        except Exception as exc:
            if not unwritable(exc):
                raise
            # Its games must not wait on what it says of itself: it plays, and says it again next time.
            log.warning(
                "bot %s registered, but what it says of itself (owner, version, account) could not be stored: %s (%s)",
                name,
                STORE_DOWN,
                _why(exc),
            )
        # The WELCOME goes in line with the games' lines: a bot obeys none of the referee's
        # lines before it (section 3), so a TABLE or RESYNC sent after it must not overtake it.
        welcome = Message.make(WELCOME, sender, protocol=PROTOCOL_VERSION, name=name, **signed)
        info = self._by_name.get(name.lower())
        if info is not None:  # the same connection again: it has heard everything already
            info.owner, info.version, info.account = owner, bot_version, proof.account
            self._tell(sender, welcome, ordered=True)
            return
        self._bind(BotInfo(name, sender, owner, bot_version, proof.account))
        self._tell(sender, welcome, ordered=True)
        # A connection that comes back is told what its seats were told before. Only a new
        # one: a resync costs the game's lines again, which a bot must not be able to
        # trigger at will by registering over and over.
        for match in list(self.matches.values()):
            seat = match.seat_of(name)
            if seat is not None and (not match.over or match.suspended):
                self._resync(match, seat, now)

    def _resync(self, match: Match, seat: int, now: float) -> None:
        """Resync a seat's bot; where it must rejoin the game's channel first, the block
        after ``RESYNC begin`` waits until it is there (``on_join``) or ``REJOIN_WAIT``
        seconds pass: channel lines said meanwhile would be lost to it, and the block sent
        once it is in holds them all."""
        nick = match.nicks[seat]
        if self.member is None or match.channel is None or match.over or self.member(nick, match.channel):
            match.resync(seat, now)  # (a game over says nothing more in its channel: its block ends with END)
            return
        match.resync_begin(seat)
        self._rejoining[(match.gid, seat)] = now + REJOIN_WAIT

    def on_join(self, nick: str, channel: str, now: float) -> None:
        """``nick`` joined ``channel``: a resync that waited for it goes on."""
        self._now = now
        for (gid, seat), _ in list(self._rejoining.items()):
            match = self.matches.get(gid)
            if match is None or match.over:
                del self._rejoining[(gid, seat)]
            elif (match.channel or "").lower() == channel.lower() and match.nicks[seat].lower() == nick.lower():
                del self._rejoining[(gid, seat)]
                match.resync_rest(seat, now)
        self._commit()

    def _unregister(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        info = self.bot_of(sender, account)
        if info is not None:
            self._unbind(info)
        self._tell(sender, Message.make(BYE))

    def _who(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        bots = sorted(self.bots.values(), key=lambda b: b.nick.lower())
        running = [f"{gid}:{m.game.name}" for gid, m in self.matches.items() if not m.over]
        self._tell(sender, Message.make(REGISTERED, bots=[b.nick for b in bots], games=running))

    def _player(self, sender: str, msg: Message, account: str | None) -> tuple[BotInfo, Match] | None:
        """The registered bot behind a game line and its game, or None after an ERROR. A
        game id that is not an id breaks the grammar: MALFORMED, whoever sends it (every
        later ERROR echoes it); the id of a running game is one, and needs no check."""
        gid = msg.args[0]
        match = self.matches.get(gid)
        if match is None:
            try:
                game_id(gid)
            except ProtocolError as exc:
                self._error(sender, exc.code, exc.reason, *leading_ids(msg.verb, msg.args))
                return None
        # ``bot_of``, called only for a bot bound to an account (this runs for every answer)
        info = self.bots.get(sender.lower())
        if info is not None and info.account is not None:
            info = self.bot_of(sender, account)
        if info is None:
            self._error(
                sender, ErrorCode.NOT_REGISTERED, "register first: REGISTER 1 name=NAME (protocol.md section 3)", gid
            )
            return None
        if match is None:
            seated = self._ended_games.get(gid)
            if seated is None:
                self._error(sender, ErrorCode.UNKNOWN_GAME, f"no game {gid!r} is running", gid)
            else:
                refusal = game_over(gid) if info.name.lower() in seated else not_playing(gid)
                self._error(sender, refusal.code, refusal.reason, *leading_ids(msg.verb, msg.args))
            return None
        return info, match

    def _answer(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        found = self._player(sender, msg, account)
        if found is not None and not self._refused_paused(sender, msg, ErrorCode.STALE_REQUEST):
            args = msg.args
            found[1].answer(found[0].name, args[1], args[2], now, sender, line, msg.fields.get("fallback"))

    def _team(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        found = self._player(sender, msg, account)
        if found is not None and not self._refused_paused(sender, msg, ErrorCode.INVALID_PHASE):
            found[1].floor.team(found[0].name, msg, reply_to=sender, now=now)

    def _refused_paused(self, sender: str, msg: Message, code: ErrorCode) -> bool:
        """Refuse a game line for a paused game, outside its record (nothing of it can be
        stored now): no request is open while it is paused (its pending ones are asked
        again when it goes on), and nobody hears a TEAM line."""
        gid = msg.args[0]
        if not self._paused or gid not in self._paused:
            return False
        self._error(
            sender,
            code,
            f"game {gid} is paused: {STORE_DOWN}; it goes on, asking its open requests again, "
            "once the store can be written",
            *leading_ids(msg.verb, msg.args),
        )
        return True

    _handlers: dict[str, Callable[[Referee, str, Message, float, str | None, str], None]] = {
        REGISTER: _register,
        PROOF: _proof,
        UNREGISTER: _unregister,
        WHO: _who,
        ANSWER: _answer,
        TEAM: _team,
    }

    def _refuse(self, sender: str, account: str | None, code: ErrorCode, reason: str, ids: tuple[str, ...]) -> None:
        """Refuse a line that never reached a game's own checks (it broke the grammar): through
        the game its ids name when its sender plays a seat there, so that the game's record
        keeps the refusal as it keeps every other (``arena stats`` counts them), else
        straight back to the sender."""
        match = self.matches.get(ids[0]) if ids else None
        if match is not None and not match.over:
            info = self.bot_of(sender, account)
            if info is not None and match.record.refuse_bot(info.name, sender, code, reason, *ids[1:]):
                return
        self._error(sender, code, reason, *ids)

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
        connections = [self._by_name.get(name.lower()) for name in seats]
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
                self._resync(match, seat, now)
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
        output = MatchOutput(
            say=functools.partial(self._held(gid, self.send), channel),
            tell=self._held(gid, self.send),
            tell_many=None if self.send_many is None else self._held(gid, self.send_many),
            reply=self._held(gid, self._reply),
            after_sent=None if self.after_sent is None else self._held(gid, self.after_sent),
            post=None if self.post is None else self._held(gid, self._poster(channel)),
            on_end=self._ended,
            on_floor=self._moderate(gid, channel) if game.floor_kinds and self.mode is not None else None,
        )
        match = Match(gid, game, names, LINES[game.name], self.timeouts, output, bots=bots, channel=channel)
        for seat, bot in enumerate(bots):
            info = self._by_name.get(bot.lower())
            match.route(seat, None if info is None else info.nick)
        self.matches[gid] = match
        self._channel_games[channel.lower()] = match
        return match

    def _poster(self, channel: str) -> Callable[[str | None, str, Message], None]:
        """``post`` as a game in ``channel`` uses it: None stands for the channel."""
        post = self.post
        assert post is not None

        def to(nick: str | None, line: str, msg: Message) -> None:
            post(channel if nick is None else nick, line, msg)

        return to

    def _moderate(self, gid: str, channel: str) -> Callable[[str | None, str | None], None]:
        """Only the voiced may talk in a moderated channel: the game's ``on_floor``, which
        voices whoever has the floor."""
        server_mode = self.mode
        assert server_mode is not None

        def mode(what: str) -> None:
            self.behind(gid, server_mode, channel, what)

        mode("+m")

        def floor(old: str | None, new: str | None) -> None:
            if old is not None:
                mode(f"-v {old}")
            if new is not None:
                mode(f"+v {new}")

        return floor

    def _ended(self, match: Match) -> None:
        ended = self._ended_games
        ended[match.gid] = frozenset(name.lower() for name in match.bots or match.names)
        if len(ended) > ENDED_MEMORY:
            ended.popitem(last=False)
        for channel, m in list(self._channel_games.items()):
            if m is match:
                del self._channel_games[channel]
        for gid, seat in [key for key in self._rejoining if key[0] == match.gid]:
            del self._rejoining[(gid, seat)]
            match.resync_rest(seat, 0.0)  # a replay still waiting for its bot: it ends with END now
        gid = match.gid
        journal = self.journal
        if journal is None:
            self._finish(match)
            return
        pause = self._paused.get(gid)
        if pause is not None:  # (stopped while paused) it ends once its step is stored
            pause.ending = True
            return
        # The end's step, before it is recorded: a restart then finds the whole game.
        failed = journal.save(skip=self._paused)
        for other, exc in failed.values():
            self._pause(other, exc, ending=other is match)
        if gid not in failed:
            unrecorded = self._finish(match)
            if unrecorded is not None:
                self._pause(match, unrecorded, ending=True)

    def _finish(self, match: Match) -> Exception | None:
        """What follows a game's end, once it is stored: ``on_game_end`` (its record, its
        bots back in the lobby), then, behind its END, its removal from the games in
        progress. Returns why the store could not be written, if it could not (the game
        is then paused until it can, with its END held back); raises any other failure."""
        try:
            for callback in self.on_game_end:
                callback(match)
        except Exception as exc:
            if self.journal is None or not unwritable(exc):
                raise
            return exc
        journal = self.journal
        if journal is not None:
            gid = match.gid
            if self.after_sent is None:
                self.behind(gid, journal.forget, gid)
            else:  # once END and what follows it are written to the server, not merely queued
                self.behind(gid, self.after_sent, lambda at: journal.forget(gid))
        return None

    def next_deadline(self) -> float | None:
        games = (d for m in self.matches.values() if (d := m.next_deadline()) is not None)
        retries = (pause.backoff.at for pause in self._paused.values())
        return min((*games, *self._rejoining.values(), *retries), default=None)

    def poll(self, now: float) -> None:
        self._now = now
        self._retry(now)
        for (gid, seat), until in list(self._rejoining.items()):
            if until <= now:
                del self._rejoining[(gid, seat)]
                match = self.matches.get(gid)
                if match is not None and not match.over:
                    match.resync_rest(seat, now)  # it did not rejoin: it plays by DM
        paused = self._paused
        for match in list(self.matches.values()):
            if not match.over and match.gid not in paused:
                match.poll(now)
        self._commit()


def _why(exc: BaseException) -> str:
    """A failure in a few words, for the log: its type and message."""
    return f"{type(exc).__name__}: {exc}"
