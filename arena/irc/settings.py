"""How an ``IrcLink`` behaves, in one record (its callers pass it whole instead of thirty
keywords, and each part of the link reads what is its own), and the errors a link reports."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from collections.abc import Sequence


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


@dataclass(frozen=True)
class LinkSettings:
    """Everything of a link but its address, nick, channels and callbacks; the defaults suit
    a bot on a public network.

    ``tls``: True for a default verifying context, or an ``ssl.SSLContext`` of your own.
    ``password``: the server password (PASS); cannot be combined with SASL because the irc
    library uses one password field for both.
    ``lines_per_second``: token-bucket rate of outgoing lines (0 or None: unlimited, for
    loopback tests); ``burst``: bucket size, i.e. lines sent back to back after a quiet spell.
    ``paced_joins``: whether JOIN and PART lines spend that bucket too (False: they go out at
    once, for a spectator whose rate paces what people read, not what it joins: joining a
    game's channel one line a second behind its table would miss the game).
    ``max_replies``: how many lines ``reply`` keeps waiting; more are dropped.
    ``max_targets``: how many nicks one PRIVMSG of ``send_many`` may name when the server
    does not say (ISUPPORT ``TARGMAX`` or ``MAXTARGETS``); 1 is always safe.
    ``reconnect_delay``: the first wait before dialling again; later waits grow
    exponentially, with jitter, up to ``reconnect_max_delay`` (jaraco's
    ``ExponentialBackoff``), and start over once registered.
    ``keepalive``: after this many silent seconds we PING; after twice as many we drop the
    connection and reconnect (catches half-open TCP). None disables it.
    ``registration_timeout``: give up on a registration (welcome not received) after this
    many seconds; ``join_timeout``: become ready anyway if channel joins are neither
    confirmed nor refused by then; ``max_nick_attempts``: nick variants to try.
    ``account_tags``: after registration, request the IRCv3 capabilities that carry services
    accounts (each where offered), so ``account_of`` knows who is logged in; the link
    becomes ready only once the server has answered.
    ``regain``: work to get the preferred nick back after registering under a fallback (see
    ``IrcLink``), retrying every ``regain_interval`` seconds.
    ``services_nick``: the nick services answer from; its messages are not delivered.
    ``topic_lock``: channels whose topic only operators may set: whenever we hold operator
    status there (we created the channel, or someone gave it to us) we set mode ``+t``, so
    that nobody else can rewrite a topic that others rely on.
    """

    username: str | None = None
    realname: str | None = None
    tls: bool | ssl.SSLContext = False
    password: str | None = None
    sasl_account: str | None = None
    sasl_password: str | None = None
    lines_per_second: float | None = 2.0
    burst: int = 5
    paced_joins: bool = True
    max_replies: int = 50
    max_targets: int = 1
    reconnect_delay: float = 1.0
    reconnect_max_delay: float = 60.0
    keepalive: float | None = 60.0
    connect_timeout: float = 10.0
    registration_timeout: float = 30.0
    join_timeout: float = 10.0
    max_nick_attempts: int = 20
    topic_lock: Sequence[str] = ()
    account_tags: bool = False
    regain: bool = False
    regain_interval: float = 30.0
    services_nick: str = "NickServ"

    def __post_init__(self) -> None:
        if self.sasl_account is not None and self.sasl_password is None:
            raise ValueError("sasl_account needs sasl_password")
        if self.sasl_account is not None and self.password is not None:
            raise ValueError("a server password and SASL cannot be combined")
        if self.burst < 1:
            raise ValueError("burst must be at least 1")
        if self.max_replies < 1:
            raise ValueError("max_replies must be at least 1")
        if self.max_targets < 1:
            raise ValueError("max_targets must be at least 1")
        if self.regain_interval <= 0:
            raise ValueError("regain_interval must be positive")
        if not 0 <= self.reconnect_delay <= self.reconnect_max_delay:
            raise ValueError("reconnect_delay must be between 0 and reconnect_max_delay")
