"""The referee on IRC: one connection, the lobby channel, one channel per game.

Everything runs in the reactor's thread and is driven by IRC events and scheduled
wake-ups at the next deadline — no timer threads, no polling of games.
"""

from __future__ import annotations

import logging
import functools
import math
import time
from typing import Callable, Sequence

import irc.client

from ..config import Config
from ..core.keys import derive, new_key
from ..games import GAMES
from ..irc.link import IrcLink, LinkSettings, strip_controls
from ..protocol import RESUME, TABLE, Message, referee_topic
from ..store import LiveGame
from .budget import ReplyBudget
from .lobby import Lobby, Seater, Table
from .identity import Identities
from .journal import Journal
from .recorder import Recorder
from .match import Match
from .pause import STORE_DOWN, unwritable
from .referee import Referee

log = logging.getLogger(__name__)

MIN_WAKE = 0.01
"""Seconds: the soonest the service wakes itself up again."""

WATCHER_WAIT = 5.0
"""Seconds from a table's announcement that its game waits, once its bots are in, for the
operator's own spectators (``watchers``) that are in the lobby to join its channel too."""

STATUS_GAMES = 10
"""Running games listed by ``!status`` at most; the rest are counted."""

TOPIC_NAMES = 8
"""Waiting bots and running games the lobby's topic names at most; the rest are counted."""

STATUS_WAITING = 50
"""Waiting bots named by ``!status`` at most: its answer stays a few lines, however many wait."""

WAIT_REPORT = 10.0
"""Seconds between two reports, in the log, of why no game starts: a referee that waits
silently looks exactly like one that hangs."""

