"""The bytes a link has let go of that the socket has not taken yet, written in one ``send``.

The outbox used to hand each line to the library's ``send_raw``: one system call a line (and
a ``select`` before it, to be sure it would not block), thousands a second for a referee at
hundreds of tables, and a small packet for the server to read each time. ``send_raw`` also
ignores what ``send`` returns, so a write the kernel took only part of would lose the
line's tail. Here the lines released in one turn of the reactor are joined and go out in
one write; what the socket did not take stays, in order, and goes first next time.

Blocking or not. The socket stays blocking for the library, which reads it only when
``select`` says so and expects its own few writes (registration, ``PONG``, the ``QUIT`` of
``disconnect``) to complete. Our writes do not wait: a plain socket is written with
``MSG_DONTWAIT`` (no extra system call), a TLS one is made non-blocking for the one write,
since ``ssl`` takes no flags (it then owes the same bytes first, which it gets: nothing
that was not taken is dropped). A batch can be larger than the room left in the socket's
buffer, and a blocking write of it would hang the reactor's only thread, every link and
game with it, for as long as the server does not read (flood penalties, a stall). Waiting
for the socket to be writable in the reactor's ``select`` would need every loop that drives
a reactor (the library's ``process_once``, the referee's turn) to watch our sockets for
writing; instead, while bytes wait, the writer tries again every ``RETRY`` seconds on the
reactor's scheduler (what the outbox did when ``select`` said the socket was full) and the
outbox lets no more lines out of its queues, so what waits there keeps its priorities. That
happens only when the server falls behind; on a server that reads, every write is taken
whole.

The library's own lines come through here too (``send_raw`` is replaced on the connection,
encoded, checked and logged as the library does it): one written between two of ours could
cut into the tail of a line the socket took only part of.
"""

from __future__ import annotations

import logging
import socket
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any

import irc.client

from .connection import Guard

log = logging.getLogger("irc.client")  # the library's own "TO SERVER" log, kept for its lines and ours

RETRY = 0.05
"""Seconds between tries to write to a socket that took only part of what it was given."""

_DONTWAIT: int | None = getattr(socket, "MSG_DONTWAIT", None)

Entry = tuple[str, ...] | Callable[[], None] | None
"""What a line in the writer came from: the outbox's item (queued again if the connection
drops before the line is written whole), a callback to run once everything before it is
written (``after``), or None: a line not to send again (a JOIN or PART, which the next
registration sends anew; the library's own)."""


class Writer:
    """What ``conn`` (the library's ``ServerConnection``) has yet to write; thread-safe
    when called with the reactor's mutex held, as the outbox does. ``resume`` runs once the
    socket has taken everything it had refused (the outbox lets its queues out again)."""

    def __init__(self, conn: Any, guard: Guard, *, resume: Callable[[], None]) -> None:
        self.conn = conn
        self.reactor: irc.client.Reactor = conn.reactor
        self._guard = guard
        self._resume = resume
        self._buffer = bytearray()
        self._marks: deque[tuple[int, str | None, Entry]] = deque()
        """Each line (or ``after`` callback) not yet written whole: where it ends in this
        connection's stream of bytes, the line (None for a callback), what it came from."""
        self._added = 0
        """Bytes given to this connection so far: the end of ``_buffer`` in its stream."""
        self._taken = 0
        """Bytes the socket has taken so far: the start of ``_buffer`` in its stream."""
        self.lines = 0
        """Lines here not yet written whole."""
        self.sent_messages = 0
        """PRIVMSG and NOTICE lines of the outbox written whole so far, on every connection."""
        self.stalled = False
        """The socket refused some of the bytes: nothing more is let in until it takes them."""
        self._flush_due = False
        self._retry_due = False
        self._writing = False
        conn.send_raw = self.send_raw

    @property
    def pending(self) -> bool:
        """Whether bytes wait to be written."""
        return bool(self._buffer)

    def add(self, line: str, entry: Entry) -> None:
        """Take ``line`` behind the others, encoded and checked as the library's ``send_raw``
        does (so refused, with its exceptions, as it would be)."""
        data = self.conn._prep_message(line)
        self._buffer += data
        self._added += len(data)
        self._marks.append((self._added, line, entry))
        self.lines += 1

    def after(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` at the reactor's next turn once the bytes given so far are written."""
        if self._buffer:
            self._marks.append((self._added, None, callback))
        else:
            self.reactor.scheduler.execute_after(0, self._guard(callback))

    def send_raw(self, line: str) -> None:
        """The library's ``send_raw`` (its registration, ``PONG``, ``QUIT``...), written at once
        behind our lines; not sent again if the connection drops."""
        with self.reactor.mutex:
            if self.conn.socket is None:
                raise irc.client.ServerNotConnectedError("Not connected.")
            self.add(line, None)
            self.flush()

    def flush_soon(self) -> None:
        """Write at the end of this turn of the reactor, with whatever else the turn lets out:
        its scheduled work runs after the lines it read are handled."""
        if not self._flush_due:
            self._flush_due = True
            self.reactor.scheduler.execute_after(0, self._guard(self._flush_when_due))

    def _flush_when_due(self) -> None:
        self._flush_due = False
        self.flush()

    def _retry(self) -> None:
        self._retry_due = False
        self.flush()

    def flush(self) -> None:
        """One write of everything waiting. A socket error drops the connection as the
        library's ``send_raw`` does ("Connection reset by peer."); its ``disconnect``
        event takes back what was not written whole (``take_back``)."""
        sock = self.conn.socket
        if self._writing or not self._buffer or sock is None:
            return
        self._writing = True  # the QUIT that ``disconnect`` sends waits here, and goes with the rest
        try:
            taken = _send(sock, self._buffer)
        except OSError:
            self.conn.disconnect("Connection reset by peer.")
            return
        finally:
            self._writing = False
        if taken:
            del self._buffer[:taken]
            self._taken += taken
            self._written()
        if self._buffer:
            self.stalled = True
            if not self._retry_due:
                self._retry_due = True
                self.reactor.scheduler.execute_after(RETRY, self._guard(self._retry))
        elif self.stalled:
            self.stalled = False
            self._resume()

    def _written(self) -> None:
        """The lines (and callbacks) the socket has now taken whole."""
        marks = self._marks
        while marks and marks[0][0] <= self._taken:
            _, line, entry = marks.popleft()
            if line is None:
                assert callable(entry)
                self.reactor.scheduler.execute_after(0, self._guard(entry))
                continue
            self.lines -= 1
            log.debug("TO SERVER: %s", line)
            if isinstance(entry, tuple) and entry[0] != "RAW":
                self.sent_messages += 1

    def take_back(self) -> list[Callable[[], None] | tuple[str, ...]]:
        """The connection is gone: forget its bytes, and return, in order, what the lines
        not written whole (and the callbacks behind them) came from, to queue again."""
        entries = [entry for _, _, entry in self._marks if entry is not None]
        self._buffer.clear()
        self._marks.clear()
        self._added = self._taken = self.lines = 0
        self.stalled = False
        return entries


def _send(sock: socket.socket, data: bytearray) -> int:
    """Write what ``sock`` takes of ``data`` without waiting; how much it took."""
    if _DONTWAIT is not None and not isinstance(sock, ssl.SSLSocket):
        try:
            return sock.send(data, _DONTWAIT)
        except BlockingIOError:
            return 0
    sock.setblocking(False)
    try:
        return sock.send(data)
    except (BlockingIOError, ssl.SSLWantWriteError):
        return 0
    finally:
        sock.setblocking(True)
