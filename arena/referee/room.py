"""The room: what runs games for the bots that come, whatever carries the lines.

The lobby's seating (a table announced, its bots' wait to join its channel, its start or
withdrawal), the games an earlier run left (taken up and resumed), the operators' commands
and the status shown to people live here, not in a transport: the IRC service drives a
room, and any other transport drives the same one through a ``Port``. A room reads no clock
and schedules nothing: it is told the time, and says when it next wants to be woken.
"""

from __future__ import annotations

import functools
import logging
import math
from collections.abc import Callable, Collection

from ..config import Config
from ..core.keys import derive
from ..games import GAMES
from ..protocol import TABLE, Message
from .announced import Announced
from .journal import Journal
from .lobby import Seater, Table
from .match import Match
from .pause import STORE_DOWN, unwritable
from .port import Port
from .referee import Referee
from .resumed import Resumed

log = logging.getLogger(__name__)

WATCHER_WAIT = 5.0
"""Seconds from a table's announcement that its game waits, once its bots are in, for the
operator's own spectators (``watchers``) that are in the lobby to join its channel too."""

STATUS_GAMES = 10
"""Running games listed by ``!status`` at most; the rest are counted."""

TOPIC_NAMES = 8
"""Waiting bots and running games the status line names at most; the rest are counted."""

STATUS_WAITING = 50
"""Waiting bots named by ``!status`` at most: its answer stays a few lines, however many wait."""

HELP = (
    "commands: !help (this), !status (who waits, what runs); operators only: !start (seat the waiting "
    "bots now), !stop [GID] (stop that game, or every game, with nobody at fault)"
)


