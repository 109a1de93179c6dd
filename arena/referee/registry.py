"""Who is who: the bots registered with a referee, the connection that plays each now, and
the commands that change it (``REGISTER``, ``PROOF``, ``UNREGISTER``; ``WHO`` lists them).

A bot is an identity (its ratings, seats and history belong to it); a connection plays it
once it has proven it (``Identities``). One connection plays one bot and a bot is played by
one connection: a seat's private lines follow the connection that plays its bot now, and a
connection that comes back is told again what its seats were told.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any, Protocol

from ..core.errors import ErrorCode
from ..games import RESERVED_NICKS
from ..protocol import (
    BUNDLES_SINCE,
    BYE,
    CHALLENGE,
    PROTOCOL_VERSIONS,
    REGISTERED,
    SCRAM,
    WELCOME,
    Message,
    ProtocolError,
    pack_scram,
    shown,
    unpack_scram,
    valid_nick,
)
from .identity import AuthError, Challenge, Identities, Proof
from .running import Running
from .pause import STORE_DOWN, failure, unwritable
from .rejoin import Rejoins

log = logging.getLogger(__name__)

MAX_LABEL = 64
"""Longest ``owner=`` or ``version=`` a bot may give: both are stored and shown."""


@dataclass
class BotInfo:
    """A registered bot and the connection that plays it now."""

    name: str
    """The identity: ratings, seats and history belong to it."""
    nick: str
    """Where the connection that registered it is now (follows nick changes)."""
    owner: str
    version: str
    account: str | None = None
    """The services account that proved it, if one did: every line of it must come from
    that account."""
    protocol: int = 1
    """The protocol it registered with: a game bundles lines only when all its bots speak 2."""
    token: str | None = None
    """Its registration in a lobby shared with other referees (``Sharing``)."""


class Sharing(Protocol):
    """Where the registrations of a lobby shared with other referees are kept (``Shared``):
    told of every one this referee admits, renames or sees end."""

    def admitted(self, info: BotInfo) -> None:
        """``info`` registered here (its ``token`` is set then)."""
        ...

    def renamed(self, info: BotInfo) -> None: ...
    def gone(self, info: BotInfo) -> None: ...
    def lost(self, info: BotInfo) -> None:
        """``info``'s connection is out of this referee's reach (a netsplit): it stays registered."""
        ...

    def referees(self) -> list[str]:
        """The nicks of the lobby's referees now (a ``WELCOME`` names them)."""
        ...


