"""Running a tournament: in memory (bots loaded into this process) or over IRC (bots
connected to the server), with the same schedule and the same stored results."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from ..config import Config
from ..parallel import cores
from ..referee.match import Match
from ..referee.pause import STORE_DOWN, unwritable
from ..referee.recorder import Recorder
from ..store import Store
from .progress import Pace, Progress, ProgressCallback
from .schedule import Schedule, Settings, TournamentError
from .seater import TournamentSeater
from .workers import GAMES_PER_WORKER, Players, batches

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
    settings: Settings,
    options: Any,
    store: Store,
    config: Config,
    report: ProgressCallback | None = None,
    jobs: int | None = 1,
) -> int:
    """Play the games not yet stored with the bots loaded in memory, in this process
    (``jobs`` 1) or in ``jobs`` worker processes (None: one per core, each with at least
    ``GAMES_PER_WORKER`` games to play), each seating games through the same room as on IRC
    (``Room``, driven by the in-memory hub); returns how many were played.

    The games are stored and rated here, in schedule order, a batch per transaction
    (``workers.BATCH``): a batch is stored whole or not at all, and a tournament stopped
    at any moment (Ctrl-C, SIGKILL) resumes at the first game not stored. Before each
    game its bots' random streams (and the ``random`` module's, which naive bots use) are
    reseeded from the schedule (``Schedule.bot_seed``, ``module_seed``), and every other
    stream of a game derives from its seed (request ids, the rule bots' per-game picks) or
    lives in the game's own state: on the virtual clock the games, their records and the
    ratings are the same whatever ``jobs`` is and however often the tournament was
    resumed. (A bot that remembers earlier games plays differently after a resumption,
    and with several workers sees only the games of its own process.) On the wall clock
    (``settings.clock``) the bots' real thinking time counts against their deadlines:
    games are as on IRC, and not reproducible.

    A batch whose record the store refuses (a full disk) stops the tournament with a
    TournamentError: the games not stored are played again, whole, by the same command
    once the store can be written.
    """
    found = store.tournaments.get(settings.id)
    left = settings.games - (found[1] if found is not None else 0)
    jobs = min(cores(), left // GAMES_PER_WORKER) if jobs is None else min(jobs, len(batches(range(left))))
    jobs = max(jobs, 1)
    with Players(settings, options, config, jobs) as players:  # the bots start: or nothing is stored
        schedule, done = open_tournament(store, settings)
        if done >= settings.games:
            return 0
        todo = [i for i in range(settings.games) if not store.games.has(schedule.table(i).gid)]
        tracker = _Tracker(store, settings, done, report)
        players.begin(schedule.key)
        for bot in players.registered:  # its owner and version, for the leaderboards
            store.bots.save(bot.name, bot.owner, bot.version, bot.account, time.time())
        for batch in players.play(todo):
            try:
                store.games.record_all(batch)
            except Exception as exc:
                if not unwritable(exc):
                    raise
                raise TournamentError(
                    f"{STORE_DOWN} ({type(exc).__name__}: {exc}): tournament {settings.id} stopped "
                    f"before game {batch[0].id}, which is not stored; once the store can be written, "
                    "the same command goes on from that game"
                ) from exc
            for _ in batch:
                tracker()
    for nick, faults in players.faults.items():  # each game's faults were told at its end; now the run's
        text = faults.summary()
        if text is not None:
            log.warning("%s: %s", nick, text)
    return tracker.played


def play_irc(
    settings: Settings, options: Any, store: Store, config: Config, report: ProgressCallback | None = None
) -> int:
    """Referee the games not yet stored on the configured IRC server; the bots named in the
    settings connect and register themselves. Returns how many games were played."""
    from ..referee.service import RefereeService  # the IRC client: loaded by IRC tournaments alone

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