class Room:
    """Seats the bots that wait at games, takes up the games an earlier run left, answers
    operators, and says what runs; until ``max_games`` have ended, if that is set."""

    def __init__(
        self,
        config: Config,
        referee: Referee,
        port: Port,
        seater: Seater,
        key: bytes,
        *,
        journal: Journal | None = None,
        max_games: int | None = None,
        on_game_end: Callable[[Match], None] | None = None,
        watchers: Collection[str] = (),
        clock: Callable[[], float],
    ) -> None:
        """``key``: the secret master key of the games' seeds; ``watchers``: the nicks of the
        operator's own spectators (the narrator): a game waits a little for those in the
        lobby to join its channel, so that they hear its ``START`` (``WATCHER_WAIT``).
        ``clock`` is read only when the port reports lines gone out (``after_sent``)."""
        self.config = config
        self.referee = referee
        self.port = port
        self.lobby: Seater = seater
        self.channel = config.server.channel
        self.max_games = max_games
        self.games_ended = 0
        self.watchers = list(watchers)
        self.on_wake: Callable[[float, float], None] = lambda at, now: None
        """Called with the time the room next wants ``after``, and the time now (set by the
        transport's driver, which schedules it)."""
        self._key = key
        self._clock = clock
        self._on_game_end = on_game_end
        self._tables = Announced(port.fold)
        """Games announced whose players are still joining."""
        self._started: dict[str, float] = {}
        """When each running game started (for ``!status``)."""
        self._public_answer = -math.inf
        """When a non-operator's ``!help`` or ``!status`` was last answered."""
        self.shared = False
        """Whether other referees share the lobby: a ``TABLE`` names the referee that runs its
        game, and only the one that deals (``deals``) answers the lobby's commands."""
        self.deals: Callable[[], bool] = lambda: True
        self.elsewhere: Callable[[], dict[str, Table]] = dict
        """The tables of the shared lobby that other referees run (the dealer's)."""
        self.resumed = Resumed(config, referee, port, journal)
        """The games an earlier run left, once taken up (``take_up``)."""
        referee.on_game_end.append(self._ended)
        referee.on_bot.append(self._bot_changed)
        referee.on_join_game.append(lambda nick, channel: self._tables.touch_channel(channel))

    @property
    def done(self) -> bool:
        return self.max_games is not None and self.games_ended >= self.max_games

    # -- who waits ------------------------------------------------------------------

    def _bot_changed(self, name: str, connected: bool) -> None:
        """A bot that a connection now plays waits in the lobby (``_back``); one that no
        connection plays any more leaves it, and a table it was seated at that has not
        started is withdrawn: a bot that left is never seated."""
        now = self._clock()
        gid = self._tables.of_bot(name)
        if connected:
            self._tables.touch(gid)  # (its bot may be in its channel under the nick it has now)
            self.back(name, now)
            return
        self.lobby.remove(name)
        if gid is not None:
            self._withdraw(gid, f"{name} left", now)

    def back(self, name: str, now: float) -> None:
        """``name`` waits to be seated if it can be: registered and in the lobby channel
        (where its ``TABLE`` is announced), unless it is seated at a game or table. One
        that cannot be seated has left the lobby, and the table it sat at with it. (Before
        the room is in the lobby itself it cannot tell who is there, and a bot may register
        then: the bot is taken at its word. Once the room is there, the transport has told
        it every member before any line that follows.)"""
        info = self.referee.bot_named(name)
        port, lobby = self.port, self.channel
        if info is None or (port.present(self.referee.nick, lobby) and not port.present(info.nick, lobby)):
            self.lobby.remove(name)
            return
        if self.referee.matches.of(name) or self._tables.of_bot(name) is not None:
            return
        self.lobby.add(name, now)

    def lobby_member(self, kind: str, nick: str, now: float) -> None:
        """Someone joined (``join``) or left (``part``, ``kick``, ``quit``) the lobby channel, or
        changed nick (``nick``; the watchers the tables wait for are looked at again): a
        registered bot that leaves waits no more (it would not hear its ``TABLE``); one that
        comes back waits again."""
        if any(self.port.fold(w) == self.port.fold(nick) for w in self.watchers):
            self._tables.touch_all()  # (tables wait for the watchers in the lobby)
        info = self.referee.bot_of(nick)
        if info is None:
            return
        if kind == "join":
            self.back(info.name, now)
        elif kind in ("part", "kick"):
            self.lobby.remove(info.name)

    # -- people ---------------------------------------------------------------------

    def command(self, sender: str, text: str, now: float) -> None:
        """``!help`` and ``!status`` answer anyone (a non-operator once per
        ``flood.command_interval`` seconds); ``!start`` from an operator seats the bots waiting now at as
        many tables as they fill; ``!stop GID`` stops that game (``!stop`` alone: every
        running game) with nobody at fault."""
        words = text.split()
        operator = sender.lower() in (o.lower() for o in self.config.lobby.operators)
        lobby = self.deals()  # (in a shared lobby, the dealer answers for it)
        if words[0] in ("!help", "!status"):
            if not lobby or not operator and now < self._public_answer + self.config.flood.command_interval:
                return
            if not operator:
                self._public_answer = now
            for line in [HELP] if words[0] == "!help" else self._status(now):
                self.port.send(self.channel, line)
            return
        if not operator:
            return
        if words[0] == "!start" and lobby:
            before = len(self.lobby.waiting)
            while self._open_table(now, by_hand=True):
                pass
            if len(self.lobby.waiting) == before:
                self.port.send(self.channel, f"{sender}: not enough bots are waiting to start a game")
        elif words[0] == "!stop":
            wanted = words[1:] or list(self.referee.matches)
            for gid in wanted:
                stopped = self.referee.abort_game(gid, f"stopped by {sender}", now)
                if not stopped and lobby and gid not in self.elsewhere():
                    self.port.send(self.channel, f"{sender}: no game {gid[:20]} is running")
        self.after(now)

    def _status(self, now: float) -> list[str]:
        """Who waits and what runs, in as many lines as the lobby's line length needs."""
        width = self.port.max_text_bytes(self.channel)
        waiting = self.lobby.waiting
        more = [f"and {len(waiting) - STATUS_WAITING} more"] if len(waiting) > STATUS_WAITING else []
        lines = _listed(f"waiting ({len(waiting)}):", waiting[:STATUS_WAITING] + more, width)
        for gid, announced in self._tables.tables.items():
            table = announced.table
            lines += _listed(f"{gid} {table.game} joining:", self._nicks(table.seats), width)
        for gid, until in self.resumed.waiting.items():
            lines += _listed(f"{gid} resumes when back ({until - now:.0f} s left):", self.resumed.missing(gid), width)
        for gid, since in self.referee.paused().items():
            lines.append(f"{gid} paused {now - since:.0f} s: {STORE_DOWN}")
        for gid, table in self.elsewhere().items():
            if gid not in self.referee.matches and gid not in self._tables.tables:
                lines += _listed(f"{gid} {table.game} at another referee:", self._nicks(table.seats), width)
        running = sorted(self._started.items(), key=lambda item: item[1])
        for gid, started in running[:STATUS_GAMES]:
            match = self.referee.matches[gid]
            lines += _listed(
                f"{gid} {match.game.name} running {now - started:.0f} s:", match.bots or match.names, width
            )
        if len(running) > STATUS_GAMES:
            lines.append(f"... and {len(running) - STATUS_GAMES} more games running")
        return lines

    def status_line(self) -> str:
        """Who waits and what runs, short enough for a topic: ``waiting 3: a, b, c; running:
        g7 avalon, g8 werewolf`` (a few names, then a count)."""

        def named(names: list[str]) -> str:
            more = len(names) - TOPIC_NAMES
            return ", ".join(names[:TOPIC_NAMES]) + (f" and {more} more" if more > 0 else "")

        waiting = self.lobby.waiting
        running = [
            f"{gid} {self.referee.matches[gid].game.name}" for gid in self._started if gid in self.referee.matches
        ]
        parts = [f"waiting {len(waiting)}" + (f": {named(waiting)}" if waiting else "")]
        if self._tables:
            parts.append(f"seating: {named(list(self._tables.tables))}")
        parts.append(f"running: {named(running)}" if running else "no game running")
        return "; ".join(parts)

    def waiting_line(self, now: float) -> str | None:
        """Why the next game does not start, for an operator; None when nothing is amiss:
        a game is due or running, or nobody waits. A tournament names the bots its next game
        needs that have not registered; the lobby names who waits, and for what."""
        if self.done:
            return None
        paused = self.referee.paused()
        if paused:
            games = ", ".join(f"{gid} for {now - since:.0f} s" for gid, since in paused.items())
            return f"paused: {STORE_DOWN} ({games}); no game starts until it can"
        if self.resumed.waiting:
            return "; ".join(
                f"game {gid} resumes once {', '.join(self.resumed.missing(gid))} come back ({until - now:.0f} s left)"
                for gid, until in self.resumed.waiting.items()
            )
        wanted = self.lobby.wanted()
        if wanted is not None:
            absent = sorted((name for name in wanted if self.referee.bot_named(name) is None), key=str.lower)
            return f"waiting for bots: {', '.join(absent)} (not registered)" if absent else None
        waiting = self.lobby.waiting
        if not waiting or self._tables or self.referee.matches:
            return None
        lobby = self.config.lobby
        named = ", ".join(waiting[:STATUS_WAITING]) + (
            f" and {len(waiting) - STATUS_WAITING} more" if len(waiting) > STATUS_WAITING else ""
        )
        needed = max(self._smallest, lobby.min_players)
        if len(waiting) < needed:
            return f"lobby: {len(waiting)} waiting ({named}); {lobby.game} needs {needed} players"
        if not lobby.auto_start:
            return f"lobby: {len(waiting)} waiting ({named}) for an operator's !start"
        return None

    # -- tables ---------------------------------------------------------------------

    @functools.cached_property
    def _smallest(self) -> int:
        """The fewest players the lobby's game can seat (the configuration is the room's for life)."""
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
            table = self.lobby.take(max(self._smallest, 1), by_hand)
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
        gone = [name for name in seats if self.referee.bot_named(name) is None] if self.shared else []
        if gone:  # (dealt before they left, and claimed since: a bot that left is never seated)
            log.warning("table %s withdrawn before its start: %s left", table.gid, ", ".join(gone))
            self.lobby.withdraw(table)
            return True
        try:
            GAMES[table.game].check_setup(len(seats), table.options)
        except ValueError as exc:
            log.warning("cannot seat %d players: %s", len(seats), exc)
            self.lobby.withdraw(table)
            for name in seats:
                self.back(name, now)
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
        channel = f"{self.channel}-{gid}"
        self.port.join(channel)
        # The bots' time to join runs from when the TABLE goes out: behind a rate-limited
        # queue (the last game's END, other games' lines) it may leave seconds later, and a
        # wait counted from now would start the game before its bots heard of it, and
        # before a leaver's UNREGISTER could withdraw it.
        self._tables.add(gid, table, channel)
        self._announce(gid, table, channel, self._nicks(seats))
        self.after_sent(functools.partial(self._table_told, gid))
        return True

    def _table_told(self, gid: str, at: float) -> None:
        """``gid``'s TABLE went out at ``at``: its bots (and the narrator) have from then on."""
        self._tables.told(gid, at + self.config.lobby.join_timeout, at + WATCHER_WAIT)

    def announced(self) -> list[str]:
        """The games announced whose bots are still joining."""
        return list(self._tables.tables)

    def withdrawn(self, gid: str, game: str) -> None:
        """A table of the shared lobby that another referee announced and never started is
        withdrawn (that referee is gone): said in the lobby, as any withdrawal."""
        self._announce(gid, Table(game, None, []), f"{self.channel}-{gid}", [])

    def _announce(self, gid: str, table: Table, channel: str, seats: list[str]) -> None:
        """``TABLE`` in the lobby: the game seats ``seats`` (none: it is withdrawn)."""
        named = {"referee": self.referee.nick} if self.shared else {}
        for line in Message.make(TABLE, gid, game=table.game, channel=channel, seats=seats, **named).lines():
            self.port.send(self.channel, line)

    def _withdraw(self, gid: str, why: str, now: float) -> None:
        """Withdraw a table that has not started: announced again with no seats, its
        channel left, and its bots that can still play back in the lobby."""
        waiting = self._tables.pop(gid)
        table, channel = waiting.table, waiting.channel
        log.warning("table %s withdrawn before its start: %s", gid, why)
        self._announce(gid, table, channel, [])
        self.port.part(channel)
        self.lobby.withdraw(table)
        for name in table.seats:
            self.back(name, now)

    def _seat_tables(self, now: float) -> None:
        """Start every announced game whose players have all joined (or whose wait is
        over): of the tables something happened to since, or whose wait ended."""
        port, tables = self.port, self._tables
        for gid in tables.due(now):
            waiting = tables.tables[gid]
            table, channel = waiting.table, waiting.channel
            awaited = self._nicks(table.seats)
            if now < waiting.watch_by:
                awaited = awaited + [n for n in self.watchers if port.present(n, self.channel)]
            if now < waiting.start_by and not all(port.present(n, channel) for n in awaited):
                continue
            tables.pop(gid)
            seed = derive(self._key, "game", gid) if table.seed is None else table.seed
            self._started[gid] = now  # first: a game may end as it starts
            self.referee.start_game(table.game, table.seats, table.options, seed, channel, now, gid=gid)

    def _nicks(self, bots: list[str]) -> list[str]:
        """Where the bots are now (a bot no connection plays keeps its name)."""
        return [info.nick if (info := self.referee.bot_named(name)) is not None else name for name in bots]

    def _ended(self, match: Match) -> None:
        again = self.resumed.ended(match.gid)
        if not again:
            self.games_ended += 1
        now = self._clock()
        if match.channel is not None:
            self.referee.behind(match.gid, self.port.part, match.channel)  # after END and the ratings
        del self.referee.matches[match.gid]
        for name in match.bots or match.names:
            self.back(name, now)
        self._started.pop(match.gid, None)
        if self._on_game_end is not None and not again:
            self._on_game_end(match)

    def take_up(self, now: float) -> None:
        """Take up the games an earlier run left in progress (``Resumed``), once the room is
        in its lobby."""
        for gid in self.resumed.take_up(now):
            self._started[gid] = now
        self.after(now)

    # -- time -----------------------------------------------------------------------

    def after(self, now: float) -> None:
        """Start what is due, then tell ``on_wake`` when the room next needs ``after``."""
        writable = self.referee.writable(now)  # no game starts while the store cannot be written
        while writable and not self.done and self.lobby.due(now) and self._open_table(now):
            pass  # another table, while enough bots still wait
        if writable:
            self._seat_tables(now)
        self.resumed.due(now)
        lobby = None if self.done else self.lobby.deadline  # a finished room seats no one
        retry = self.referee.store_retry
        wake = min(
            (
                t
                for t in (
                    self.referee.next_deadline(),
                    lobby,
                    self._tables.next_time(),
                    min(self.resumed.waiting.values(), default=None),
                    retry if retry is not None and retry > now else None,
                )
                if t is not None
            ),
            default=math.inf,
        )
        self.on_wake(wake, now)

    def after_sent(self, then: Callable[[float], None]) -> None:
        """Call ``then`` with the time the lines queued so far go out (a request's deadline
        starts then), and see to what is due from then."""

        def sent() -> None:
            now = self._clock()
            then(now)
            self.after(now)

        self.port.after_sent(sent)


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
