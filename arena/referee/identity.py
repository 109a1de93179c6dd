"""Who a bot is: its name, proven by a key or a services account, never by a nick.

A nick on IRC belongs to whoever holds it now; a rating, a seat and a history must belong
to the program that earned them. So a bot is an identity (``name``, with ``owner`` and
``version``), and a connection plays as that identity only after proving it:

* with a **key**: ``arena bots add NAME`` prints a random key once and the store keeps only
  SCRAM-SHA-256's verifier of it (salt, iteration count, StoredKey, ServerKey). The bot
  never sends its key: it proves it by SCRAM (protocol.md, section 3) and checks the
  referee's signature in return, so a squatter on the referee's nick learns nothing and
  cannot pass for the referee; a copy of the database does not let anyone play as the bot;
* with a **services account** (IRCv3 ``account-tag``): a bot bound to an account is
  recognised by the account the server vouches for on every line;
* or, where the operator allows it (``identity.require_key: false``), by name alone: first
  come, and only while no other live connection holds the name.

A wrong proof costs the referee two HMACs (the slow PBKDF2 is the bot's to pay), and
wrong proofs are slowed per connection and per host, never per bot: a stranger who
guesses at a bot's key from elsewhere cannot lock the bot out.

The ``scramp`` package is imported where a key is made or proven, not with this module:
its import reads the installed packages' metadata, a cost that every command and every
local tournament's worker would pay for keys they never see.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..core.errors import ErrorCode
from ..protocol import SCRAM_ITERATIONS
from ..store.records import UNKNOWN_OWNER, BotRecord, Verifier

if TYPE_CHECKING:
    import scramp

KEY_LENGTH = 32
"""Letters and digits in a bot key (190 bits): a random secret, and no command-line flag."""
_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
MECHANISM = "SCRAM-SHA-256"
ITERATIONS = SCRAM_ITERATIONS[0]
"""PBKDF2 iterations of a new key (``arena bots add --iterations``): what the bot pays at
each registration. RFC 7677's minimum; a key of 190 random bits needs no more against
guessing."""
NONCE_BYTES = 18
"""Random bytes of the referee's nonce (24 base64 characters)."""
MIN_CLIENT_NONCE = 16
"""Characters a bot's nonce has at least."""
EXCHANGE_TIMEOUT = 60.0
"""Seconds a bot has to send its ``PROOF`` after the ``CHALLENGE``."""
RETRY_AFTER = 1.0
"""Seconds a connection waits after a wrong proof before its next exchange is taken; each
further wrong proof in a row doubles it, up to ``MAX_WAIT``."""
MAX_WAIT = 60.0
HOST_COST = 1.0
"""Seconds of wait each wrong proof adds to its host (the part of the sender's address
after ``@``): a host's exchanges wait while its wait is over ``HOST_BURST`` seconds (and
never more than ``MAX_WAIT``), so new nicks and new connections do not multiply tries. Ten
wrong proofs in a row cost a host nothing, then it gets one try a second."""
HOST_BURST = 10.0
MEMORY = 10_000
"""Open exchanges, connections with wrong proofs and hosts the referee keeps at most (the
oldest is forgotten first): a flood of strangers cannot grow them without bound."""


def new_key() -> str:
    return "".join(secrets.choice(_KEY_ALPHABET) for _ in range(KEY_LENGTH))


def make_verifier(key: str, iterations: int = ITERATIONS) -> Verifier:
    """What the store keeps of ``key``: a fresh salt, and SCRAM's StoredKey and ServerKey."""
    import scramp

    low, high = SCRAM_ITERATIONS
    if not low <= iterations <= high:
        raise ValueError(f"iterations are {low} to {high}")
    salt, stored_key, server_key, count = scramp.ScramMechanism(MECHANISM).make_auth_info(
        key, iteration_count=iterations
    )
    return Verifier(salt, count, stored_key, server_key)


class BotBook(Protocol):
    """Where identities are kept (the results store; a dict in memory for local games)."""

    def get(self, name: str) -> BotRecord | None: ...
    def save(self, name: str, owner: str, version: str, account: str | None, now: float) -> None: ...


