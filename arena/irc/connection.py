"""The life of one IRC connection: dialling, registration and its timeout, keepalive pings,
and dialling again after a drop, with jaraco's exponential backoff.

``Connection`` owns the library's ``ServerConnection`` and the facts about its current life
(``gen``, ``registered``, ``closed``) that the link's other parts read. It knows nothing of
channels, queues or nicks beyond the one it registers with.
"""

from __future__ import annotations

import itertools
import logging
import select
import socket
import ssl
import time
from collections.abc import Callable
from typing import Any

import irc.bot
import irc.client

from .settings import LinkSettings
from .text import MarkingLineBuffer, check_name, fit_utf8, fold, reason, strip_controls

log = logging.getLogger("arena.irc.link")

_QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux only

Guard = Callable[[Callable[[], Any]], Callable[[], None]]
"""Wraps a scheduled command so that it cannot raise (the scheduler re-runs one that did)."""


class _Redial:
    """What ``irc.bot.ExponentialBackoff`` drives, written for ``SingleServerIRCBot``: a
    ``reactor``, a ``connection`` that says whether to stop, and ``jump_server`` to dial.
    A closed link counts as connected, so the strategy's chain of checks ends with it."""

    def __init__(self, owner: Connection) -> None:
        self.reactor = owner.reactor
        self.connection = self
        self._owner = owner

    def is_connected(self) -> bool:
        return self._owner.closed or bool(self._owner.conn.is_connected())

    def jump_server(self) -> None:
        try:
            if not self.is_connected():
                self._owner.dial()
        except Exception:  # never into the scheduler, which would re-run it forever
            log.exception("%s: dialling failed", self._owner.preferred)


