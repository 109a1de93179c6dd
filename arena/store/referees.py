"""Which run of a referee holds a place (its server and lobby), under a lease.

A referee holds its place for ``term`` seconds of the database's clock and renews the lease
well before then. Another referee started at the same place (a standby, on this host or
another sharing the database) waits while the lease runs; once it has lapsed (the holder
was killed, its host went down, it is cut off from the database), the standby takes the
place, and in the same transaction every game in progress there, whose bots it then takes
up as a restarted referee does. The games' writes name their owner (``LiveGames``): the
referee that lost its place finds its next write refused (``Fenced``), so it never writes,
nor therefore speaks (the referee sends only what it stored), for those games again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .database import Database


class Fenced(Exception):
    """A referee wrote for a game (or renewed a place) that another referee has taken over."""


@dataclass(frozen=True)
class Holder:
    """The referee that holds a place."""

    id: str
    nick: str
    host: str
    pid: int
    left: float
    """Seconds its lease runs yet (it renews it well before)."""


class Referees:
    def __init__(self, db: Database) -> None:
        self.db = db

    def hold(
        self, rid: str, place: str, nick: str, host: str, pid: int, term: float, shared: bool = False
    ) -> Holder | None:
        """Take ``place`` for ``term`` seconds, with every game in progress there whose
        referee is gone (none if it is the first): None once done, or the referee that
        holds it now. In a ``shared`` lobby only a referee under the same nick holds it (the
        others are its peers)."""
        db, clock = self.db, self.db.dialect.clock
        same = " AND LOWER(nick) = LOWER(?)" if shared else ""
        with db.transaction():
            row = db.execute(
                f"SELECT id, nick, host, pid, lease - {clock} FROM referees WHERE place = ? AND id <> ?"
                f" AND lease >= {clock}{same} ORDER BY lease DESC LIMIT 1",
                (place, rid, nick) if shared else (place, rid),
            ).fetchone()
            if row is not None:
                return Holder(row[0], row[1], row[2], int(row[3]), float(row[4]))
            db.execute(
                db.dialect.upsert(
                    "INSERT INTO referees (id, place, nick, host, pid, started, lease)"
                    f" VALUES (?, ?, ?, ?, ?, {clock}, {clock} + ?)",
                    "id",
                    "lease = excluded.lease, nick = excluded.nick",
                ),
                (rid, place, nick, host, pid, term),
            )
            self._inherit(rid, place)
        return None

    def _inherit(self, rid: str, place: str) -> bool:
        """Make ``rid`` the owner of the games (and tables) at ``place`` whose referee is
        gone, and forget the referees gone; whether there were any."""
        games, tables, gone = self._orphans()
        taken = self.db.execute(f"UPDATE live_games SET owner = ? WHERE {games}", (rid, place)).rowcount
        dealt = self.db.execute(f"UPDATE lobby_tables SET referee = ? WHERE {tables}", (rid, place)).rowcount
        self.db.execute(f"DELETE FROM referees WHERE {gone}", (place, rid))
        return bool(taken or dealt)

    def _orphans(self) -> tuple[str, str, str]:
        """What ``_inherit`` takes, as conditions on a place (and a referee): the games there
        and the tables there whose referee's lease does not run, and the referees there
        (but that one) whose lease ran out."""
        clock = self.db.dialect.clock
        live = f"(SELECT id FROM referees WHERE lease >= {clock})"
        return (
            f"place = ? AND tournament IS NULL AND (owner IS NULL OR owner NOT IN {live})",
            f"place = ? AND referee IS NOT NULL AND referee NOT IN {live}",
            f"place = ? AND id <> ? AND lease < {clock}",
        )

    def inherit(self, rid: str, place: str) -> bool:
        """``_inherit`` in a transaction of its own (the dealer of a shared lobby, at each
        renewal: a peer that stopped renewing leaves its games to it), only if a read finds
        something to inherit: the write lock is not taken for nothing."""
        games, tables, gone = self._orphans()
        row = self.db.execute(
            f"SELECT EXISTS (SELECT 1 FROM live_games WHERE {games}) OR EXISTS (SELECT 1 FROM lobby_tables"
            f" WHERE {tables}) OR EXISTS (SELECT 1 FROM referees WHERE {gone})",
            (place, place, place, rid),
        ).fetchone()
        if not row[0]:
            return False
        with self.db.transaction():
            return self._inherit(rid, place)

    def live(self, place: str) -> list[tuple[str, str]]:
        """The referees whose lease runs at ``place``, longest there first: (id, nick)."""
        clock = self.db.dialect.clock
        rows = self.db.execute(
            f"SELECT id, nick FROM referees WHERE place = ? AND lease >= {clock} ORDER BY started, id", (place,)
        ).fetchall()
        return [(row[0], row[1]) for row in rows]

    def renew(self, rid: str, term: float) -> None:
        """Hold the place ``term`` seconds more; ``Fenced`` if another referee took it."""
        with self.db.transaction():
            sql = f"UPDATE referees SET lease = {self.db.dialect.clock} + ? WHERE id = ?"
            if self.db.execute(sql, (term, rid)).rowcount != 1:
                raise Fenced("another referee has taken this referee's place over")

    def leave(self, rid: str) -> None:
        """Give the place up at once (a referee that stops, or one found dead): a standby
        need not wait out the lease."""
        with self.db.transaction():
            self.db.execute("DELETE FROM referees WHERE id = ?", (rid,))
