"""The bot's side of SCRAM-SHA-256 (RFC 5802, RFC 7677), with the standard library only.

A bot proves it holds its key, and the referee proves it holds what the arena keeps of
that key, without either sending the key or anything that stands for it: a squatter on
the referee's nick learns nothing it can use and cannot sign a ``WELCOME``, so a bot
trusts no line before the referee's signature checked out. protocol.md (section 3) is
the description for bots in other languages; this module follows it word for word.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

from ..protocol import SCRAM_ITERATIONS

GS2_HEADER = "n,,"
"""No channel binding, no authorisation identity."""
NONCE_BYTES = 18
"""Random bytes of the bot's nonce (24 base64 characters: 144 bits)."""


class ScramError(Exception):
    """The other side is not the referee of this key (or broke the exchange)."""


def attributes(message: str) -> dict[str, str]:
    """``a=1,b=2`` as a dict (a value may hold ``=``, as base64 does)."""
    out: dict[str, str] = {}
    for part in message.split(","):
        key, eq, value = part.partition("=")
        if len(key) != 1 or not eq or key in out:
            raise ScramError(f"not a SCRAM message: {message[:60]!r}")
        out[key] = value
    return out


def salted_password(key: str, salt: bytes, iterations: int) -> bytes:
    """SaltedPassword = Hi(key, salt, i): PBKDF2-HMAC-SHA-256, the one slow step, paid by
    the bot (the referee keeps its result's digests and computes only HMACs)."""
    return hashlib.pbkdf2_hmac("sha256", key.encode(), salt, iterations)


def _hmac(key: bytes, text: bytes) -> bytes:
    return hmac.digest(key, text, "sha256")


class ScramClient:
    """One exchange: ``first()`` goes in ``REGISTER``, ``final(server_first)`` in
    ``PROOF``, and ``verify(server_final)`` checks the ``WELCOME``'s signature.

    ``user`` is the bot's nick as the server knows it: the referee checks that the lines
    come from that nick, so a proof relayed by a squatter from another connection fails."""

    def __init__(self, user: str, key: str, nonce: str | None = None) -> None:
        self.user = user
        self._key = key
        self.nonce = nonce if nonce is not None else base64.b64encode(secrets.token_bytes(NONCE_BYTES)).decode()
        self._server_signature: bytes | None = None

    @property
    def bare(self) -> str:
        """client-first-message-bare (a nick holds no ``,`` or ``=``: no escaping)."""
        return f"n={self.user},r={self.nonce}"

    def first(self) -> str:
        """client-first-message."""
        return GS2_HEADER + self.bare

    def final(self, server_first: str) -> str:
        """client-final-message, proving the key; ScramError if ``server_first`` is not
        an answer to our ``first()`` a referee may give."""
        fields = attributes(server_first)
        nonce, salt_b64, count = fields.get("r", ""), fields.get("s", ""), fields.get("i", "")
        if "m" in fields or not nonce.startswith(self.nonce) or len(nonce) == len(self.nonce):
            raise ScramError("the challenge does not continue our nonce")
        low, high = SCRAM_ITERATIONS
        if not count.isdigit() or not low <= int(count) <= high:  # a squatter must not make us spend minutes
            raise ScramError(f"iteration count {count[:12]!r} is not between {low} and {high}")
        try:
            salt = base64.b64decode(salt_b64, validate=True)
        except (binascii.Error, ValueError):
            raise ScramError("the salt is not base64") from None
        if not salt:
            raise ScramError("empty salt")
        salted = salted_password(self._key, salt, int(count))
        client_key = _hmac(salted, b"Client Key")
        stored_key = hashlib.sha256(client_key).digest()
        without_proof = f"c={base64.b64encode(GS2_HEADER.encode()).decode()},r={nonce}"
        auth_message = f"{self.bare},{server_first},{without_proof}".encode()
        proof = bytes(a ^ b for a, b in zip(client_key, _hmac(stored_key, auth_message)))
        self._server_signature = _hmac(_hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}"

    def verify(self, server_final: str) -> None:
        """Check the referee's ServerSignature (``v=``); ScramError unless it is right."""
        if self._server_signature is None:
            raise ScramError("no proof was sent, so no signature can be right")
        fields = attributes(server_final)
        if "v" not in fields:
            raise ScramError(f"the referee refused the proof ({fields.get('e', 'no reason')})")
        try:
            signature = base64.b64decode(fields["v"], validate=True)
        except (binascii.Error, ValueError):
            raise ScramError("the signature is not base64") from None
        if not hmac.compare_digest(signature, self._server_signature):
            raise ScramError("wrong server signature: whoever answered does not hold this bot's key")
