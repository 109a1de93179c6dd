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
import time
from collections import deque
from typing import Any, Callable, Sequence

from ..core.game import Result
from ..protocol import Message, parse
from ..sdk.bot import Bot, Reply, Session
from .identity import Identities
from .journal import Journal
from .match import Match, Timeouts
from .referee import Referee

Clock = Callable[[], float]
"""A monotonic clock in seconds, such as ``time.perf_counter``."""

Line = tuple[str, str, str, Message | None]
"""A line on its way: sender, target, text, and the message it carries if its sender had
one (see the module's docstring)."""

CLOCKS: dict[str, Clock | None] = {"virtual": None, "wall": time.perf_counter}
"""The clocks of local play by the names the command line gives them (``--clock``): None is
the virtual clock."""


class LocalHub:
    """A tiny network with one channel, one referee and any number of bots."""

    def __init__(self, timeouts: Timeouts, referee_nick: str = "arena", channel: str = "#arena",
                 identities: Identities | None = None, journal: Journal | None = None,
                 clock: Clock | None = None, messages: bool = True) -> None:
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
        self.referee = Referee(referee_nick, timeouts, self._from_referee, identities=identities, journal=journal,
                               post=self._post_message if messages else None)
        self.sessions: dict[str, Session] = {}
        self.channel_log: list[str] = []
        """Every line the referee said in the channel."""
        self.chat_log: list[tuple[str, str]] = []
        """Every line a player said in the channel: (nick, text)."""

    def _from_referee(self, target: str, text: str) -> None:
        self._queue.append((self.referee.nick, target, text, None))

    def _post_message(self, target: str, text: str, msg: Message) -> None:
        self._queue.append((self.referee.nick, target, text, msg))

    def connect(self, nick: str, bot: Bot) -> Session:
        """Add a bot and register it with the referee, as the SDK does on IRC."""
        session = Session(bot, nick, self.referee.nick, say=lambda gid, text: self.say(nick, text))
        self.register(session)
        return session

    def register(self, session: Session) -> None:
        """Add a bot's session, new or one that outlived another referee, and register it."""
        self.sessions[session.nick.lower()] = session
        self._queue.append((session.nick, self.referee.nick, session.hello(), None))
        self.run()

    def say(self, nick: str, text: str) -> None:
        """``nick`` says ``text`` in the channel (delivered by ``run``)."""
        self._queue.append((nick, self.channel, text, None))

    def run(self) -> None:
        """Deliver lines until the network is quiet."""
        if self._clock is not None:
            self._run_timed(self._clock)
            return
        queue = self._queue
        referee = self.referee
        ref = referee.nick
        sessions = self.sessions
        channel = self.channel.lower()
        messages = self._messages
        while queue:
            sender, target, text, msg = queue.popleft()
            low = target.lower()
            if sender == ref:
                if low == channel:
                    self.channel_log.append(text)
                    if msg is None:
                        msg = parse(text)  # once for every listener: the line is the same for all
                    for session in sessions.values():
                        for line, said in session.replies(msg):
                            queue.append((session.nick, ref, line, said if messages else None))
                else:
                    addressee = sessions.get(low)
                    if addressee is not None:
                        # (the message is the referee's own: ``feed`` would only check that, and parse)
                        replies = addressee.replies(msg) if msg is not None else self._feed(addressee, sender, text)
                        for line, said in replies:
                            queue.append((addressee.nick, ref, line, said if messages else None))
            else:
                if low == channel:  # a player talking in the channel: everyone hears it
                    for session in sessions.values():
                        if session.nick != sender:
                            session.chat(sender, text)
                    self.chat_log.append((sender, text))
                referee.on_message(sender, target, text, self.now, None, msg)

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
        while True:
            self._post(self.now)  # what the referee (or a caller) said just now
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
                if low == channel:
                    self.channel_log.append(text)
                    if msg is None:
                        msg = parse(text)
                    for session in sessions.values():
                        self._think(session, clock, session.replies, msg)
                else:
                    addressee = sessions.get(low)
                    if addressee is None:
                        continue
                    if msg is not None:
                        self._think(addressee, clock, addressee.replies, msg)
                    else:
                        self._think(addressee, clock, self._feed, addressee, sender, text)
            else:
                if low == channel:
                    for session in sessions.values():
                        if session.nick != sender:
                            self._think(session, clock, session.chat, sender, text)
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
            heapq.heappush(self._timeline, (done, next(self._order), session.nick, self.referee.nick, line,
                                            said if self._messages else None))

    def _post(self, at: float) -> None:
        """Put the lines said so far on their way, to arrive at ``at``."""
        queue, timeline, order = self._queue, self._timeline, self._order
        while queue:
            heapq.heappush(timeline, (at, next(order), *queue.popleft()))

    def play(
        self, game: str, seats: Sequence[str], options: Any, seed: int, gid: str | None = None,
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


def result_of(match: Match) -> Result:
    assert match.game.result is not None
    return match.game.result