class MemoryBook:
    """Identities that live as long as the process (local games, tests, a referee without store)."""

    def __init__(self) -> None:
        self._bots: dict[str, BotRecord] = {}

    def get(self, name: str) -> BotRecord | None:
        return self._bots.get(name.lower())

    def save(self, name: str, owner: str, version: str, account: str | None, now: float) -> None:
        old = self._bots.get(name.lower())
        self._bots[name.lower()] = BotRecord(
            old.name if old else name,
            old.owner if old and old.owner != UNKNOWN_OWNER else owner,
            version,
            old.verifier if old else None,
            bool(old and old.old_key),
            (old.account if old and old.account else account),
            old.created if old else now,
            now,
        )

    def add(self, name: str, key: str | None = None, account: str | None = None, iterations: int = ITERATIONS) -> None:
        """Register a bot ahead of time (what ``arena bots add`` does with the store)."""
        self._bots[name.lower()] = BotRecord(
            name,
            UNKNOWN_OWNER,
            "unknown",
            None if key is None else make_verifier(key, iterations),
            False,
            account,
            time.time(),
            None,
        )


class AuthError(Exception):
    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class Proof:
    """How a registration proved its identity: by ``key``, ``account`` or ``name`` alone."""

    how: str
    account: str | None


@dataclass(frozen=True)
class Challenge:
    """The registration of a bot with a key goes on: send ``server_first`` (SCRAM's
    server-first-message) and wait for the bot's proof."""

    server_first: str


@dataclass(frozen=True)
class Admitted:
    """A proof that checked out: the bot, how it proved itself, SCRAM's server-final-message
    (the referee's signature, for the bot to check) and what the registration carried."""

    name: str
    proof: Proof
    server_final: str
    context: Any


@dataclass
class _Exchange:
    name: str
    server: scramp.ScramServer
    started: float
    context: Any
    account: str | None


@dataclass
class _Failures:
    count: int
    until: float


def _remember(memory: OrderedDict[str, Any], key: str, value: Any) -> None:
    memory[key] = value
    memory.move_to_end(key)
    while len(memory) > MEMORY:
        memory.popitem(last=False)


