"""A share of a local tournament's games, played in memory: the bots, the referee and the
room that seats them, in this process or in one worker process of several (``workers``).

Whoever plays a game, it is the same game: every random stream of a game is seeded from the
schedule before it starts (the bots', the ``random`` module's) or derives from its seed (the
deal, request ids, the rule bots' picks), and the virtual clock shows a game only times
relative to its own start. The games come back as the records the store keeps; the store is
written by one process alone, in schedule order (``run``), so which process played a game
changes nothing stored, and a store is never written by two processes at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from typing import Any

from ..config import Config
from ..referee.identity import Identities
from ..referee.lobby import Table
from ..referee.clocks import CLOCKS
from ..referee.local import LocalHub
from ..referee.match import Match
from ..referee.recorder import game_record
from ..referee.room import Room
from ..sdk import Bot, Session
from ..sdk.faults import Faults
from ..store import GameRecord
from ..store.records import BotRecord
from .schedule import Schedule, Settings, TournamentError, load_bot_class
from .seater import TournamentSeater


class GamePlayer:
    """Plays the games it is given, in the order given, and hands back their records."""

    def __init__(self, settings: Settings, options: Any, config: Config) -> None:
        """Starts the tournament's bots: a TournamentError says which one could not start
        (before the tournament is stored, so none is left behind that can never start)."""
        self.bots = start_bots(settings)
        self.settings = settings
        self.options = options
        self.config = config
        self._starts: dict[str, float] = {}
        self._records: list[GameRecord] = []
        self.sessions: dict[str, Session] = {}
        """The bots' sessions, by nick, once registered (``begin``)."""

    def begin(self, key: bytes) -> None:
        """Take the tournament's key (its schedule) and register the bots with an in-memory
        referee; no game is seated until ``play``."""
        settings, config = self.settings, self.config
        self.schedule = Schedule(settings, key)
        self.identities = Identities()
        self.hub = LocalHub(
            config.timeouts, channel=config.server.channel, identities=self.identities, clock=CLOCKS[settings.clock]
        )
        self.hub.referee.on_game_start.append(self._started)
        self.hub.referee.on_game_end.insert(0, self._ended)  # first, as a recorder: before the room moves on
        self.seater = TournamentSeater(
            self.schedule, self.options, lambda gid: False, todo=(), one_at_a_time=True, on_take=self._seed
        )
        self.room = Room(config, self.hub.referee, self.hub, self.seater, key, max_games=0, clock=lambda: self.hub.now)
        self.sessions = {nick: self.hub.connect(nick, bot) for nick, bot in self.bots.items()}

    def _seed(self, table: Table, index: int) -> None:
        for nick in table.seats:
            self.bots[nick].rng.seed(self.schedule.bot_seed(nick, index))
        # Bots that draw from the ``random`` module itself share one process-wide stream:
        # seeded per game too, or a game would deal them numbers that depend on the games
        # this process played before it.
        random.seed(self.schedule.module_seed(index))

    def _started(self, match: Match) -> None:
        self._starts[match.gid] = time.time()

    def _ended(self, match: Match) -> None:
        finished = time.time()
        started = self._starts.pop(match.gid, finished)
        self._records.append(game_record(match, started, finished, self.settings.id).pack())

    def play(self, indexes: Iterable[int]) -> list[GameRecord]:
        """Play these games of the schedule, in this order; their records, in the same order.

        The caller's ``random`` stream is left as it was: the games reseed it for themselves."""
        wanted = list(indexes)
        self.seater.extend(wanted)
        self.room.max_games = (self.room.max_games or 0) + len(wanted)
        outside = random.getstate()
        try:
            self.hub.serve(self.room)
        finally:
            random.setstate(outside)
        records, self._records = self._records, []
        return records

    def registered(self) -> list[BotRecord]:
        """What each bot said of itself when it registered (owner, version), to be kept."""
        found = (self.identities.book.get(nick) for nick in self.bots)
        return [record for record in found if record is not None]

    def faults(self) -> dict[str, Faults]:
        """What each bot's code raised so far, by nick."""
        return {nick: session.faults for nick, session in self.sessions.items()}


def start_bots(settings: Settings) -> dict[str, Bot]:
    """The local tournament's bots, by nick, each started once: a bot written for another
    game, or one that cannot start (an LLM bot without its settings), stops the tournament
    before anything is stored, with one line that says which and why."""
    bots: dict[str, Bot] = {}
    for entry in settings.entries:
        if entry.bot is None:
            raise TournamentError(f"{entry.nick}: a local tournament needs NICK=BOT, e.g. {entry.nick}=random")
        cls = load_bot_class(entry.bot)
        if cls.plays is not None and cls.plays != settings.game:
            raise TournamentError(
                f"{entry.nick}={entry.bot} is written for {cls.plays}; this tournament plays {settings.game}"
            )
        try:
            bots[entry.nick] = cls()
        except Exception as exc:  # the bot's own code: whatever it raises, it did not start
            raise TournamentError(f"{entry.nick}={entry.bot} did not start: {type(exc).__name__}: {exc}") from None
    return bots