HELP = ("commands: !help (this), !status (who waits, what runs); operators only: !start (seat the waiting "
        "bots now), !stop [GID] (stop that game, or every game, with nobody at fault)")


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
        they hear its ``START`` (``WATCHER_WAIT``)."""
        self.config = config
        self.wait_report = wait_report
        self._reported: str | None = None
        """The lobby's last report of who waits: repeated only once it changes."""
        self.clock = clock
        self.max_games = max_games
        self.games_ended = 0
        self._key = new_key() if key is None else key
        server = config.server
        self.lobby_channel = server.channel
        self.link = IrcLink(
            server.host, server.port, server.nick, LinkSettings(
                tls=server.tls, password=server.password,
                sasl_account=server.sasl_account, sasl_password=server.sasl_password,
                lines_per_second=server.lines_per_second, burst=server.burst, max_targets=server.max_targets,
                max_replies=config.flood.reply_queue, regain=True, account_tags=config.identity.accounts,
                topic_lock=[server.channel]),  # the topic names the referee
            channels=[server.channel], reactor=reactor,
            on_message=self._on_message, on_membership=self._on_membership, on_error=self._on_link_error,
            on_nick_state=self._nick_state,
        )
        self.reactor = self.link.reactor
        identities = Identities(recorder.store if recorder is not None else None,
                                require_key=config.identity.require_key, accounts=config.identity.accounts)
        self.journal = None if recorder is None else Journal(
            recorder.store, f"{server.host}:{server.port}/{server.channel}", recorder.tournament)
        """Games in progress, written ahead so that a restart takes them up (with a store)."""
        self.referee = Referee(server.nick, config.timeouts, self.link.send,
                               send_many=self.link.send_many, identities=identities,
                               reply=self.link.reply, budget=_budget(config, clock), after_sent=self._after_sent,
                               journal=self.journal)
        self.referee.on_game_end.append(self._ended)
        self.referee.on_bot.append(self._bot_changed)
        self.referee.mode = self.link.mode  # moderated game channels where the server has modes
        self.referee.host_of = self.link.host_of  # wrong proofs are slowed per host too
        self.referee.member = lambda nick, channel: self.link.fold(nick) in {
            self.link.fold(n) for n in self.link.members(channel)}
        if recorder is not None:
            recorder.attach(self.referee)
        self._on_game_end = on_game_end
        if seater is None:
            lobby = config.lobby
            seater = Lobby(lobby, config.games[lobby.game].options, config.seating.games_per_order, self._key,
                           recorder.store if recorder is not None else None)
        self.lobby: Seater = seater
        self._tables: dict[str, tuple[Table, str, float]] = {}
        """Games announced whose players are still joining: gid -> (table, channel, start-by time)."""
        self.watchers = list(watchers)
        self._watch_by: dict[str, float] = {}
        """Until when each announced game waits for the ``watchers`` in the lobby."""
        self._started: dict[str, float] = {}
        """When each running game started (for ``!status``)."""
        self._public_answer = -math.inf
        """When a non-operator's ``!help`` or ``!status`` was last answered."""
        self._resuming: dict[str, float] = {}
        """Games taken up after a restart that wait for their bots: gid -> until when."""
        self._told_again: set[str] = set()
        """Games taken up that an earlier run had recorded (their end maybe never sent): told
        again to their bots, not counted again."""
        self._took_up = False
        """Whether the games an earlier run left have been taken up (on joining the lobby)."""
        self._wake = math.inf
        self.fatal: str | None = None
        self._topic_status = ""
        """The status the lobby's topic shows now (who waits, what runs)."""

    # -- running --------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.fatal is not None or (self.max_games is not None and self.games_ended >= self.max_games)

    def start(self) -> None:
        self.link.connect()
        self.reactor.scheduler.execute_every(self.wait_report, self._report_waiting)
        if self.config.lobby.topic_interval > 0:
            self.reactor.scheduler.execute_every(self.config.lobby.topic_interval, self._status_topic)

    def serve(self, tick: float = 0.05) -> None:
        """Drive the reactor in this thread until ``done`` (Ctrl-C also stops it)."""
        self.start()
        try:
            while not self.done:
                self.reactor.process_once(tick)
        finally:
            self.link.close("the referee is leaving", drain_timeout=2.0)
            end = time.monotonic() + 2.0
            while self.link.queued and time.monotonic() < end:
                self.reactor.process_once(0.05)

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
        return (f"the referee is {self.link.nick}: the nick {preferred} is held by someone else, who is not the "
                f"referee; do not register with {preferred} until the referee has it back")

    def _topic(self) -> None:
        """The lobby's topic names the referee's nick now (and, while it lacks its own,
        whom not to trust)."""
        preferred = None if self.link.has_preferred_nick else self.config.server.nick
        self.link.topic(self.lobby_channel, referee_topic(self.link.nick, preferred, self._topic_status))

    def topic_status(self) -> str:
        """Who waits and what runs, short enough for a topic: ``waiting 3: a, b, c; running:
        g7 avalon, g8 werewolf`` (a few names, then a count)."""
        def named(names: list[str]) -> str:
            more = len(names) - TOPIC_NAMES
            return ", ".join(names[:TOPIC_NAMES]) + (f" and {more} more" if more > 0 else "")

        waiting = self.lobby.waiting
        running = [f"{gid} {self.referee.matches[gid].game.name}" for gid in self._started
                   if gid in self.referee.matches]
        parts = [f"waiting {len(waiting)}" + (f": {named(waiting)}" if waiting else "")]
        if self._tables:
            parts.append(f"seating: {named(list(self._tables))}")
        parts.append(f"running: {named(running)}" if running else "no game running")
        return "; ".join(parts)

    def _status_topic(self) -> None:
        """Every ``lobby.topic_interval`` seconds, off the games' path: the lobby's topic
        shows the status, set only when it changed (every topic change reaches every bot in
        the lobby). Never raises: the scheduler would run a command that raised again and
        again."""
        try:
            status = self.topic_status()
            if status != self._topic_status and self.link.is_ready:
                self._topic_status = status
                self._topic()
        except Exception:
            log.exception("updating the lobby's topic failed")

    def _on_link_error(self, error: Exception) -> None:
        log.error("IRC: %s", error)
        if self.link.is_closed:
            self.fatal = str(error)

    def waiting_line(self) -> str | None:
        """Why the next game does not start, for an operator; None when nothing is amiss:
        a game is due or running, or nobody waits. A tournament names the bots its next game
        needs that have not registered; the lobby names who waits, and for what."""
        if self.done:
            return None
        paused = self.referee.paused()
        if paused:
            now = self.clock()
            games = ", ".join(f"{gid} for {now - since:.0f} s" for gid, since in paused.items())
            return f"paused: {STORE_DOWN} ({games}); no game starts until it can"
        if self._resuming:
            now = self.clock()
            return "; ".join(f"game {gid} resumes once {', '.join(self._missing(gid))} come back "
                             f"({until - now:.0f} s left)" for gid, until in self._resuming.items())
        wanted = self.lobby.wanted()
        if wanted is not None:
            absent = sorted((name for name in wanted if self.referee.bot_named(name) is None), key=str.lower)
            return f"waiting for bots: {', '.join(absent)} (not registered)" if absent else None
        waiting = self.lobby.waiting
        if not waiting or self._tables or self.referee.matches:
            return None
        lobby = self.config.lobby
        named = ", ".join(waiting[:STATUS_WAITING]) + (f" and {len(waiting) - STATUS_WAITING} more"
                                                        if len(waiting) > STATUS_WAITING else "")
        needed = max(self._smallest(), lobby.min_players)
        if len(waiting) < needed:
            return f"lobby: {len(waiting)} waiting ({named}); {lobby.game} needs {needed} players"
        if not lobby.auto_start:
            return f"lobby: {len(waiting)} waiting ({named}) for an operator's !start"
        return None

    def _report_waiting(self) -> None:
        """Log ``waiting_line`` (``arena serve`` and ``arena tournament`` print warnings): a
        tournament's missing bots every time, the lobby's waiters when they change. Never
        raises: the scheduler would run a command that raised again and again."""
        try:
            line = self.waiting_line()
            if line is not None and (self.lobby.wanted() is not None or line != self._reported):
                log.warning("%s", line)
            self._reported = line
        except Exception:
            log.exception("reporting who waits failed")

    # -- incoming -------------------------------------------------------------------

    def _on_message(self, sender: str, target: str, text: str) -> None:
        if not self.link.is_me(target):
            # Channel chat is recorded and may be shown: no formatting codes, no CTCP.
            # Direct lines stay raw, so the protocol parser refuses them as MALFORMED.
            text = strip_controls(text)
            if not text:
                return
        now = self.clock()
        if target.lower() == self.lobby_channel.lower() and text.startswith("!"):
            self._operator(sender, text, now)
            return
        self.referee.nick = self.link.nick  # DMs to whatever nick the server gave us are ours
        self.referee.on_message(sender, target, text, now, self.link.account_of(sender))
        self._after(now)

    def _bot_changed(self, name: str, connected: bool) -> None:
        """A bot that a connection now plays waits in the lobby (``_back``); one that no
        connection plays any more leaves it, and a table it was seated at that has not
        started is withdrawn: a bot that left is never seated."""
        now = self.clock()
        if connected:
            self._back(name, now)
            return
        self.lobby.remove(name)
        for gid, (table, _, _) in list(self._tables.items()):
            if name.lower() in (n.lower() for n in table.seats):
                self._withdraw(gid, f"{name} left", now)

    def _back(self, name: str, now: float) -> None:
        """``name`` waits to be seated if it can be: registered and in the lobby channel
        (where its ``TABLE`` is announced), unless it is seated at a game or table. One
        that cannot be seated has left the lobby, and the table it sat at with it. (Before
        the referee is in the lobby itself it cannot tell who is there, and a bot may
        register then: the bot is taken at its word. Once the referee is there, the
        server has told it every member before any line that follows.)"""
        info = self.referee.bot_named(name)
        lobby = {self.link.fold(n) for n in self.link.members(self.lobby_channel)}
        if info is None or (lobby and self.link.fold(info.nick) not in lobby):
            self.lobby.remove(name)
            return
        if any(m.seat_of(name) is not None for m in self.referee.matches.values()) or \
                any(name.lower() in (n.lower() for n in t.seats) for t, _, _ in self._tables.values()):
            return
        self.lobby.add(name, now)

    def _on_membership(self, kind: str, nick: str, channel: str | None, new_nick: str | None) -> None:
        if self.link.is_me(nick):
            if kind == "join" and channel is not None and self.link.fold(channel) == self.link.fold(self.lobby_channel):
                self._topic()
                if not self._took_up:
                    self._took_up = True
                    self._take_up(self.clock())
            return
        now = self.clock()
        if kind == "quit":
            self.referee.on_leave(nick)
        elif kind == "nick" and new_nick:
            self.referee.on_rename(nick, new_nick)
        elif kind == "join" and channel is not None:
            self.referee.on_join(nick, channel, now)
        if channel is not None and self.link.fold(channel) == self.link.fold(self.lobby_channel):
            self._lobby_member(kind, nick, now)
        self._after(now)

    def _lobby_member(self, kind: str, nick: str, now: float) -> None:
        """A registered bot that leaves the lobby channel waits no more (it would not hear
        its ``TABLE``); one that comes back waits again."""
        info = self.referee.bot_of(nick)
        if info is None:
            return
        if kind == "join":
            self._back(info.name, now)
        elif kind in ("part", "kick"):
            self.lobby.remove(info.name)

    def _operator(self, sender: str, text: str, now: float) -> None:
        """``!help`` and ``!status`` answer anyone (a non-operator once per
        ``flood.command_interval`` seconds); ``!start`` from an operator seats the bots waiting now at as
        many tables as they fill; ``!stop GID`` stops that game (``!stop`` alone: every
        running game) with nobody at fault."""
        words = text.split()
        operator = sender.lower() in (o.lower() for o in self.config.lobby.operators)
        if words[0] in ("!help", "!status"):
            if not operator and now < self._public_answer + self.config.flood.command_interval:
                return
            if not operator:
                self._public_answer = now
            for line in [HELP] if words[0] == "!help" else self._status(now):
                self.link.send(self.lobby_channel, line)
            return
        if not operator:
            return
        if words[0] == "!start":
            if not self._open_table(now, by_hand=True):
                self.link.send(self.lobby_channel, f"{sender}: not enough bots are waiting to start a game")
            while self._open_table(now, by_hand=True):
                pass
        elif words[0] == "!stop":
            wanted = words[1:] or list(self.referee.matches)
            for gid in wanted:
                if not self.referee.abort_game(gid, f"stopped by {sender}", now):
                    self.link.send(self.lobby_channel, f"{sender}: no game {gid[:20]} is running")
        self._after(now)

    def _status(self, now: float) -> list[str]:
        """Who waits and what runs, in as many lines as the lobby's line length needs."""
        width = self.link.max_text_bytes(self.lobby_channel)
        waiting = self.lobby.waiting
        more = [f"and {len(waiting) - STATUS_WAITING} more"] if len(waiting) > STATUS_WAITING else []
        lines = _listed(f"waiting ({len(waiting)}):", waiting[:STATUS_WAITING] + more, width)
        for gid, (table, _, _) in self._tables.items():
            lines += _listed(f"{gid} {table.game} joining:", self._nicks(table.seats), width)
        for gid, until in self._resuming.items():
            lines += _listed(f"{gid} resumes when back ({until - now:.0f} s left):", self._missing(gid), width)
        for gid, since in self.referee.paused().items():
            lines.append(f"{gid} paused {now - since:.0f} s: {STORE_DOWN}")
        running = sorted(self._started.items(), key=lambda item: item[1])
        for gid, started in running[:STATUS_GAMES]:
            match = self.referee.matches[gid]
            lines += _listed(f"{gid} {match.game.name} running {now - started:.0f} s:", match.bots or match.names,
                             width)
        if len(running) > STATUS_GAMES:
            lines.append(f"... and {len(running) - STATUS_GAMES} more games running")
        return lines

    # -- games ----------------------------------------------------------------------

    def _smallest(self) -> int:
        game = self.config.lobby.game
        options = self.config.games[game].options
        for n in range(1, self.config.lobby.max_players + 1):
            try:
                GAMES[game].check_setup(n, options)
                return n
            except ValueError:
                continue
        return self.config.lobby.max_players + 1

    def _open_table(self, now: float, by_hand: bool = False) -> bool:
        """Seat the waiting bots at a new game and invite them to its channel (``by_hand``:
        an operator's ``!start``); none while the store refuses to be written (the bots
        wait on, and a later call tries again)."""
        waiting = list(self.lobby.waiting)
        try:
            table = self.lobby.take(max(self._smallest(), 1), by_hand)
        except Exception as exc:  # (a lobby that keeps its rosters in the store)
            if not unwritable(exc):
                raise
            self.referee.store_failed(exc, now)
            for nick in waiting:  # none of them is seated
                if nick not in self.lobby.waiting:
                    self.lobby.add(nick, now)
            return False
        if table is None:
            return False
        seats = table.seats
        try:
            GAMES[table.game].check_setup(len(seats), table.options)
        except ValueError as exc:
            log.warning("cannot seat %d players: %s", len(seats), exc)
            self.lobby.withdraw(table)
            for name in seats:
                self._back(name, now)
            return False
        try:
            gid = table.gid or self.referee.new_game_id()
        except Exception as exc:
            if not unwritable(exc):
                raise
            self.referee.store_failed(exc, now)
            self.lobby.withdraw(table)
            for name in seats:  # waiting a moment ago: they wait on
                self.lobby.add(name, now)
            return False
        self.referee.store_works()
        channel = f"{self.lobby_channel}-{gid}"
        self.link.join(channel)
        # The bots' time to join runs from when the TABLE goes out: behind a rate-limited
        # queue (the last game's END, other games' lines) it may leave seconds later, and a
        # wait counted from now would start the game before its bots heard of it, and
        # before a leaver's UNREGISTER could withdraw it.
        self._tables[gid] = (table, channel, math.inf)
        self._watch_by[gid] = math.inf
        self._announce(gid, table, channel, self._nicks(seats))
        self._after_sent(functools.partial(self._table_told, gid))
        return True

    def _table_told(self, gid: str, at: float) -> None:
        """``gid``'s TABLE went out at ``at``: its bots (and the narrator) have from then on."""
        if gid in self._tables:
            table, channel, _ = self._tables[gid]
            self._tables[gid] = (table, channel, at + self.config.lobby.join_timeout)
            self._watch_by[gid] = at + WATCHER_WAIT

    def _announce(self, gid: str, table: Table, channel: str, seats: list[str]) -> None:
        """``TABLE`` in the lobby: the game seats ``seats`` (none: it is withdrawn)."""
        for line in Message.make(TABLE, gid, game=table.game, channel=channel, seats=seats).lines():
            self.link.send(self.lobby_channel, line)

    def _withdraw(self, gid: str, why: str, now: float) -> None:
        """Withdraw a table that has not started: announced again with no seats, its
        channel left, and its bots that can still play back in the lobby."""
        table, channel, _ = self._tables.pop(gid)
        self._watch_by.pop(gid, None)
        log.warning("table %s withdrawn before its start: %s", gid, why)
        self._announce(gid, table, channel, [])
        self.link.part(channel)
        self.lobby.withdraw(table)
        for name in table.seats:
            self._back(name, now)

    def _seat_tables(self, now: float) -> None:
        """Start every announced game whose players have all joined (or whose wait is over)."""
        for gid, (table, channel, start_by) in list(self._tables.items()):
            present = {self.link.fold(n) for n in self.link.members(channel)}
            awaited = self._nicks(table.seats)
            if now < self._watch_by[gid]:
                lobby = {self.link.fold(n) for n in self.link.members(self.lobby_channel)}
                awaited = awaited + [n for n in self.watchers if self.link.fold(n) in lobby]
            if now < start_by and not all(self.link.fold(n) in present for n in awaited):
                continue
            del self._tables[gid]
            del self._watch_by[gid]
            seed = derive(self._key, "game", gid) if table.seed is None else table.seed
            self._started[gid] = now  # first: a game may end as it starts
            self.referee.start_game(table.game, table.seats, table.options, seed, channel, now, gid=gid)

    def _take_up(self, now: float) -> None:
        """Take up the games an earlier run left in progress (``Journal``): each goes on in
        a channel of its own run (the old one may be moderated, and a referee that comes
        back is no operator there), announced by ``RESUME`` in the lobby and there; it
        waits ``timeouts.resume`` seconds for its bots, which are resynced as they register."""
        if self.journal is None:
            return
        for live in self.journal.unfinished():
            try:
                self._resume(live, now)
            except Exception:
                log.exception("game %s could not be taken up; it stays in the store", live.id)
        self._after(now)

    def _resume(self, live: LiveGame, now: float) -> None:
        channel = f"{self.lobby_channel}-{live.id}-r{live.resumes + 1}"
        self.link.join(channel)
        wait = self.config.timeouts.resume
        resume = Message.make(RESUME, live.id, game=live.game, channel=channel, seats=list(live.names),
                              wait=int(wait))
        for line in resume.lines():
            self.link.send(self.lobby_channel, line)
        if live.recorded:
            self._told_again.add(live.id)
        self.referee.resume_game(live, channel, now, announce=resume)
        self._started[live.id] = now
        self._resuming[live.id] = now + wait
        log.warning("game %s taken up after a restart: waiting up to %.0f s for %s", live.id, wait,
                    ", ".join(live.bots))

    def _missing(self, gid: str) -> list[str]:
        """The bots of a resumed game that are not back: not registered, or not in its
        channel (for a game that was over, registered is enough: its resync tells the end)."""
        match = self.referee.matches[gid]
        assert match.channel is not None and match.bots is not None
        present = {self.link.fold(n) for n in self.link.members(match.channel)}
        return [bot for bot in match.bots
                if (info := self.referee.bot_named(bot)) is None
                or not match.over and self.link.fold(info.nick) not in present]

    def _resume_due(self, now: float) -> None:
        """Resumed games whose bots are all back go on; those whose wait is over end
        aborted, naming who did not come back."""
        for gid, until in list(self._resuming.items()):
            if gid not in self.referee.matches:
                del self._resuming[gid]
                continue
            missing = self._missing(gid)
            if missing and now < until:
                continue
            del self._resuming[gid]
            if missing and not self.referee.matches[gid].over:
                wait = self.config.timeouts.resume
                self.referee.abort_game(gid, f"the referee restarted and {', '.join(missing)} did not come back "
                                             f"within {wait:.0f} s", now)
            else:
                self.referee.go_on(gid, now)

    def _nicks(self, bots: list[str]) -> list[str]:
        """Where the bots are now (a bot no connection plays keeps its name)."""
        return [info.nick if (info := self.referee.bot_named(name)) is not None else name for name in bots]

    def _ended(self, match: Match) -> None:
        again = match.gid in self._told_again
        self._told_again.discard(match.gid)
        if not again:
            self.games_ended += 1
        now = self.clock()
        if match.channel is not None:
            self.referee.behind(match.gid, self.link.part, match.channel)  # after END and the ratings
        del self.referee.matches[match.gid]
        for name in match.bots or match.names:
            self._back(name, now)
        self._started.pop(match.gid, None)
        self._resuming.pop(match.gid, None)
        if self._on_game_end is not None and not again:
            self._on_game_end(match)

    # -- time -----------------------------------------------------------------------

    def _after(self, now: float) -> None:
        """Start what is due, then make sure we wake for the next deadline."""
        writable = self.referee.writable(now)  # no game starts while the store cannot be written
        while writable and not self.done and self.lobby.due(now) and self._open_table(now):
            pass  # another table, while enough bots still wait
        if writable:
            self._seat_tables(now)
        self._resume_due(now)
        lobby = None if self.done else self.lobby.deadline  # a finished service seats no one
        retry = self.referee.store_retry
        wake = min(
            (t for t in (self.referee.next_deadline(), lobby,
                         min((t[2] for t in self._tables.values()), default=None),
                         min((t for t in self._watch_by.values() if t > now), default=None),
                         min(self._resuming.values(), default=None),
                         retry if retry is not None and retry > now else None) if t is not None),
            default=math.inf,
        )
        if wake < self._wake:
            self._wake = wake
            # Never zero: the scheduler runs what falls due while it runs, so a wake-up that
            # is still due after its tick (a table that could not be seated) must not spin.
            self.reactor.scheduler.execute_after(max(MIN_WAKE, wake - now), self._tick)

    def _after_sent(self, then: Callable[[float], None]) -> None:
        """Call ``then`` with the time the lines queued so far go out (a request's deadline
        starts then), and wake for the deadline that starts."""

        def sent() -> None:
            now = self.clock()
            then(now)
            self._after(now)

        self.link.after_sent(sent)

    def _tick(self) -> None:
        now = self.clock()
        self._wake = math.inf
        self.referee.poll(now)
        self._after(now)


def _listed(head: str, names: list[str], width: int) -> list[str]:
    """``head`` and the names, comma-separated, wrapped into lines of at most ``width``
    bytes (a name is never split); ``head`` alone says nobody."""
    lines = [head]
    for name in names:
        sep = " " if lines[-1].endswith(":") else ", "
        if len((lines[-1] + sep + name).encode()) > width:
            lines.append(f"  {name}")
        else:
            lines[-1] += sep + name
    return lines
