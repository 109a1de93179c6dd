"""One IRC client connection that a referee (or a bot SDK) can trust not to misbehave.

``IrcLink`` wraps a jaraco ``irc.client.ServerConnection`` and adds what the library leaves
out, each for a reason measured against the library and real servers, each kept by a
collaborator that owns its state:

* ``Connection`` (``connection``): dialling, registration, keepalive pings, SASL failure
  detection, reconnection with jaraco's exponential backoff; lenient decoding, because
  invalid UTF-8 from any peer would otherwise raise;
* ``Outbox`` (``outbox``): the outgoing queues and their token bucket, and the sanitising
  of every outgoing line (``text``);
* ``Roster`` and ``Channels`` (``roster``): members, services accounts, hosts, topics, and
  the channels we keep joined;
* ``NickKeeper`` (``nick``): nick-collision suffixes and getting the preferred nick back;
* ``Inbox`` (``inbox``): the library's events, dispatched to the others and told to the
  link's owner (callbacks), and when the link is ready.

Incoming text is delivered as the server relayed it: control characters, formatting codes
and CTCP quoting included, so whoever parses it can refuse what is not plain text (the
library would dequote CTCP and deliver it as other events, hiding it).

Threading model
---------------
Everything runs in the thread that drives the reactor (``process_forever``, or
``ReactorThread``). One reactor may drive many links. All public methods of ``IrcLink`` are
thread-safe: they take the reactor's re-entrant mutex, the same lock the reactor holds while
it dispatches events and runs scheduled commands, so a call from another thread simply
waits for the current event to finish. Callbacks (``on_message`` and friends) run in the
reactor thread *with that mutex held*: they may call any link method, but they must not
block or wait for another thread that itself calls into a link (deadlock). Exceptions
raised by callbacks are logged and swallowed so one bad handler cannot stop the event loop
(or be re-run forever by the scheduler, which keeps a command that raised).

Two consequences of calling from another thread: ``send`` writes the lines the token bucket
allows right away, in the caller's thread (without waiting for the socket: what it does not
take is written later, see ``writer``), where in the reactor's thread the lines of a whole
turn go out together at its end, in one write; ``close`` takes effect at once (nothing more is queued or sent, no
reconnection) but the socket is closed at the reactor's next tick, because closing it while
the reactor thread sits in select() makes select fail with EBADF. ``ReactorThread``
tolerates that EBADF (the library can hit it on its own after a socket error in a foreign
thread); a bare ``reactor.process_forever()`` would die of it, so prefer ``ReactorThread``.
Work scheduled from another thread (the rest of a rate-limited queue) starts within one
select() timeout: ``ReactorThread``'s ``tick``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import irc.client

from .connection import Connection
from .inbox import Inbox
from .nick import NickKeeper
from .outbox import Outbox
from .reactor import ReactorThread, run_in_thread
from .roster import Channels, Roster
from .settings import IrcLinkError, LinkSettings, SaslFailed
from .text import MAX_HOST_LEN, MAX_LINE_BYTES, check_name, fit_utf8, strip_controls

__all__ = [
    "MAX_LINE_BYTES",
    "IrcLink",
    "IrcLinkError",
    "LinkSettings",
    "ReactorThread",
    "SaslFailed",
    "fit_utf8",
    "run_in_thread",
    "strip_controls",
]

log = logging.getLogger(__name__)

MessageCallback = Callable[[str, str, str], None]
MembershipCallback = Callable[[str, str, "str | None", "str | None"], None]
NickStateCallback = Callable[[bool, str], None]


class IrcLink:
    """One IRC client connection: queue, sanitise and rate-limit what goes out; decode,
    filter and dispatch what comes in; stay connected.

    Construct (``settings``: see ``LinkSettings``), then call ``connect()``; something must
    drive ``reactor`` (see ``ReactorThread``). Nothing happens on the network in the
    constructor.

    Callbacks (all optional, all run in the reactor thread, see the module docstring):

    * ``on_message(sender_nick, target, text)`` for PRIVMSG and NOTICE from users; ``target``
      is a channel name or our own nick (a DM). ``text`` is raw: control characters,
      formatting codes and CTCP quoting (``\\x01VERSION\\x01``, ``\\x01ACTION waves\\x01``)
      are left in, for the receiver to refuse or strip (``strip_controls``). Not delivered:
      server notices (no ``nick!user@host`` prefix), empty texts, and anything from the
      services nick (``services_nick``), which talks to the link, not to its owner.
      ``account_of(sender_nick)`` is already updated from the line when this runs.
    * ``on_ready()`` once registered and the configured channels are joined, with their
      member lists loaded (or refused); again after every reconnection.
    * ``on_membership(kind, nick, channel, new_nick)`` with kind ``join``/``part``/``kick``
      (``channel`` set; for ``kick`` ``nick`` is the kicked user), ``quit`` (``channel`` is
      None: a quit is server-wide), ``split`` (a quit a netsplit caused: the user may still
      be connected, to a server out of reach now) and ``nick`` (``nick`` the old nick, ``new_nick`` the new
      one, ``channel`` None). Our own joins, parts and renames are included. ``members()``
      is already updated when the callback runs.
    * ``on_disconnect(reason)`` when the connection drops (before any reconnection).
    * ``on_error(error)`` with an ``IrcLinkError``: ``JoinFailed`` (link stays up),
      ``SaslFailed`` or ``NickRejected`` (fatal: the link closes itself).
    * ``on_topic(channel, text)`` when we learn a channel's topic (on joining) or someone
      sets it; ``topic_of`` keeps the latest.
    * ``on_nick_state(ok, current_nick)`` after every registration and whenever we gain or
      lose the preferred nick: ``ok`` is ``has_preferred_nick``. A service that others
      address by name should say so loudly while ``ok`` is False: lines meant for it go
      to whoever holds its nick (``NickKeeper`` tells how a taken nick is handled).
    """

    def __init__(
        self,
        host: str,
        port: int,
        nick: str,
        settings: LinkSettings | None = None,
        *,
        channels: Iterable[str] = (),
        reactor: irc.client.Reactor | None = None,
        on_message: MessageCallback | None = None,
        on_ready: Callable[[], None] | None = None,
        on_membership: MembershipCallback | None = None,
        on_disconnect: Callable[[str], None] | None = None,
        on_error: Callable[[IrcLinkError], None] | None = None,
        on_nick_state: NickStateCallback | None = None,
        on_topic: Callable[[str, str], None] | None = None,
    ) -> None:
        check_name("nick", nick)
        self.settings = settings = settings if settings is not None else LinkSettings()
        check_name("services nick", settings.services_nick)
        for channel in settings.topic_lock:
            check_name("channel", channel)
        self.on_message = on_message
        self.on_ready = on_ready
        self.on_membership = on_membership
        self.on_disconnect = on_disconnect
        self.on_error = on_error
        self.on_nick_state = on_nick_state
        self.on_topic = on_topic

        self.reactor = reactor if reactor is not None else irc.client.Reactor()
        self.connection = Connection(
            self.reactor,
            host,
            port,
            nick,
            settings,
            on_dial=lambda: self.inbox.dialled(),
            label=lambda: self.nick,
            guard=self._guard,
        )
        self.outbox = Outbox(
            self.connection,
            settings,
            max_text_bytes=self.max_text_bytes,
            on_quit=self._finalize_soon,
            guard=self._guard,
            loop_thread=lambda: self.inbox.loop_thread,
        )
        self.nicks = NickKeeper(
            nick,
            self.connection,
            self.outbox,
            settings,
            report=lambda ok, now: self._call(self.on_nick_state, ok, now),
            fail=self._fail,
            guard=self._guard,
        )
        self.roster = Roster(self.fold)
        self.channels_kept = Channels(self.fold, [check_name("channel", c) for c in channels])
        self.inbox = Inbox(self, emit=self._call, fail=self._fail, wake=self._wake, guard=self._guard)
        self._finalized = False
        self.failure: IrcLinkError | None = None
        self._state = threading.Condition()
        self.reactor.add_global_handler("all_events", self.inbox.on_event, 0)

    # -- state (cheap reads, safe from any thread) -----------------------------------------

    @property
    def host(self) -> str:
        return self.connection.host

    @property
    def port(self) -> int:
        return self.connection.port

    @property
    def preferred_nick(self) -> str:
        return self.nicks.preferred

    @property
    def nick(self) -> str:
        """Our current nick: the preferred one, or the suffixed one the server accepted."""
        return self.nicks.current

    @property
    def has_preferred_nick(self) -> bool:
        """Whether we are registered under the nick we were configured with (not a
        fallback). False while disconnected."""
        return self.nicks.has_preferred

    @property
    def accounts_enabled(self) -> bool:
        """Whether the server tags every message with its sender's account (it ACKed
        ``account-tag``): only then does ``account_of`` returning None mean "not logged in"
        rather than "cannot tell"."""
        return self.roster.accounts_enabled

    def account_of(self, nick: str) -> str | None:
        """The services account ``nick`` was logged in to when last seen: from the
        ``account`` tag of its latest line (so, for the sender of a message, as of that very
        message), ``ACCOUNT`` notices and extended joins; forgotten when it quits or
        leaves our sight, moved when it changes nick. None: not logged in, or unknown
        (see ``accounts_enabled``)."""
        with self.reactor.mutex:
            return self.roster.accounts.get(self.fold(nick))

    def host_of(self, nick: str) -> str | None:
        """The host part of ``nick``'s address (``nick!user@host``) as of its latest line
        that we saw, or None if unknown."""
        with self.reactor.mutex:
            return self.roster.hosts.get(self.fold(nick))

    def topic_of(self, channel: str) -> str | None:
        """The topic of a channel we are in, as last seen (None: unknown or none)."""
        with self.reactor.mutex:
            return self.roster.topics.get(self.fold(channel))

    def members(self, channel: str) -> frozenset[str]:
        """Nicks currently in ``channel`` (from NAMES and membership events), ours included;
        empty if we are not in it."""
        with self.reactor.mutex:
            return self.roster.members_of(channel)

    def present(self, nick: str, channel: str) -> bool:
        """Whether ``nick`` is in ``channel`` (one we are in) now, without copying its members."""
        with self.reactor.mutex:
            return self.roster.present(nick, channel)

    @property
    def channels(self) -> frozenset[str]:
        """The channels this link keeps joined (re-joined after a reconnection)."""
        with self.reactor.mutex:
            return frozenset(self.channels_kept.wanted.values())

    @property
    def is_connected(self) -> bool:
        return self.connection.is_connected

    @property
    def is_ready(self) -> bool:
        """Registered and channels joined; False while disconnected."""
        return self.inbox.ready

    @property
    def is_closed(self) -> bool:
        return self.connection.closed

    @property
    def queued(self) -> int:
        """Lines waiting to be sent, replies included."""
        return self.outbox.queued

    @property
    def burst(self) -> int:
        """Lines that go out back to back after a quiet spell (the token bucket's size)."""
        return self.outbox.burst

    @property
    def sent_messages(self) -> int:
        """PRIVMSG and NOTICE lines written to the server so far (a multi-target one counts once)."""
        return self.outbox.sent_messages

    @property
    def replies_dropped(self) -> int:
        """Lines ``reply`` dropped so far because ``max_replies`` were waiting already."""
        return self.outbox.replies_dropped

    def fold(self, name: str) -> str:
        """Case-fold a nick or channel as the server does, for comparing names."""
        return self.connection.fold(name)

    def is_me(self, nick: str) -> bool:
        return self.nicks.is_me(nick)

    def max_text_bytes(self, target: str) -> int:
        """Largest UTF-8 payload a PRIVMSG to ``target`` can carry once the server has
        prefixed ``:nick!~user@<63-char host>`` for the recipient; longer text is cut."""
        prefix = f":{self.nick}!~{self.connection.username}@{'h' * MAX_HOST_LEN} PRIVMSG {target} :"
        return MAX_LINE_BYTES - 2 - len(prefix.encode("utf-8"))

    def targets_per_message(self) -> int:
        """Nicks one PRIVMSG may name: the server's ``TARGMAX`` (or ``MAXTARGETS``) when it
        advertises one, else ``max_targets``."""
        return self.outbox.targets_per_message()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block (not in the reactor thread!) until ready; False on timeout or close.
        Raises the fatal ``IrcLinkError`` if the link failed (SASL, nick)."""
        with self._state:
            self._state.wait_for(lambda: self.inbox.ready or self.failure is not None or self.is_closed, timeout)
            if self.failure is not None:
                raise self.failure
            return self.inbox.ready

    # -- commands (thread-safe) ------------------------------------------------------------

    def connect(self) -> None:
        """Start connecting (idempotent). Failures are logged and retried with backoff."""
        with self.reactor.mutex:
            if self.connection.closed:
                raise IrcLinkError("link is closed")
            if not self.connection.started:
                self.connection.started = True
                self.connection.dial()

    def send(self, target: str, text: str, *, formatting: bool = False) -> bool:
        """Queue a PRIVMSG; never blocks. Control characters are removed (``formatting``:
        all but IRC's formatting codes, for text meant for people) and the text is cut to
        ``max_text_bytes(target)`` when sent. Returns False (nothing queued) for empty text
        or a closed link. Lines queued while disconnected wait for the reconnection."""
        return self.outbox.message("PRIVMSG", target, text, formatting)

    def notice(self, target: str, text: str) -> bool:
        """Like ``send`` but a NOTICE (which bots must never answer automatically)."""
        return self.outbox.message("NOTICE", target, text)

    def reply(self, target: str, text: str) -> bool:
        """Queue a PRIVMSG that answers someone else's line (a refusal, an acknowledgement)
        behind everything else: it goes out only when no other line waits and the token
        bucket is full, so it takes only capacity that nothing of ours needed, and a flood
        of lines to answer never delays our own. At most ``max_replies`` wait; past that
        the line is dropped (counted in ``replies_dropped``) and False returned, as for
        empty text or a closed link."""
        return self.outbox.reply(target, text)

    def send_many(self, targets: Sequence[str], text: str) -> bool:
        """Queue ``text`` to several nicks in as few PRIVMSG lines as the server allows
        (``PRIVMSG a,b,c :text``): on a flood-limited network every line costs time."""
        return self.outbox.many(targets, text)

    def after_sent(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every line queued so far (``reply`` lines aside) has
        been written to the server, e.g. to start a deadline when the request actually goes
        out rather than when it was queued. It runs in the reactor thread at its next turn
        after that (never inside a ``send``), with the mutex held; never, if the link is
        closed first."""
        self.outbox.after_sent(callback)

    def join(self, channel: str, key: str | None = None) -> None:
        """Join ``channel`` now (if registered) and after every reconnection."""
        check_name("channel", channel)
        if key is not None:
            check_name("channel key", key)
        with self.reactor.mutex:
            folded = self.channels_kept.want(channel, key)
            if self.connection.registered:
                self.outbox.join(self.channels_kept.join_line(folded), folded)

    def part(self, channel: str, message: str = "") -> None:
        """Leave ``channel`` and stop re-joining it."""
        check_name("channel", channel)
        with self.reactor.mutex:
            folded = self.channels_kept.drop(channel)
            if self.connection.registered:
                message = strip_controls(message)
                self.outbox.part(f"PART {channel}" + (f" :{message}" if message else ""), folded)

    def mode(self, target: str, modestring: str) -> None:
        """Pass ``MODE target modestring`` through (e.g. ``mode("#g", "+m")``,
        ``mode("#g", "+v alice")``) on servers that have modes; queued like a message."""
        check_name("mode target", target)
        modestring = strip_controls(modestring).strip()
        if not modestring:
            raise ValueError("empty mode string")
        self.outbox.raw(f"MODE {target} {modestring}")

    def topic(self, channel: str, text: str) -> None:
        """Set ``channel``'s topic (where we may: a server that refuses says so in a
        numeric, which changes nothing); queued like a message."""
        check_name("channel", channel)
        self.outbox.raw(f"TOPIC {channel} :{strip_controls(text)}")

    def close(self, message: str = "", *, drain_timeout: float = 0.0) -> None:
        """Quit and stop reconnecting (idempotent). With ``drain_timeout`` > 0, lines still
        queued are sent first (at the usual rate) and the QUIT follows them, giving up after
        that many seconds; otherwise queued lines are dropped. Waiting replies are dropped
        either way: they answered lines of a connection that is ending."""
        message = strip_controls(message)
        with self.reactor.mutex:
            if self.connection.closed:
                return
            self.connection.closed = True
            if drain_timeout > 0 and self.connection.registered and self.outbox.pending:
                self.reactor.scheduler.execute_after(drain_timeout, self._guard(lambda: self._finalize(message)))
                self.outbox.quit(message)
            else:
                self._finalize_soon(message)
        self._wake()

    # -- the end -----------------------------------------------------------------------------

    def _finalize(self, message: str) -> None:
        if self._finalized:
            return
        self._finalized = True
        self.outbox.clear()
        self.connection.finish(message)
        self.reactor.remove_global_handler("all_events", self.inbox.on_event)
        self._wake()

    def _finalize_soon(self, message: str) -> None:
        """Finalize now if that is safe, else at the reactor's next tick. Not safe: inside
        one of our events (the library keeps processing after our handler returns, e.g. it
        answers CAP END after a SASL failure, and would raise on a closed connection), or
        from a thread other than the one driving the reactor (closing a socket while that
        thread is in select() makes select fail with EBADF)."""
        self.connection.closed = True
        other_thread = self.inbox.loop_thread not in (None, threading.get_ident())
        if self.inbox.depth or other_thread:
            self.reactor.scheduler.execute_after(0, self._guard(lambda: self._finalize(message)))
        else:
            self._finalize(message)

    def _fail(self, error: IrcLinkError) -> None:
        log.error("%s: %s", self.preferred_nick, error)
        self.failure = error
        self.connection.closed = True
        self._wake()
        self._call(self.on_error, error)
        self._finalize_soon(str(error))

    def _wake(self) -> None:
        with self._state:
            self._state.notify_all()

    # -- plumbing --------------------------------------------------------------------------

    def _call(self, callback: Callable[..., Any] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            log.exception("%s: callback %r raised", self.nick, callback)

    def _guard(self, fn: Callable[[], Any]) -> Callable[[], None]:
        """Wrap a scheduled command: the scheduler keeps (and re-runs forever) a command
        that raised, so nothing scheduled may raise."""

        def run() -> None:
            try:
                fn()
            except Exception:
                log.exception("%s: scheduled command failed", self.nick)

        return run

    def __repr__(self) -> str:
        state = "closed" if self.is_closed else "ready" if self.inbox.ready else "connecting"
        return f"<IrcLink {self.nick} {self.host}:{self.port} {state}>"
