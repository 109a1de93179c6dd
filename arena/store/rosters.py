"""The lobby's seat orders: where each roster of bots stands in its block of seatings."""

from __future__ import annotations

from .database import Database


class Rosters:
    """The lobby's ``RosterBook`` (``arena.referee.lobby``)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, game: str, roster: str) -> tuple[int, int] | None:
        """(block, games seated in it) of a lobby roster's seat order, or None if never seated."""
        row = self.db.execute(
            "SELECT block, games FROM rosters WHERE game = ? AND roster = ?", (game, roster)
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def save(self, game: str, roster: str, block: int, games: int) -> None:
        self.db.execute(
            self.db.dialect.upsert(
                "INSERT INTO rosters (game, roster, block, games) VALUES (?,?,?,?)",
                "game, roster",
                "block = excluded.block, games = excluded.games",
            ),
            (game, roster, block, games),
        )
