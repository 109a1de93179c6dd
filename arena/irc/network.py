"""Linked ngircd servers on 127.0.0.1: a small IRC network, for tests of several referees.

``LinkedNetwork(("a", "b"))`` starts one ngircd per label, named ``a.arena.test``,
``b.arena.test``…, each with its own client port and server-link port. The network is a
star: the first label is the hub, and every other server has a ``[Server]`` section for the
hub with the hub's link port (so it connects out), while the hub has one for it without a
port (so it waits); each link has its own pair of passwords, the same on both sides.

**Watchers.** The harness keeps one client of its own on each server (``watch-<label>``, an
IRC operator, in ``WATCH_CHANNEL``), read by one thread. The network is linked when every
watcher sees the watchers of all the servers it should reach in that channel: a server's
burst sends its users before its channels, so by the time a watcher's JOIN arrives from
across a link, every user over there is known here. No sleep decides it.

**Splits.** ``unlink(label)`` cuts every link of that server with ngircd's ``DISCONNECT``
(an operator command: close the link and do not connect again), sent on the side that
connects; ``relink(label)`` sends ``CONNECT``, which allows the link again and dials at
once. Each waits until the watchers see the split, or the heal, happen. That is a real
netsplit: both halves keep running with their clients connected, and each side sees the
other's users quit with the two servers' names as the reason. ``SQUIT`` was rejected: the
side that connects dials again by itself, 3 to 20 s later (``ConnectRetry``), so a split
would last as long as ngircd chose, not the test. Stopping a server's process was rejected
too: its own clients would be disconnected, which is a crash, not a split. A nick taken on
both halves during a split is killed on both when they heal ("Nick collision").

A server stopped or restarted by hand is beyond the harness: its watcher is gone for good,
and every wait after that fails at once, saying so.

Everything is stopped by ``stop()``, by leaving the ``with`` block (also on an exception)
and by the interpreter's exit (``RUNNING``).
"""

from __future__ import annotations

import functools
import re
import secrets
import selectors
import socket
import threading
from collections import deque
from collections.abc import Callable, Sequence

from .servers import (
    HOST,
    RUNNING,
    LocalServer,
    ServerAddress,
    ServerStartError,
    free_port,
    listener_owned_by,
    ngircd_config,
)

DOMAIN = "arena.test"
WATCH_CHANNEL = "#arena-network"
"""The channel where the harness's watchers meet; tests should leave it alone."""
_LABEL = re.compile(r"[a-z][a-z0-9]{0,15}")
_OPERATOR = "arena"


class NetworkError(RuntimeError):
    """The network did not reach the state asked for; the message says what each watcher saw."""


def watcher_nick(label: str) -> str:
    return f"watch-{label}"


def _parse(line: str) -> tuple[str, str, list[str]]:
    """``(sender's nick, command, parameters)`` of one IRC line."""
    prefix = ""
    if line.startswith(":"):
        prefix, _, line = line[1:].partition(" ")
    head, colon, trailing = line.partition(" :")
    params = head.split()
    command = params.pop(0).upper() if params else ""
    if colon:
        params.append(trailing)
    return prefix.split("!", 1)[0], command, params


