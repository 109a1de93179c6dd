"""The referee on IRC: one connection, the lobby channel, one channel per game.

The service is the IRC side of a ``Room`` (which seats, resumes and answers operators,
transport-free): it feeds the room and the referee what the server says, schedules the
room's wake-ups, and keeps what is IRC's own — the nick, the lobby's topic, the link's
failures. Everything runs in the reactor's thread, driven by IRC events and scheduled
wake-ups at the next deadline: no timer threads, no polling of games.
"""

from __future__ import annotations

import logging
import math
import secrets
import select
import time
from collections.abc import Callable, Sequence
from typing import Any

import irc.client

from ..config import Config
from ..core.keys import new_key
from ..irc.link import IrcLink, LinkSettings, strip_controls
from ..protocol import referee_topic
from ..store.referees import Fenced
from .budget import ReplyBudget
from .deferred import Deferred
from .lobby import Lobby, Seater
from .identity import Identities
from .journal import Journal
from .pause import failure, unwritable
from .place import Place
from .recorder import Recorder
from .match import Match
from .referee import Referee
from .room import Room
from .shared import Shared

log = logging.getLogger(__name__)

MIN_WAKE = 0.01
"""Seconds: the soonest the service wakes itself up again."""

WAIT_REPORT = 10.0
"""Seconds between two reports, in the log, of why no game starts: a referee that waits
silently looks exactly like one that hangs."""


def _budget(config: Config, clock: Callable[[], float]) -> ReplyBudget | None:
    """The replies one sender may cost, as ``flood`` configures them (None: no limit)."""
    flood = config.flood
    if flood.reply_interval == 0:
        return None
    return ReplyBudget(flood.reply_burst, 1 / flood.reply_interval, clock=clock)


