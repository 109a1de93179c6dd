"""Our nick: a free variant when the preferred one is taken, and getting the preferred one back.

Registration never fails for a taken nick: the keeper takes ``nick_``, then ``nick1``,
``nick2``... With ``regain`` it then works to get the preferred nick back, because a service
that others address by name must not answer under another: at once and every
``regain_interval`` seconds it sends ``NICK preferred`` and, when logged in by SASL, asks
services for it (``PRIVMSG NickServ :REGAIN preferred``, Atheme's ``nickserv/enforce``
module: the holder is renamed to a guest nick and we get the nick); it retries at once when
it sees the holder quit or change nick in a shared channel. The same happens if the server
renames us later (e.g. services enforcing a registered nick).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import irc.client

from .connection import Connection, Guard
from .outbox import Outbox
from .settings import IrcLinkError, LinkSettings, NickRejected

log = logging.getLogger("arena.irc.link")


class NickKeeper:
    """The nick ``preferred`` on ``connection``. ``report(ok, nick)`` hears every gain or
    loss of the preferred nick (and the state after every registration); ``fail`` takes
    the fatal ``NickRejected``."""

    def __init__(
        self,
        preferred: str,
        connection: Connection,
        outbox: Outbox,
        settings: LinkSettings,
        *,
        report: Callable[[bool, str], None],
        fail: Callable[[IrcLinkError], None],
        guard: Guard,
    ) -> None:
        self.preferred = preferred
        self.current = preferred
        """The preferred nick, or the variant the server accepted."""
        self.connection = connection
        self.outbox = outbox
        self.regain = settings.regain
        self.regain_interval = settings.regain_interval
        self.max_attempts = settings.max_nick_attempts
        self.services_nick = settings.services_nick
        self._report = report
        self._fail = fail
        self._guard = guard
        self._attempt = 0
        self._ok: bool | None = None
        """Last reported to ``report``."""
        self._regain_gen: int | None = None
        """The connection whose regain loop is running."""

    @property
    def has_preferred(self) -> bool:
        return self.connection.registered and self.is_me(self.preferred)

    def is_me(self, nick: str) -> bool:
        fold = self.connection.fold
        return fold(nick) == fold(self.current)

    def dialled(self) -> None:
        """A new connection registers under the preferred nick first."""
        self.current = self.preferred
        self._attempt = 0

    def taken(self, event: irc.client.Event) -> None:
        """The server refused a nick as taken: before registration, try the next variant."""
        if self.connection.registered:
            log.info("%s: nick change refused: %s", self.current, event.arguments)
            return
        self._attempt += 1
        if self._attempt > self.max_attempts:
            self._fail(NickRejected(f"no free variant of {self.preferred!r}"))
            return
        base = self.preferred
        candidate = base + "_" if self._attempt == 1 else f"{base}{self._attempt - 1}"
        log.info("%s: nick in use, trying %s", base, candidate)
        self.current = candidate
        self.connection.conn.nick(candidate)

    def refused(self, event: irc.client.Event) -> None:
        if not self.connection.registered:
            self._fail(NickRejected(f"server refused nick {self.current!r}: {event.arguments}"))

    def welcomed(self, nick: str) -> None:
        self.current = nick

    def report_anew(self) -> None:
        """The next ``changed`` reports the state, changed or not (a new registration)."""
        self._ok = None

    def changed(self) -> None:
        """Report a gain or loss of the preferred nick; start regaining it if lost."""
        ok = self.has_preferred
        if ok != self._ok:
            self._ok = ok
            if not ok:
                log.warning("%s: running as %s, not as %s", self.preferred, self.current, self.preferred)
            self._report(ok, self.current)
        if not ok and self.regain:
            self._try_regain(services=True)
            self._schedule_regain(self.connection.gen)

    def holder_left(self, nick: str) -> None:
        """Someone quit or took another nick: if they held ours, take it at once."""
        if self.regain and self.connection.fold(nick) == self.connection.fold(self.preferred):
            self._try_regain(services=False)

    def _schedule_regain(self, gen: int) -> None:
        """One retry loop per connection, ending once the nick is ours."""
        if self._regain_gen == gen:
            return
        self._regain_gen = gen

        def tick() -> None:
            if gen != self.connection.gen or self.connection.closed or self.has_preferred:
                if self._regain_gen == gen:
                    self._regain_gen = None
                return
            self._try_regain(services=True)
            self.connection.reactor.scheduler.execute_after(self.regain_interval, self._guard(tick))

        self.connection.reactor.scheduler.execute_after(self.regain_interval, self._guard(tick))

    def _try_regain(self, *, services: bool) -> None:
        """Ask for the preferred nick (ahead of queued lines): ``NICK``, and when logged
        in by SASL also services' ``REGAIN``, which frees the nick if another holds it."""
        if self.connection.closed or not self.connection.registered or self.has_preferred:
            return
        lines = [f"NICK {self.preferred}"]
        if services and self.connection.sasl_ok:
            lines.append(f"PRIVMSG {self.services_nick} :REGAIN {self.preferred}")
        self.outbox.first(*lines)
        self.outbox.drain()
