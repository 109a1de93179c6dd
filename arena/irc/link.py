"""One IRC client connection that a referee (or a bot SDK) can trust not to misbehave.

``IrcLink`` wraps a jaraco ``irc.client.ServerConnection`` and adds what the library leaves
out, each for a reason measured against the library and real servers:

* an outgoing queue drained by the reactor's scheduler through a token bucket, because the
  library's own ``set_rate_limit`` sleeps inside the event loop and its sends block; replies
  to others' lines (``reply``) wait in a second, bounded queue and use only capacity the
  first leaves unused, so whoever floods us with lines cannot delay what we send of our own;
  JOIN and PART lines go ahead of queued messages (a PART only ahead of those to other
  targets), so a backlog never keeps us out of a channel whose lines we wait for (the
  library answers the server's PING itself, outside any queue);
* sanitising of every outgoing line, because the library lets ``\\r`` through (a bot's text
  echoed by the referee could inject a command) and raises on lines over 512 bytes;
* lenient decoding, because invalid UTF-8 from any peer would otherwise raise;
* nick-collision suffixes and, for a service that must not answer under another name,
  getting the preferred nick back (``regain``); channel (re)joins, membership events,
  reconnection with exponential backoff, keepalive pings, SASL failure detection;
* services accounts (``account_tags``): who is logged in as whom, from the IRCv3
  ``account-tag``, ``account-notify`` and ``extended-join`` capabilities, because a nick
  alone proves nothing about who sent a line.

Incoming text is delivered as the server relayed it: control characters, formatting codes
and CTCP quoting included, so whoever parses it can refuse what is not plain text (the
library would dequote CTCP and deliver it as other events, hiding it).

Threading model
---------------
Everything runs in the thread that drives the reactor (``process_forever``, or
``ReactorThread`` below). One reactor may drive many links. All public methods of
``IrcLink`` are thread-safe: they take the reactor's re-entrant mutex, the same lock the
reactor holds while it dispatches events and runs scheduled commands, so a call from another
thread simply waits for the current event to finish. Callbacks (``on_message`` and friends)
run in the reactor thread *with that mutex held*: they may call any link method, but they
must not block or wait for another thread that itself calls into a link (deadlock).
Exceptions raised by callbacks are logged and swallowed so one bad handler cannot stop the
event loop (or be re-run forever by the scheduler, which keeps a command that raised).

Two consequences of calling from another thread: ``send`` writes the lines the token bucket
allows right away, in the caller's thread (only when select() says the socket is writable,
so it does not block); ``close`` takes effect at once (nothing more is queued or sent, no
reconnection) but the socket is closed at the reactor's next tick, because closing it while
the reactor thread sits in select() makes select fail with EBADF. ``ReactorThread``
tolerates that EBADF (the library can hit it on its own after a socket error in a foreign
thread); a bare ``reactor.process_forever()`` would die of it, so prefer ``ReactorThread``.
Work scheduled from another thread (the rest of a rate-limited queue) starts within one
select() timeout: ``ReactorThread``'s ``tick``.
"""

from __future__ import annotations

import errno
import logging
import re
import select
import socket
import ssl
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from typing import Any, Callable, Iterable, Iterator, Literal, Sequence, TypeVar

import irc.client
import irc.message
import irc.modes
from jaraco.stream.buffer import DecodingLineBuffer

log = logging.getLogger(__name__)

#: RFC 1459 line limit, CR LF included.
MAX_LINE_BYTES = 512
#: Longest host a server may put in the ``nick!user@host`` prefix it adds when relaying.
MAX_HOST_LEN = 63
#: Nicks whose host the link remembers at most (``host_of``): strangers' lines must not
#: grow it without bound.
MAX_HOSTS = 10_000

MembershipKind = Literal["join", "part", "quit", "kick", "nick"]
MessageCallback = Callable[[str, str, str], None]
_Item = tuple[str, ...] | Callable[[], None]
"""An entry of the outgoing queue: a line to write, or an ``after_sent`` callback."""
MembershipCallback = Callable[[str, str, "str | None", "str | None"], None]
NickStateCallback = Callable[[bool, str], None]

#: IRCv3 capabilities that tell who is logged in as whom, requested one by one because a
#: ``CAP REQ`` naming several is refused whole if the server lacks any of them.
ACCOUNT_CAPS = ("account-tag", "account-notify", "extended-join")

# C0 controls (CR, LF, NUL, CTCP \x01, bold \x02, colour \x03, reset \x0f, reverse \x16,
# italics \x1d, strike \x1e, underline \x1f, ...), DEL, the C1 controls, and the lone
# surrogates that stand for bytes that were not UTF-8 (``_MarkingLineBuffer``).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# The same less IRC's formatting codes (bold, colour, reset, reverse, italics, underline):
# what a line that is meant to be formatted keeps (``send(..., formatting=True)``).
_UNFORMATTED_RE = re.compile("[\x00-\x01\x04-\x0e\x10-\x15\x17-\x1c\x1e\x7f-\x9f\ud800-\udfff]")
# Characters that cannot appear in a target, channel or nick we put on the wire.
_BAD_NAME_RE = re.compile("[\x00-\x20\x7f-\x9f,\ud800-\udfff]")

# One raw line: optional IRCv3 tags, optional prefix, command, parameters.
_LINE_RE = re.compile(r"^(?:@(?P<tags>\S*) +)?(?::(?P<prefix>\S+) +)?(?P<command>\S+)(?P<params>.*)$")
# A line an IRC server may send: its command is a word or a three-digit numeric (RFC 1459
# section 2.3.1). ``HTTP/1.1 400 Bad Request`` and an indented line of HTML are not.
_IRC_LINE_RE = re.compile(r"^(?:@\S+ +)?(?::\S+ +)?(?:[A-Za-z]+|[0-9]{3})(?: .*)?$")

_T = TypeVar("_T")
_QUICKACK = getattr(socket, "TCP_QUICKACK", None)  # Linux only


# -- text helpers ------------------------------------------------------------------------


class _MarkingLineBuffer(DecodingLineBuffer):
    """Decodes UTF-8 and keeps each byte that is not UTF-8 as a lone surrogate
    (``surrogateescape``), so a line with bad bytes reaches the protocol parser as such and
    gets ``MALFORMED``, instead of being read as Latin-1 and understood as something else.

    A line that is not IRC never reaches the library, whose parser raises on some (an
    indented line of a web server's answer: ``AttributeError``, out of the event loop). It
    goes to ``not_irc`` instead, which returns whether to stop reading this connection."""

    errors = "surrogateescape"

    def __init__(self, not_irc: Callable[[str], bool]) -> None:
        super().__init__()
        self.not_irc = not_irc
        self.stopped = False

    def lines(self) -> Iterator[str]:
        for line in super().lines():
            if self.stopped:
                return
            if not line or _IRC_LINE_RE.match(line):
                yield line
            elif self.not_irc(line):
                self.stopped = True
                self.buffer = b""
                return


def strip_controls(text: str) -> str:
    """Remove every control character (C0, DEL, C1) and stray byte from ``text``.

    Removing (rather than replacing) keeps printable text intact and makes command
    injection impossible: no CR or LF survives, nor CTCP or formatting codes.
    """
    return _CONTROL_RE.sub("", text)


