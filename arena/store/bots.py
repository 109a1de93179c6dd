"""The bots a store knows: who owns them, what they said of themselves, what checks their key."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .database import Database
from .records import UNKNOWN_OWNER, BotRecord, Verifier

_COLUMNS = (
    "name, owner, version, scram_salt, scram_iterations, scram_stored_key, scram_server_key,"
    " key_hash IS NOT NULL, account, created, seen"
)


def _record(row: Sequence[Any]) -> BotRecord:
    name, owner, version, salt, iterations, stored_key, server_key, old_key, account, created, seen = row
    verifier = None if salt is None else Verifier(bytes(salt), iterations, bytes(stored_key), bytes(server_key))
    return BotRecord(name, owner, version, verifier, bool(old_key), account, created, seen)


class Bots:
    """Bot identities and SCRAM keys, the referee's ``BotBook`` (``arena.referee.identity``);
    each write is a statement of its own."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, name: str) -> BotRecord | None:
        row = self.db.execute(f"SELECT {_COLUMNS} FROM bots WHERE name = ?", (name,)).fetchone()
        return None if row is None else _record(row)

    def all(self) -> list[BotRecord]:
        return [_record(row) for row in self.db.execute(f"SELECT {_COLUMNS} FROM bots ORDER BY name")]

    def add(self, name: str, owner: str, verifier: Verifier | None, account: str | None, now: float) -> None:
        """A new bot, with what checks its key and/or its account; raises KeyError if the
        name is taken (names are compared without case)."""
        v = verifier
        try:
            self.db.execute(
                "INSERT INTO bots (name, owner, account, created, scram_salt, scram_iterations, scram_stored_key,"
                " scram_server_key) VALUES (?,?,?,?,?,?,?,?)",
                (
                    name,
                    owner,
                    account,
                    now,
                    *((v.salt, v.iterations, v.stored_key, v.server_key) if v else (None,) * 4),
                ),
            )
        except self.db.dialect.integrity_error:
            raise KeyError(name) from None

    def set_key(self, name: str, verifier: Verifier) -> None:
        """Replace a bot's key (the old one, SCRAM or from before, stops working); raises
        KeyError if unknown."""
        v = verifier
        if (
            self.db.execute(
                "UPDATE bots SET key_hash = NULL, scram_salt = ?, scram_iterations = ?, scram_stored_key = ?,"
                " scram_server_key = ? WHERE name = ?",
                (v.salt, v.iterations, v.stored_key, v.server_key, name),
            ).rowcount
            != 1
        ):
            raise KeyError(name)

    def save(self, name: str, owner: str, version: str, account: str | None, now: float) -> None:
        """What a bot said of itself when it registered; an account binds it for good. Its
        ``owner`` fills in only an unknown one: the operator's (``arena bots add --owner``),
        or the first a bot declared, is not for a registration to change."""
        sql = self.db.dialect.upsert(
            "INSERT INTO bots (name, owner, version, account, created, seen) VALUES (?,?,?,?,?,?)",
            "name",
            "owner = CASE WHEN bots.owner = ? THEN excluded.owner ELSE bots.owner END, version = excluded.version,"
            " account = COALESCE(bots.account, excluded.account), seen = excluded.seen",
        )
        self.db.execute(sql, (name, owner, version, account, now, now, UNKNOWN_OWNER))
