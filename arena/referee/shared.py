"""One lobby, several referees: what each referee of a shared lobby does beside its games.

Referees that share a lobby (the same ``server.network`` and lobby channel, and one
PostgreSQL store) each run under their own nick, on any server of the network. A bot
registers with one of them; the registration is written to the store, and every other
referee plays that connection as the bot too (``Registry.adopt``), so any of them may seat
it. One referee, the **dealer** (the one of the lobby running longest), keeps the lobby's
``Lobby``: the waiting bots, the tables kept for their block, the draws. It deals each
table to the store; the least busy referee claims it and runs its game (``SharedSeater``),
announcing it with ``referee=`` its own nick. When the game ends or the table is withdrawn,
the dealer hears of it and seats its bots again. What one referee changes the others hear
at once (``NOTIFY``, read between two turns of the reactor); the few things a notice could
be missed for (a connection to the store lost and made again) are looked at again at each
renewal of the referee's lease.

When the dealer stops renewing its lease, the next referee in line deals (with a fresh
``Lobby``: tables in the middle of a block are drawn anew; the rosters' places in their
series of seat orders are in the store and go on). The dealer also takes over the games of
any referee of the lobby that stopped renewing its lease, from their journal, as a
restarted referee takes up its own (``RESUME`` ... ``referee=``).
"""

from __future__ import annotations

import logging
import secrets
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from ..protocol import REFEREES, Message
from ..store import Store
from ..store.lobbies import CHANNEL, Dealt, Registration
from ..store.postgres import PgConnection
from ..store.referees import Fenced
from .lobby import Lobby, Table
from .pause import failure, unwritable
from .registry import BotInfo, Registry

log = logging.getLogger(__name__)

FRESH = 2.0
"""Seconds after a bot's registration before the dealer seats it: its referee's ``WELCOME``
must reach it before another referee's ``TABLE`` does (a bot obeys no referee before its
``WELCOME``), and over linked servers the ``WELCOME`` may travel the longer way."""


class Tables(Protocol):
    """Where a shared lobby's tables are dealt and claimed (``Shared``: the store)."""

    def new_game_id(self) -> str: ...
    def deal(self, gid: str, table: Table) -> bool:
        """Offer the table to the lobby's referees; False if this referee deals no more."""
        ...

    def claim(self) -> Dealt | None:
        """The next table, if this referee is to run it."""
        ...

    def done(self, gid: str, kind: str) -> None: ...