def fit_utf8(text: str, max_bytes: int) -> str:
    """Cut ``text`` so its UTF-8 encoding is at most ``max_bytes``, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[: max(max_bytes, 0)].decode("utf-8", "ignore")


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in the operator's words: the socket error's own text
    (``connection refused``), not the library's wrapping of it."""
    cause = exc.__cause__
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror.lower()
    return str(cause or exc)


def _check_name(kind: str, name: str) -> str:
    if not name or _BAD_NAME_RE.search(name) or name.startswith(":"):
        raise ValueError(f"invalid IRC {kind}: {name!r}")
    return name


# -- errors ------------------------------------------------------------------------------


class IrcLinkError(Exception):
    """Something the link could not do; passed to ``on_error`` and kept in ``failure``."""


class SaslFailed(IrcLinkError):
    """SASL was requested and did not succeed. Fatal: the link closes and does not retry,
    because a bot that is not logged in must not play under an unverified nick."""


class NickRejected(IrcLinkError):
    """The server refused every nick we tried (erroneous nick, too many collisions). Fatal."""


class JoinFailed(IrcLinkError):
    """A channel could not be joined (banned, invite-only, full, bad key...). Not fatal: the
    channel is dropped from the link's channel set and the link stays up."""

    def __init__(self, channel: str, reason: str) -> None:
        super().__init__(f"cannot join {channel}: {reason}")
        self.channel = channel
        self.reason = reason


_JOIN_ERRORS = {
    "nosuchchannel",  # 403
    "toomanychannels",  # 405
    "channelisfull",  # 471
    "inviteonlychan",  # 473
    "bannedfromchan",  # 474
    "badchannelkey",  # 475
    "badchanmask",  # 476
    "nochanmodes",  # 477 (ERR_NEEDREGGEDNICK on most servers)
}
_NICK_TAKEN = {"nicknameinuse", "nickcollision", "unavailresource"}
_SASL_FAILURES = {"saslfail", "sasltoolong", "saslaborted", "nicklocked"}
# Delivered from the raw line (see ``_on_raw_line``); the library's parsed forms, which
# dequote CTCP and split it off as separate events, are ignored.
_MESSAGE_EVENTS = {
    "privmsg", "pubmsg", "privnotice", "pubnotice", "ctcp", "ctcpreply", "action",
}


# -- the link ----------------------------------------------------------------------------


