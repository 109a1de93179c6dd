"""Who a bot is: its name, proven by a key or a services account, never by a nick.

A nick on IRC belongs to whoever holds it now; a rating, a seat and a history must belong
to the program that earned them. So a bot is an identity (``name``, with ``owner`` and
``version``), and a connection plays as that identity only after proving it:

* with a **key**: ``arena bots add NAME`` prints a random key once and the store keeps only
  a slow hash of it (scrypt), so a copy of the database does not let anyone play as the bot;
* with a **services account** (IRCv3 ``account-tag``): a bot bound to an account is
  recognised by the account the server vouches for on every line;
* or, where the operator allows it (``identity.require_key: false``), by name alone: first
  come, and only while no other live connection holds the name.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Callable, Protocol

from ..core.errors import ErrorCode
from ..store.records import UNKNOWN_OWNER, BotRecord

KEY_LENGTH = 32
"""Letters and digits in a bot key (190 bits): a protocol token, and no command-line flag."""
_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
"""scrypt cost: about 40 ms per check here, and 16 MiB of memory, so guessing is slow."""
RETRY_AFTER = 1.0
"""Seconds a connection whose key was wrong waits before its next key is even checked: a
wrong key costs the referee a slow hash, and a stranger must not make it do so at will."""


def new_key() -> str:
    return "".join(secrets.choice(_KEY_ALPHABET) for _ in range(KEY_LENGTH))


def hash_key(key: str, salt: bytes | None = None) -> str:
    """``scrypt$N$r$p$salt$hash`` (hex), the only form in which a key is stored."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(key.encode(), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_key(key: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        mine = hashlib.scrypt(key.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p),
                              dklen=len(digest) // 2)
    except ValueError:
        return False
    return hmac.compare_digest(mine.hex(), digest)


class BotBook(Protocol):
    """Where identities are kept (the results store; a dict in memory for local games)."""

    def bot(self, name: str) -> BotRecord | None: ...
    def save_bot(self, name: str, owner: str, version: str, account: str | None, now: float) -> None: ...


class MemoryBook:
    """Identities that live as long as the process (local games, tests, a referee without store)."""

    def __init__(self) -> None:
        self._bots: dict[str, BotRecord] = {}

    def bot(self, name: str) -> BotRecord | None:
        return self._bots.get(name.lower())

    def save_bot(self, name: str, owner: str, version: str, account: str | None, now: float) -> None:
        old = self._bots.get(name.lower())
        self._bots[name.lower()] = BotRecord(
            old.name if old else name, old.owner if old and old.owner != UNKNOWN_OWNER else owner, version,
            old.key_hash if old else None,
            (old.account if old and old.account else account), old.created if old else now, now)

    def add(self, name: str, key: str | None = None, account: str | None = None) -> None:
        """Register a bot ahead of time (what ``arena bots add`` does with the store)."""
        self._bots[name.lower()] = BotRecord(name, UNKNOWN_OWNER, "unknown", None if key is None else hash_key(key),
                                             account, time.time(), None)


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


class Identities:
    """Decides whether a ``REGISTER`` may play as the bot it names."""

    def __init__(self, book: BotBook | None = None, *, require_key: bool = False, accounts: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.book: BotBook = MemoryBook() if book is None else book
        self.require_key = require_key
        self.accounts = accounts
        """Bind bots to services accounts: a logged-in bot's first registration binds its
        name to its account, and from then on only that account plays it."""
        self._clock = clock
        self._verified: dict[str, tuple[str, str]] = {}
        """Bot name (folded) to its stored hash and the SHA-256 of the key last proven
        against it: re-registrations (after every reconnect) skip the slow hash until the
        key changes."""
        self._wrong: dict[str, float] = {}
        """Sender (folded) to when its last wrong key was seen."""

    def prove(self, sender: str, name: str, key: str | None, account: str | None) -> Proof:
        """How ``sender`` proves it is bot ``name``; raises AuthError when it does not."""
        record = self.book.bot(name)
        if record is not None and record.account and self.accounts and account is not None \
                and account.lower() == record.account.lower():
            return Proof("account", record.account)
        if record is not None and record.key_hash:
            if key is None:
                raise AuthError(ErrorCode.AUTH_FAILED, f"bot {name} has a key: REGISTER with key=KEY")
            self._check(sender, name, key, record.key_hash)
            return Proof("key", account)
        if record is not None and record.account and self.accounts:
            raise AuthError(ErrorCode.AUTH_FAILED, f"bot {name} plays from services account {record.account} only; "
                                                   "log in to it (SASL) before registering")
        if self.accounts and account is not None:
            return Proof("account", account)  # the account's first bot: bound to it from now on
        if self.require_key:
            raise AuthError(ErrorCode.AUTH_FAILED, f"this arena admits bots by key: ask its operator for a key "
                                                   f"for {name} (arena bots add {name}) and REGISTER with key=KEY")
        return Proof("name", None)

    def _check(self, sender: str, name: str, key: str, stored: str) -> None:
        digest = hashlib.sha256(key.encode()).hexdigest()
        known_hash, known_digest = self._verified.get(name.lower(), ("", ""))
        if known_hash == stored and hmac.compare_digest(known_digest, digest):
            return
        now = self._clock()
        if now - self._wrong.get(sender.lower(), -RETRY_AFTER) < RETRY_AFTER:
            raise AuthError(ErrorCode.AUTH_FAILED, f"wrong key for bot {name}; wait {RETRY_AFTER:g} s between tries")
        if not check_key(key, stored):
            self._wrong[sender.lower()] = now
            raise AuthError(ErrorCode.AUTH_FAILED, f"wrong key for bot {name}")
        self._wrong.pop(sender.lower(), None)
        self._verified[name.lower()] = (stored, digest)

    def remember(self, name: str, owner: str, version: str, proof: Proof) -> None:
        """Keep what the bot said of itself, and bind it to the account that proved it."""
        self.book.save_bot(name, owner, version, proof.account if proof.how == "account" else None, time.time())
