"""The in-memory transport: the referee and SDK bots exchange the very lines they would
exchange over IRC, without a server or a socket.

A line travels with the message it was formatted from wherever the sender has one (the
referee's game lines, the bots' answers): its reader, in this same process, takes that
message instead of parsing the line again. Either way it reads what the line says, so bots
and referee behave as over IRC; ``messages=False`` turns the hand-over off.

Two clocks. The virtual one (the default) makes bots think in no time: a game is as fast and
as reproducible as the code allows, and no bot is ever late. The wall clock times every call
into a bot and lets that time pass on the referee's clock for that bot's lines alone (each bot
thinks as if on a machine of its own, as over IRC), so that a bot that thinks longer than its
deadline gets the referee's timeouts (``timeouts.escalation``) as it would over IRC. With
either, when every line has been delivered and a game still waits, the clock jumps to the
next deadline: a wait during which no bot thinks costs no real time.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..core.game import Result
from ..protocol import MAX_LINE_BYTES, Message, ProtocolError, parse, unbundle
from ..sdk.answers import Reply
from ..sdk.bot import Bot
from ..sdk.session import Session
from .clocks import CLOCKS as CLOCKS, Clock as Clock  # kept apart (the command line names them), and here as before
from .identity import Identities
from .journal import Journal
from .match import Match, Timeouts
from .referee import Referee
from .room import Room

Line = tuple[str, str, str, Message | None]
"""A line on its way: sender, target, text, and the message it carries if its sender had
one (see the module's docstring)."""

STUCK_TURNS = 100
"""Turns at one instant, with nothing sent, after which a room the hub drives is stuck."""


class LocalHub:
    """A tiny network with one channel, one referee and any number of bots."""

    def __init__(
        self,
        timeouts: Timeouts,
        referee_nick: str = "arena",
        channel: str = "#arena",
        identities: Identities | None = None,
        journal: Journal | None = None,
        clock: Clock | None = None,
        messages: bool = True,
    ) -> None:
        """``identities``: where the bots that register are kept (default: in memory; a
        local tournament keeps them in its store, so leaderboards show owners).
        ``journal``: where games in progress are written ahead, as on IRC (default:
        nowhere; a local tournament replays an interrupted game whole instead).

        ``clock``: None for the virtual clock (bots think in no time); else every call into
        a bot is timed with it, and the time it took passes on the referee's clock before
        the bot's lines arrive (``_run_timed``).

        ``messages``: False to send every line as text alone, which its reader parses, as
        over IRC (to compare with, or to time, the hand-over of messages)."""
        self.channel = channel
        self.now = 0.0
        self._queue: deque[Line] = deque()
        """Lines said at ``now`` and not yet delivered (with a clock: not yet timed)."""
        self._clock = clock
        self._timeline: list[tuple[float, int, str, str, str, Message | None]] = []
        """With a clock: the lines on their way, as ``(arrival, order, *line)`` in a heap;
        ``order`` keeps lines of one instant in the order they were said."""
        self._order = itertools.count()
        self._free: dict[Session, float] = {}
        """With a clock: when each bot is done with the lines it was given so far."""
        self._messages = messages
        self.referee = Referee(
            referee_nick,
            timeouts,
            self._from_referee,
            identities=identities,
            journal=journal,
            post=self._post_message if messages else None,
        )
        self.sessions: dict[str, Session] = {}
        self._members: dict[str, dict[str, None]] = {}
        """The games' channels, folded, with the folded nicks of the bots in each, in the
        order they joined (every bot is in ``channel``, the lobby, always). A channel stays
        while a bot is in it."""
        self._left: set[str] = set()
        """Game channels the referee has left: their bots leave once they have heard the
        last lines (``Session`` leaves as it reads the END), and the channel is gone."""
        self._sent: list[Callable[[], None]] = []
        """What waits for the lines queued so far to have gone out (``after_sent``)."""
        self.channel_log: list[str] = []
        """Every line the referee said in the channel."""
        self.chat_log: list[tuple[str, str]] = []
        """Every line a player said in the channel: (nick, text)."""

    def _from_referee(self, target: str, text: str) -> None:
        self._queue.append((self.referee.nick, target, text, None))

    def _post_message(self, target: str, text: str, msg: Message) -> None:
        self._queue.append((self.referee.nick, target, text, msg))

    def connect(self, nick: str, bot: Bot) -> Session:
        """Add a bot and register it with the referee, as the SDK does on IRC: it follows
        its games into their channels, and speaks in theirs."""
        session = Session(
            bot,
            nick,
            self.referee.nick,
            say=lambda gid, text: self._speak(nick, gid, text),
            join=lambda channel: self._joined(nick, channel),
            part=lambda channel: self._parted(nick, channel),
        )
        self.register(session)
        return session

    def _speak(self, nick: str, gid: str, text: str) -> None:
        session = self.sessions.get(nick.lower())
        channel = None if session is None else session.channel_of(gid)
        self._queue.append((nick, channel or self.channel, text, None))

    def _joined(self, nick: str, channel: str) -> None:
        """A bot joined a game's channel (one the referee is in): a resync that waited for it goes on."""
        members = self._members.get(channel.lower())
        if members is not None and channel.lower() not in self._left:
            members[nick.lower()] = None
            self.referee.on_join(nick, channel, self.now)

    def _parted(self, nick: str, channel: str) -> None:
        low = channel.lower()
        members = self._members.get(low)
        if members is not None:
            members.pop(nick.lower(), None)
            if not members and low in self._left:
                del self._members[low]
                self._left.discard(low)

    # -- the room's port --------------------------------------------------------------

    def send(self, target: str, text: str) -> None:
        self._queue.append((self.referee.nick, target, text, None))

    def join(self, channel: str) -> None:
        self._members.setdefault(channel.lower(), {})
        self._left.discard(channel.lower())

    def part(self, channel: str) -> None:
        """Leave a game's channel: lines said there before still reach its bots (as over
        IRC, where the PART goes out behind them)."""
        low = channel.lower()
        if self._members.get(low):
            self._left.add(low)
        else:
            self._members.pop(low, None)

    def members(self, channel: str) -> set[str]:
        low = channel.lower()
        if low == self.channel.lower():
            return set(self.sessions) | {self.referee.nick.lower()}
        if low in self._left or low not in self._members:
            return set()
        return {*self._members[low], self.referee.nick.lower()}

    def present(self, nick: str, channel: str) -> bool:
        low, folded = channel.lower(), nick.lower()
        if folded == self.referee.nick.lower():
            return low == self.channel.lower() or (low in self._members and low not in self._left)
        if low == self.channel.lower():
            return folded in self.sessions
        members = self._members.get(low)
        return members is not None and low not in self._left and folded in members

    @staticmethod
    def fold(name: str) -> str:
        return name.lower()

    def after_sent(self, callback: Callable[[], None]) -> None:
        """Lines go out as they are delivered: ``callback`` runs once those queued so far are."""
        self._sent.append(callback)

    @staticmethod
    def max_text_bytes(target: str) -> int:
        return MAX_LINE_BYTES

    def register(self, session: Session) -> None:
        """Add a bot's session, new or one that outlived another referee, and register it."""
        self.sessions[session.nick.lower()] = session
        self._queue.append((session.nick, self.referee.nick, session.hello(), None))
        self.run()

    def say(self, nick: str, text: str) -> None:
        """``nick`` says ``text`` in the channel (delivered by ``run``)."""
        self._queue.append((nick, self.channel, text, None))

    def run(self) -> None:
        """Deliver lines until the network is quiet. A bot's line to the referee (its
        answers: most lines a game has) is told apart first, by one comparison."""
        if self._clock is not None:
            self._run_timed(self._clock)
            return
        queue = self._queue
        referee = self.referee
        ref = referee.nick
        to_referee = ref.lower()
        sessions = self.sessions
        channel = self.channel.lower()
        games = self._members
        messages = self._messages
        while True:
            while queue:
                sender, target, text, msg = queue.popleft()
                low = target.lower()
                if sender == ref:
                    if low == channel:
                        hearers: Iterable[Session] = sessions.values()
                        self.channel_log.append(text)
                    elif low in games:
                        hearers = self._in(low)
                    else:
                        addressee = sessions.get(low)
                        if addressee is not None:
                            # (the message is the referee's own: ``feed`` would only check that, and parse)
                            replies = addressee.replies(msg) if msg is not None else self._feed(addressee, sender, text)
                            for line, said in replies:
                                queue.append((addressee.nick, ref, line, said if messages else None))
                        continue
                    # (parsed once for every listener: the line is the same for all)
                    for heard in (msg,) if msg is not None else self._read(text):
                        for session in hearers:
                            for line, said in session.replies(heard):
                                queue.append((session.nick, ref, line, said if messages else None))
                    continue
                if low != to_referee:
                    chatters = sessions.values() if low == channel else self._in(low) if low in games else None
                    if chatters is not None:  # a player talking in a channel: everyone there hears it
                        for session in chatters:
                            if session.nick != sender:
                                session.chat(sender, text)
                        if low == channel:
                            self.chat_log.append((sender, text))
                referee.on_message(sender, target, text, self.now, None, msg)
            if not self._sent:
                return
            self._went_out()

    @staticmethod
    def _read(text: str) -> list[Message]:
        """The messages of a channel line that came as text alone: one, or several where
        the referee bundles them (protocol 2); none for words for people (an operator's
        ``!status``), which no bot reads."""
        try:
            return [parse(part) for part in unbundle(text)]
        except ProtocolError:
            return []

    def _in(self, channel: str) -> list[Session]:
        """The bots in game channel ``channel`` (folded), in the order they joined: a line
        said there costs what its channel holds, however many bots the hub serves."""
        sessions = self.sessions
        return [session for nick in self._members[channel] if (session := sessions.get(nick)) is not None]

    def _went_out(self) -> None:
        """Every line queued so far is delivered: what waited for that runs."""
        sent, self._sent = self._sent, []
        for callback in sent:
            callback()

    @staticmethod
    def _feed(session: Session, sender: str, text: str) -> list[Reply]:
        """What ``session`` replies to a line that came as text alone."""
        return [(line, None) for line in session.feed(sender, text)]

    def _run_timed(self, clock: Clock) -> None:
        """``run`` with a clock: deliver lines in the order of their arrival on the
        referee's clock, and apply every deadline that passes before the next line arrives,
        as the referee on IRC does while it waits (a bot whose answer comes late is warned,
        or answered by default, before its answer is read).

        Each bot thinks as if alone on its own machine, as bots on IRC do: a call into it
        starts when its line arrives, or when it has done with the lines before (one bot
        thinks of one thing at a time), and its lines arrive when the call returns, timed
        by ``clock``. The calls run one after another in this process, but no bot's
        thinking delays another bot's lines, so each deadline measures its own bot's
        thinking alone. The referee's own work takes no time."""
        timeline, referee, sessions = self._timeline, self.referee, self.sessions
        channel = self.channel.lower()
        games = self._members
        while True:
            self._post(self.now)  # what the referee (or a caller) said just now
            if self._sent:  # on their way: gone out
                self._went_out()
                continue
            if not timeline:
                return
            at = timeline[0][0]
            deadline = referee.next_deadline()
            # A wait of no time (a grace of 0 s) is left to a later poll: polling again at
            # the same instant, with the late answer still on its way, could warn forever.
            if deadline is not None and self.now < deadline < at:
                self.now = deadline
                referee.poll(deadline)
                continue
            _, _, sender, target, text, msg = heapq.heappop(timeline)
            self.now = at
            low = target.lower()
            if sender == referee.nick:
                hearers = sessions.values() if low == channel else self._in(low) if low in games else None
                if hearers is not None:
                    if low == channel:
                        self.channel_log.append(text)
                    for heard in (msg,) if msg is not None else self._read(text):
                        for session in hearers:
                            self._think(session, clock, session.replies, heard)
                else:
                    addressee = sessions.get(low)
                    if addressee is None:
                        continue
                    if msg is not None:
                        self._think(addressee, clock, addressee.replies, msg)
                    else:
                        self._think(addressee, clock, self._feed, addressee, sender, text)
            else:
                hearers = sessions.values() if low == channel else self._in(low) if low in games else None
                if hearers is not None:
                    for session in hearers:
                        if session.nick != sender:
                            self._think(session, clock, session.chat, sender, text)
                    if low == channel:
                        self.chat_log.append((sender, text))
                referee.on_message(sender, target, text, self.now, None, msg)

    def _think(self, session: Session, clock: Clock, work: Callable[..., list[Reply] | None], *args: Any) -> None:
        """Give ``session`` a line (``work(*args)``) and time what its bot makes of it: the
        lines it says (speech, through ``say``) and returns (answers, TEAM) arrive at the
        referee that much later."""
        start = max(self.now, self._free.get(session, self.now))
        began = clock()
        lines = work(*args)
        done = start + (clock() - began)
        self._free[session] = done
        self._post(done)  # the speech, said before the answer that ends the turn
        for line, said in lines or ():
            heapq.heappush(
                self._timeline,
                (done, next(self._order), session.nick, self.referee.nick, line, said if self._messages else None),
            )

    def _post(self, at: float) -> None:
        """Put the lines said so far on their way, to arrive at ``at``."""
        queue, timeline, order = self._queue, self._timeline, self._order
        while queue:
            heapq.heappush(timeline, (at, next(order), *queue.popleft()))

    def play(
        self,
        game: str,
        seats: Sequence[str],
        options: Any,
        seed: int,
        gid: str | None = None,
    ) -> Match:
        """Play one game to its end and return the finished match."""
        return self.finish(self.referee.start_game(game, list(seats), options, seed, self.channel, self.now, gid=gid))

    def finish(self, match: Match) -> Match:
        """Play a started (or resumed) game to its end, jumping the clock to each deadline
        that passes with no line on its way (no bot is thinking: with either clock, a wait
        costs no real time)."""
        while True:
            self.run()
            if match.over:
                del self.referee.matches[match.gid]
                return match
            deadline = self.referee.next_deadline()
            if deadline is None:  # nothing can move the game: a bug, not a silent bot
                raise RuntimeError(f"game {match.gid} is stuck")
            self.now = max(self.now, deadline)
            self.referee.poll(self.now)

    def serve(self, room: Room) -> None:
        """Drive ``room`` (whose port is this hub) until it is done: deliver the lines, let
        it seat and start games as its bots join their channels, and jump the clock to
        whatever is due next, a deadline or the room's own wake-up. Raises RuntimeError if
        nothing is due while the room waits for nothing that can come."""
        wake = math.inf

        def woken(at: float, now: float) -> None:
            nonlocal wake
            wake = at

        room.on_wake = woken
        room.take_up(self.now)
        idle = 0
        """Turns in a row at one instant with no line sent: a room that keeps waking for
        nothing is stuck too."""
        while True:
            self.run()
            room.after(self.now)
            if self._queue or self._sent:
                idle = 0
                continue
            if room.done:
                return
            deadline = self.referee.next_deadline()
            due = min(wake, math.inf if deadline is None else deadline)
            idle = idle + 1 if due <= self.now else 0
            if due == math.inf or idle > STUCK_TURNS:
                raise RuntimeError(f"the room is stuck: {room.waiting_line(self.now) or 'nothing is due'}")
            self.now = max(self.now, due)
            wake = math.inf
            self.referee.poll(self.now)


def result_of(match: Match) -> Result:
    assert match.game.result is not None
    return match.game.result