class RefereeService:
    """Runs games for the bots that register, until stopped or ``max_games`` have ended."""

    def __init__(
        self,
        config: Config,
        *,
        reactor: irc.client.Reactor | None = None,
        max_games: int | None = None,
        key: bytes | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_game_end: Callable[[Match], None] | None = None,
        seater: Seater | None = None,
        recorder: Recorder | None = None,
        wait_report: float = WAIT_REPORT,
        watchers: Sequence[str] = (),
    ) -> None:
        """``key`` is the secret master key of the lobby's seat orders and game seeds
        (``arena serve`` keeps one in its store; default: a fresh one, so nothing can
        compute the games); ``seater`` decides the games (default: the lobby of the
        configuration); ``recorder`` stores each finished game and announces its rating
        changes; every ``wait_report`` seconds the log says why no game starts, if none
        can (``waiting_line``). ``watchers``: the nicks of the operator's own spectators (the
        narrator): a game waits a little for those in the lobby to join its channel, so that
        they hear its ``START`` (``room.WATCHER_WAIT``)."""
        self.config = config
        self.wait_report = wait_report
        self._reported: str | None = None
        """The lobby's last report of who waits: repeated only once it changes."""
        self.clock = clock
        key = new_key() if key is None else key
        server = config.server
        self.lobby_channel = server.channel
        self.link = IrcLink(
            server.host,
            server.port,
            server.nick,
            LinkSettings(
                tls=server.tls,
                password=server.password,
                sasl_account=server.sasl_account,
                sasl_password=server.sasl_password,
                lines_per_second=server.lines_per_second,
                burst=server.burst,
                max_targets=server.max_targets,
                max_replies=config.flood.reply_queue,
                regain=True,
                account_tags=config.identity.accounts,
                topic_lock=[server.channel],
            ),  # the topic names the referee
            channels=[server.channel],
            reactor=reactor,
            on_message=self._on_message,
            on_membership=self._on_membership,
            on_error=self._on_link_error,
            on_nick_state=self._nick_state,
        )
        self.reactor = self.link.reactor
        self.deferred = Deferred(self._handle, self.link.fold)
        """Registrations read in a storm, handled a few at a time after each turn's game lines."""
        identities = Identities(
            recorder.store.bots if recorder is not None else None,
            require_key=config.identity.require_key,
            accounts=config.identity.accounts,
        )
        owner = secrets.token_hex(8)  # this run of the referee: the owner of the games it writes
        shared = server.network is not None and recorder is not None and recorder.tournament is None
        place = f"{server.network}/{server.channel}" if shared else f"{server.host}:{server.port}/{server.channel}"
        journal = None if recorder is None else Journal(recorder.store, place, recorder.tournament, owner=owner)
        self.place = (
            None
            if recorder is None or recorder.tournament is not None
            else Place(recorder.store, owner, place, server.nick, config.timeouts.failover, shared)
        )
        """The lobby this referee holds (``arena serve``; a tournament's referee holds its games alone)."""
        self.lost = False
        """Another referee has taken the place over: this one stops, sending nothing more."""
        # Games in progress are written ahead, so that a restart takes them up (with a store).
        self.referee = Referee(
            server.nick,
            config.timeouts,
            self.link.send,
            send_many=self.link.send_many,
            identities=identities,
            reply=self.link.reply,
            budget=_budget(config, clock),
            after_sent=lambda then: self.room.after_sent(then),
            journal=journal,
        )
        self.referee.mode = self.link.mode  # moderated game channels where the server has modes
        self.referee.bundles = True  # a line costs: channel lines that go out together go as one
        self.referee.host_of = self.link.host_of  # wrong proofs are slowed per host too
        self.referee.member = self.link.present
        if recorder is not None:
            recorder.attach(self.referee)
        self.shared: Shared | None = None
        """This referee's part in a lobby other referees share (``server.network``)."""
        if seater is None:
            lobby = config.lobby
            seater = Lobby(
                lobby,
                config.games[lobby.game].options,
                config.seating.games_per_order,
                key,
                recorder.store.rosters if recorder is not None else None,
            )
            if shared:
                assert recorder is not None
                self.shared = Shared(
                    recorder.store,
                    place,
                    owner,
                    self.referee.registry,
                    self.referee.new_game_id,
                    lambda nick, msg: self.referee.registry.tell(nick, msg, True),
                    clock,
                    config.timeouts.failover,
                    self.link.after_sent,
                    seater,
                )
                seater = self.shared.seater
        self.room = Room(
            config,
            self.referee,
            self.link,
            seater,
            key,
            journal=journal,
            max_games=max_games,
            on_game_end=on_game_end,
            watchers=watchers,
            clock=clock,
        )
        self.room.on_wake = self._wake_at
        if self.shared is not None:
            self._share(self.shared)
        self._took_up = False
        """Whether the games an earlier run left have been taken up (on joining the lobby)."""
        self._wake = math.inf
        self.fatal: str | None = None
        self._topic_status = ""
        """The status the lobby's topic shows now (who waits, what runs)."""

    def _share(self, shared: Shared) -> None:
        """Tie the room to the shared lobby: its tables name their referee, the dealer
        answers for the lobby, and a game's end sends its bots back to the dealer."""
        room, seater = self.room, shared.seater
        room.shared = room.resumed.shared = True
        room.deals = lambda: seater.dealing
        room.elsewhere = seater.away
        shared.back = room.back
        shared.inherited = room.take_up
        shared.withdrawn = room.withdrawn
        shared.changed = lambda: self._topic() if self.link.is_ready else None
        shared.running = lambda: set(self.referee.matches) | set(room.announced())
        self.referee.on_game_end.append(lambda match: shared.done(match.gid, "ended"))

    # -- running --------------------------------------------------------------------

    @property
    def done(self) -> bool:
        """Stopped, or every game asked for has ended and its END has reached the server
        (while the server is reachable: a game whose END could not go out stays in progress,
        and is told again by the next run)."""
        if self.fatal is not None:
            return True
        return self.room.done and not (self.referee.writeahead.forgetting and self.link.is_connected)

    def start(self) -> None:
        if self.place is not None:
            self.place.hold()  # (a standby waits here)
            self.reactor.scheduler.execute_every(self.place.renew_every, self._renew)
        if self.shared is not None:
            self.shared.start(self.clock())
        self.link.connect()
        self.reactor.scheduler.execute_every(self.wait_report, self._report_waiting)
        if self.config.lobby.topic_interval > 0:
            self.reactor.scheduler.execute_every(self.config.lobby.topic_interval, self._status_topic)

    def serve(self, tick: float = 0.05) -> None:
        """Drive the reactor in this thread until ``done`` (Ctrl-C also stops it)."""
        self.start()
        try:
            while not self.done:
                self.turn(tick)
        finally:
            if self.lost:
                self.link.close("another referee runs this lobby now")
            else:
                self.link.close("the referee is leaving", drain_timeout=2.0)
                end = time.monotonic() + 2.0
                while self.link.queued and time.monotonic() < end:
                    self.turn(0.05)
                if self.place is not None:
                    self.place.leave()
                if self.shared is not None:
                    self.shared.leave()

    def turn(self, tick: float) -> None:
        """One turn of the reactor (its ``process_once``): what the server sent since the
        last turn is handled (registrations last, a few milliseconds' worth: ``Deferred``),
        and its games' steps stored, in one commit (``Referee.batch``), before the scheduled
        work runs (the wake-ups, what waited for lines to go out)."""
        reactor = self.reactor
        sockets: list[Any] = list(reactor.sockets)
        notices = None if self.shared is None else self.shared.fileno()
        if notices is not None:
            sockets.append(notices)
        try:
            if sockets:
                readable, _, _ = select.select(sockets, [], [], 0 if self.deferred else tick)
                with self.referee.batch():
                    reactor.process_data([s for s in readable if s is not notices])
                    self.deferred.run()
                    if notices is not None:
                        self._heard()  # (a notice may have come with a query's results: its socket is quiet)
            else:
                time.sleep(tick)
            with self.referee.batch():
                reactor.process_timeout()
        except Fenced as exc:
            self._lose(exc)

    def _heard(self) -> None:
        """The lobby's other referees changed something (``Shared.heard``)."""
        assert self.shared is not None
        now = self.clock()
        try:
            if not self.shared.heard(now):
                return
        except Exception as exc:
            if not unwritable(exc):
                raise
            log.error("could not read what the lobby's other referees changed: %s", failure(exc))
        self.room.after(now)

    def _renew(self) -> None:
        """Hold the place longer (scheduled: never raises, or the scheduler would run it again and again)."""
        assert self.place is not None
        try:
            self.place.renew()
            if self.shared is not None:
                now = self.clock()
                with self.referee.batch():
                    self.shared.renew(now)
                self.room.after(now)
        except Fenced as exc:
            self._lose(exc)
        except Exception as exc:
            _failed("renewing the hold on the lobby failed", exc)

    def _lose(self, why: Fenced) -> None:
        """Another referee has taken the place over: stop at once, sending nothing more
        (not even lines already queued: they belong to games that referee tells now)."""
        if self.lost:
            return
        self.lost = True
        self.fatal = f"{why}: this referee stops"
        log.error("%s", self.fatal)
        self.link.close("another referee runs this lobby now")

    def _nick_state(self, ok: bool, current: str) -> None:
        """The referee answers to the nick it has; under any other than its own it says so
        loudly, in the log, the lobby and its topic, while the link works to get its nick
        back, because bots configured with its nick are talking to someone else."""
        self.referee.nick = current
        if not ok:
            log.error("%s", self._impostor_warning())
            self.link.send(self.lobby_channel, self._impostor_warning())
        self._topic()

    def _impostor_warning(self) -> str:
        preferred = self.config.server.nick
        return (
            f"the referee is {self.link.nick}: the nick {preferred} is held by someone else, who is not the "
            f"referee; do not register with {preferred} until the referee has it back"
        )

    def _topic(self) -> None:
        """The lobby's topic names the referee's nick now (and, while it lacks its own,
        whom not to trust)."""
        shared = self.shared
        if shared is not None and not self.room.deals():
            return  # (the dealer's topic names every referee of the lobby)
        preferred = None if self.link.has_preferred_nick else self.config.server.nick
        named = shared.referees() if shared is not None else ()
        self.link.topic(self.lobby_channel, referee_topic(self.link.nick, preferred, self._topic_status, named))

    def _status_topic(self) -> None:
        """Every ``lobby.topic_interval`` seconds, off the games' path: the lobby's topic
        shows the status, set only when it changed (every topic change reaches every bot in
        the lobby). Never raises: the scheduler would run a command that raised again and
        again."""
        try:
            status = self.room.status_line()
            if status != self._topic_status and self.link.is_ready:
                self._topic_status = status
                self._topic()
        except Exception as exc:
            _failed("updating the lobby's topic failed", exc)

    def _on_link_error(self, error: Exception) -> None:
        log.error("IRC: %s", error)
        if self.link.is_closed:
            self.fatal = str(error)

    def waiting_line(self) -> str | None:
        """Why the next game does not start, for an operator (``Room.waiting_line``)."""
        return None if self.done else self.room.waiting_line(self.clock())

    def _report_waiting(self) -> None:
        """Log ``waiting_line`` (``arena serve`` and ``arena tournament`` print warnings): a
        tournament's missing bots every time, the lobby's waiters when they change. Never
        raises: the scheduler would run a command that raised again and again."""
        try:
            line = self.waiting_line()
            if line is not None and (self.room.lobby.wanted() is not None or line != self._reported):
                log.warning("%s", line)
            self._reported = line
        except Exception as exc:
            _failed("reporting who waits failed", exc)

    # -- incoming -------------------------------------------------------------------

    def _on_message(self, sender: str, target: str, text: str) -> None:
        if not self.link.is_me(target):
            # Channel chat is recorded and may be shown: no formatting codes, no CTCP.
            # Direct lines stay raw, so the protocol parser refuses them as MALFORMED.
            text = strip_controls(text)
            if not text:
                return
        if target.lower() == self.lobby_channel.lower() and text.startswith("!"):
            self.room.command(sender, text, self.clock())
            return
        account = self.link.account_of(sender)  # (as of this very line, however long it waits)
        if self.link.is_me(target) and self.deferred.keep(sender, target, text, account):
            return  # a registration: after the games' lines of this turn
        self._handle(sender, target, text, account)

    def _handle(self, sender: str, target: str, text: str, account: str | None) -> None:
        now = self.clock()
        self.referee.nick = self.link.nick  # DMs to whatever nick the server gave us are ours
        self.referee.on_message(sender, target, text, now, account)
        self.room.after(now)

    def _on_membership(self, kind: str, nick: str, channel: str | None, new_nick: str | None) -> None:
        lobby = channel is not None and self.link.fold(channel) == self.link.fold(self.lobby_channel)
        if self.shared is not None and kind == "join" and lobby:
            self.shared.referee_joined(nick)
        if self.link.is_me(nick):
            if kind == "join" and lobby:
                self._topic()
                if not self._took_up:
                    self._took_up = True
                    self.room.take_up(self.clock())
            return
        self.deferred.flush(nick)  # (what it said before this happened is handled first)
        now = self.clock()
        if kind in ("quit", "split"):
            self.referee.on_leave(nick, split=kind == "split")
        elif kind == "nick" and new_nick:
            self.referee.on_rename(nick, new_nick)
        elif kind == "join" and channel is not None:
            self.referee.on_join(nick, channel, now)
        if channel is None or self.link.fold(channel) == self.link.fold(self.lobby_channel):
            self.room.lobby_member(kind, nick, now)  # (a quit or a new nick leaves the lobby too)
        self.room.after(now)

    # -- time -----------------------------------------------------------------------

    def _wake_at(self, wake: float, now: float) -> None:
        """The room next wants its turn at ``wake`` (it is ``now``): sooner than planned, the
        reactor is told."""
        if wake < self._wake:
            self._wake = wake
            # Never zero: the scheduler runs what falls due while it runs, so a wake-up that
            # is still due after its tick (a table that could not be seated) must not spin.
            self.reactor.scheduler.execute_after(max(MIN_WAKE, wake - now), self._tick)

    def _tick(self) -> None:
        now = self.clock()
        self._wake = math.inf
        self.referee.poll(now)
        self.room.after(now)


def _failed(what: str, exc: Exception) -> None:
    """A scheduled command failed (it goes on at its next time): the database out of reach
    is a condition of the moment, told in a line; anything else is a bug, told with its
    traceback."""
    if unwritable(exc):
        log.error("%s: %s", what, failure(exc))
    else:
        log.exception("%s", what)