class IrcLink:
    """One IRC client connection: queue, sanitise and rate-limit what goes out; decode,
    filter and dispatch what comes in; stay connected.

    Construct, then call ``connect()``; something must drive ``reactor`` (see
    ``ReactorThread``). Nothing happens on the network in the constructor.

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
      None: a quit is server-wide) and ``nick`` (``nick`` the old nick, ``new_nick`` the new
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
      to whoever holds its nick.

    Nick collisions: registration never fails for a taken nick; the link takes ``nick_``,
    then ``nick1``, ``nick2``... With ``regain`` it then works to get the preferred nick
    back: at once and every ``regain_interval`` seconds it sends ``NICK preferred`` and,
    when logged in by SASL, asks services for it (``PRIVMSG NickServ :REGAIN preferred``,
    Atheme's ``nickserv/enforce`` module: the holder is renamed to a guest nick and we get
    the nick); it retries at once when it sees the holder quit or change nick in a shared
    channel. The same happens if the server renames us later (e.g. services enforcing a
    registered nick).
    """

    #: Give up on a registration (welcome not received) after this many seconds.
    registration_timeout: float = 30.0
    #: Become ready anyway if channel joins are neither confirmed nor refused by then.
    join_timeout: float = 10.0
    #: How many nick variants to try before giving up.
    max_nick_attempts: int = 20

    def __init__(
        self,
        host: str,
        port: int,
        nick: str,
        *,
        channels: Iterable[str] = (),
        username: str | None = None,
        realname: str | None = None,
        tls: bool | ssl.SSLContext = False,
        password: str | None = None,
        sasl_account: str | None = None,
        sasl_password: str | None = None,
        lines_per_second: float | None = 2.0,
        burst: int = 5,
        max_replies: int = 50,
        max_targets: int = 1,
        reconnect_delay: float = 1.0,
        reconnect_max_delay: float = 60.0,
        keepalive: float | None = 60.0,
        connect_timeout: float = 10.0,
        reactor: irc.client.Reactor | None = None,
        on_message: MessageCallback | None = None,
        on_ready: Callable[[], None] | None = None,
        on_membership: MembershipCallback | None = None,
        on_disconnect: Callable[[str], None] | None = None,
        on_error: Callable[[IrcLinkError], None] | None = None,
        on_nick_state: NickStateCallback | None = None,
        on_topic: Callable[[str, str], None] | None = None,
        topic_lock: Iterable[str] = (),
        account_tags: bool = False,
        regain: bool = False,
        regain_interval: float = 30.0,
        services_nick: str = "NickServ",
    ) -> None:
        """
        ``tls``: True for a default verifying context, or an ``ssl.SSLContext`` of your own.
        ``password``: the server password (PASS); cannot be combined with SASL because the
        irc library uses one password field for both.
        ``lines_per_second``: token-bucket rate of outgoing lines (0 or None: unlimited,
        for loopback tests); ``burst``: bucket size, i.e. lines sent back to back after a
        quiet spell.
        ``max_replies``: how many lines ``reply`` keeps waiting; more are dropped.
        ``max_targets``: how many nicks one PRIVMSG of ``send_many`` may name when the
        server does not say (ISUPPORT ``TARGMAX`` or ``MAXTARGETS``); 1 is always safe.
        ``reconnect_delay`` doubles after each failed attempt up to ``reconnect_max_delay``
        and resets once registered.
        ``keepalive``: after this many silent seconds we PING; after twice as many we drop
        the connection and reconnect (catches half-open TCP). None disables it.
        ``account_tags``: after registration, request the IRCv3 capabilities that carry
        services accounts (``ACCOUNT_CAPS``, each where offered), so ``account_of`` knows
        who is logged in; the link becomes ready only once the server has answered.
        ``regain``: work to get the preferred nick back after registering under a fallback
        (see the class docstring), retrying every ``regain_interval`` seconds.
        ``services_nick``: the nick services answer from; its messages are not delivered.
        ``topic_lock``: channels whose topic only operators may set: whenever we hold
        operator status there (we created the channel, or someone gave it to us) we set
        mode ``+t``, so that nobody else can rewrite a topic that others rely on.
        """
        _check_name("nick", nick)
        if sasl_account is not None and sasl_password is None:
            raise ValueError("sasl_account needs sasl_password")
        if sasl_account is not None and password is not None:
            raise ValueError("a server password and SASL cannot be combined")
        if burst < 1:
            raise ValueError("burst must be at least 1")
        if max_replies < 1:
            raise ValueError("max_replies must be at least 1")
        self.host = host
        self.port = port
        self.preferred_nick = nick
        self.username = _check_name("username", username or nick)
        self.realname = strip_controls(realname or nick) or nick
        self.password = password
        self.sasl_account = sasl_account
        self.sasl_password = sasl_password
        self.rate = float(lines_per_second) if lines_per_second else 0.0
        self.burst = burst
        if max_targets < 1:
            raise ValueError("max_targets must be at least 1")
        self.max_targets = max_targets
        self.sent_messages = 0
        """PRIVMSG and NOTICE lines written to the server so far (a multi-target one counts once)."""
        self.max_replies = max_replies
        self.replies_dropped = 0
        """Lines ``reply`` dropped so far because ``max_replies`` were waiting already."""
        self.reconnect_delay = reconnect_delay
        self.reconnect_max_delay = reconnect_max_delay
        self.keepalive = keepalive
        self.connect_timeout = connect_timeout
        if tls is True:
            self._ssl: ssl.SSLContext | None = ssl.create_default_context()
        elif isinstance(tls, ssl.SSLContext):
            self._ssl = tls
        else:
            self._ssl = None

        self.on_message = on_message
        self.on_ready = on_ready
        self.on_membership = on_membership
        self.on_disconnect = on_disconnect
        self.on_error = on_error
        self.on_nick_state = on_nick_state
        self.on_topic = on_topic
        self._topic_lock = [_check_name("channel", c) for c in topic_lock]
        self._topics: dict[str, str] = {}
        """Topics of the channels we are in, by folded name."""
        self.account_tags = account_tags
        self.regain = regain
        if regain_interval <= 0:
            raise ValueError("regain_interval must be positive")
        self.regain_interval = regain_interval
        self.services_nick = _check_name("services nick", services_nick)

        self.reactor = reactor if reactor is not None else irc.client.Reactor()
        self._conn = self.reactor.server()
        # An instance attribute: ``connect`` builds ``self.buffer_class()`` on each connect.
        self._conn.buffer_class = lambda: _MarkingLineBuffer(self._not_irc)
        # The library registers its SASL state machine as a *reactor-global* handler that
        # ignores which connection an event came from, so two links doing SASL on one
        # reactor would drive each other's state machines. Filter per connection.
        conn = self._conn

        def sasl_filter(connection: Any, event: Any) -> None:
            if connection is conn:
                irc.client.ServerConnection._sasl_state_machine(conn, connection, event)

        conn._sasl_state_machine = sasl_filter  # type: ignore[method-assign]

        self._channels: dict[str, str] = {}  # folded name -> name as configured
        self._keys: dict[str, str] = {}
        for channel in channels:
            self._channels[self.fold(_check_name("channel", channel))] = channel
        self._members: dict[str, dict[str, str]] = {}  # folded channel -> folded nick -> nick
        self._nick = nick
        self._queue: deque[_Item] = deque()
        self._control: deque[tuple[str, str]] = deque()
        """JOIN and PART lines, sent before ``_queue``: a backlog of messages must not keep
        us out of a channel whose lines we are waiting for (``join``, ``part``)."""
        self._replies: deque[tuple[str, str]] = deque()
        """Lines of ``reply`` (target, text): sent only when ``_queue`` is empty."""
        self._tokens = float(burst)
        self._last_refill = time.monotonic()
        self._drain_due: float | None = None

        self._gen = 0  # bumped on every connection attempt and disconnect: stale timers no-op
        self._started = False
        self._closed = False
        self._finalized = False
        self._registered = False
        self._ready = False
        self._sasl_ok = False
        self._nick_attempt = 0
        self._pending_joins: set[str] = set()
        self._caps: set[str] = set()  # acknowledged by the server on this connection
        self._pending_caps: set[str] = set()  # requested, not yet answered
        self._accounts: dict[str, str] = {}  # folded nick -> account, logged-in users only
        self._hosts: OrderedDict[str, str] = OrderedDict()
        """Folded nick -> the host of its latest line (``host_of``); the oldest is forgotten
        first past ``MAX_HOSTS``."""
        self._nick_ok: bool | None = None  # last reported to on_nick_state
        self._regain_gen: int | None = None  # the connection whose regain loop is running
        self._backoff = reconnect_delay
        self._last_rx = time.monotonic()
        self._heard = False
        """Whether this connection has received a line: a silent peer is not an IRC server."""
        self._pinged = False
        self._server_error = ""
        self._depth = 0  # > 0 while one of our events is being dispatched
        self._loop_thread: int | None = None  # the thread seen dispatching our events
        self.failure: IrcLinkError | None = None
        self._state = threading.Condition()

        self.reactor.add_global_handler("all_events", self._on_event, 0)

    # -- state (cheap reads, safe from any thread) -----------------------------------------

    @property
    def nick(self) -> str:
        """Our current nick: the preferred one, or the suffixed one the server accepted."""
        return self._nick

    @property
    def has_preferred_nick(self) -> bool:
        """Whether we are registered under the nick we were configured with (not a
        fallback). False while disconnected."""
        return self._registered and self.fold(self._nick) == self.fold(self.preferred_nick)

    @property
    def accounts_enabled(self) -> bool:
        """Whether the server tags every message with its sender's account (it ACKed
        ``account-tag``): only then does ``account_of`` returning None mean "not logged in"
        rather than "cannot tell"."""
        return "account-tag" in self._caps

    def account_of(self, nick: str) -> str | None:
        """The services account ``nick`` was logged in to when last seen: from the
        ``account`` tag of its latest line (so, for the sender of a message, as of that very
        message), ``ACCOUNT`` notices and extended joins; forgotten when it quits or
        leaves our sight, moved when it changes nick. None: not logged in, or unknown
        (see ``accounts_enabled``)."""
        with self.reactor.mutex:
            return self._accounts.get(self.fold(nick))

    def host_of(self, nick: str) -> str | None:
        """The host part of ``nick``'s address (``nick!user@host``) as of its latest line
        that we saw, or None if unknown."""
        with self.reactor.mutex:
            return self._hosts.get(self.fold(nick))

    @property
    def is_connected(self) -> bool:
        return bool(self._conn.is_connected())

    @property
    def is_ready(self) -> bool:
        """Registered and channels joined; False while disconnected."""
        return self._ready

    @property
    def is_closed(self) -> bool:
        return self._closed

    @property
    def queued(self) -> int:
        """Lines waiting to be sent, replies included."""
        return len(self._control) + sum(not callable(item) for item in self._queue) + len(self._replies)

    @property
    def channels(self) -> frozenset[str]:
        """The channels this link keeps joined (re-joined after a reconnection)."""
        with self.reactor.mutex:
            return frozenset(self._channels.values())

    def members(self, channel: str) -> frozenset[str]:
        """Nicks currently in ``channel`` (from NAMES and membership events), ours included;
        empty if we are not in it."""
        with self.reactor.mutex:
            return frozenset(self._members.get(self.fold(channel), {}).values())

    def fold(self, name: str) -> str:
        """Case-fold a nick or channel with the server's CASEMAPPING (rfc1459 until the
        server says otherwise), for comparing names the way the server does."""
        mapping = getattr(self._conn.features, "casemapping", "rfc1459")
        name = name.lower()
        if mapping == "ascii":
            return name
        name = name.replace("[", "{").replace("]", "}").replace("\\", "|")
        return name if mapping == "strict-rfc1459" else name.replace("~", "^")

    def is_me(self, nick: str) -> bool:
        return self.fold(nick) == self.fold(self._nick)

    def max_text_bytes(self, target: str) -> int:
        """Largest UTF-8 payload a PRIVMSG to ``target`` can carry once the server has
        prefixed ``:nick!~user@<63-char host>`` for the recipient; longer text is cut."""
        prefix = f":{self._nick}!~{self.username}@{'h' * MAX_HOST_LEN} PRIVMSG {target} :"
        return MAX_LINE_BYTES - 2 - len(prefix.encode("utf-8"))

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block (not in the reactor thread!) until ready; False on timeout or close.
        Raises the fatal ``IrcLinkError`` if the link failed (SASL, nick)."""
        with self._state:
            self._state.wait_for(
                lambda: self._ready or self.failure is not None or self._closed, timeout
            )
            if self.failure is not None:
                raise self.failure
            return self._ready

    # -- commands (thread-safe) ------------------------------------------------------------

    def connect(self) -> None:
        """Start connecting (idempotent). Failures are logged and retried with backoff."""
        with self.reactor.mutex:
            if self._closed:
                raise IrcLinkError("link is closed")
            if self._started:
                return
            self._started = True
            self._attempt_connect()

    def send(self, target: str, text: str, *, formatting: bool = False) -> bool:
        """Queue a PRIVMSG; never blocks. Control characters are removed (``formatting``:
        all but IRC's formatting codes, for text meant for people) and the text is cut to
        ``max_text_bytes(target)`` when sent. Returns False (nothing queued) for empty text
        or a closed link. Lines queued while disconnected wait for the reconnection."""
        return self._enqueue("PRIVMSG", target, text, formatting)

    def reply(self, target: str, text: str) -> bool:
        """Queue a PRIVMSG that answers someone else's line (a refusal, an acknowledgement)
        behind everything else: it goes out only when no other line waits and the token
        bucket is full, so it takes only capacity that nothing of ours needed, and a flood
        of lines to answer never delays our own. At most ``max_replies`` wait; past that
        the line is dropped (counted in ``replies_dropped``) and False returned, as for
        empty text or a closed link."""
        def push(clean: str) -> bool:
            if len(self._replies) >= self.max_replies:
                self.replies_dropped += 1
                return False
            self._replies.append((target, clean))
            return True

        return self._put(target, text, push)

    def after_sent(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every line queued so far (``reply`` lines aside) has
        been written to the server, e.g. to start a deadline when the request actually goes
        out rather than when it was queued. It runs in the reactor thread at its next turn
        after that (never inside a ``send``), with the mutex held; never, if the link is
        closed first."""
        with self.reactor.mutex:
            if self._closed:
                return
            self._queue.append(callback)
            self._drain()

    def send_many(self, targets: Sequence[str], text: str) -> bool:
        """Queue ``text`` to several nicks in as few PRIVMSG lines as the server allows
        (``PRIVMSG a,b,c :text``): on a flood-limited network every line costs time."""
        for target in targets:
            _check_name("target", target)
        text = strip_controls(text)
        if not text or not targets:
            return False
        with self.reactor.mutex:
            if self._closed:
                return False
            per = self.targets_per_message()
            size = len(text.encode("utf-8"))
            chunk: list[str] = []
            for target in targets:
                if chunk and (len(chunk) == per or size > self.max_text_bytes(",".join((*chunk, target)))):
                    self._queue.append(("PRIVMSG", ",".join(chunk), text))
                    chunk = []
                chunk.append(target)
            self._queue.append(("PRIVMSG", ",".join(chunk), text))
            self._drain()
        return True

    def targets_per_message(self) -> int:
        """Nicks one PRIVMSG may name: the server's ``TARGMAX`` (or ``MAXTARGETS``) when it
        advertises one, else ``max_targets``."""
        features = self._conn.features
        targmax = getattr(features, "targmax", None)
        if isinstance(targmax, dict) and "PRIVMSG" in targmax:
            return max(1, targmax["PRIVMSG"] or 64)  # empty: no limit but the line's length
        maxtargets = getattr(features, "maxtargets", None)
        if isinstance(maxtargets, int):
            return max(1, maxtargets)
        return self.max_targets

    def notice(self, target: str, text: str) -> bool:
        """Like ``send`` but a NOTICE (which bots must never answer automatically)."""
        return self._enqueue("NOTICE", target, text)

    def join(self, channel: str, key: str | None = None) -> None:
        """Join ``channel`` now (if registered) and after every reconnection."""
        _check_name("channel", channel)
        if key is not None:
            _check_name("channel key", key)
        with self.reactor.mutex:
            folded = self.fold(channel)
            self._channels[folded] = channel
            if key is not None:
                self._keys[folded] = key
            if self._registered:
                line = ("RAW", self._join_line(folded))
                if self._last_for(folded) is None:
                    self._control.append(line)
                else:  # after a PART of that channel that waits for its lines
                    self._queue.append(line)
                self._drain()

    def part(self, channel: str, message: str = "") -> None:
        """Leave ``channel`` and stop re-joining it."""
        _check_name("channel", channel)
        with self.reactor.mutex:
            folded = self.fold(channel)
            self._channels.pop(folded, None)
            self._keys.pop(folded, None)
            self._pending_joins.discard(folded)
            if self._registered:
                message = strip_controls(message)
                line = f"PART {channel}" + (f" :{message}" if message else "")
                item = ("RAW", fit_utf8(line, MAX_LINE_BYTES - 2))
                last = self._last_for(folded)
                if last is None:
                    self._control.append(item)
                else:  # not before the lines still queued for that channel
                    self._queue.insert(last + 1, item)
                self._drain()

    def _last_for(self, folded: str) -> int | None:
        """Where in ``_queue`` the last line addressed to channel ``folded`` waits (a
        message, a MODE or TOPIC, a deferred PART), if one does."""
        for i in range(len(self._queue) - 1, -1, -1):
            item = self._queue[i]
            if callable(item) or item[0] == "QUIT":
                continue
            target = item[1].split(" ", 2)[1] if item[0] == "RAW" and " " in item[1] else item[1]
            if self.fold(target) == folded:
                return i
        return None

    def mode(self, target: str, modestring: str) -> None:
        """Pass ``MODE target modestring`` through (e.g. ``mode("#g", "+m")``,
        ``mode("#g", "+v alice")``) on servers that have modes; queued like a message."""
        _check_name("mode target", target)
        modestring = strip_controls(modestring).strip()
        if not modestring:
            raise ValueError("empty mode string")
        with self.reactor.mutex:
            if self._closed:
                return
            self._queue.append(("RAW", fit_utf8(f"MODE {target} {modestring}", 510)))
            self._drain()

    def topic(self, channel: str, text: str) -> None:
        """Set ``channel``'s topic (where we may: a server that refuses says so in a
        numeric, which changes nothing); queued like a message."""
        _check_name("channel", channel)
        with self.reactor.mutex:
            if self._closed:
                return
            self._queue.append(("RAW", fit_utf8(f"TOPIC {channel} :{strip_controls(text)}", MAX_LINE_BYTES - 2)))
            self._drain()

    def close(self, message: str = "", *, drain_timeout: float = 0.0) -> None:
        """Quit and stop reconnecting (idempotent). With ``drain_timeout`` > 0, lines still
        queued are sent first (at the usual rate) and the QUIT follows them, giving up after
        that many seconds; otherwise queued lines are dropped. Waiting replies are dropped
        either way: they answered lines of a connection that is ending."""
        message = strip_controls(message)
        with self.reactor.mutex:
            if self._closed:
                return
            self._closed = True
            if drain_timeout > 0 and self._registered and (self._queue or self._control):
                self._queue.append(("QUIT", message))
                self.reactor.scheduler.execute_after(
                    drain_timeout, self._guard(lambda: self._finalize(message))
                )
                self._drain()
            else:
                self._finalize_soon(message)
        with self._state:
            self._state.notify_all()

    # -- outgoing queue --------------------------------------------------------------------

    def _enqueue(self, command: str, target: str, text: str, formatting: bool = False) -> bool:
        def push(clean: str) -> bool:
            self._queue.append((command, target, clean))
            return True

        return self._put(target, text, push, formatting)

    def _put(self, target: str, text: str, push: Callable[[str], bool], formatting: bool = False) -> bool:
        """Sanitise ``text`` (keeping formatting codes if asked) and hand it to ``push`` (a
        queue) under the reactor's lock; False for a closed link, empty text or a line
        ``push`` refused."""
        _check_name("target", target)
        text = _UNFORMATTED_RE.sub("", text) if formatting else strip_controls(text)
        if not text:
            return False
        with self.reactor.mutex:
            if self._closed or not push(text):
                return False
            self._drain()
        return True

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
            self._drain()

        self.reactor.scheduler.execute_after(delay, self._guard(run))

    def _writable(self) -> bool:
        sock = self._conn.socket
        if sock is None:
            return False
        try:
            return bool(select.select([], [sock], [], 0)[1])
        except (OSError, ValueError):
            return False

    def _drain(self) -> None:
        """Send what the bucket allows; schedule the rest. Called with the mutex held."""
        if self._finalized or not self._registered or not self._conn.is_connected():
            return
        while self._control or self._queue or self._replies:
            control = bool(self._control)
            head = self._control[0] if control else self._queue[0] if self._queue else None
            if callable(head):
                self._queue.popleft()
                self.reactor.scheduler.execute_after(0, self._guard(head))
                continue
            self._refill()
            # Ours need one token; a reply waits for a full bucket, so it cannot hold up a
            # burst of ours that comes right after it.
            needed = 1.0 if head is not None else float(self.burst)
            if self.rate and self._tokens < needed:
                self._schedule_drain((needed - self._tokens) / self.rate)
                return
            if not self._writable():
                # The server is not reading (flood penalties, stall): never block on send.
                self._schedule_drain(0.05)
                return
            item: tuple[str, ...]
            if head is None:
                item = ("PRIVMSG", *self._replies.popleft())
            else:
                item = head
                (self._control if control else self._queue).popleft()
            if self.rate:
                self._tokens -= 1
            if item[0] == "QUIT":
                self._finalize_soon(item[1])
                return
            if item[0] == "RAW":
                line = item[1]
            else:
                command, target, text = item
                text = fit_utf8(text, self.max_text_bytes(target))
                if not text:
                    continue
                line = f"{command} {target} :{text}"
            self._conn.send_raw(line)
            if not self._conn.is_connected():
                # The library swallowed a socket error and disconnected: resend later.
                if not control:  # a JOIN or PART: the next registration joins anew
                    self._queue.appendleft(item)
                return
            if item[0] != "RAW":
                self.sent_messages += 1

    def _join_line(self, folded: str) -> str:
        key = self._keys.get(folded)
        return f"JOIN {self._channels[folded]}" + (f" {key}" if key else "")

    # -- connection lifecycle --------------------------------------------------------------

    def _open_socket(self, address: tuple[str, int]) -> socket.socket:
        """Connect with a timeout (a blackholed host must not freeze the reactor forever),
        then return a blocking socket as the library expects."""
        sock = socket.create_connection(address, timeout=self.connect_timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._ssl is not None:
                sock = self._ssl.wrap_socket(sock, server_hostname=self.host)
            sock.settimeout(None)
        except BaseException:
            sock.close()
            raise
        return sock

    def _attempt_connect(self) -> None:
        if self._closed:
            return
        self._gen += 1
        gen = self._gen
        self._registered = self._ready = self._sasl_ok = False
        self._nick_attempt = 0
        self._server_error = ""
        for name in ("cap", "authenticate", "saslsuccess", "saslfail"):
            # Left over if a previous connection died mid-SASL.
            self.reactor.remove_global_handler(name, self._conn._sasl_state_machine)
        try:
            self._conn.connect(
                self.host,
                self.port,
                self.preferred_nick,
                password=self.sasl_password if self.sasl_account else self.password,
                username=self.username,
                ircname=self.realname,
                connect_factory=self._open_socket,
                sasl_login=self.sasl_account,
            )
        except irc.client.ServerConnectionError as exc:
            log.error("%s: no IRC server answered at %s:%s (%s)", self.preferred_nick, self.host, self.port,
                      _reason(exc))
            self._schedule_reconnect()
            return
        self._nick = self.preferred_nick
        self._heard = False
        self._last_rx = time.monotonic()
        self._pinged = False
        self.reactor.scheduler.execute_after(
            self.registration_timeout, self._guard(lambda: self._registration_check(gen))
        )
        if self.keepalive:
            self._schedule_keepalive(gen)

    def _schedule_reconnect(self) -> None:
        if self._closed:
            return
        delay = self._backoff
        self._backoff = min(self._backoff * 2, self.reconnect_max_delay)
        log.info("%s: reconnecting in %.1f s", self.preferred_nick, delay)
        gen = self._gen

        def retry() -> None:
            if gen == self._gen and not self._closed and not self._conn.is_connected():
                self._attempt_connect()

        self.reactor.scheduler.execute_after(delay, self._guard(retry))

    def _registration_check(self, gen: int) -> None:
        if gen == self._gen and not self._registered and self._conn.is_connected():
            if self._heard:
                log.error("%s: %s:%s did not accept our registration within %g s", self.preferred_nick,
                          self.host, self.port, self.registration_timeout)
            else:  # e.g. a web server: the operator gave the wrong port
                log.error("%s: %s:%s accepted the connection but did not speak IRC within %g s",
                          self.preferred_nick, self.host, self.port, self.registration_timeout)
            self._conn.disconnect("registration timed out")

    def _not_irc(self, line: str) -> bool:
        """A line no IRC server sends. Before registration the peer is something else (a
        web server on the port the operator gave): say what it answered and retry later, as
        for a peer that says nothing. After it, one such line is dropped."""
        shown = fit_utf8(strip_controls(line), 80)
        if self._registered:
            log.warning("%s: dropped a line from %s:%s that is not IRC: %r", self._nick, self.host, self.port, shown)
            return False
        log.error("%s: %s:%s answered with something that is not IRC (%s)", self.preferred_nick, self.host,
                  self.port, shown)
        self._server_error = "not an IRC server"
        self._conn.disconnect(self._server_error)
        return True

    def _schedule_keepalive(self, gen: int) -> None:
        assert self.keepalive
        self.reactor.scheduler.execute_after(
            self.keepalive / 2, self._guard(lambda: self._keepalive_tick(gen))
        )

    def _keepalive_tick(self, gen: int) -> None:
        if gen != self._gen or self._closed or not self._conn.is_connected():
            return
        assert self.keepalive
        idle = time.monotonic() - self._last_rx
        if idle >= 2 * self.keepalive:
            log.warning("%s: no data for %.1f s, dropping the connection", self._nick, idle)
            self._conn.disconnect("ping timeout")
            return
        if idle >= self.keepalive and not self._pinged and self._registered and self._writable():
            self._pinged = True
            self._conn.ping(self._conn.get_server_name() or self.host)
        self._schedule_keepalive(gen)

    def _finalize(self, message: str) -> None:
        if self._finalized:
            return
        self._finalized = True
        self._closed = True
        self._queue.clear()
        self._control.clear()
        self._replies.clear()
        if self._conn.is_connected():
            self._conn.disconnect(message)
        self.reactor.remove_global_handler("all_events", self._on_event)
        try:
            self._conn.close()  # removes the connection from the reactor
        except ValueError:
            pass
        with self._state:
            self._state.notify_all()

    def _finalize_soon(self, message: str) -> None:
        """Finalize now if that is safe, else at the reactor's next tick. Not safe: inside
        one of our events (the library keeps processing after our handler returns, e.g. it
        answers CAP END after a SASL failure, and would raise on a closed connection), or
        from a thread other than the one driving the reactor (closing a socket while that
        thread is in select() makes select fail with EBADF)."""
        self._closed = True
        other_thread = self._loop_thread not in (None, threading.get_ident())
        if self._depth or other_thread:
            self.reactor.scheduler.execute_after(0, self._guard(lambda: self._finalize(message)))
        else:
            self._finalize(message)

    def _fail(self, error: IrcLinkError) -> None:
        log.error("%s: %s", self.preferred_nick, error)
        self.failure = error
        self._closed = True
        with self._state:
            self._state.notify_all()
        self._call(self.on_error, error)
        self._finalize_soon(str(error))

    def _become_ready(self) -> None:
        if self._ready or not self._registered or self._pending_caps or self._pending_joins:
            return
        self._ready = True
        with self._state:
            self._state.notify_all()
        self._call(self.on_ready)

    # -- incoming events -------------------------------------------------------------------

    def _on_event(self, connection: Any, event: irc.client.Event) -> None:
        if connection is not self._conn:
            return
        self._loop_thread = threading.get_ident()
        self._depth += 1
        try:
            self._dispatch(event)
        finally:
            self._depth -= 1

    def _dispatch(self, event: irc.client.Event) -> None:
        kind = event.type
        if kind == "all_raw_messages":
            self._heard = True
            self._last_rx = time.monotonic()
            self._pinged = False
            self._quick_ack()
            if event.arguments:
                self._on_raw_line(event.arguments[0])
            return
        if kind in _MESSAGE_EVENTS:
            return  # delivered from the raw line
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(self, event)
        elif kind in _JOIN_ERRORS:
            self._on_join_error(event)
        elif kind in _NICK_TAKEN:
            self._on_nick_taken(event)
        elif kind in _SASL_FAILURES and self.sasl_account:
            self._on_sasl_failed(event)

    def _quick_ack(self) -> None:
        """Acknowledge what we read at once. Servers (ngircd, miniircd) write without
        TCP_NODELAY, so a second line sent right after a first waits for our ACK, which
        Linux delays by up to 40 ms: measured, 0.7 s of a 0.8 s ten-player game. The
        option resets itself after use, hence on every read."""
        if _QUICKACK is not None and self._conn.socket is not None:
            try:
                self._conn.socket.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                pass

    def _on_raw_line(self, line: str) -> None:
        """Track accounts and deliver messages from the line as the server sent it. The
        library's parsed message events have lost what we must pass on: it dequotes CTCP
        (``\\x01...\\x01``, ``\\x10`` escapes) and splits it off as separate events. This
        runs before the library's events for the same line (quit, nick, join...)."""
        match = _LINE_RE.match(line)
        prefix = match.group("prefix") if match else None
        if match is None or not prefix or "!" not in prefix:
            return  # from a server: no user, no account, not a message
        mask = irc.client.NickMask(prefix)
        nick = mask.nick
        command = match.group("command").upper()
        params = irc.message.Arguments.from_group(match.group("params"))
        tags = {t["key"]: t["value"] for t in irc.message.Tag.from_group(match.group("tags")) or ()}
        self._track_account(nick, command, params, tags)
        self._track_host(nick, mask.host, command, params)
        if command in ("PRIVMSG", "NOTICE") and len(params) >= 2:
            self._on_message(nick, params[0], params[1])

    def _track_account(self, nick: str, command: str, params: list[str], tags: dict[str, str | None]) -> None:
        folded = self.fold(nick)
        if command == "QUIT":
            self._accounts.pop(folded, None)
            return
        if command == "NICK" and params:
            account = self._accounts.pop(folded, None)
            folded = self.fold(params[0])
            if account is not None:
                self._accounts[folded] = account
        if command == "ACCOUNT" and params:  # account-notify: logged in, or out ("*")
            account = params[0]
        elif command == "JOIN" and len(params) >= 2 and "extended-join" in self._caps:
            account = params[1]  # JOIN #channel account|* :realname
        elif self.accounts_enabled:
            account = tags.get("account")  # absent: not logged in
        else:
            return
        if account and account != "*":
            self._accounts[folded] = account
        else:
            self._accounts.pop(folded, None)

    def _track_host(self, nick: str, host: str | None, command: str, params: list[str]) -> None:
        folded = self.fold(nick)
        self._hosts.pop(folded, None)
        if command == "QUIT" or not host:
            return
        if command == "NICK" and params:
            folded = self.fold(params[0])
        self._hosts[folded] = host
        while len(self._hosts) > MAX_HOSTS:
            self._hosts.popitem(last=False)

    def _on_message(self, nick: str, target: str, text: str) -> None:
        if self._closed or not self._registered or not text:
            return
        if self.fold(nick) == self.fold(self.services_nick):
            log.info("%s: %s: %s", self._nick, nick, strip_controls(text))
            return  # services answer the link (REGAIN...), never the link's owner
        self._call(self.on_message, nick, target, text)

    def _on_cap(self, event: irc.client.Event) -> None:
        """``CAP * ACK|NAK :name`` answering one of our requests (one name per request)."""
        if not event.arguments or event.arguments[0].upper() not in ("ACK", "NAK"):
            return
        acked = event.arguments[0].upper() == "ACK"
        for name in " ".join(event.arguments[1:]).split():
            name = name.lstrip("-~=")
            if name in self._pending_caps:
                self._pending_caps.discard(name)
                if acked:
                    self._caps.add(name)
        self._become_ready()

    def _on_unknown_command(self, event: irc.client.Event) -> None:
        """A server without capability negotiation answers ``CAP`` with 421 (or 410):
        nothing more will come, so stop waiting for it."""
        if event.type == "invalidcapcmd" or (event.arguments and event.arguments[0].upper() == "CAP"):
            self._pending_caps.clear()
            self._become_ready()

    def _on_welcome(self, event: irc.client.Event) -> None:
        self._nick = event.target or self._conn.get_nickname()
        if self.sasl_account and not self._sasl_ok:
            if self.failure is None:
                self._fail(SaslFailed("registered without completing SASL"))
            return
        self._registered = True
        self._backoff = self.reconnect_delay
        log.info("%s: registered on %s:%s", self._nick, self.host, self.port)
        self._pending_joins = set(self._channels)
        for folded in reversed(list(self._channels)):
            self._queue.appendleft(("RAW", self._join_line(folded)))
        if self.account_tags:
            # Before the joins: the server handles our lines in order, so everything it
            # relays from the channels already carries accounts. After registration
            # rather than during it, to stay out of the library's SASL negotiation.
            self._pending_caps = set(ACCOUNT_CAPS)
            for cap in reversed(ACCOUNT_CAPS):
                self._queue.appendleft(("RAW", f"CAP REQ :{cap}"))
        if self._pending_joins or self._pending_caps:
            gen = self._gen
            self.reactor.scheduler.execute_after(
                self.join_timeout, self._guard(lambda: self._join_deadline(gen))
            )
        else:
            self._become_ready()
        self._nick_ok = None  # report the nick after every registration
        self._nick_changed()
        self._drain()

    def _join_deadline(self, gen: int) -> None:
        if gen == self._gen and self._registered and not self._ready:
            log.warning(
                "%s: not confirmed: joins %s, capabilities %s",
                self._nick, sorted(self._pending_joins), sorted(self._pending_caps),
            )
            self._pending_joins.clear()
            self._pending_caps.clear()
            self._become_ready()

    # -- our nick --------------------------------------------------------------------------

    def _nick_changed(self) -> None:
        """Report a gain or loss of the preferred nick; start regaining it if lost."""
        ok = self.has_preferred_nick
        if ok != self._nick_ok:
            self._nick_ok = ok
            if not ok:
                log.warning("%s: running as %s, not as %s", self.preferred_nick, self._nick, self.preferred_nick)
            self._call(self.on_nick_state, ok, self._nick)
        if not ok and self.regain:
            self._try_regain(services=True)
            self._schedule_regain(self._gen)

    def _schedule_regain(self, gen: int) -> None:
        """One retry loop per connection, ending once the nick is ours."""
        if self._regain_gen == gen:
            return
        self._regain_gen = gen

        def tick() -> None:
            if gen != self._gen or self._closed or self.has_preferred_nick:
                if self._regain_gen == gen:
                    self._regain_gen = None
                return
            self._try_regain(services=True)
            self.reactor.scheduler.execute_after(self.regain_interval, self._guard(tick))

        self.reactor.scheduler.execute_after(self.regain_interval, self._guard(tick))

    def _try_regain(self, *, services: bool) -> None:
        """Ask for the preferred nick (ahead of queued lines): ``NICK``, and when logged
        in by SASL also services' ``REGAIN``, which frees the nick if another holds it."""
        if self._closed or not self._registered or self.has_preferred_nick:
            return
        if services and self._sasl_ok:
            self._queue.appendleft(("RAW", f"PRIVMSG {self.services_nick} :REGAIN {self.preferred_nick}"))
        self._queue.appendleft(("RAW", f"NICK {self.preferred_nick}"))
        self._drain()

    def _on_disconnect(self, event: irc.client.Event) -> None:
        reason = self._server_error or (event.arguments[0] if event.arguments else "")
        self._gen += 1
        self._registered = self._ready = False
        self._pending_joins.clear()
        self._pending_caps.clear()
        self._caps.clear()
        self._members.clear()
        self._topics.clear()
        self._accounts.clear()
        self._control.clear()  # registering again joins the channels we keep
        self._nick_ok = None
        self._drain_due = None
        log.info("%s: disconnected (%s)", self._nick, reason)
        with self._state:
            self._state.notify_all()
        self._call(self.on_disconnect, reason)
        if not self._closed:
            self._schedule_reconnect()

    def _on_error_line(self, event: irc.client.Event) -> None:
        self._server_error = event.target or (event.arguments[0] if event.arguments else "")

    def _on_nick_taken(self, event: irc.client.Event) -> None:
        if self._registered:
            log.info("%s: nick change refused: %s", self._nick, event.arguments)
            return
        self._nick_attempt += 1
        if self._nick_attempt > self.max_nick_attempts:
            self._fail(NickRejected(f"no free variant of {self.preferred_nick!r}"))
            return
        base = self.preferred_nick
        candidate = base + "_" if self._nick_attempt == 1 else f"{base}{self._nick_attempt - 1}"
        log.info("%s: nick in use, trying %s", base, candidate)
        self._nick = candidate
        self._conn.nick(candidate)

    def _on_bad_nick(self, event: irc.client.Event) -> None:
        if not self._registered:
            self._fail(NickRejected(f"server refused nick {self._nick!r}: {event.arguments}"))

    def _on_sasl_ok(self, event: irc.client.Event) -> None:
        self._sasl_ok = True

    def _on_sasl_failed(self, event: irc.client.Event) -> None:
        if not self._registered and self.failure is None:
            # The library builds its login_failed events with the reason in ``target``.
            parts = event.arguments or (event.target if isinstance(event.target, list) else [])
            detail = " ".join(str(a) for a in parts) or event.type
            self._fail(SaslFailed(f"SASL login as {self.sasl_account!r} failed: {detail}"))

    def _on_join_error(self, event: irc.client.Event) -> None:
        channel = event.arguments[0] if event.arguments else ""
        folded = self.fold(channel)
        if folded not in self._pending_joins:
            return  # e.g. 403 answering a PART or a PRIVMSG
        self._pending_joins.discard(folded)
        self._channels.pop(folded, None)
        reason = event.arguments[-1] if len(event.arguments) > 1 else event.type
        error = JoinFailed(channel, reason)
        log.warning("%s: %s", self._nick, error)
        self._call(self.on_error, error)
        if not self._pending_joins:
            self._become_ready()

    def _on_namreply(self, event: irc.client.Event) -> None:
        # arguments: [symbol, channel, "nick @op +voice ..."]
        if len(event.arguments) < 3:
            return
        members = self._members.get(self.fold(event.arguments[1]))
        if members is None:
            return
        prefixes = "".join(getattr(self._conn.features, "prefix", {"@": "o", "+": "v"}))
        for entry in event.arguments[2].split():
            name = entry.lstrip(prefixes)
            if name:
                members[self.fold(name)] = name
                if self.is_me(name) and "@" in entry[:len(entry) - len(name)]:
                    self._opped(event.arguments[1])

    def _on_endofnames(self, event: irc.client.Event) -> None:
        # A join counts as done once NAMES is complete, so on_ready sees full members().
        folded = self.fold(event.arguments[0] if event.arguments else "")
        if folded in self._pending_joins and folded in self._members:
            self._pending_joins.discard(folded)
            if not self._pending_joins:
                self._become_ready()

    def _on_topic(self, event: irc.client.Event) -> None:
        if event.type == "currenttopic":  # 332 on joining: channel, topic
            channel, text = (list(event.arguments) + ["", ""])[:2]
        else:  # someone set it: TOPIC channel :text
            channel, text = event.target or "", (event.arguments[0] if event.arguments else "")
        self._topics[self.fold(channel)] = text
        self._call(self.on_topic, channel, text)

    def _on_mode(self, event: irc.client.Event) -> None:
        """``MODE #channel +o ournick`` (among other modes): we are an operator there now."""
        channel = event.target or ""
        if channel[:1] not in "#&" or not event.arguments:
            return
        try:
            changes = irc.modes.parse_channel_modes(" ".join(event.arguments))
        except (IndexError, ValueError):
            return
        if any(sign == "+" and mode == "o" and param and self.is_me(param) for sign, mode, param in changes):
            self._opped(channel)

    def _opped(self, channel: str) -> None:
        if any(self.fold(c) == self.fold(channel) for c in self._topic_lock):  # (folded as the server says now)
            self.mode(channel, "+t")

    def topic_of(self, channel: str) -> str | None:
        """The topic of a channel we are in, as last seen (None: unknown or none)."""
        with self.reactor.mutex:
            return self._topics.get(self.fold(channel))

    def _on_featurelist(self, event: irc.client.Event) -> None:
        # CASEMAPPING may have changed how names fold: re-key what we keep by folded name.
        old = self._channels
        self._channels = {self.fold(c): c for c in old.values()}
        self._keys = {self.fold(old.get(k, k)): v for k, v in self._keys.items()}
        self._pending_joins = {self.fold(old.get(k, k)) for k in self._pending_joins}

    def _on_join(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        channel = event.target or (event.arguments[0] if event.arguments else "")
        folded = self.fold(channel)
        if self.is_me(nick):
            self._members[folded] = {}  # filled by the NAMES reply that follows
        self._members.setdefault(folded, {})[self.fold(nick)] = nick
        self._membership("join", nick, channel, None)

    def _on_part(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        self._left(nick, event.target)
        self._membership("part", nick, event.target, None)

    def _on_kick(self, event: irc.client.Event) -> None:
        nick = event.arguments[0] if event.arguments else ""
        if self.is_me(nick):
            # Kicked: an operator removed us; do not fight it by re-joining.
            self._channels.pop(self.fold(event.target), None)
            log.warning("%s: kicked from %s: %s", self._nick, event.target, event.arguments[1:])
        self._left(nick, event.target)
        self._membership("kick", nick, event.target, None)

    def _left(self, nick: str, channel: str) -> None:
        folded = self.fold(channel)
        if self.is_me(nick):
            self._members.pop(folded, None)
        elif folded in self._members:
            self._members[folded].pop(self.fold(nick), None)
            if not any(self.fold(nick) in members for members in self._members.values()):
                self._accounts.pop(self.fold(nick), None)  # out of sight: no longer known

    def _on_quit(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        for members in self._members.values():
            members.pop(self.fold(nick), None)
        self._membership("quit", nick, None, None)
        self._holder_left(nick)

    def _on_nick(self, event: irc.client.Event) -> None:
        old = irc.client.NickMask(event.source).nick
        new = event.target
        mine = self.is_me(old)
        if mine:
            self._nick = new
        for members in self._members.values():
            if members.pop(self.fold(old), None) is not None:
                members[self.fold(new)] = new
        self._membership("nick", old, None, new)
        if mine:
            self._nick_changed()
        else:
            self._holder_left(old)

    def _holder_left(self, nick: str) -> None:
        """Whoever held our preferred nick quit or took another: take it at once."""
        if self.regain and self.fold(nick) == self.fold(self.preferred_nick):
            self._try_regain(services=False)

    def _membership(self, kind: MembershipKind, nick: str, channel: str | None, new: str | None) -> None:
        self._call(self.on_membership, kind, nick, channel, new)

    _handlers: dict[str, Callable[[IrcLink, irc.client.Event], None]] = {
        "welcome": _on_welcome,
        "disconnect": _on_disconnect,
        "error": _on_error_line,
        "erroneusnickname": _on_bad_nick,
        "saslsuccess": _on_sasl_ok,
        "login_failed": _on_sasl_failed,
        "namreply": _on_namreply,
        "featurelist": _on_featurelist,
        "endofnames": _on_endofnames,
        "currenttopic": _on_topic,
        "topic": _on_topic,
        "mode": _on_mode,
        "join": _on_join,
        "part": _on_part,
        "kick": _on_kick,
        "quit": _on_quit,
        "nick": _on_nick,
        "cap": _on_cap,
        "unknowncommand": _on_unknown_command,
        "invalidcapcmd": _on_unknown_command,
    }

    # -- plumbing --------------------------------------------------------------------------

    def _call(self, callback: Callable[..., Any] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            log.exception("%s: callback %r raised", self._nick, callback)

    def _guard(self, fn: Callable[[], Any]) -> Callable[[], None]:
        """Wrap a scheduled command: the scheduler keeps (and re-runs forever) a command
        that raised, so nothing scheduled may raise."""

        def run() -> None:
            try:
                fn()
            except Exception:
                log.exception("%s: scheduled command failed", self._nick)

        return run

    def __repr__(self) -> str:
        state = "closed" if self._closed else "ready" if self._ready else "connecting"
        return f"<IrcLink {self._nick} {self.host}:{self.port} {state}>"


# -- driving a reactor -------------------------------------------------------------------


class ReactorThread:
    """Drive one reactor (and so every link on it) from one daemon thread.

    ``tick`` bounds the select() wait, hence the latency of scheduled work (rate-limited
    lines, ``call``) queued from other threads; 0.05 s costs ~20 idle wake-ups per second.
    Use as a context manager, or ``start()``/``stop()``.
    """

    def __init__(
        self, reactor: irc.client.Reactor | None = None, *, tick: float = 0.05, name: str = "irc-reactor"
    ) -> None:
        self.reactor = reactor if reactor is not None else irc.client.Reactor()
        self.tick = tick
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> ReactorThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop and join the thread. Close links first: their close completes at
        the next tick, which this runs once more after the loop has ended."""
        self._stop.set()
        if threading.current_thread() is self._thread:
            return
        if self._thread.is_alive():
            self._thread.join(timeout)
        if not self._thread.is_alive():
            try:
                self.reactor.process_timeout()  # due work, e.g. a deferred close
            except Exception:
                log.exception("irc reactor: scheduled work failed at stop")

    @property
    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def call(self, fn: Callable[..., _T], *args: Any) -> Future[_T]:
        """Run ``fn(*args)`` in the reactor thread at its next tick; the Future carries the
        result or exception. For code that is not already thread-safe."""
        future: Future[_T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # delivered to the caller, never to the scheduler
                future.set_exception(exc)

        with self.reactor.mutex:
            self.reactor.scheduler.execute_after(0, run)
        return future

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.reactor.process_once(self.tick)
            except OSError as exc:
                if exc.errno != errno.EBADF:
                    log.exception("irc reactor loop error")
                    self._stop.wait(self.tick)
                # EBADF: a socket was closed by another thread while we were in select()
                # (the library's own race); the next turn takes a fresh socket list.
            except Exception:
                log.exception("irc reactor loop error")
                self._stop.wait(self.tick)

    def __enter__(self) -> ReactorThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_in_thread(reactor: irc.client.Reactor | None = None, *, tick: float = 0.05) -> ReactorThread:
    """Start and return a ``ReactorThread`` for ``reactor`` (a new one if None)."""
    return ReactorThread(reactor, tick=tick).start()