class Connection:
    """One connection to ``host:port`` under the nick ``preferred``, dialled again until
    ``closed``. ``on_dial`` runs once an attempt has connected, before anything is read;
    ``label`` names us in the log (the nick we have now)."""

    def __init__(
        self,
        reactor: irc.client.Reactor,
        host: str,
        port: int,
        preferred: str,
        settings: LinkSettings,
        *,
        on_dial: Callable[[], None],
        label: Callable[[], str],
        guard: Guard,
    ) -> None:
        self.reactor = reactor
        self.host = host
        self.port = port
        self.preferred = preferred
        self.username = check_name("username", settings.username or preferred)
        self.realname = strip_controls(settings.realname or preferred) or preferred
        self.settings = settings
        if settings.tls is True:
            self._ssl: ssl.SSLContext | None = ssl.create_default_context()
        elif isinstance(settings.tls, ssl.SSLContext):
            self._ssl = settings.tls
        else:
            self._ssl = None
        self._on_dial = on_dial
        self._label = label
        self._guard = guard

        self.conn = reactor.server()
        # An instance attribute: ``connect`` builds ``self.buffer_class()`` on each connect.
        self.conn.buffer_class = lambda: MarkingLineBuffer(self._not_irc)
        # The library registers its SASL state machine as a *reactor-global* handler that
        # ignores which connection an event came from, so two links doing SASL on one
        # reactor would drive each other's state machines. Filter per connection.
        conn = self.conn

        def sasl_filter(connection: Any, event: Any) -> None:
            if connection is conn:
                irc.client.ServerConnection._sasl_state_machine(conn, connection, event)

        conn._sasl_state_machine = sasl_filter

        self.gen = 0
        """Bumped on every attempt and every drop: what was scheduled for an older one no-ops."""
        self.started = False
        self.closed = False
        """Nothing more is dialled, queued or sent: the link is closing or closed."""
        self.registered = False
        self.sasl_ok = False
        self.server_error = ""
        """What the server's ERROR line (or our own verdict on the peer) said before a drop."""
        self._heard = False
        """Whether this connection has received a line: a silent peer is not an IRC server."""
        self._last_rx = time.monotonic()
        self._pinged = False
        self._redial = _Redial(self)
        self._backoff = irc.bot.ExponentialBackoff(
            min_interval=settings.reconnect_delay, max_interval=settings.reconnect_max_delay
        )

    def fold(self, name: str) -> str:
        """Case-fold a nick or channel as the server does (its CASEMAPPING, rfc1459 until it
        says otherwise)."""
        return fold(name, getattr(self.conn.features, "casemapping", "rfc1459"))

    @property
    def is_connected(self) -> bool:
        return bool(self.conn.is_connected())

    def writable(self) -> bool:
        """Whether a send would not block: a server that stops reading (flood penalties, a
        stall) must never hang the reactor's thread."""
        sock = self.conn.socket
        if sock is None:
            return False
        try:
            return bool(select.select([], [sock], [], 0)[1])
        except (OSError, ValueError):
            return False

    # -- dialling ----------------------------------------------------------------------------

    def _open_socket(self, address: tuple[str, int]) -> socket.socket:
        """Connect with a timeout (a blackholed host must not freeze the reactor forever),
        then return a blocking socket as the library expects."""
        sock = socket.create_connection(address, timeout=self.settings.connect_timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._ssl is not None:
                sock = self._ssl.wrap_socket(sock, server_hostname=self.host)
            sock.settimeout(None)
        except BaseException:
            sock.close()
            raise
        return sock

    def dial(self) -> None:
        """One attempt; a failure is logged and the next one scheduled."""
        if self.closed:
            return
        self.gen += 1
        gen = self.gen
        self.registered = self.sasl_ok = False
        self.server_error = ""
        for name in ("cap", "authenticate", "saslsuccess", "saslfail"):
            # Left over if a previous connection died mid-SASL.
            self.reactor.remove_global_handler(name, self.conn._sasl_state_machine)
        settings = self.settings
        try:
            self.conn.connect(
                self.host,
                self.port,
                self.preferred,
                password=settings.sasl_password if settings.sasl_account else settings.password,
                username=self.username,
                ircname=self.realname,
                connect_factory=self._open_socket,
                sasl_login=settings.sasl_account,
            )
        except irc.client.ServerConnectionError as exc:
            log.error("%s: no IRC server answered at %s:%s (%s)", self.preferred, self.host, self.port, reason(exc))
            self.redial()
            return
        self._on_dial()
        self._heard = False
        self._last_rx = time.monotonic()
        self._pinged = False
        self.reactor.scheduler.execute_after(
            settings.registration_timeout, self._guard(lambda: self._registration_check(gen))
        )
        if settings.keepalive:
            self._schedule_keepalive(gen)

    def redial(self) -> None:
        """Dial again after the backoff's next wait (one wait at a time)."""
        if not self.closed:
            self._backoff.run(self._redial)

    def welcomed(self) -> None:
        self.registered = True
        self._backoff.attempt_count = itertools.count(1)  # the next drop starts from the first wait
        log.info("%s: registered on %s:%s", self._label(), self.host, self.port)

    def dropped(self, event: irc.client.Event) -> str:
        """The connection is gone: why, as the server or the library said."""
        self.gen += 1
        self.registered = False
        return self.server_error or (event.arguments[0] if event.arguments else "")

    def error_line(self, event: irc.client.Event) -> None:
        self.server_error = event.target or (event.arguments[0] if event.arguments else "")

    def finish(self, message: str) -> None:
        """Quit and take the connection off the reactor."""
        self.closed = True
        if self.conn.is_connected():
            self.conn.disconnect(message)
        try:
            self.conn.close()  # removes the connection from the reactor
        except ValueError:
            pass

    def _registration_check(self, gen: int) -> None:
        if gen == self.gen and not self.registered and self.conn.is_connected():
            timeout = self.settings.registration_timeout
            if self._heard:
                log.error(
                    "%s: %s:%s did not accept our registration within %g s",
                    self.preferred,
                    self.host,
                    self.port,
                    timeout,
                )
            else:  # e.g. a web server: the operator gave the wrong port
                log.error(
                    "%s: %s:%s accepted the connection but did not speak IRC within %g s",
                    self.preferred,
                    self.host,
                    self.port,
                    timeout,
                )
            self.conn.disconnect("registration timed out")

    def _not_irc(self, line: str) -> bool:
        """A line no IRC server sends. Before registration the peer is something else (a
        web server on the port the operator gave): say what it answered and retry later, as
        for a peer that says nothing. After it, one such line is dropped."""
        shown = fit_utf8(strip_controls(line), 80)
        if self.registered:
            log.warning("%s: dropped a line from %s:%s that is not IRC: %r", self._label(), self.host, self.port, shown)
            return False
        log.error("%s: %s:%s answered with something that is not IRC (%s)", self.preferred, self.host, self.port, shown)
        self.server_error = "not an IRC server"
        self.conn.disconnect(self.server_error)
        return True

    # -- keeping it alive ----------------------------------------------------------------------

    def heard(self) -> None:
        """A line came in: the peer is alive, and speaks IRC."""
        self._heard = True
        self._last_rx = time.monotonic()
        self._pinged = False
        self._quick_ack()

    def _quick_ack(self) -> None:
        """Acknowledge what we read at once. Servers (ngircd, miniircd) write without
        TCP_NODELAY, so a second line sent right after a first waits for our ACK, which
        Linux delays by up to 40 ms: measured, 0.7 s of a 0.8 s ten-player game. The
        option resets itself after use, hence on every read."""
        if _QUICKACK is not None and self.conn.socket is not None:
            try:
                self.conn.socket.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                pass

    def _schedule_keepalive(self, gen: int) -> None:
        assert self.settings.keepalive
        self.reactor.scheduler.execute_after(
            self.settings.keepalive / 2, self._guard(lambda: self._keepalive_tick(gen))
        )

    def _keepalive_tick(self, gen: int) -> None:
        if gen != self.gen or self.closed or not self.conn.is_connected():
            return
        keepalive = self.settings.keepalive
        assert keepalive
        idle = time.monotonic() - self._last_rx
        if idle >= 2 * keepalive:
            log.warning("%s: no data for %.1f s, dropping the connection", self._label(), idle)
            self.conn.disconnect("ping timeout")
            return
        if idle >= keepalive and not self._pinged and self.registered and self.writable():
            self._pinged = True
            self.conn.ping(self.conn.get_server_name() or self.host)
        self._schedule_keepalive(gen)