class Watcher:
    """The harness's client on one server: an IRC operator sitting in ``WATCH_CHANNEL``.

    It registers, opers up and joins as soon as it is connected; the network's thread feeds
    it what it reads (``receive``), and it keeps the channel's members, under ``cond``."""

    def __init__(self, label: str, address: ServerAddress, password: str, cond: threading.Condition) -> None:
        self.label = label
        self.nick = watcher_nick(label)
        self.cond = cond
        self.members: set[str] = set()
        self.oper = False
        self.joined = False
        self.closed = False
        self.errors: list[str] = []
        self.heard: set[str] = set()
        """What the other watchers said in the channel (``LinkedNetwork.sync``'s marks)."""
        self.recent: deque[str] = deque(maxlen=20)
        """The last lines read, for the message of a failure."""
        self._buffer = b""
        self._send_lock = threading.Lock()
        self.sock = socket.create_connection(address, timeout=10.0)
        self.sock.settimeout(None)
        self.send(
            f"NICK {self.nick}",
            f"USER {self.nick} 0 * :arena network watcher",
            f"OPER {_OPERATOR} {password}",
            f"JOIN {WATCH_CHANNEL}",
        )

    def send(self, *lines: str) -> None:
        data = "".join(f"{line}\r\n" for line in lines).encode()
        with self._send_lock:
            self.sock.sendall(data)

    @property
    def ready(self) -> bool:
        return self.oper and self.joined

    def receive(self) -> bool:
        """Read what the socket has and handle each whole line; False once it is closed."""
        try:
            data = self.sock.recv(65536)
        except OSError:
            data = b""
        with self.cond:
            if not data:
                self.closed = True
            self._buffer += data
            *lines, self._buffer = self._buffer.split(b"\n")
            for raw in lines:
                self._handle(raw.rstrip(b"\r").decode("utf-8", errors="replace"))
            self.cond.notify_all()
        return bool(data)

    def _handle(self, line: str) -> None:
        self.recent.append(line)
        nick, command, params = _parse(line)
        if command == "PING":
            self.send(f"PONG :{params[-1] if params else ''}")
        elif command == "381":  # RPL_YOUREOPER
            self.oper = True
        elif command == "366" and params[1:2] == [WATCH_CHANNEL]:  # RPL_ENDOFNAMES
            self.joined = True
        elif command == "353" and params[2:3] == [WATCH_CHANNEL]:  # RPL_NAMREPLY
            self.members.update(name.lstrip("@+").lower() for name in params[-1].split())
        elif command == "JOIN" and params[:1] == [WATCH_CHANNEL]:
            self.members.add(nick.lower())
        elif command == "PRIVMSG" and params[:1] == [WATCH_CHANNEL]:
            self.heard.add(params[-1])
        elif command == "PART" and params[:1] == [WATCH_CHANNEL] or command == "QUIT":
            self.members.discard(nick.lower())
        elif command.isdigit() and command[0] in "45":
            self.errors.append(line)

    def shutdown(self) -> None:
        """Make the thread's next read see the end (it then lets go of this socket)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def describe(self) -> str:
        state = "closed" if self.closed else "oper" if self.oper else "not oper"
        errors = f"; errors {self.errors}" if self.errors else ""
        return f"{self.nick} ({state}) sees {sorted(self.members)}{errors}; last lines {list(self.recent)}"


class LinkedNetwork:
    """ngircd servers linked to each other on 127.0.0.1 (see the module docstring).

    ``start()`` (or ``with``) starts them and returns once they are linked; ``address(label)``
    is where a client of that server connects; ``unlink(label)`` / ``relink(label)`` split
    that server off the network and heal it, returning once the watchers saw it happen.
    ``timeout`` bounds every wait; it only guards against hangs."""

    def __init__(self, labels: Sequence[str] = ("a", "b"), *, timeout: float = 30.0) -> None:
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ValueError(f"a network needs two or more distinct labels, not {labels!r}")
        for label in labels:
            if not _LABEL.fullmatch(label):
                raise ValueError(f"label {label!r} is not a lowercase letter then letters or digits")
        self.labels = tuple(labels)
        self.hub = self.labels[0]
        self.timeout = timeout
        self.servers: dict[str, LocalServer] = {}
        self._split: set[str] = set()
        self._operator_password = secrets.token_hex(8)
        self._cond = threading.Condition()
        self._watchers: dict[str, Watcher] = {}
        self._thread: threading.Thread | None = None

    def server_name(self, label: str) -> str:
        return f"{label}.{DOMAIN}"

    def address(self, label: str) -> ServerAddress:
        """Where a client of server ``label`` connects."""
        return self.servers[label].address

    @property
    def unlinked(self) -> frozenset[str]:
        """The servers split off by ``unlink`` and not relinked since."""
        return frozenset(self._split)

    def start(self, attempts: int = 3) -> LinkedNetwork:
        """Start every server, then wait until they are linked. A port that another process
        took meanwhile makes it start again on new ports, ``attempts`` times in all. A
        network already started is left as it is (``with LinkedNetwork().start()`` starts
        it once)."""
        if self.servers:
            return self
        for attempt in range(attempts):
            try:
                self._start_servers()
                break
            except ServerStartError:
                self.stop()
                if attempt == attempts - 1:
                    raise
        try:
            self._watch()
            self.wait_linked()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_servers(self) -> None:
        link_ports = {label: free_port() for label in self.labels}
        # For each leaf: (what it sends to the hub, what the hub sends to it).
        passwords = {label: (secrets.token_hex(8), secrets.token_hex(8)) for label in self.labels[1:]}
        RUNNING.add(self)
        for label in self.labels:
            if label == self.hub:
                sections = [self._server_section(leaf, None, *reversed(passwords[leaf])) for leaf in self.labels[1:]]
            else:
                sections = [self._server_section(self.hub, link_ports[self.hub], *passwords[label])]
            operator = f"[Operator]\nName = {_OPERATOR}\nPassword = {self._operator_password}"
            config = functools.partial(
                ngircd_config, name=self.server_name(label), link_port=link_ports[label], sections=[operator, *sections]
            )
            server = LocalServer("ngircd", port=free_port(), config=config)
            self.servers[label] = server
            server.start()
            pid = server.pid
            assert pid is not None
            if listener_owned_by(pid, link_ports[label]) is False:
                raise ServerStartError(f"{self.server_name(label)}: link port {link_ports[label]} was taken")

    def _server_section(self, peer: str, port: int | None, mine: str, theirs: str) -> str:
        """The [Server] section for ``peer``: with ``port`` this server connects out to it."""
        lines = ["[Server]", f"Name = {self.server_name(peer)}", f"Host = {HOST}"]
        if port is not None:
            lines.append(f"Port = {port}")
        lines += [f"MyPassword = {mine}", f"PeerPassword = {theirs}"]
        return "\n".join(lines)

    def _watch(self) -> None:
        """Connect a watcher to every server and start the thread that reads them."""
        for label in self.labels:
            self._watchers[label] = Watcher(label, self.address(label), self._operator_password, self._cond)
        self._thread = threading.Thread(target=self._read, name="arena-network-watch", daemon=True)
        self._thread.start()
        self._wait(lambda: all(w.ready for w in self._watchers.values()), "watchers oper and in the channel")

    def _read(self) -> None:
        """The watchers' thread: read until every socket is closed (``stop`` shuts them)."""
        with selectors.DefaultSelector() as selector:
            for watcher in self._watchers.values():
                selector.register(watcher.sock, selectors.EVENT_READ, watcher)
            while selector.get_map():
                for key, _ in selector.select():
                    if not key.data.receive():
                        selector.unregister(key.fileobj)

    def reach(self, label: str) -> frozenset[str]:
        """The servers that ``label`` is linked to now, itself included: through the hub,
        unless the hub or ``label`` is split off."""
        if label in self._split or self.hub in self._split:
            return frozenset({label})
        return frozenset(other for other in self.labels if other not in self._split)

    def _linked_as_expected(self) -> bool:
        return all(
            watcher.members == {watcher_nick(other) for other in self.reach(label)}
            for label, watcher in self._watchers.items()
        )

    def wait_linked(self) -> None:
        """Return once every watcher sees exactly the servers it should reach (``reach``),
        and each server has had all the others' bursts (``sync``)."""
        self._wait(self._linked_as_expected, "the links as expected")
        self.sync()

    def sync(self) -> None:
        """Return once every server knows what was done before the call on each server it
        is linked to (a client registered, a nick taken, a channel joined): what a server
        learns travels to the others a moment later.

        Each watcher says a fresh mark in the channel, and this waits until every watcher
        heard the marks of all the servers it reaches: a link is one ordered stream, so
        whatever a server sent over it before the mark has arrived by then."""
        mark = f"sync {secrets.token_hex(4)}"
        with self._cond:
            for watcher in self._watchers.values():
                watcher.heard.clear()
        for label, watcher in self._watchers.items():
            watcher.send(f"PRIVMSG {WATCH_CHANNEL} :{mark} {label}")
        self._wait(
            lambda: all(
                f"{mark} {other}" in watcher.heard
                for label, watcher in self._watchers.items()
                for other in self.reach(label) - {label}
            ),
            "sync",
        )

    def _wait(self, predicate: Callable[[], bool], what: str) -> None:
        def failed() -> bool:
            return any(w.closed or w.errors for w in self._watchers.values())

        with self._cond:
            done = self._cond.wait_for(lambda: failed() or predicate(), self.timeout)
            if not done or failed():
                seen = "\n".join(w.describe() for w in self._watchers.values())
                expected = {label: sorted(self.reach(label)) for label in self.labels}
                raise NetworkError(f"no {what} within {self.timeout} s (expected reach {expected}):\n{seen}")

    def _links_of(self, label: str) -> list[str]:
        """The links that ``label`` is an end of, each named by its leaf."""
        return [leaf for leaf in self.labels[1:] if label in (leaf, self.hub)]

    def unlink(self, label: str) -> None:
        """Split ``label`` off: cut each of its links, and return once both sides saw it."""
        if label in self._split:
            raise ValueError(f"{self.server_name(label)} is unlinked already")
        for leaf in self._links_of(label):
            if {leaf, self.hub}.isdisjoint(self._split):
                self._watchers[leaf].send(f"DISCONNECT {self.server_name(self.hub)}")
        self._split.add(label)
        self.wait_linked()

    def relink(self, label: str) -> None:
        """Heal what ``unlink(label)`` split, and return once both sides saw it."""
        if label not in self._split:
            raise ValueError(f"{self.server_name(label)} is not unlinked")
        self._split.discard(label)
        for leaf in self._links_of(label):
            if {leaf, self.hub}.isdisjoint(self._split):
                self._watchers[leaf].send(f"CONNECT {self.server_name(self.hub)}")
        self.wait_linked()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the watchers, then stop every server (the hub last)."""
        RUNNING.discard(self)
        for watcher in self._watchers.values():
            watcher.shutdown()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        for watcher in self._watchers.values():
            watcher.sock.close()
        self._watchers.clear()
        for label in reversed(self.labels):
            if label in self.servers:
                self.servers.pop(label).stop(timeout)
        self._split.clear()

    def __enter__(self) -> LinkedNetwork:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        servers = ", ".join(
            f"{self.server_name(label)}={server.address.port}" for label, server in self.servers.items()
        )
        return f"<LinkedNetwork {servers} unlinked={sorted(self._split)}>"