class SharedSeater:
    """The seater of a referee of a shared lobby: the tables it claims and, while it deals,
    the lobby's own ``Lobby`` (whose tables go to the store, for any referee to claim)."""

    def __init__(self, lobby: Lobby, shared: Tables) -> None:
        self.lobby = lobby
        self.shared = shared
        self.dealing = False
        self.claimable = False
        """A table may wait in the store for a referee to claim it (a notice said so)."""
        self._dealt: dict[str, tuple[Table, bool]] = {}
        """Tables dealt and not over, by game id (the dealer's): the table, and whether this
        ``Lobby`` drew it (a table an earlier dealer drew is no draw of it to take back)."""
        self._away: dict[str, str] = {}
        """Each bot (folded) of a dealt table -> its game id: it waits for nothing meanwhile."""
        self._fresh: dict[str, tuple[float, str]] = {}
        """Bots (folded) registered a moment ago -> (when they may be seated, name) (``FRESH``)."""
        self._ripening: deque[tuple[float, str]] = deque()
        """The same, soonest first (every one waits ``FRESH``), with entries since dropped."""
        self._now = 0.0

    @property
    def waiting(self) -> list[str]:
        return self.lobby.waiting if self.dealing else []

    @property
    def deadline(self) -> float | None:
        if not self.dealing:
            return None
        ripe = self._ripening[0][0] if self._ripening else None
        return min((t for t in (self.lobby.deadline, ripe) if t is not None), default=None)

    def registered(self, name: str, now: float) -> None:
        """``name`` has just registered (anew): it waits ``FRESH`` seconds before it is seated."""
        until = now + FRESH
        self._fresh[name.lower()] = (until, name)
        self._ripening.append((until, name.lower()))

    def add(self, nick: str, now: float) -> None:
        key = nick.lower()
        if not self.dealing or key in self._away or key in self._fresh and now < self._fresh[key][0]:
            return  # (a fresh one is added by ``due`` once it may be seated)
        self._fresh.pop(key, None)
        self.lobby.add(nick, now)

    def remove(self, nick: str) -> None:
        self._fresh.pop(nick.lower(), None)
        if self.dealing:
            self.lobby.remove(nick)

    def due(self, now: float) -> bool:
        self._now = now
        while self._ripening and self._ripening[0][0] <= now:
            until, key = self._ripening.popleft()
            fresh = self._fresh.get(key)
            if fresh is not None and fresh[0] == until:
                del self._fresh[key]
                if self.dealing and key not in self._away:
                    self.lobby.add(fresh[1], now)
        return self.claimable or (self.dealing and self.lobby.due(now))

    def wanted(self) -> None:
        return None

    def take(self, smallest: int, by_hand: bool = False) -> Table | None:
        """Deal what is due (by hand: every table the waiting bots fill), then claim the oldest table nobody has
        claimed, if this referee is the least busy of the lobby's."""
        if self.dealing:
            while by_hand or self.lobby.due(self._now):
                table = self.lobby.take(smallest, by_hand)
                if table is None:
                    break
                self._deal(table)
        dealt = self.shared.claim()
        if dealt is None:
            self.claimable = False
            return None
        log.info("table %s claimed: %s", dealt.gid, ", ".join(dealt.seats))
        return Table(dealt.game, self.lobby.options, list(dealt.seats), gid=dealt.gid)

    def _deal(self, table: Table) -> None:
        gid = self.shared.new_game_id()
        if not self.shared.deal(gid, table):
            self.lobby.withdraw(table)
            raise Fenced("this referee no longer deals the lobby's tables: its lease ran out")
        self.dealt(gid, table, drawn=True)
        self.claimable = True
        log.info("table %s dealt: %s", gid, ", ".join(table.seats))

    def dealt(self, gid: str, table: Table, drawn: bool) -> None:
        self._dealt[gid] = (table, drawn)
        for name in table.seats:
            self._away[name.lower()] = gid

    def withdraw(self, table: Table) -> None:
        """A table claimed here never started: the dealer seats its bots again."""
        if table.gid is not None:
            self.shared.done(table.gid, "withdrawn")

    def returned(self, gid: str, withdrawn: bool) -> list[str]:
        """A dealt table is over (its game ended, or it never started): the bots it seated,
        which may wait again (the dealer's)."""
        table, drawn = self._dealt.pop(gid, (None, False))
        if table is None:
            return []
        if withdrawn and drawn:
            self.lobby.withdraw(table)
        for name in table.seats:
            if self._away.get(name.lower()) == gid:
                del self._away[name.lower()]
        return table.seats

    def away(self) -> dict[str, Table]:
        """The tables dealt and not over (``!status``)."""
        return {gid: table for gid, (table, _) in self._dealt.items()}


