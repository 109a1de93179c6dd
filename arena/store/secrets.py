"""Master keys kept under a name (``serve``: the lobby's games), never shown."""

from __future__ import annotations

from ..core.keys import new_key
from .database import Database


class Secrets:
    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, name: str) -> bytes:
        """The master key stored under ``name``, drawn on first use; an insert that ignores
        a key already there lets two processes race and agree on one key."""
        self.db.execute(
            self.db.dialect.insert_ignore("INSERT INTO secrets (name, value) VALUES (?, ?)"), (name, new_key())
        )
        return bytes(self.db.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0])
