"""The in-memory transport: the referee and SDK bots exchange the very lines they would
exchange over IRC, without a server, a socket or a real clock.

Time is virtual: when every line has been delivered and a game still waits, the clock jumps
to the next deadline, so a silent bot costs no wall time.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Sequence

from ..core.game import Result
from ..protocol import parse
from ..sdk.bot import Bot, Session
from .identity import Identities
from .journal import Journal
from .match import Match, Timeouts
from .referee import Referee


class LocalHub:
    """A tiny network with one channel, one referee and any number of bots."""

    def __init__(self, timeouts: Timeouts, referee_nick: str = "arena", channel: str = "#arena",
                 identities: Identities | None = None, journal: Journal | None = None) -> None:
        """``identities``: where the bots that register are kept (default: in memory; a
        local tournament keeps them in its store, so leaderboards show owners).
        ``journal``: where games in progress are written ahead, as on IRC (default:
        nowhere; a local tournament replays an interrupted game whole instead)."""
        self.channel = channel
        self.now = 0.0
        self._queue: deque[tuple[str, str, str]] = deque()
        self.referee = Referee(referee_nick, timeouts, self._from_referee, identities=identities, journal=journal)
        self.sessions: dict[str, Session] = {}
        self.channel_log: list[str] = []
        """Every line the referee said in the channel."""
        self.chat_log: list[tuple[str, str]] = []
        """Every line a player said in the channel: (nick, text)."""

    def _from_referee(self, target: str, text: str) -> None:
        self._queue.append((self.referee.nick, target, text))

    def connect(self, nick: str, bot: Bot) -> Session:
        """Add a bot and register it with the referee, as the SDK does on IRC."""
        session = Session(bot, nick, self.referee.nick, say=lambda gid, text: self.say(nick, text))
        self.register(session)
        return session

    def register(self, session: Session) -> None:
        """Add a bot's session, new or one that outlived another referee, and register it."""
        self.sessions[session.nick.lower()] = session
        self._queue.append((session.nick, self.referee.nick, session.hello()))
        self.run()

    def say(self, nick: str, text: str) -> None:
        """``nick`` says ``text`` in the channel (delivered by ``run``)."""
        self._queue.append((nick, self.channel, text))

    def run(self) -> None:
        """Deliver lines until the network is quiet."""
        queue = self._queue
        referee = self.referee
        sessions = self.sessions
        channel = self.channel.lower()
        while queue:
            sender, target, text = queue.popleft()
            low = target.lower()
            if sender == referee.nick:
                if low == channel:
                    self.channel_log.append(text)
                    msg = parse(text)  # once for every listener: the line is the same for all
                    for session in sessions.values():
                        for line in session.receive(msg):
                            queue.append((session.nick, referee.nick, line))
                else:
                    addressee = sessions.get(low)
                    if addressee is not None:
                        for line in addressee.feed(sender, text):
                            queue.append((addressee.nick, referee.nick, line))
            else:
                if low == channel:  # a player talking in the channel: everyone hears it
                    for session in sessions.values():
                        if session.nick != sender:
                            session.chat(sender, text)
                    self.chat_log.append((sender, text))
                referee.on_message(sender, target, text, self.now)

    def play(
        self, game: str, seats: Sequence[str], options: Any, seed: int, gid: str | None = None,
    ) -> Match:
        """Play one game to its end and return the finished match."""
        return self.finish(self.referee.start_game(game, list(seats), options, seed, self.channel, self.now, gid=gid))

    def finish(self, match: Match) -> Match:
        """Play a started (or resumed) game to its end, jumping the clock to each deadline."""
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