class Shared:
    """A referee's part in a shared lobby: the registrations it writes and adopts, the
    notices it hears, the lobby's referees, and whether it deals."""

    def __init__(
        self,
        store: Store,
        place: str,
        owner: str,
        registry: Registry,
        new_game_id: Callable[[], str],
        tell: Callable[[str, Message], None],
        clock: Callable[[], float],
        settle: float,
        after_sent: Callable[[Callable[[], None]], object],
        lobby: Lobby,
    ) -> None:
        """``settle``: seconds a referee new to the lobby waits before it runs tables (the
        others tell their bots of it meanwhile); ``lobby``: the one it keeps while it deals."""
        conn = store.conn
        if not isinstance(conn, PgConnection):
            raise ValueError("a lobby shared by several referees (server.network) needs a PostgreSQL store")
        self.store = store
        self.conn = conn
        self.place = place
        self.owner = owner
        self.registry = registry
        self.new_game_id = new_game_id
        self.tell = tell
        self._mine: dict[str, str] = {}
        """Bots (folded) -> the registration this referee admitted (its token): it tells those
        bots when the lobby's referees change. One a bot, kept while that registration is
        the bot's (a bot out of reach after a netsplit is told again once vouched for), and
        forgotten once it is over or replaced by a newer one."""
        self._unwritten: dict[str, str] = {}
        """Bots (folded) this referee admitted a moment ago -> the token not yet written (its
        ``WELCOME`` is on its way): newer than what the store says of the bot meanwhile."""
        self.settle = settle
        self.clock = clock
        self.after_sent = after_sent
        """Calls back once the lines queued so far went out (IRC): a registration is told to
        the other referees after its ``WELCOME``, which a bot awaits before it obeys any
        referee's line (a ``TABLE`` from another referee must not overtake it)."""
        self.seater = SharedSeater(lobby, self)
        """The room's seater: the tables this referee claims (and deals, while it deals)."""
        self.back: Callable[[str, float], None] = lambda name, now: None
        """The room's: bot ``name`` may wait in the lobby again."""
        self.inherited: Callable[[float], None] = lambda now: None
        """The room's: take up the games this referee now owns (those of a referee gone)."""
        self.changed: Callable[[], None] = lambda: None
        """The service's: the lobby's referees, or who deals, changed (its topic names them)."""
        self.withdrawn: Callable[[str, str], None] = lambda gid, game: None
        """The room's: announce that a gone referee's table (game id, game) is withdrawn."""
        self.running: Callable[[], set[str]] = set
        """The games this referee runs or seats now, by id."""
        self.nicks: list[str] = []
        """The lobby's referees now, longest there first."""
        self._connects = conn.connects
        self._lost: dict[str, str] = {}
        """Bots (folded) whose connections a netsplit put out of reach -> their registration's
        token: adopted again only once the referee that admitted them vouches for them
        (``referee_joined``), since a stranger may have taken the nick on this side of the
        split; forgotten once the bot registers anew or its registration is over (it quit
        for good during the split)."""
        registry.sharing = self

    # -- registrations (``Sharing``) -------------------------------------------------

    def referees(self) -> list[str]:
        """Read afresh (a registration is rare): a bot welcomed now must know every referee
        that may seat it, even one that joined the lobby a moment ago."""
        try:
            return [nick for _, nick in self.store.referees.live(self.place)]
        except Exception as exc:
            if not unwritable(exc):
                raise
            return list(self.nicks)

    def admitted(self, info: BotInfo) -> None:
        if info.token is None:
            info.token = secrets.token_hex(8)
            self.seater.registered(info.name, self.clock())
        token = self._mine[info.name.lower()] = info.token
        self._unwritten[info.name.lower()] = token
        self.after_sent(lambda: self._publish(info, token))

    def _publish(self, info: BotInfo, token: str) -> None:
        """Write ``info``'s registration, as it is now, unless it is over already."""
        if self._unwritten.get(info.name.lower()) == token:
            del self._unwritten[info.name.lower()]
        if info.token != token or self.registry.by_name.get(info.name.lower()) is not info:
            return
        reg = Registration(
            token, info.name, info.nick, info.owner, info.version, info.account, info.protocol, self.owner
        )
        self._write("a registration", self.store.lobbies.admitted, self.place, reg)

    def renamed(self, info: BotInfo) -> None:
        assert info.token is not None
        self._write("a new nick", self.store.lobbies.renamed, self.place, info.token, info.nick)

    def gone(self, info: BotInfo) -> None:
        assert info.token is not None
        if self._mine.get(info.name.lower()) == info.token:
            del self._mine[info.name.lower()]
        self._write("the end of a registration", self.store.lobbies.gone, self.place, info.token)

    def lost(self, info: BotInfo) -> None:
        assert info.token is not None
        self._lost[info.name.lower()] = info.token

    def referee_joined(self, nick: str) -> None:
        """A referee of the lobby joined the lobby channel (after a netsplit, among others):
        this one vouches for the connections it plays, none of which it saw leave."""
        if nick.lower() in (n.lower() for n in self.nicks):
            self._tell_referees()  # (a bot that saw it leave, in the split, trusts it no more)
            lost = set(self._lost.values())
            tokens = [t for info in self.registry.by_name.values() if (t := info.token) and t not in lost]
            if tokens:
                self._write("the registrations it watched", self.store.lobbies.vouch, self.place, tokens)

    def _write(self, what: str, write: Callable[..., None], *args: Any) -> None:
        """Write for the lobby's other referees; a store that cannot be written is logged
        (this referee goes on; the others learn it at their next look)."""
        try:
            write(*args)
        except Exception as exc:
            if not unwritable(exc):
                raise
            log.error("could not tell the lobby's other referees of %s: %s", what, failure(exc))

    def _adopt(self, name: str, now: float, reg: Registration | None = None) -> None:
        """Play bot ``name`` as its registration (``reg``, or the store's) says, unless this
        referee has just admitted it anew."""
        if self._unwritten_here(name):
            return
        reg = self.store.lobbies.registration(self.place, name) if reg is None else reg
        lost = self._lost.get(name.lower())
        if lost is not None:
            if reg is not None and reg.token == lost:
                return  # (until vouched for)
            del self._lost[name.lower()]
        self._over_unless(name.lower(), None if reg is None else reg.token)
        bound = self.registry.by_name.get(name.lower())
        if reg is not None and (bound is None or bound.token != reg.token):
            self.seater.registered(reg.name, now)
        found = (
            None
            if reg is None
            else BotInfo(reg.name, reg.nick, reg.owner, reg.version, reg.account, reg.protocol, reg.token)
        )
        self.registry.adopt(found, name, now)

    def _over_unless(self, key: str, token: str | None) -> None:
        """The store says bot ``key``'s registration is ``token`` (None: it has none): the
        one this referee admitted is over unless it is that one, or not written yet."""
        mine = self._mine.get(key)
        if mine is not None and mine != token and self._unwritten.get(key) != mine:
            del self._mine[key]

    def _unwritten_here(self, name: str) -> bool:
        """Whether the connection that plays bot ``name`` here registered with this referee a
        moment ago and is not written yet: the store's word on the bot is older than it."""
        info = self.registry.by_name.get(name.lower())
        return info is not None and info.token is not None and self._unwritten.get(name.lower()) == info.token

    # -- starting, hearing, renewing -------------------------------------------------

    def start(self, now: float) -> None:
        """Listen to the lobby's notices and adopt its registrations (the first referee of
        the lobby forgets those left from before it: nobody watched their connections)."""
        self.conn.listen(CHANNEL)
        if [rid for rid, _ in self.store.referees.live(self.place)] == [self.owner]:
            self.store.lobbies.forget_bots(self.place)
        self.store.lobbies.referees_changed(self.place)
        self._look_again(now)

    def leave(self) -> None:
        """This referee stops: the others hear it at once (its games are inherited once its lease is given up)."""
        self._write("this referee's leaving", self.store.lobbies.referees_changed, self.place)

    def fileno(self) -> int | None:
        return self.conn.fileno()

    def heard(self, now: float) -> bool:
        """Act on the notices that came: a registration made, changed or over; a table to
        claim; a table over (the dealer seats its bots again); the lobby's referees changed.
        Whether any came."""
        notices = self.conn.heard()
        for notice in notices:
            place, kind, what = (notice.split("\t") + ["", ""])[:3]
            if place != self.place:
                continue
            log.info("lobby %s: %s %s", place, kind, what)
            if kind == "bot":
                self._adopt(what, now)
            elif kind in ("table", "claimed"):  # (a claim elsewhere may leave this referee the least busy)
                self.seater.claimable = True
            elif kind in ("ended", "withdrawn"):
                self.seater.claimable = True
                self._returned(what, kind == "withdrawn", now)
            elif kind == "referees":
                self._referees(now)
            elif kind == "vouch":
                self._vouched(what, now)
        return bool(notices)

    def _vouched(self, tokens: str, now: float) -> None:
        vouched = set(tokens.split(","))
        back = {key: token for key, token in self._lost.items() if token in vouched}
        if back:
            for key in back:
                del self._lost[key]
            for reg in self.store.lobbies.registrations(self.place):
                if back.get(reg.name.lower()) == reg.token:
                    self._adopt(reg.name, now, reg)

    def _returned(self, gid: str, withdrawn: bool, now: float) -> None:
        if self.seater.dealing:
            for name in self.seater.returned(gid, withdrawn):
                self.back(name, now)

    def renew(self, now: float) -> None:
        """At each renewal of the lease: the lobby's referees, whether this one deals now
        (and the games it inherits then), and what a lost connection may have hidden."""
        self._referees(now)
        if self.seater.dealing:
            self._inherit(now)
        if self.conn.connects != self._connects:
            self._connects = self.conn.connects
            self._look_again(now)
        elif not self.seater.claimable:
            self.seater.claimable = self.store.lobbies.unclaimed(self.place)

    def _look_again(self, now: float) -> None:
        """Everything a notice would have said: the registrations, the tables to claim."""
        registrations = self.store.lobbies.registrations(self.place)
        for reg in registrations:
            self._adopt(reg.name, now, reg)
        kept = {reg.name.lower(): reg.token for reg in registrations}
        self._lost = {key: token for key, token in self._lost.items() if key in kept}
        for key in list(self._mine):
            self._over_unless(key, kept.get(key))
        for name in [info.name for info in self.registry.by_name.values()]:
            if name.lower() not in kept and not self._unwritten_here(name):
                self.registry.adopt(None, name, now)
        self._referees(now)
        self.seater.claimable = self.store.lobbies.unclaimed(self.place)

    def _referees(self, now: float) -> None:
        """Who referees the lobby now; the bots registered here are told when that changed,
        and the first in line deals."""
        live = self.store.referees.live(self.place)
        nicks = [nick for _, nick in live]
        if nicks != self.nicks:
            self.nicks = nicks
            self._tell_referees()
            self.changed()
        if live and live[0][0] == self.owner and not self.seater.dealing:
            self._deal(now)

    def _tell_referees(self) -> None:
        """``REFEREES`` to the bots registered here: who referees the lobby now."""
        told = Message.make(REFEREES, nicks=self.nicks)  # (in line with the games' lines: never dropped)
        for info in list(self.registry.by_name.values()):
            if info.token is not None and self._mine.get(info.name.lower()) == info.token:
                self.tell(info.nick, told)

    def _deal(self, now: float) -> None:
        """This referee deals from now on: the tables dealt before it are away, and every bot
        registered may wait."""
        self.seater.dealing = True
        self.changed()
        log.warning("this referee deals the tables of the shared lobby %s now", self.place)
        for dealt in self.store.lobbies.tables(self.place):
            self.seater.dealt(dealt.gid, Table(dealt.game, self.seater.lobby.options, list(dealt.seats)), drawn=False)
        self._inherit(now)
        for info in list(self.registry.by_name.values()):
            self.back(info.name, now)

    def _inherit(self, now: float) -> None:
        """Take over the games of the lobby's referees that stopped renewing their leases
        (taken up as a restarted referee's), and withdraw their tables that never started."""
        if not self.store.referees.inherit(self.owner, self.place):
            return
        self.inherited(now)
        running = self.running()
        live = {game.id for game in self.store.live.unfinished(place=self.place, owner=self.owner)}
        for dealt in self.store.lobbies.tables(self.place):
            if dealt.referee == self.owner and dealt.gid not in running and dealt.gid not in live:
                self.withdrawn(dealt.gid, dealt.game)
                self.done(dealt.gid, "withdrawn")

    # -- tables ---------------------------------------------------------------------

    def deal(self, gid: str, table: Table) -> bool:
        return self.store.lobbies.deal(self.place, self.owner, gid, table.game, table.seats)

    def claim(self) -> Dealt | None:
        return self.store.lobbies.claim(self.place, self.owner, self.settle)

    def done(self, gid: str, kind: str) -> None:
        self._write(f"the end of table {gid}", self.store.lobbies.done, self.place, gid, kind)
