"""Sessions as tests feed them: welcomed by the referee first, as every session must be
before it obeys a game's lines (an unregistered bot ignores them: protocol.md, section 3)."""

from __future__ import annotations

from arena.protocol import PROTOCOL_VERSION
from arena.sdk import Session


def welcomed(session: Session) -> Session:
    """``session`` after the referee's WELCOME (a session without a key trusts it as is)."""
    session.feed(
        session.referee, f"WELCOME {session.nick} protocol={PROTOCOL_VERSION} name={session.name or session.nick}"
    )
    assert session.registered
    return session