class Identities:
    """Decides whether a ``REGISTER`` may play as the bot it names."""

    def __init__(
        self,
        book: BotBook | None = None,
        *,
        require_key: bool = False,
        accounts: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.book: BotBook = MemoryBook() if book is None else book
        self.require_key = require_key
        self.accounts = accounts
        """Bind bots to services accounts: a logged-in bot's first registration binds its
        name to its account, and from then on only that account plays it."""
        self._clock = clock
        self._open: OrderedDict[str, _Exchange] = OrderedDict()
        """Exchanges waiting for their proof, by folded nick of the connection."""
        self._failed: OrderedDict[str, _Failures] = OrderedDict()
        """Connections (by folded nick, following nick changes) whose last proofs were wrong."""
        self._hosts: OrderedDict[str, float] = OrderedDict()
        """Hosts with wrong proofs, to when their wait runs."""

    def prove(
        self,
        sender: str,
        name: str,
        scram: str | None,
        account: str | None,
        host: str | None = None,
        context: Any = None,
    ) -> Proof | Challenge:
        """How ``sender`` proves it is bot ``name``: a Proof at once, or the Challenge of a
        SCRAM exchange (``scram``: the bot's client-first-message) that ``finish`` ends;
        raises AuthError when it cannot. ``context`` comes back with the exchange's end."""
        record = self.book.get(name)
        if scram is not None:
            if record is not None and record.verifier is not None:
                return self._challenge(sender, record, scram, account, host, context)
            if record is not None and record.old_key:
                raise AuthError(ErrorCode.AUTH_FAILED, self._old_key(name))
            raise AuthError(
                ErrorCode.AUTH_FAILED,
                f"bot {name} has no key in this arena: register without scram= "
                f"(or ask its operator for a key: arena bots add {name})",
            )
        if (
            record is not None
            and record.account
            and self.accounts
            and account is not None
            and account.lower() == record.account.lower()
        ):
            return Proof("account", record.account)
        if record is not None and record.old_key and record.verifier is None:
            raise AuthError(ErrorCode.AUTH_FAILED, self._old_key(name))
        if record is not None and record.verifier is not None:
            raise AuthError(
                ErrorCode.AUTH_FAILED,
                f"bot {name} has a key: prove it by SCRAM (REGISTER with scram=, protocol.md section 3)",
            )
        if record is not None and record.account and self.accounts:
            raise AuthError(
                ErrorCode.AUTH_FAILED,
                f"bot {name} plays from services account {record.account} only; log in to it (SASL) before registering",
            )
        if self.accounts and account is not None:
            return Proof("account", account)  # the account's first bot: bound to it from now on
        if self.require_key:
            raise AuthError(
                ErrorCode.AUTH_FAILED,
                f"this arena admits bots by key: ask its operator for a key "
                f"for {name} (arena bots add {name}) and prove it by SCRAM",
            )
        return Proof("name", None)

    @staticmethod
    def _old_key(name: str) -> str:
        return (
            f"bot {name} has a key from before SCRAM, which this arena cannot check any more: its operator "
            f"must run `arena bots rekey {name}` and give the bot the new key"
        )

    def _challenge(
        self, sender: str, record: BotRecord, client_first: str, account: str | None, host: str | None, context: Any
    ) -> Challenge:
        import scramp

        now = self._clock()
        folded = sender.lower()
        self._check_wait(folded, host, now)
        verifier = record.verifier
        assert verifier is not None
        users: list[str] = []

        def credentials(user: str) -> tuple[bytes, bytes, bytes, int]:
            users.append(user)
            return verifier.salt, verifier.stored_key, verifier.server_key, verifier.iterations

        nonce = base64.b64encode(secrets.token_bytes(NONCE_BYTES)).decode()
        server = scramp.ScramMechanism(MECHANISM).make_server(credentials, s_nonce=nonce)
        try:
            server.set_client_first(client_first)
        except scramp.ScramException:
            raise AuthError(
                ErrorCode.AUTH_FAILED, "scram= is not a SCRAM-SHA-256 client-first-message (n,,n=NICK,r=NONCE)"
            ) from None
        if not users or users[0].lower() != folded:
            raise AuthError(ErrorCode.AUTH_FAILED, f"the SCRAM user (n=) must be your nick, {sender}")
        if len(str(server.nonce)) - len(nonce) < MIN_CLIENT_NONCE:
            raise AuthError(ErrorCode.AUTH_FAILED, f"the bot's nonce (r=) has at least {MIN_CLIENT_NONCE} characters")
        _remember(self._open, folded, _Exchange(record.name, server, now, context, account))
        return Challenge(server.get_server_first())

    def _check_wait(self, folded: str, host: str | None, now: float) -> None:
        """Refuse an exchange while its connection or its host must wait for wrong proofs."""
        failed = self._failed.get(folded)
        wait = 0.0 if failed is None else failed.until - now
        if host is not None:
            wait = max(wait, self._hosts.get(host, now) - now - HOST_BURST)
        if wait > 0:
            raise AuthError(
                ErrorCode.AUTH_FAILED, f"wrong proofs came from here: wait {wait:.0f} s before the next try"
            )

    def finish(self, sender: str, client_final: str, host: str | None = None) -> Admitted:
        """Check the proof (``client_final``) of ``sender``'s open exchange; raises
        AuthError when it is wrong or there is none."""
        import scramp

        folded = sender.lower()
        exchange = self._open.pop(folded, None)
        now = self._clock()
        if exchange is None or now - exchange.started > EXCHANGE_TIMEOUT:
            raise AuthError(ErrorCode.AUTH_FAILED, "no registration waits for a proof from you: REGISTER first")
        try:
            exchange.server.set_client_final(client_final)
        except scramp.ScramException:
            self._failure(folded, host, now)
            raise AuthError(ErrorCode.AUTH_FAILED, f"wrong proof for bot {exchange.name}") from None
        self._failed.pop(folded, None)
        return Admitted(
            exchange.name, Proof("key", exchange.account), exchange.server.get_server_final(), exchange.context
        )

    def _failure(self, folded: str, host: str | None, now: float) -> None:
        old = self._failed.get(folded)
        count = 1 if old is None else old.count + 1
        _remember(self._failed, folded, _Failures(count, now + min(MAX_WAIT, RETRY_AFTER * 2 ** (count - 1))))
        if host is not None:
            _remember(
                self._hosts, host, min(max(self._hosts.get(host, now), now) + HOST_COST, now + HOST_BURST + MAX_WAIT)
            )

    def rename(self, old: str, new: str) -> None:
        """A connection changed nick: its open exchange and its wrong proofs go with it."""
        for memory in (self._open, self._failed):
            value = memory.pop(old.lower(), None)
            if value is not None:
                _remember(memory, new.lower(), value)

    def leave(self, nick: str) -> None:
        """A connection left the server: its exchange ends (a new one on the nick is not it)."""
        self._open.pop(nick.lower(), None)

    def remember(self, name: str, owner: str, version: str, proof: Proof) -> None:
        """Keep what the bot said of itself, and bind it to the account that proved it."""
        self.book.save(name, owner, version, proof.account if proof.how == "account" else None, time.time())
