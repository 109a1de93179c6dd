"""A lobby that several referees share: its registered bots, its dealt tables, its news.

Every referee of a shared lobby (``server.network``) sees the same lobby channel, but each
bot registers with one of them: what a registration proved is written here, so that every
referee knows the bot and may seat it, send it its lines and take its answers. One referee,
the dealer (the one of the lobby running longest), draws the tables from the bots that
wait; each table is then claimed by exactly one referee (``FOR UPDATE SKIP LOCKED``), the
least busy first, which announces and runs its game. What one referee changes, the others
hear at once through PostgreSQL's ``NOTIFY``, sent with the change's own transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .database import Database

VOUCHED = 200
"""Registrations one notice vouches for (a notice carries at most 8,000 bytes)."""
CHANNEL = "arena_lobby"
"""The ``NOTIFY`` channel of every shared lobby (a notice names its lobby first)."""


@dataclass(frozen=True)
class Registration:
    """A bot as one referee of the lobby admitted it: its connection now and what it proved."""

    token: str
    name: str
    nick: str
    owner: str
    version: str
    account: str | None
    protocol: int
    referee: str
    """The run of the referee that admitted it."""


@dataclass(frozen=True)
class Dealt:
    """A table the dealer drew: its game id, its game and its bots in seat order."""

    gid: str
    game: str
    seats: tuple[str, ...]
    referee: str | None
    """The run that claimed it (None: not claimed yet)."""


class Lobbies:
    def __init__(self, db: Database) -> None:
        self.db = db

    def _tell(self, place: str, kind: str, what: str = "") -> None:
        """``NOTIFY`` the lobby's referees, when (and only if) the transaction commits."""
        self.db.execute("SELECT pg_notify(?, ?)", (CHANNEL, f"{place}\t{kind}\t{what}")).fetchall()

    def referees_changed(self, place: str) -> None:
        """A referee joined the lobby or left it: the others look at who referees it now."""
        with self.db.transaction():
            self._tell(place, "referees")

    def vouch(self, place: str, tokens: list[str]) -> None:
        """A referee has watched the connections of registrations ``tokens`` without a
        break (it tells so once a netsplit is over): the other referees may play them again."""
        with self.db.transaction():
            for at in range(0, len(tokens), VOUCHED):
                self._tell(place, "vouch", ",".join(tokens[at : at + VOUCHED]))

    # -- bots -----------------------------------------------------------------------

    def admitted(self, place: str, reg: Registration) -> None:
        """``reg`` is the bot's registration in the lobby from now on (it replaces the one before)."""
        with self.db.transaction():
            self.db.execute("DELETE FROM lobby_bots WHERE place = ? AND folded = ?", (place, reg.name.lower()))
            self.db.execute(
                "INSERT INTO lobby_bots (token, place, name, folded, nick, owner, version, account, protocol, referee)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    reg.token,
                    place,
                    reg.name,
                    reg.name.lower(),
                    reg.nick,
                    reg.owner,
                    reg.version,
                    reg.account,
                    reg.protocol,
                    reg.referee,
                ),
            )
            self._tell(place, "bot", reg.name)

    def renamed(self, place: str, token: str, nick: str) -> None:
        """Registration ``token``'s connection is on ``nick`` now."""
        with self.db.transaction():
            row = self.db.execute(
                "UPDATE lobby_bots SET nick = ? WHERE token = ? AND nick <> ? RETURNING name", (nick, token, nick)
            ).fetchone()
            if row is not None:
                self._tell(place, "bot", row[0])

    def gone(self, place: str, token: str) -> None:
        """Registration ``token`` is over (its connection left, or unregistered); a newer one stays."""
        with self.db.transaction():
            row = self.db.execute("DELETE FROM lobby_bots WHERE token = ? RETURNING name", (token,)).fetchone()
            if row is not None:
                self._tell(place, "bot", row[0])

    def registration(self, place: str, name: str) -> Registration | None:
        row = self.db.execute(
            "SELECT token, name, nick, owner, version, account, protocol, referee FROM lobby_bots"
            " WHERE place = ? AND folded = ?",
            (place, name.lower()),
        ).fetchone()
        return None if row is None else _registration(row)

    def registrations(self, place: str) -> list[Registration]:
        rows = self.db.execute(
            "SELECT token, name, nick, owner, version, account, protocol, referee FROM lobby_bots WHERE place = ?"
            " ORDER BY folded",
            (place,),
        ).fetchall()
        return [_registration(row) for row in rows]

    def forget_bots(self, place: str) -> None:
        """The lobby's first referee: no referee watched the bots' connections before it, so
        no registration from before can be trusted to be the same connection."""
        with self.db.transaction():
            self.db.execute("DELETE FROM lobby_bots WHERE place = ?", (place,))

    # -- tables ---------------------------------------------------------------------

    def deal(self, place: str, dealer: str, gid: str, game: str, seats: list[str]) -> bool:
        """Offer a table to the lobby's referees; False if ``dealer`` is no longer a referee
        of the lobby (its lease ran out: another deals now)."""
        db, clock = self.db, self.db.dialect.clock
        with db.transaction(alone=False):  # (the table's row is its own; a dealer that lost its lease deals nothing)
            done = db.execute(
                f"INSERT INTO lobby_tables (gid, place, game, seats, referee, dealt) SELECT ?, ?, ?, ?, NULL, {clock}"
                f" WHERE EXISTS (SELECT 1 FROM referees WHERE id = ? AND lease >= {clock})",
                (gid, place, game, json.dumps(seats), dealer),
            ).rowcount
            if done:
                self._tell(place, "table", gid)
        return bool(done)

    def claim(self, place: str, referee: str, settle: float) -> Dealt | None:
        """The oldest table nobody claimed, now ``referee``'s, if ``referee`` runs no more
        tables than any other referee of the lobby (the least busy runs the next game).
        A referee that joined the lobby less than ``settle`` seconds ago claims nothing
        unless it is the longest there (the others are telling their bots of it meanwhile:
        a bot obeys no referee it has not been told of)."""
        db, clock = self.db, self.db.dialect.clock
        if not self.unclaimed(place):
            return None  # (no write transaction for nothing)
        with db.transaction(alone=False):  # (SKIP LOCKED: two referees claiming at once claim two tables)
            loads = db.execute(
                f"SELECT r.id, COUNT(t.gid), r.started <= {clock} - ?, r.started"
                " FROM referees r LEFT JOIN lobby_tables t ON t.referee = r.id"
                f" WHERE r.place = ? AND r.lease >= {clock} GROUP BY r.id, r.started ORDER BY r.started, r.id",
                (settle, place),
            ).fetchall()
            able = {row[0]: int(row[1]) for i, row in enumerate(loads) if i == 0 or row[2]}
            if referee not in able or able[referee] > min(able.values()):
                return None
            row = db.execute(
                "SELECT gid, game, seats FROM lobby_tables WHERE place = ? AND referee IS NULL ORDER BY dealt, gid"
                " LIMIT 1 FOR UPDATE SKIP LOCKED",
                (place,),
            ).fetchone()
            if row is None:
                return None
            db.execute("UPDATE lobby_tables SET referee = ? WHERE gid = ?", (referee, row[0]))
            self._tell(place, "claimed", row[0])
        return Dealt(row[0], row[1], tuple(json.loads(row[2])), referee)

    def unclaimed(self, place: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM lobby_tables WHERE place = ? AND referee IS NULL LIMIT 1", (place,)
        ).fetchone()
        return row is not None

    def done(self, place: str, gid: str, kind: str) -> None:
        """Table ``gid`` is over (``kind``: ``ended``, its game ended; ``withdrawn``, it never
        started): its bots are the dealer's to seat again."""
        with self.db.transaction(alone=False):
            if self.db.execute("DELETE FROM lobby_tables WHERE gid = ?", (gid,)).rowcount:
                self._tell(place, kind, gid)

    def tables(self, place: str) -> list[Dealt]:
        """Every table dealt and not over (what a new dealer finds)."""
        rows = self.db.execute(
            "SELECT gid, game, seats, referee FROM lobby_tables WHERE place = ? ORDER BY dealt, gid", (place,)
        ).fetchall()
        return [Dealt(row[0], row[1], tuple(json.loads(row[2])), row[3]) for row in rows]

    def table(self, gid: str) -> Dealt | None:
        row = self.db.execute("SELECT gid, game, seats, referee FROM lobby_tables WHERE gid = ?", (gid,)).fetchone()
        return None if row is None else Dealt(row[0], row[1], tuple(json.loads(row[2])), row[3])


def _registration(row: Sequence[Any]) -> Registration:
    return Registration(row[0], row[1], row[2], row[3], row[4], row[5], int(row[6]), row[7])
