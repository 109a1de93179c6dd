"""What comes in on a link's connection: the irc library's events, dispatched to the link's
parts (connection, outbox, roster, nick keeper) and told to the link's owner.

Messages are delivered from the raw line, as the server relayed it: the library's parsed
forms dequote CTCP and split it off as separate events, hiding what the receiver must see
to refuse it. ``Inbox`` also decides when the link is ready: registered, with its channels
joined (member lists loaded) and the capabilities it asked for answered.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import irc.client
import irc.message
import irc.modes

from .connection import Connection, Guard
from .nick import NickKeeper
from .outbox import Outbox
from .roster import Channels, Roster
from .settings import IrcLinkError, JoinFailed, SaslFailed
from .text import LINE_RE, strip_controls

if TYPE_CHECKING:
    from .link import IrcLink

log = logging.getLogger("arena.irc.link")

MembershipKind = Literal["join", "part", "quit", "split", "kick", "nick"]

NETSPLIT = re.compile(r"[\w-]+(\.[\w-]+)+ [\w-]+(\.[\w-]+)+\Z")
"""The reason of a quit that a netsplit caused: the two servers' names (a client cannot give
a quit reason of this form: servers prefix theirs with ``Quit:``, or replace it)."""

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
    "privmsg",
    "pubmsg",
    "privnotice",
    "pubnotice",
    "ctcp",
    "ctcpreply",
    "action",
}


class Inbox:
    """The incoming half of ``link``. ``emit(callback, *args)`` runs one of the owner's
    callbacks (logging what it raises); ``fail`` ends the link with a fatal error;
    ``wake`` tells those waiting on the link (``wait_ready``) that its state changed."""

    def __init__(
        self,
        link: IrcLink,
        *,
        emit: Callable[..., None],
        fail: Callable[[IrcLinkError], None],
        wake: Callable[[], None],
        guard: Guard,
    ) -> None:
        self.link = link
        self.settings = link.settings
        self.connection: Connection = link.connection
        self.outbox: Outbox = link.outbox
        self.nicks: NickKeeper = link.nicks
        self.roster: Roster = link.roster
        self.channels: Channels = link.channels_kept
        self.fold = link.fold
        self._topic_lock = list(self.settings.topic_lock)
        self._emit = emit
        self._fail = fail
        self._wake = wake
        self._guard = guard
        self.ready = False
        """Registered and channels joined; False while disconnected."""
        self.depth = 0
        """> 0 while one of our events is being dispatched."""
        self.loop_thread: int | None = None
        """The thread seen dispatching our events."""

    def dialled(self) -> None:
        self.ready = False
        self.nicks.dialled()

    def become_ready(self) -> None:
        if self.ready or not self.connection.registered or self.roster.pending_caps or self.channels.pending:
            return
        self.ready = True
        self._wake()
        self._emit(self.link.on_ready)

    # -- incoming events -------------------------------------------------------------------

    def on_event(self, connection: Any, event: irc.client.Event) -> None:
        if connection is not self.connection.conn:
            return
        self.loop_thread = threading.get_ident()
        self.depth += 1
        try:
            self._dispatch(event)
        finally:
            self.depth -= 1

    def _dispatch(self, event: irc.client.Event) -> None:
        kind = event.type
        if kind == "all_raw_messages":
            self.connection.heard()
            if event.arguments:
                self._on_raw_line(event.arguments[0])
            return
        if kind in _MESSAGE_EVENTS:
            return  # delivered from the raw line
        handler = _HANDLERS.get(kind)
        if handler is not None:
            handler(self, event)
        elif kind in _JOIN_ERRORS:
            self._on_join_error(event)
        elif kind in _NICK_TAKEN:
            self.nicks.taken(event)
        elif kind in _SASL_FAILURES and self.settings.sasl_account:
            self._on_sasl_failed(event)

    def _on_raw_line(self, line: str) -> None:
        """Track accounts and deliver messages from the line as the server sent it. The
        library's parsed message events have lost what we must pass on: it dequotes CTCP
        (``\\x01...\\x01``, ``\\x10`` escapes) and splits it off as separate events. This
        runs before the library's events for the same line (quit, nick, join...)."""
        match = LINE_RE.match(line)
        prefix = match.group("prefix") if match else None
        if match is None or not prefix or "!" not in prefix:
            return  # from a server: no user, no account, not a message
        mask = irc.client.NickMask(prefix)
        command = match.group("command").upper()
        params = irc.message.Arguments.from_group(match.group("params"))
        tags = {t["key"]: t["value"] for t in irc.message.Tag.from_group(match.group("tags")) or ()}
        self.roster.track(mask.nick, mask.host, command, params, tags)
        if command in ("PRIVMSG", "NOTICE") and len(params) >= 2:
            self._on_message(mask.nick, params[0], params[1])

    def _on_message(self, nick: str, target: str, text: str) -> None:
        if self.connection.closed or not self.connection.registered or not text:
            return
        if self.fold(nick) == self.fold(self.settings.services_nick):
            log.info("%s: %s: %s", self.nicks.current, nick, strip_controls(text))
            return  # services answer the link (REGAIN...), never the link's owner
        self._emit(self.link.on_message, nick, target, text)

    def _on_cap(self, event: irc.client.Event) -> None:
        self.roster.caps_answered(event.arguments)
        self.become_ready()

    def _on_unknown_command(self, event: irc.client.Event) -> None:
        """A server without capability negotiation answers ``CAP`` with 421 (or 410):
        nothing more will come, so stop waiting for it."""
        if event.type == "invalidcapcmd" or (event.arguments and event.arguments[0].upper() == "CAP"):
            self.roster.pending_caps.clear()
            self.become_ready()

    def _on_welcome(self, event: irc.client.Event) -> None:
        self.nicks.welcomed(event.target or self.connection.conn.get_nickname())
        if self.settings.sasl_account and not self.connection.sasl_ok:
            if self.link.failure is None:
                self._fail(SaslFailed("registered without completing SASL"))
            return
        self.connection.welcomed()
        # Capabilities before the joins: the server handles our lines in order, so
        # everything it relays from the channels already carries accounts. After
        # registration rather than during it, to stay out of the library's SASL negotiation.
        caps = self.roster.request_caps() if self.settings.account_tags else []
        self.outbox.first(*caps, *self.channels.join_all())
        if self.channels.pending or self.roster.pending_caps:
            gen = self.connection.gen
            self.connection.reactor.scheduler.execute_after(
                self.settings.join_timeout, self._guard(lambda: self._join_deadline(gen))
            )
        else:
            self.become_ready()
        self.nicks.report_anew()  # after every registration
        self.nicks.changed()
        self.outbox.drain()

    def _join_deadline(self, gen: int) -> None:
        if gen == self.connection.gen and self.connection.registered and not self.ready:
            log.warning(
                "%s: not confirmed: joins %s, capabilities %s",
                self.nicks.current,
                sorted(self.channels.pending),
                sorted(self.roster.pending_caps),
            )
            self.channels.pending.clear()
            self.roster.pending_caps.clear()
            self.become_ready()

    def _on_disconnect(self, event: irc.client.Event) -> None:
        reason = self.connection.dropped(event)
        self.ready = False
        self.channels.pending.clear()
        self.roster.clear()
        self.outbox.lost()
        self.nicks.report_anew()
        log.info("%s: disconnected (%s)", self.nicks.current, reason)
        self._wake()
        self._emit(self.link.on_disconnect, reason)
        self.connection.redial()

    def _on_sasl_ok(self, event: irc.client.Event) -> None:
        self.connection.sasl_ok = True

    def _on_sasl_failed(self, event: irc.client.Event) -> None:
        if not self.connection.registered and self.link.failure is None:
            # The library builds its login_failed events with the reason in ``target``.
            parts = event.arguments or (event.target if isinstance(event.target, list) else [])
            detail = " ".join(str(a) for a in parts) or event.type
            self._fail(SaslFailed(f"SASL login as {self.settings.sasl_account!r} failed: {detail}"))

    def _on_join_error(self, event: irc.client.Event) -> None:
        channel = event.arguments[0] if event.arguments else ""
        if self.fold(channel) not in self.channels.pending:
            return  # e.g. 403 answering a PART or a PRIVMSG
        self.channels.pending.discard(self.fold(channel))
        self.channels.wanted.pop(self.fold(channel), None)
        error = JoinFailed(channel, event.arguments[-1] if len(event.arguments) > 1 else event.type)
        log.warning("%s: %s", self.nicks.current, error)
        self._emit(self.link.on_error, error)
        if not self.channels.pending:
            self.become_ready()

    def _on_namreply(self, event: irc.client.Event) -> None:
        # arguments: [symbol, channel, "nick @op +voice ..."]
        if len(event.arguments) < 3:
            return
        prefixes = "".join(getattr(self.connection.conn.features, "prefix", {"@": "o", "+": "v"}))
        if any(self.nicks.is_me(name) for name in self.roster.names(event.arguments[1], event.arguments[2], prefixes)):
            self._opped(event.arguments[1])

    def _on_endofnames(self, event: irc.client.Event) -> None:
        if self.channels.confirmed(event.arguments[0] if event.arguments else "", self.roster.members):
            self.become_ready()

    def _on_topic(self, event: irc.client.Event) -> None:
        if event.type == "currenttopic":  # 332 on joining: channel, topic
            channel, text = (list(event.arguments) + ["", ""])[:2]
        else:  # someone set it: TOPIC channel :text
            channel, text = event.target or "", (event.arguments[0] if event.arguments else "")
        self.roster.topic(channel, text)
        self._emit(self.link.on_topic, channel, text)

    def _on_mode(self, event: irc.client.Event) -> None:
        """``MODE #channel +o ournick`` (among other modes): we are an operator there now."""
        channel = event.target or ""
        if channel[:1] not in "#&" or not event.arguments:
            return
        try:
            changes = irc.modes.parse_channel_modes(" ".join(event.arguments))
        except (IndexError, ValueError):
            return
        if any(sign == "+" and mode == "o" and param and self.nicks.is_me(param) for sign, mode, param in changes):
            self._opped(channel)

    def _opped(self, channel: str) -> None:
        if any(self.fold(c) == self.fold(channel) for c in self._topic_lock):  # folded as the server says now
            self.link.mode(channel, "+t")

    def _on_join(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        channel = event.target or (event.arguments[0] if event.arguments else "")
        self.roster.joined(nick, channel, self.nicks.is_me(nick))
        self._membership("join", nick, channel, None)

    def _on_part(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        self.roster.left(nick, event.target, self.nicks.is_me(nick))
        self._membership("part", nick, event.target, None)

    def _on_kick(self, event: irc.client.Event) -> None:
        nick = event.arguments[0] if event.arguments else ""
        me = self.nicks.is_me(nick)
        if me:
            # Kicked: an operator removed us; do not fight it by re-joining.
            self.channels.wanted.pop(self.fold(event.target), None)
            log.warning("%s: kicked from %s: %s", self.nicks.current, event.target, event.arguments[1:])
        self.roster.left(nick, event.target, me)
        self._membership("kick", nick, event.target, None)

    def _on_quit(self, event: irc.client.Event) -> None:
        nick = irc.client.NickMask(event.source).nick
        self.roster.quit(nick)
        reason = event.arguments[0] if event.arguments else ""
        self._membership("split" if NETSPLIT.match(reason) else "quit", nick, None, None)
        self.nicks.holder_left(nick)

    def _on_nick(self, event: irc.client.Event) -> None:
        old = irc.client.NickMask(event.source).nick
        new = event.target
        mine = self.nicks.is_me(old)
        if mine:
            self.nicks.current = new
        self.roster.renamed(old, new)
        self._membership("nick", old, None, new)
        if mine:
            self.nicks.changed()
        else:
            self.nicks.holder_left(old)

    def _membership(self, kind: MembershipKind, nick: str, channel: str | None, new: str | None) -> None:
        self._emit(self.link.on_membership, kind, nick, channel, new)


_HANDLERS: dict[str, Callable[[Inbox, irc.client.Event], None]] = {
    "welcome": Inbox._on_welcome,
    "disconnect": Inbox._on_disconnect,
    "error": lambda inbox, event: inbox.connection.error_line(event),
    "erroneusnickname": lambda inbox, event: inbox.nicks.refused(event),
    "saslsuccess": Inbox._on_sasl_ok,
    "login_failed": Inbox._on_sasl_failed,
    "namreply": Inbox._on_namreply,
    "featurelist": lambda inbox, event: inbox.channels.refold(),
    "endofnames": Inbox._on_endofnames,
    "currenttopic": Inbox._on_topic,
    "topic": Inbox._on_topic,
    "mode": Inbox._on_mode,
    "join": Inbox._on_join,
    "part": Inbox._on_part,
    "kick": Inbox._on_kick,
    "quit": Inbox._on_quit,
    "nick": Inbox._on_nick,
    "cap": Inbox._on_cap,
    "unknowncommand": Inbox._on_unknown_command,
    "invalidcapcmd": Inbox._on_unknown_command,
}
