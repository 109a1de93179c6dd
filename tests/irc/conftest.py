"""Fixtures for the IRC edge: real servers on 127.0.0.1, a reactor thread, recorded links."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from dataclasses import dataclass, field, fields
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import pytest

from arena.irc.link import IrcLink, IrcLinkError, LinkSettings, ReactorThread
from arena.irc.servers import KINDS, LocalServer, ServerAddress, ngircd_available, start_server
from arena.store.pgserver import LocalPostgres

from ..conftest import require_postgres

WAIT = 5.0  # upper bound for anything that should take milliseconds on loopback


def require_ngircd() -> None:
    """Skip the test where ngircd is absent, unless ARENA_REQUIRE_NGIRCD=1 (CI), where its
    absence fails it."""
    if not ngircd_available():
        if os.environ.get("ARENA_REQUIRE_NGIRCD") == "1":
            pytest.fail("ngircd is required (ARENA_REQUIRE_NGIRCD=1) but not installed")
        pytest.skip("ngircd not installed (apt-get install ngircd); ARENA_REQUIRE_NGIRCD=1 makes this fail")


def embedded_server(*, port: int | None = None) -> contextlib.AbstractContextManager[ServerAddress]:
    """miniircd on 127.0.0.1; needs nothing but pip packages."""
    return start_server("embedded", port=port)


@pytest.fixture(params=KINDS)
def irc_server(request: pytest.FixtureRequest) -> Iterator[LocalServer]:
    """A fresh server per test, for each kind. ngircd is skipped when absent, unless
    ARENA_REQUIRE_NGIRCD=1 (CI), where its absence fails the test."""
    kind = request.param
    if kind == "ngircd":
        require_ngircd()
    server = LocalServer(kind)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def reactor_thread() -> Iterator[ReactorThread]:
    thread = ReactorThread(tick=0.02).start()
    try:
        yield thread
    finally:
        thread.stop()


def until(predicate: Callable[[], Any], timeout: float = WAIT) -> None:
    """Poll for state that changes without any callback."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


@dataclass
class Recorder:
    """Everything a link reported, with a way to wait for a condition on it."""

    messages: list[tuple[str, str, str]] = field(default_factory=list)
    membership: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    ready: int = 0
    disconnects: list[str] = field(default_factory=list)
    errors: list[IrcLinkError] = field(default_factory=list)
    nick_states: list[tuple[bool, str]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)

    def _add(self, fn: Callable[[], None]) -> None:
        with self.cond:
            fn()
            self.cond.notify_all()

    def on_message(self, sender: str, target: str, text: str) -> None:
        def add() -> None:
            self.messages.append((sender, target, text))
            self.times.append(time.monotonic())

        self._add(add)

    def on_membership(self, kind: str, nick: str, channel: str | None, new: str | None) -> None:
        self._add(lambda: self.membership.append((kind, nick, channel, new)))

    def on_ready(self) -> None:
        def bump() -> None:
            self.ready += 1

        self._add(bump)

    def on_disconnect(self, reason: str) -> None:
        self._add(lambda: self.disconnects.append(reason))

    def on_error(self, error: IrcLinkError) -> None:
        self._add(lambda: self.errors.append(error))

    def on_nick_state(self, ok: bool, nick: str) -> None:
        self._add(lambda: self.nick_states.append((ok, nick)))

    def wait(self, predicate: Callable[[], Any], timeout: float = WAIT) -> Any:
        with self.cond:
            result = self.cond.wait_for(predicate, timeout)
        assert result, f"timed out after {timeout} s; recorded: {self}"
        return result

    def texts(self) -> list[str]:
        with self.cond:
            return [text for _, _, text in self.messages]


MakeLink = Callable[..., tuple[IrcLink, Recorder]]
"""What ``make_link`` and ``services_link`` give: ``(nick, **options)`` -> (link, its Recorder)."""


def link_maker(host: str, port: int, reactor: Any) -> Iterator[MakeLink]:
    """Yields ``make(nick, **options)`` -> (connected link, its Recorder), closing every link
    it made afterwards; ``options`` are ``LinkSettings`` fields and ``channels``. Unlimited
    rate unless given; waits until ready unless ``wait=False``."""
    links: list[IrcLink] = []
    settings = {f.name for f in fields(LinkSettings)}

    def make(nick: str, *, wait: bool = True, **options: Any) -> tuple[IrcLink, Recorder]:
        rec = Recorder()
        options.setdefault("lines_per_second", 0)
        chosen = LinkSettings(**{k: options.pop(k) for k in list(options) if k in settings})
        link = IrcLink(
            host,
            port,
            nick,
            chosen,
            reactor=reactor,
            on_message=rec.on_message,
            on_membership=rec.on_membership,
            on_ready=rec.on_ready,
            on_disconnect=rec.on_disconnect,
            on_error=rec.on_error,
            on_nick_state=rec.on_nick_state,
            **options,
        )
        links.append(link)
        link.connect()
        if wait:
            assert link.wait_ready(WAIT), f"{nick} not ready"
        return link, rec

    yield make
    for link in links:
        link.close()


@pytest.fixture
def make_link(irc_server: LocalServer, reactor_thread: ReactorThread) -> Iterator[MakeLink]:
    """``make_link(nick, **options)``: links to the test server (see ``link_maker``)."""
    yield from link_maker(irc_server.host, irc_server.address.port, reactor_thread.reactor)


class Listening(Protocol):
    """A started server of any kind (``LocalServer``, the services' server)."""

    @property
    def address(self) -> ServerAddress: ...


class RawClient:
    """A bare socket client for what the link API deliberately cannot do (rename, send
    invalid UTF-8, quit abruptly)."""

    def __init__(self, server: Listening, nick: str) -> None:
        self.sock = socket.create_connection(server.address, timeout=WAIT)
        self.buffer = b""
        self.read: list[bytes] = []
        """Every line read so far: what the client was sent, for tests of what it must not be."""
        self.nick = nick
        self.send(f"NICK {nick}\r\nUSER {nick} 0 * :{nick}\r\n".encode())
        self.expect(b" 001 ")

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def expect(self, needle: bytes, timeout: float = WAIT) -> bytes:
        """Read until a line containing ``needle`` arrives; return that line."""
        return self.lines_until(needle, timeout)[-1]

    def lines_until(self, needle: bytes, timeout: float = WAIT) -> list[bytes]:
        """Every line read until one containing ``needle`` arrives, that one last."""
        deadline = time.monotonic() + timeout
        lines: list[bytes] = []
        while True:
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                lines.append(line.rstrip(b"\r"))
                self.read.append(lines[-1])
                if needle in line:
                    return lines
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{needle!r} not received"
            self.sock.settimeout(remaining)
            data = self.sock.recv(65536)
            assert data, f"connection closed while waiting for {needle!r}"
            self.buffer += data

    def close(self) -> None:
        self.sock.close()


MakeRawClient = Callable[[str], RawClient]
"""What ``raw_client`` gives: a connected ``RawClient`` with the nick given."""


@pytest.fixture
def raw_client(irc_server: LocalServer) -> Iterator[MakeRawClient]:
    clients: list[RawClient] = []

    def make(nick: str) -> RawClient:
        client = RawClient(irc_server, nick)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def own_postgres() -> Iterator[LocalPostgres]:
    """A PostgreSQL server of the test's own (one that stops it, or plays referees against
    it, should not share the run's): skipped where ngircd or PostgreSQL is missing."""
    require_ngircd()
    require_postgres()
    with LocalPostgres() as server:
        yield server
