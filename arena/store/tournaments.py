"""Tournaments as the store keeps them: their settings, secret master key and progress."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.keys import new_key
from .codec import encode
from .database import Database


class Tournaments:
    """Each write is a statement of its own (``count_game`` joins the recording's transaction)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def start(self, tournament_id: str, settings: Mapping[str, Any], now: float) -> None:
        """Register a tournament with a fresh secret master key (``key``); games recorded
        with its id count towards its games done."""
        self.db.execute(
            "INSERT INTO tournaments (id, settings, games_done, created, updated, secret) VALUES (?,?,0,?,?,?)",
            (tournament_id, encode(dict(settings)), now, now, new_key()),
        )

    def key(self, tournament_id: str) -> bytes:
        """The master key every seed and deal of the tournament derives from: stored, never
        shown, so a resumed tournament plays the games an uninterrupted one would while no
        one can compute them. A tournament from before secret deals draws its key here."""
        self.db.execute("UPDATE tournaments SET secret = ? WHERE id = ? AND secret IS NULL", (new_key(), tournament_id))
        row = self.db.execute("SELECT secret FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        if row is None:
            raise KeyError(f"unknown tournament {tournament_id!r}")
        return bytes(row[0])

    def get(self, tournament_id: str) -> tuple[dict[str, Any], int] | None:
        """(settings, games done) to resume a tournament, or None if unknown."""
        row = self.db.execute("SELECT settings, games_done FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        return None if row is None else (json.loads(row[0]), int(row[1]))

    def all(self) -> list[tuple[str, str, int, float]]:
        """Every tournament: id, game type, games stored, last update; newest first."""
        return [
            (tid, json.loads(settings).get("game", ""), done, updated)
            for tid, settings, done, updated in self.db.execute(
                "SELECT id, settings, games_done, updated FROM tournaments ORDER BY updated DESC, id"
            )
        ]

    def count_game(self, tournament_id: str, now: float) -> None:
        """One more of its games is recorded (inside the recording's transaction)."""
        cur = self.db.execute(
            "UPDATE tournaments SET games_done = games_done + 1, updated = ? WHERE id = ?", (now, tournament_id)
        )
        if cur.rowcount != 1:
            raise KeyError(f"unknown tournament {tournament_id!r}")
