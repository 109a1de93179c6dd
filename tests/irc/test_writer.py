"""The lines a link lets out in one turn of its reactor go out in one write, against sockets
that take only part of each write or fail in the middle of a batch: every byte arrives, in
order, once; a line not written whole when the connection drops is sent again whole on
the next one, and no line is lost."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterator
from typing import cast

from arena.irc.link import IrcLink, LinkSettings
from arena.irc.writer import RETRY

WELCOME = b":irc.test 001 ref :Welcome\r\n"
WAIT = 5.0  # upper bound for what takes a few retries


class PartialSocket:
    """A socket that takes at most ``take`` bytes a write (none, past ``room`` bytes in all,
    until ``room`` grows), and raises on its write number ``fail_at``."""

    def __init__(self, take: int, *, room: int | None = None, fail_at: int | None = None) -> None:
        self.take = take
        self.room = room
        self.fail_at = fail_at
        self.offered: list[int] = []
        """How many bytes each write was given."""
        self.data = bytearray()
        self.incoming = bytearray(WELCOME)
        self.closed = False

    def send(self, data: bytearray, flags: int = 0) -> int:
        self.offered.append(len(data))
        if len(self.offered) == self.fail_at:
            raise ConnectionResetError("reset by the test")
        taken = min(self.take, len(data))
        if self.room is not None:
            taken = min(taken, self.room - len(self.data))
            if taken <= 0:
                raise BlockingIOError
        self.data += data[:taken]
        return taken

    def recv(self, size: int) -> bytes:
        chunk = bytes(self.incoming[:size])
        del self.incoming[:size]
        return chunk

    def setsockopt(self, *args: object) -> None:
        pass

    def shutdown(self, how: int) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def lines(self) -> list[str]:
        """The lines written whole (a cut-off tail is not a line)."""
        return bytes(self.data).decode().split("\r\n")[:-1]


def _link(*sockets: PartialSocket) -> IrcLink:
    """A registered link over the first of ``sockets`` (the next ones for its redials),
    its reactor driven by the test's own thread."""
    link = IrcLink("irc.test", 6667, "ref", LinkSettings(lines_per_second=0, reconnect_delay=0.0, keepalive=None))
    queue: Iterator[PartialSocket] = iter(sockets)
    link.connection._open_socket = lambda address: cast(socket.socket, next(queue))  # type: ignore[method-assign]
    link.connect()
    _read(link)
    _turns(link, lambda: not link.outbox.writer.pending)
    assert link.is_ready
    return link


def _read(link: IrcLink) -> None:
    """What the server said, handled as a turn of the reactor handles it."""
    link.connection.conn.process_data()
    link.reactor.process_timeout()


def _turns(link: IrcLink, done: Callable[[], object]) -> None:
    """Turns of the reactor until ``done()`` (the writer tries again every ``RETRY`` s)."""
    deadline = time.monotonic() + WAIT
    while not done():
        assert time.monotonic() < deadline, "not done"
        time.sleep(RETRY / 5)
        link.reactor.process_timeout()


def _messages(lines: list[str]) -> list[str]:
    return [line.split(" :", 1)[1] for line in lines if line.startswith("PRIVMSG ")]


def test_the_lines_of_one_turn_go_out_in_one_write() -> None:
    sock = PartialSocket(take=1 << 20)
    link = _link(sock)
    writes = len(sock.offered)
    texts = [f"line {i}" for i in range(20)]
    for text in texts:
        link.send("#g", text)  # in the reactor's thread, as a handler would
    assert len(sock.offered) == writes and link.queued == 20  # nothing written before the turn ends
    link.reactor.process_timeout()
    assert len(sock.offered) == writes + 1
    assert _messages(sock.lines()) == texts and link.sent_messages == 20 and link.queued == 0


def test_what_a_socket_does_not_take_goes_first_next_time_every_byte_once_in_order() -> None:
    sock = PartialSocket(take=97)
    link = _link(sock)
    sent_at: list[int] = []
    texts = [f"message number {i} é" for i in range(30)]
    for text in texts[:15]:
        link.send("#g", text)
    link.after_sent(lambda: sent_at.append(len(sock.data)))
    for text in texts[15:]:
        link.send("bob", text)
    link.reactor.process_timeout()
    assert link.outbox.writer.stalled and not sent_at  # 97 bytes taken of the batch
    link.send("#g", "later")  # waits behind the bytes refused
    _turns(link, lambda: link.queued == 0 and sent_at)
    expected = [f"PRIVMSG #g :{t}" for t in texts[:15]] + [f"PRIVMSG bob :{t}" for t in texts[15:]]
    assert sock.lines()[-31:] == [*expected, "PRIVMSG #g :later"]
    assert bytes(sock.data).endswith(b"\r\n")
    assert _end_of(sock, 15) <= sent_at[0] < _end_of(sock, 15) + 97  # once the first 15 were written whole
    assert link.sent_messages == 31


def _end_of(sock: PartialSocket, messages: int) -> int:
    """Bytes written up to the end of the ``messages``-th PRIVMSG."""
    data = bytes(sock.data)
    at = data.index(b"PRIVMSG")
    for _ in range(messages):
        at = data.index(b"\r\n", at) + 2
    return at


def test_a_send_that_fails_mid_batch_loses_nothing() -> None:
    first = PartialSocket(take=25, fail_at=5)  # registration, two writes that end mid-line, a reset
    second = PartialSocket(take=1 << 20)
    link = _link(first, second)
    texts = [f"line {i}" for i in range(12)]
    for text in texts:
        link.send("#g", text)
    link.reactor.process_timeout()  # takes 25 bytes
    _turns(link, lambda: first.closed)  # 25 more, then the reset; redialled at once
    written = _messages(first.lines())
    assert written == texts[:2] and not first.data.endswith(b"\r\n")  # the third was cut
    assert link.queued == len(texts) - 2 and second.offered  # the rest waits for registration
    _read(link)  # registered again: the rest goes out, each line whole, after what was written
    _turns(link, lambda: link.queued == 0)
    assert written + _messages(second.lines()) == texts
    assert link.sent_messages == len(texts)


def test_a_full_socket_holds_the_queue_so_priorities_still_hold() -> None:
    sock = PartialSocket(take=1 << 20)
    link = _link(sock)
    sock.room = len(sock.data)  # full from now on
    link.send("#g", "first")
    link.reactor.process_timeout()
    assert link.outbox.writer.stalled
    for i in range(3):
        link.send("#g", f"queued {i}")
    link.join("#h")
    assert link.queued == 5 and len(link.outbox.queue) == 3  # held in the queues, not in the writer
    sock.room = None
    _turns(link, lambda: link.queued == 0)
    assert sock.lines()[-5:] == ["PRIVMSG #g :first", "JOIN #h", *(f"PRIVMSG #g :queued {i}" for i in range(3))]


def test_the_librarys_own_lines_wait_behind_a_cut_line() -> None:
    sock = PartialSocket(take=11)
    link = _link(sock)
    link.send("#g", "a line cut in the middle")
    link.reactor.process_timeout()
    link.connection.conn.pong("irc.test")  # what the library writes by itself
    _turns(link, lambda: not link.outbox.writer.pending)
    assert sock.lines()[-2:] == ["PRIVMSG #g :a line cut in the middle", "PONG irc.test"]
