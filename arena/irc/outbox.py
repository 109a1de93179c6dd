"""What a link has yet to say: queues in order of priority, drained through a token bucket.

The irc library's own ``set_rate_limit`` sleeps inside the event loop and its sends block, so
the outbox keeps every line until the reactor's scheduler may write it: JOIN and PART lines
first (a PART only ahead of lines to other targets), so a backlog never keeps us out of a
channel whose lines we wait for; then our own lines; then replies to others' lines, which
wait in a second, bounded queue and use only capacity the first leaves unused, so whoever
floods us with lines cannot delay what we send of our own. (The library answers the
server's PING itself, outside any queue.)
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Sequence

from .connection import Connection, Guard
from .settings import LinkSettings
from .text import MAX_LINE_BYTES, check_name, clean, fit_utf8, strip_controls
from .writer import Writer

Item = tuple[str, ...] | Callable[[], None]
"""An entry of the outgoing queue: a line to write, or an ``after_sent`` callback."""


class Outbox:
    """The outgoing lines of ``connection``; every public method is thread-safe (it takes
    the reactor's mutex). ``max_text_bytes(target)`` is the payload a PRIVMSG to ``target``
    may carry; ``on_quit(message)`` ends the link once a draining close reaches its QUIT;
    ``loop_thread()`` is the thread that drives the reactor (if known): lines it lets out
    are written together at the end of its turn, others' at once."""

    def __init__(
        self,
        connection: Connection,
        settings: LinkSettings,
        *,
        max_text_bytes: Callable[[str], int],
        on_quit: Callable[[str], None],
        guard: Guard,
        loop_thread: Callable[[], int | None],
    ) -> None:
        self.connection = connection
        self.reactor = connection.reactor
        self.rate = float(settings.lines_per_second) if settings.lines_per_second else 0.0
        self.burst = settings.burst
        self.paced_joins = settings.paced_joins
        self.max_replies = settings.max_replies
        self.max_targets = settings.max_targets
        self.replies_dropped = 0
        """Lines ``reply`` dropped so far because ``max_replies`` were waiting already."""
        self.finished = False
        """The link is gone: nothing is written any more."""
        self._max_text_bytes = max_text_bytes
        self._on_quit = on_quit
        self._guard = guard
        self._loop_thread = loop_thread
        self.writer = Writer(connection.conn, guard, resume=self.drain)
        self.queue: deque[Item] = deque()
        self.control: deque[tuple[str, str]] = deque()
        """JOIN and PART lines, sent before ``queue``: a backlog of messages must not keep
        us out of a channel whose lines we are waiting for (``join``, ``part``)."""
        self.replies: deque[tuple[str, str]] = deque()
        """Lines of ``reply`` (target, text): sent only when ``queue`` is empty."""
        self._tokens = float(settings.burst)
        self._last_refill = time.monotonic()
        self._drain_due: float | None = None

    @property
    def queued(self) -> int:
        """Lines waiting to be sent (or to be written whole), replies included."""
        queue = sum(not callable(item) for item in self.queue)
        return len(self.control) + queue + len(self.replies) + self.writer.lines

    @property
    def pending(self) -> bool:
        """Whether lines of ours (not replies) wait."""
        return bool(self.queue or self.control or self.writer.pending)

    @property
    def sent_messages(self) -> int:
        """PRIVMSG and NOTICE lines written to the server so far (a multi-target one counts once)."""
        return self.writer.sent_messages

    # -- putting lines in (thread-safe) ----------------------------------------------------------

    def message(self, command: str, target: str, text: str, formatting: bool = False) -> bool:
        """Queue a PRIVMSG or NOTICE (see ``IrcLink.send``)."""

        def push(cleaned: str) -> bool:
            self.queue.append((command, target, cleaned))
            return True

        return self._put(target, text, push, formatting)

    def reply(self, target: str, text: str) -> bool:
        """Queue a reply behind everything else (see ``IrcLink.reply``)."""

        def push(cleaned: str) -> bool:
            if len(self.replies) >= self.max_replies:
                self.replies_dropped += 1
                return False
            self.replies.append((target, cleaned))
            return True

        return self._put(target, text, push)

    def _put(self, target: str, text: str, push: Callable[[str], bool], formatting: bool = False) -> bool:
        """Sanitise ``text`` (keeping formatting codes if asked) and hand it to ``push`` (a
        queue) under the reactor's lock; False for a closed link, empty text or a line
        ``push`` refused."""
        check_name("target", target)
        text = clean(text, formatting)
        if not text:
            return False
        with self.reactor.mutex:
            if self.connection.closed or not push(text):
                return False
            self.drain()
        return True

    def many(self, targets: Sequence[str], text: str) -> bool:
        """Queue ``text`` to several nicks in as few PRIVMSG lines as the server allows."""
        for target in targets:
            check_name("target", target)
        text = strip_controls(text)
        if not text or not targets:
            return False
        with self.reactor.mutex:
            if self.connection.closed:
                return False
            per = self.targets_per_message()
            size = len(text.encode("utf-8"))
            chunk: list[str] = []
            for target in targets:
                if chunk and (len(chunk) == per or size > self._max_text_bytes(",".join((*chunk, target)))):
                    self.queue.append(("PRIVMSG", ",".join(chunk), text))
                    chunk = []
                chunk.append(target)
            self.queue.append(("PRIVMSG", ",".join(chunk), text))
            self.drain()
        return True

    def targets_per_message(self) -> int:
        """Nicks one PRIVMSG may name: the server's ``TARGMAX`` (or ``MAXTARGETS``) when it
        advertises one, else ``max_targets``."""
        features = self.connection.conn.features
        targmax = getattr(features, "targmax", None)
        if isinstance(targmax, dict) and "PRIVMSG" in targmax:
            return max(1, targmax["PRIVMSG"] or 64)  # empty: no limit but the line's length
        maxtargets = getattr(features, "maxtargets", None)
        if isinstance(maxtargets, int):
            return max(1, maxtargets)
        return self.max_targets

    def after_sent(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the lines queued so far are written (see ``IrcLink``)."""
        with self.reactor.mutex:
            if self.connection.closed:
                return
            self.queue.append(callback)
            self.drain()

    def raw(self, line: str) -> None:
        """Queue a command line (MODE, TOPIC) like a message; nothing once closed."""
        with self.reactor.mutex:
            if self.connection.closed:
                return
            self.queue.append(("RAW", fit_utf8(line, MAX_LINE_BYTES - 2)))
            self.drain()

    def first(self, *lines: str) -> None:
        """Put command lines ahead of everything queued, in this order (called with the
        mutex held): what registration and regaining our nick need at once."""
        for line in reversed(lines):
            self.queue.appendleft(("RAW", line))

    def join(self, line: str, folded: str) -> None:
        """A JOIN of channel ``folded``, ahead of queued messages (mutex held)."""
        item = ("RAW", line)
        if self._last_for(folded) is None:
            self.control.append(item)
        else:  # after a PART of that channel that waits for its lines
            self.queue.append(item)
        self.drain()

    def part(self, line: str, folded: str) -> None:
        """A PART of channel ``folded``, ahead of queued messages but not of those still
        addressed to that channel (mutex held)."""
        item = ("RAW", fit_utf8(line, MAX_LINE_BYTES - 2))
        last = self._last_for(folded)
        if last is None:
            self.control.append(item)
        else:
            self.queue.insert(last + 1, item)
        self.drain()

    def quit(self, message: str) -> None:
        """The QUIT that ends a draining close, behind every line queued (mutex held)."""
        self.queue.append(("QUIT", message))
        self.drain()

    def _last_for(self, folded: str) -> int | None:
        """Where in ``queue`` the last line addressed to channel ``folded`` waits (a
        message, a MODE or TOPIC, a deferred PART), if one does."""
        fold = self.connection.fold
        for i in range(len(self.queue) - 1, -1, -1):
            item = self.queue[i]
            if callable(item) or item[0] == "QUIT":
                continue
            target = item[1].split(" ", 2)[1] if item[0] == "RAW" and " " in item[1] else item[1]
            if fold(target) == folded:
                return i
        return None

    # -- taking lines out ------------------------------------------------------------------------

    def lost(self) -> None:
        """The connection dropped: JOINs and PARTs go (registering again joins the channels
        we keep); the rest waits for the next connection, the lines not written whole first."""
        self.control.clear()
        self._drain_due = None
        unwritten = self.writer.take_back()
        if not self.finished:
            self.queue.extendleft(reversed(unwritten))

    def clear(self) -> None:
        self.finished = True
        self.queue.clear()
        self.control.clear()
        self.replies.clear()

    def _refill(self) -> None:
        now = time.monotonic()
        if self.rate:
            self._tokens = min(float(self.burst), self._tokens + (now - self._last_refill) * self.rate)
        self._last_refill = now

    def _schedule_drain(self, delay: float) -> None:
        due = time.monotonic() + delay
        if self._drain_due is not None and self._drain_due <= due:
            return
        self._drain_due = due

        def run() -> None:
            if self._drain_due == due:
                self._drain_due = None
            self.drain()

        self.reactor.scheduler.execute_after(delay, self._guard(run))

    def drain(self) -> None:
        """Let out what the bucket allows, schedule the rest, and write (called with the
        mutex held): at once from another thread, at the end of its turn from the reactor's."""
        conn = self.connection.conn
        if self.finished or not self.connection.registered or not conn.is_connected():
            return
        self._let_out()
        writer = self.writer
        if writer.pending and not writer.stalled:
            if self._loop_thread() == threading.get_ident():
                writer.flush_soon()
            else:
                writer.flush()

    def _let_out(self) -> None:
        """Move what the bucket allows from the queues to the writer."""
        writer = self.writer
        while self.control or self.queue or self.replies:
            control = bool(self.control)
            head = self.control[0] if control else self.queue[0] if self.queue else None
            if callable(head):
                self.queue.popleft()
                writer.after(head)
                continue
            self._refill()
            # Ours need one token; a reply waits for a full bucket, so it cannot hold up a
            # burst of ours that comes right after it.
            needed = 1.0 if head is not None else float(self.burst)
            paced = bool(self.rate) and (self.paced_joins or not control)
            if paced and self._tokens < needed:
                self._schedule_drain((needed - self._tokens) / self.rate)
                return
            if writer.stalled:
                return  # the server is not reading (flood penalties, stall): the writer resumes us
            item: tuple[str, ...]
            if head is None:
                item = ("PRIVMSG", *self.replies.popleft())
            elif head[0] == "QUIT":
                writer.flush()  # the QUIT follows every line before it
                if writer.pending or not self.connection.is_connected:
                    return
                self.queue.popleft()
                if paced:
                    self._tokens -= 1
                self._on_quit(head[1])
                return
            else:
                item = head
                (self.control if control else self.queue).popleft()
            if paced:
                self._tokens -= 1
            if item[0] == "RAW":
                line = item[1]
            else:
                command, target, text = item
                text = fit_utf8(text, self._max_text_bytes(target))
                if not text:
                    continue
                line = f"{command} {target} :{text}"
            writer.add(line, None if control else item)
