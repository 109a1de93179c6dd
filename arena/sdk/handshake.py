"""Registering with the referee: the ``REGISTER`` line and, for a bot with a key, the
SCRAM exchange in which the bot proves its key and the referee proves it is the referee.

Whoever holds the referee's nick may be a squatter. Without a key a bot can only trust the
nick; with one it trusts no ``WELCOME`` but the one that completes its own exchange with
the referee's signature, and it answers a ``CHALLENGE`` with a proof bound to its nick and
nonce, which nobody can reuse (protocol.md, section 3).
"""

from __future__ import annotations

import logging

from ..protocol import PROOF, PROTOCOL_VERSION, REGISTER, SCRAM, Message, ProtocolError, pack_scram, unpack_scram
from .bot import Bot
from .scram import ScramClient, ScramError

log = logging.getLogger(__name__)


class Handshake:
    """One bot's registrations with its referee: the key that proves its identity, and the
    exchange of its latest ``REGISTER``."""

    def __init__(self, referee: str, key: str | None) -> None:
        self.referee = referee
        """The referee's nick, for the log."""
        self.key = key
        """The key that proves the identity (``arena bots add``). It never leaves the
        process: it is proven by SCRAM, and the referee is trusted only once it has proven
        it knows the key too (its signature in ``WELCOME``)."""
        self._scram: ScramClient | None = None
        """The exchange of our last ``REGISTER`` with a key."""

    def register(self, bot: Bot, name: str, nick: str) -> str:
        """The ``REGISTER`` line of ``bot`` as ``name``, now called ``nick``; it starts a new
        exchange (one under way is forgotten)."""
        fields = {"name": name, "owner": bot.owner, "version": bot.version}
        self._scram = None
        if self.key:
            self._scram = ScramClient(nick, self.key)
            fields[SCRAM] = pack_scram(self._scram.first())
        return Message.make(REGISTER, PROTOCOL_VERSION, **fields).format()

    def proof(self, challenge: Message) -> str | None:
        """The ``PROOF`` line answering ``challenge``; None without an exchange under way, or
        if the challenge is not one the referee could send (then we prove nothing)."""
        if self._scram is None:
            return None
        try:
            proof = self._scram.final(unpack_scram(challenge.get(SCRAM, "")))
        except (ScramError, ProtocolError) as exc:
            log.error("the challenge from %s is not the referee's: %s", self.referee, exc)
            return None
        return Message.make(PROOF, scram=pack_scram(proof)).format()

    def welcomes(self, welcome: Message) -> bool:
        """Whether ``welcome`` registers us: any welcome, without a key; with one, only the
        one that ends our exchange under way with the referee's signature."""
        if not self.key:
            return True
        if self._scram is None:
            return False  # no registration of ours is under way: a welcome we never asked for
        try:
            self._scram.verify(unpack_scram(welcome.get(SCRAM, "")))
        except (ScramError, ProtocolError) as exc:
            log.error("not registered: %s did not prove it is the referee (%s); it is ignored", self.referee, exc)
            return False
        self._scram = None
        return True