class Registry:
    """The registered bots, by the nick of their connection and by name."""

    def __init__(
        self,
        identities: Identities,
        matches: Running,
        rejoins: Rejoins,
        on_bot: list[Callable[[str, bool], None]],
        tell: Callable[[str, Message, bool], None],
        error: Callable[..., None],
    ) -> None:
        self.identities = identities
        self.matches = matches
        """The referee's games by id (read only): the seats of a bot follow its connection."""
        self.rejoins = rejoins
        self.on_bot = on_bot
        """The referee's callbacks for a connection that starts (True) or stops (False)
        playing a bot."""
        self.tell = tell
        """Answers a nick with a message (``ordered``: in line with the games' lines)."""
        self.error = error
        """Answers a nick with an ``ERROR`` (code, reason, ids)."""
        self.host_of: Callable[[str], str | None] | None = None
        """Set by a transport that knows where connections come from (IRC): a nick's host,
        by which wrong proofs are slowed down beside their connection's."""
        self.bots: dict[str, BotInfo] = {}
        """Registered connections by folded nick."""
        self.by_name: dict[str, BotInfo] = {}
        """The same, by folded bot name: one connection per bot."""
        self.sharing: Sharing | None = None
        """Set in a lobby shared with other referees: what they must know of the bots."""

    def bot_of(self, nick: str, account: str | None = None) -> BotInfo | None:
        """The bot that the connection now on ``nick`` registered as, if it did; a bot
        proven by an account is the sender only when the line comes from that account."""
        info = self.bots.get(nick.lower())
        if info is None or (info.account is not None and (account or "").lower() != info.account.lower()):
            return None
        return info

    def bot_named(self, name: str) -> BotInfo | None:
        return self.by_name.get(name.lower())

    def _bind(self, info: BotInfo) -> None:
        self.bots[info.nick.lower()] = info
        self.by_name[info.name.lower()] = info
        self._route(info.name, info.nick)
        for callback in self.on_bot:
            callback(info.name, True)

    def _unbind(self, info: BotInfo, tell: bool = True) -> None:
        """``info``'s connection plays its bot no more (``tell``: the shared lobby's other
        referees too)."""
        if tell and self.sharing is not None and info.token is not None:
            self.sharing.gone(info)
        if self.bots.get(info.nick.lower()) is info:
            del self.bots[info.nick.lower()]
        if self.by_name.get(info.name.lower()) is info:
            del self.by_name[info.name.lower()]
            self._route(info.name, None)
            for callback in self.on_bot:
                callback(info.name, False)

    def _route(self, name: str, nick: str | None) -> None:
        """Send the private lines of ``name``'s seats to ``nick`` (None: to nobody, until
        the bot registers again: whoever takes its nick meanwhile is not the bot)."""
        for match in self.matches.of(name):
            seat = match.seats.of(name)
            if seat is not None:
                if nick is None:  # its connection is gone: the next one gets a resync of its own
                    self.rejoins.gone(match.gid, seat)
                match.route(seat, nick)

    def rename(self, old: str, new: str) -> bool:
        """A nick change keeps the bot: its connection is the same (and so are its
        registration under way and its wrong proofs). Whether a bot's seats moved."""
        self.identities.rename(old, new)
        info = self.bots.pop(old.lower(), None)
        if info is None:
            return False
        self._move(info, new)
        if self.sharing is not None:
            self.sharing.renamed(info)
        return True

    def _move(self, info: BotInfo, new: str) -> None:
        """``info``'s connection is on nick ``new`` now (no longer in ``bots`` by its old one)."""
        stale = self.bots.pop(new.lower(), None)
        if stale is not None:  # cannot happen on IRC (the nick was free); keep the maps exact
            self._unbind(stale)
        info.nick = new
        self.bots[new.lower()] = info
        self._route(info.name, new)

    def adopt(self, found: BotInfo | None, name: str, now: float) -> None:
        """What another referee of the shared lobby says of bot ``name`` now: ``found``, the
        registration it admitted (this referee plays that connection as the bot from now
        on, and tells it what its seats here were told if it is a new one), or None, no
        registration (the bot plays here no more)."""
        info = self.by_name.get(name.lower())
        if found is None:
            if info is not None:
                self._unbind(info, tell=False)
            return
        if info is not None and info.token == found.token:
            if info.nick.lower() != found.nick.lower():  # (seen renamed elsewhere, out of this referee's sight)
                self.bots.pop(info.nick.lower(), None)
                self._move(info, found.nick)
            return
        if info is not None:
            self._unbind(info, tell=False)
        other = self.bots.get(found.nick.lower())
        if other is not None:
            self._unbind(other, tell=False)
        self._bind(found)
        self._came_back(found, now)

    def leave(self, nick: str, split: bool = False) -> bool:
        """A connection that leaves the server no longer plays its bot. Whether it did.
        ``split``: out of this referee's reach after a netsplit, it stays registered with
        the shared lobby's referees on its side (``Shared.renew`` adopts it here again
        once it is back)."""
        self.identities.leave(nick)
        info = self.bots.get(nick.lower())
        if info is None:
            return False
        if split and self.sharing is not None and info.token is not None:
            self.sharing.lost(info)
        self._unbind(info, tell=not split)
        return True

    # -- commands -------------------------------------------------------------------

    def register(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        version = msg.args[0]
        if version not in PROTOCOL_VERSIONS:
            self.error(
                sender,
                ErrorCode.UNSUPPORTED_VERSION,
                f"this referee speaks protocols {', '.join(sorted(PROTOCOL_VERSIONS))}, not {version[:10]}",
            )
            return
        if not valid_nick(sender):
            self.error(
                sender,
                ErrorCode.NAME_INVALID,
                "nicks of players are 1-16 letters, digits or -[]\\^_`{|}, not starting with a digit or -",
            )
            return
        if sender.lower() in RESERVED_NICKS:
            self.error(
                sender,
                ErrorCode.NAME_INVALID,
                f"{sender} is a reserved word of the games' answers; choose another nick",
            )
            return
        name = msg.get("name") or sender
        if not valid_nick(name) or name.lower() in RESERVED_NICKS:
            self.error(
                sender,
                ErrorCode.NAME_INVALID,
                f"name={shown(name)} is not a bot name: a bot's name is 1-16 "
                "letters, digits or -[]\\^_`{|}, not starting with a digit "
                "or -, and not a reserved word",
            )
            return
        for label in ("owner", "version"):
            if len(msg.get(label, "")) > MAX_LABEL:
                self.error(sender, ErrorCode.MALFORMED, f"{label}= is at most {MAX_LABEL} characters")
                return
        if "key" in msg.fields:
            self.error(
                sender,
                ErrorCode.AUTH_FAILED,
                "a key is never sent: prove it by SCRAM (REGISTER with scram=, "
                "protocol.md section 3), as the current SDK does",
            )
            return
        owner, bot_version = msg.get("owner") or "unknown", msg.get("version") or "unknown"
        scram = msg.get(SCRAM)
        try:
            outcome = self.identities.prove(
                sender,
                name,
                None if scram is None else unpack_scram(scram),
                account,
                self._host(sender),
                (owner, bot_version, int(version)),
            )
        except (AuthError, ProtocolError) as exc:
            self.error(sender, exc.code, exc.reason)
            return
        if isinstance(outcome, Challenge):
            self.tell(sender, Message.make(CHALLENGE, name=name, scram=pack_scram(outcome.server_first)), False)
            return
        self._admit(sender, name, (owner, bot_version, int(version)), outcome, now, {})

    def proof(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        """The bot's proof of its key (SCRAM's client-final-message): admitted, the bot gets
        the referee's signature (server-final-message) in its WELCOME."""
        try:
            admitted = self.identities.finish(sender, unpack_scram(msg.get(SCRAM, "")), self._host(sender))
        except (AuthError, ProtocolError) as exc:
            self.error(sender, exc.code, exc.reason)
            return
        self._admit(
            sender, admitted.name, admitted.context, admitted.proof, now, {SCRAM: pack_scram(admitted.server_final)}
        )

    def _host(self, sender: str) -> str | None:
        return None if self.host_of is None else self.host_of(sender)

    def _admit(
        self, sender: str, name: str, said: tuple[str, str, int], proof: Proof, now: float, signed: dict[str, str]
    ) -> None:
        """``sender`` proved it is bot ``name``, which ``said`` its owner, its version and the
        protocol it speaks (``signed``: the referee's proof in return, for WELCOME)."""
        owner, bot_version, protocol = said
        holder = self.by_name.get(name.lower())
        if holder is not None and holder.nick.lower() != sender.lower():
            if proof.how == "name":  # nothing proves this connection is the bot rather than the holder
                self.error(sender, ErrorCode.NAME_TAKEN, f"bot {name} is played by another connection now")
                return
            self.tell(holder.nick, Message.make(BYE, text=f"{name} registered from another connection"), False)
            self._unbind(holder)
        mine = self.bots.get(sender.lower())
        if mine is not None and mine.name.lower() != name.lower():
            self._unbind(mine)  # this connection plays another bot from now on
        try:
            self.identities.remember(name, owner, bot_version, proof)
        except Exception as exc:
            if not unwritable(exc):
                raise
            # Its games must not wait on what it says of itself: it plays, and says it again next time.
            log.warning(
                "bot %s registered, but what it says of itself (owner, version, account) could not be stored: %s (%s)",
                name,
                STORE_DOWN,
                failure(exc),
            )
        # The WELCOME goes in line with the games' lines: a bot obeys none of the referee's
        # lines before it (section 3), so a TABLE or RESYNC sent after it must not overtake it.
        sharing = self.sharing
        fields: dict[str, Any] = dict(signed)
        if sharing is not None:
            fields["referees"] = sharing.referees()
        welcome = Message.make(WELCOME, sender, protocol=protocol, name=name, **fields)
        info = self.by_name.get(name.lower())
        if info is not None:  # the same connection again: it has heard everything already
            info.owner, info.version, info.account, info.protocol = owner, bot_version, proof.account, protocol
            if sharing is not None:
                sharing.admitted(info)
            self.tell(sender, welcome, True)
            self._speaks(name, protocol)
            return
        info = BotInfo(name, sender, owner, bot_version, proof.account, protocol)
        if sharing is not None:
            sharing.admitted(info)  # (first: a shared lobby seats a bot registered a moment ago later)
        self._bind(info)
        self.tell(sender, welcome, True)
        self._speaks(name, protocol)
        self._came_back(info, now)

    def _came_back(self, info: BotInfo, now: float) -> None:
        """A new connection plays ``info``'s bot: it is told what its seats were told before.
        Only a new one: a resync costs the game's lines again, which a bot must not be able
        to trigger at will by registering over and over."""
        name = info.name
        for match in self.matches.of(name):
            seat = match.seats.of(name)
            if seat is not None and (not match.over or match.suspended):
                self.rejoins.resync(match, seat, now)

    def _speaks(self, name: str, protocol: int) -> None:
        """``name`` registered with ``protocol``: a game of its that bundles lines sends one
        message a line from now on if it reads no bundles (protocol 1)."""
        if protocol < BUNDLES_SINCE:
            for match in self.matches.of(name):
                match.record.stop_bundling()

    def unregister(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        info = self.bot_of(sender, account)
        if info is not None:
            self._unbind(info)
        self.tell(sender, Message.make(BYE), False)

    def who(self, sender: str, msg: Message, now: float, account: str | None, line: str) -> None:
        bots = sorted(self.bots.values(), key=lambda b: b.nick.lower())
        running = [f"{gid}:{m.game.name}" for gid, m in self.matches.items() if not m.over]
        self.tell(sender, Message.make(REGISTERED, bots=[b.nick for b in bots], games=running), False)
