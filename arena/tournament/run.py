"""Running a tournament: in memory (bots loaded into this process) or over IRC (bots
connected to the server), with the same schedule and the same stored results."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import Any

from ..config import Config
from ..referee.lobby import Table
from ..referee.identity import Identities
from ..referee.local import CLOCKS, LocalHub
from ..referee.match import Match
from ..referee.pause import STORE_DOWN, unwritable
from ..referee.recorder import Recorder
from ..referee.room import Room
from ..referee.service import RefereeService
from ..sdk import Bot
from ..store import Store
from .progress import Pace, Progress, ProgressCallback
from .schedule import Schedule, Settings, TournamentError, load_bot_class

log = logging.getLogger("arena.sdk")
"""The bots' faults are the SDK's news: logged where the SDK logs them."""


def open_tournament(store: Store, settings: Settings, wall: Callable[[], float] = time.time) -> tuple[Schedule, int]:
    """The schedule of tournament ``settings.id``, from its stored secret key, and how many
    of its games are stored already (0 for a new tournament, which is registered with a
    fresh key).

    A tournament resumes only with the settings it started with (more games allowed): any
    other change would alter the schedule of the games still to play.
    """
    settings.check()
    found = store.tournaments.get(settings.id)
    if found is None:
        store.tournaments.start(settings.id, settings.to_dict(), wall())
        return Schedule(settings, store.tournaments.key(settings.id)), 0
    stored, done = found
    before = dict(stored)
    before.pop("games", None)
    before.pop("seed", None)  # the public seed of tournaments from before secret keys; the key replaces it
    if before != settings.schedule_key():
        changed = sorted(
            k for k in before.keys() | settings.schedule_key().keys() if before.get(k) != settings.schedule_key().get(k)
        )
        raise TournamentError(
            f"tournament {settings.id} was started with other settings ({', '.join(changed)} differ); "
            f"resume it with the same settings, or start a new one with another --id"
        )
    return Schedule(settings, store.tournaments.key(settings.id)), done


class _Tracker:
    """Turns finished games into Progress reports with the current leaders, read from the
    tournament's kept standings (its bots' rows: the cost of a report does not grow with
    the games played) and the pace of the last games."""

    def __init__(self, store: Store, settings: Settings, done: int, report: ProgressCallback | None) -> None:
        self.store = store
        self.settings = settings
        self.done = done
        self.played = 0
        self.report = report
        self.start = time.perf_counter()
        self.pace = Pace(self.start)

    def __call__(self, match: Match | None = None) -> None:
        self.done += 1
        self.played += 1
        now = time.perf_counter()
        recent = self.pace.finished(now)
        if self.report is not None:
            rows = self.store.ratings.leaderboard(self.settings.game, "elo", limit=3, tournament=self.settings.id)
            self.report(
                Progress(
                    self.done,
                    self.settings.games,
                    self.played,
                    now - self.start,
                    [(r.bot, r.score) for r in rows],
                    *recent,
                )
            )


def play_local(
    settings: Settings, options: Any, store: Store, config: Config, report: ProgressCallback | None = None
) -> int:
    """Play the games not yet stored with the bots loaded in this process, seated by the same
    room as on IRC (``Room``, driven by the in-memory hub), one game at a time; returns how
    many were played.

    Before each game its bots' random streams (and the ``random`` module's, which naive bots
    use) are reseeded from the schedule (``Schedule.bot_seed``, ``module_seed``), and every other stream of a
    game derives from its seed (request ids, the rule bots' per-game picks) or lives in the
    game's own state, so a resumed tournament plays what an uninterrupted one would — on the
    virtual clock. On the wall clock (``settings.clock``) the bots' real thinking time
    counts against their deadlines: games are as on IRC, and not reproducible.

    A game whose record the store refuses (a full disk) stops the tournament with a
    TournamentError: the game is not stored, so the same command, once the store can be
    written, plays it again whole, as it was.
    """
    bots = start_bots(settings)
    schedule, done = open_tournament(store, settings)
    if done >= settings.games:
        return 0
    # Bots load in this process: no keys.
    hub = LocalHub(
        config.timeouts, channel=config.server.channel, identities=Identities(store.bots), clock=CLOCKS[settings.clock]
    )
    Recorder(store, tournament=settings.id, strict=True).attach(hub.referee)
    tracker = _Tracker(store, settings, done, report)
    taken: list[str] = []

    def seeded(table: Table, index: int) -> None:
        taken.append(table.gid or "")
        for nick in table.seats:
            bots[nick].rng.seed(schedule.bot_seed(nick, index))
        # Bots that draw from the ``random`` module itself share one process-wide
        # stream: seeded per game too, or a resumed run would deal them other numbers.
        random.seed(schedule.module_seed(index))

    seater = TournamentSeater(schedule, options, store.games.has, one_at_a_time=True, on_take=seeded)
    room = Room(
        config,
        hub.referee,
        hub,
        seater,
        schedule.key,
        max_games=settings.games - done,
        on_game_end=tracker,
        clock=lambda: hub.now,
    )
    sessions = {nick: hub.connect(nick, bot) for nick, bot in bots.items()}
    outside = random.getstate()
    try:
        hub.serve(room)
    except Exception as exc:
        if not unwritable(exc):
            raise
        raise TournamentError(
            f"{STORE_DOWN} ({type(exc).__name__}: {exc}): tournament {settings.id} stopped "
            f"before game {taken[-1]}, which is not stored; once the store can be written, "
            "the same command goes on from that game"
        ) from exc
    finally:
        random.setstate(outside)  # the caller's stream is its own business
        for nick, session in sessions.items():  # each game's faults were told at its end; now the run's
            text = session.faults.summary()
            if text is not None:
                log.warning("%s: %s", nick, text)
    return tracker.played


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


class TournamentSeater:
    """Seats the tournament's games in order over IRC, each once all its bots wait in the
    lobby (registered and not playing). Games whose bots are disjoint may run at once; a
    game withdrawn before its start (one of its bots left) is the next seated again."""

    def __init__(
        self,
        schedule: Schedule,
        options: Any,
        played: Callable[[str], bool],
        *,
        one_at_a_time: bool = False,
        on_take: Callable[[Table, int], None] | None = None,
    ) -> None:
        """``played`` tells the games to skip: stored already, or in progress (a restarted
        referee takes those up where they stopped). ``one_at_a_time``: a game is seated only
        once every bot of the tournament waits (in memory, where the bots share a process
        and its ``random`` stream); ``on_take`` is told each table, and its index, as it is
        seated (to seed its bots' streams)."""
        self.schedule = schedule
        self.settings = schedule.settings
        self.options = options
        self._one_at_a_time = one_at_a_time
        self._on_take = on_take
        self.next = 0
        self.deadline: float | None = None
        self.waiting: list[str] = []
        self._played = played
        self._again: list[int] = []
        """Games withdrawn before their start, by index: seated again before ``next``."""
        self._skip()

    def _skip(self) -> None:
        while self.next < self.settings.games and self._played(self.schedule.table(self.next).gid):
            self.next += 1

    def _current(self) -> int | None:
        """The index of the next game to seat, if any is left."""
        if self._again:
            return min(self._again)
        return self.next if self.next < self.settings.games else None

    def _folded(self) -> set[str]:
        return {n.lower() for n in self.waiting}

    def add(self, nick: str, now: float) -> None:
        if nick.lower() not in self._folded():
            self.waiting.append(nick)

    def remove(self, nick: str) -> None:
        self.waiting = [n for n in self.waiting if n.lower() != nick.lower()]

    def due(self, now: float) -> bool:
        if self._one_at_a_time and len(self.waiting) < len(self.settings.bots):
            return False
        return not self.wanted() and self._current() is not None

    def wanted(self) -> list[str]:
        """The bots the next game needs that are not waiting (none once every game is seated)."""
        index = self._current()
        if index is None:
            return []
        waiting = self._folded()
        return [n for n in self.schedule.table(index).seats if n.lower() not in waiting]

    def take(self, smallest: int, by_hand: bool = False) -> Table | None:
        """The next game of the schedule once all its bots wait (by hand too: a tournament
        plays only its own games)."""
        index = self._current()
        if index is None or not self.due(0.0):
            return None
        if self._again:
            self._again.remove(index)
        else:
            self.next += 1
            self._skip()
        planned = self.schedule.table(index)
        seats = {n.lower() for n in planned.seats}
        self.waiting = [n for n in self.waiting if n.lower() not in seats]
        table = Table(self.settings.game, self.options, list(planned.seats), planned.gid, planned.seed)
        if self._on_take is not None:
            self._on_take(table, index)
        return table

    def withdraw(self, table: Table) -> None:
        """The game of ``table`` did not start: it is seated again, first, once its bots wait."""
        assert table.gid is not None
        self._again.append(self.schedule.index(table.gid))


def play_irc(
    settings: Settings, options: Any, store: Store, config: Config, report: ProgressCallback | None = None
) -> int:
    """Referee the games not yet stored on the configured IRC server; the bots named in the
    settings connect and register themselves. Returns how many games were played."""
    schedule, done = open_tournament(store, settings)
    if done >= settings.games:
        return 0
    tracker = _Tracker(store, settings, done, report)
    live = {game.id for game in store.live.unfinished(tournament=settings.id)}
    service = RefereeService(
        config,
        max_games=settings.games - done,
        seater=TournamentSeater(schedule, options, lambda gid: gid in live or store.games.has(gid)),
        recorder=Recorder(store, tournament=settings.id, strict=True),
        on_game_end=tracker,
    )
    service.serve()
    if service.fatal is not None:
        raise TournamentError(service.fatal)
    return tracker.played
