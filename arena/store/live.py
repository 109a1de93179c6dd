"""Games in progress, written ahead: what a restarted referee needs to take a game up again.

A live game is its setup (game, options, seed, deal, seats), the answers its engine took
(replayed into a fresh engine, they rebuild its state exactly, since engines are
deterministic), the lines the referee sent (what each bot was told, for its resync), the
referee's own bookkeeping, and what the players said (talk, answer lines), which the
finished game keeps. The referee writes each step here *before* any line of it
goes out, so nothing anyone saw is ever missing from the store. A game leaves these tables
once its end has been written to the server, after it is recorded as finished: a game
recorded whose end no bot may have heard is still here, for a restarted referee to tell.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

from ..core.said import Answer, Talk
from . import said
from .codec import encode as _encode, tuples as _tuples
from .database import Database
from .referees import Fenced

Line = tuple[str | None, int | None, str]
"""A line as the referee sent it: (the nick of a direct message, None = the channel; the
seat that line told, None = no seat's knowledge; the line)."""


@dataclass(frozen=True)
class LiveGame:
    """A game in progress as the store keeps it."""

    id: str
    game: str
    options: dict[str, Any]
    seed: int
    deal: tuple[int, ...] | None
    names: tuple[str, ...]
    """The seats' names as START announced them."""
    bots: tuple[str, ...]
    """The bot that plays each seat."""
    place: str
    """Where it runs: the referee's server and lobby (``host:port/#channel``)."""
    tournament: str | None
    started: float
    """Wall-clock time the game began, in its first run."""
    resumes: int = 0
    """How many times a restarted referee has taken it up."""
    history: tuple[tuple[int, str, Any], ...] = ()
    """The answers the engine took, in order (defaults of missed deadlines included)."""
    lines: tuple[Line, ...] = ()
    state: dict[str, Any] = field(default_factory=dict)
    """The referee's bookkeeping (``Match.state``)."""
    recorded: bool = False
    """Whether the game is recorded as finished already (its end may not have been sent)."""
    talk: tuple[Talk, ...] = ()
    """The players' talk so far (``Match.talk``)."""
    answers: tuple[Answer, ...] = ()
    """The answer lines so far (``Match.answers``)."""


_FENCE = " AND (owner IS NULL OR owner = ?)"
"""A write of a live game's row by its owner only (or by anyone, while it has none)."""


_ACTIONS = ("gid", "idx", "seat", "kind", "value")
_LINES = ("gid", "idx", "target", "seat", "line")
"""The columns of ``live_actions`` and ``live_lines`` a step writes."""


class LiveGames:
    """The games in progress of a store (the journal's), each write its own transaction
    (``claim`` excepted: it joins the caller's)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def new_id(self, now: float) -> str:
        """The next lobby game id (``g1``, ``g2``, ...) that no game in this file ever had:
        taken in a write transaction, so two referees sharing the file never get one id."""
        db = self.db
        ignore = db.dialect.insert_ignore("INSERT INTO game_ids (id, reserved) VALUES (?, ?)")
        count = db.dialect.upsert(
            "INSERT INTO counters (name, value) VALUES ('game', 1)", "name", "value = counters.value + 1", "value"
        )
        with db.transaction(alone=False):  # (the counter's row is locked to the end)
            while True:
                n = db.execute(count).fetchone()[0]
                gid = f"g{n}"
                if db.execute(ignore, (gid, now)).rowcount:
                    return gid

    def reserve(self, gid: str, now: float) -> bool:
        """Claim ``gid`` (a tournament's planned id); False if some game already had it."""
        with self.db.transaction():
            return self.claim(gid, now)

    def claim(self, gid: str, now: float) -> bool:
        """``reserve`` inside the caller's write transaction (recording a game claims its id)."""
        sql = self.db.dialect.insert_ignore("INSERT INTO game_ids (id, reserved) VALUES (?, ?)")
        return bool(self.db.execute(sql, (gid, now)).rowcount)

    def open(self, live: LiveGame, owner: str | None = None) -> None:
        """Start writing ahead a game in progress, its id claimed or claimed now (raises
        the dialect's integrity error if it is live already); ``owner``: the run of the
        referee whose writes alone count for it (None: anyone's)."""
        with self.db.transaction(alone=False):
            self.claim(live.id, live.started)
            self.db.execute(
                "INSERT INTO live_games (id, game, options, seed, deal, names, bots, place, tournament, started,"
                " resumes, state, owner) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    live.id,
                    live.game,
                    _encode(live.options),
                    live.seed,
                    None if live.deal is None else _encode(list(live.deal)),
                    _encode(list(live.names)),
                    _encode(list(live.bots)),
                    live.place,
                    live.tournament,
                    live.started,
                    live.resumes,
                    _encode(live.state),
                    owner,
                ),
            )

    def append(
        self,
        gid: str,
        first_action: int,
        actions: Sequence[tuple[int, str, Any]],
        first_line: int,
        lines: Sequence[Line],
        state: dict[str, Any],
        first_talk: int = 0,
        talk: Sequence[Talk] = (),
        first_answer: int = 0,
        answers: Sequence[Answer] = (),
        owner: str | None = None,
    ) -> None:
        """Add a step of a live game, durable when this returns: its new answers and lines,
        talk and answer lines, numbered on from ``first_*`` (a number written twice is an
        integrity error: nothing is ever overwritten), and the bookkeeping as it stands
        after them. ``Fenced`` (and nothing written) if ``owner`` no longer owns it.

        The game's row is written first, fenced in the same statement: its lock, held to the
        commit, orders this step and a takeover (which changes the owner), with no write
        lock. Where the engine can (``Dialect.json_rows``), the whole step is that one
        statement: one round trip to a server, not one a table."""
        db = self.db
        fence, args = ("", (_encode(state), gid)) if owner is None else (_FENCE, (_encode(state), gid, owner))
        update = f"UPDATE live_games SET state = ? WHERE id = ?{fence}"
        talk_rows, answer_rows = said.rows(gid, first_talk, talk, first_answer, answers)
        parts = [
            (table, columns, rows)
            for table, columns, rows in (
                (
                    "live_actions",
                    _ACTIONS,
                    [
                        (gid, first_action + i, seat, kind, _encode(value))
                        for i, (seat, kind, value) in enumerate(actions)
                    ],
                ),
                ("live_lines", _LINES, [(gid, first_line + i, *line) for i, line in enumerate(lines)]),
                ("live_talk", said.TALK, talk_rows),
                ("live_answers", said.ANSWERS, answer_rows),
            )
            if rows
        ]
        with db.transaction(alone=False):
            if db.dialect.json_rows("live_games") is None:
                written = db.execute(update, args).rowcount
                for table, columns, rows in parts if written == 1 else ():
                    db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({_marks(columns)})", rows)
            else:
                sql, values = _at_once(db, update, parts)
                written = db.execute(sql, args + values).fetchone()[0]
            if written != 1:
                self._owned(gid, owner)
                raise KeyError(f"game {gid} is not live")

    def resumed(self, gid: str, place: str, owner: str | None = None) -> None:
        """Count one more resumption of ``gid``, now run from ``place`` by ``owner``."""
        with self.db.transaction(alone=False):
            self.db.execute(
                "UPDATE live_games SET resumes = resumes + 1, place = ?, owner = ? WHERE id = ?", (place, owner, gid)
            )

    def close(self, gid: str, owner: str | None = None) -> None:
        """Forget a live game: it is recorded and its end has reached the server
        (``Journal.forget``); ``Fenced`` if ``owner`` no longer owns it."""
        with self.db.transaction(alone=False):
            self._owned(gid, owner, lock=True)
            for table, column in (
                ("live_actions", "gid"),
                ("live_lines", "gid"),
                ("live_talk", "gid"),
                ("live_answers", "gid"),
                ("live_games", "id"),
            ):
                self.db.execute(f"DELETE FROM {table} WHERE {column} = ?", (gid,))

    def _owned(self, gid: str, owner: str | None, lock: bool = False) -> None:
        """Refuse (``Fenced``) a write of ``owner`` for a game another referee has taken over
        (``lock``: and hold the game's row to the commit, against a takeover meanwhile)."""
        if owner is None:
            return
        sql = "SELECT owner FROM live_games WHERE id = ?" + (self.db.dialect.row_lock if lock else "")
        row = self.db.execute(sql, (gid,)).fetchone()
        if row is not None and row[0] is not None and row[0] != owner:
            raise Fenced(f"game {gid} has been taken over by another referee")

    def unfinished(
        self, *, place: str | None = None, tournament: str | None = None, owner: str | None = None
    ) -> list[LiveGame]:
        """The live games an earlier run left: ``tournament``'s, or (None) those outside any
        tournament run from ``place`` (and owned by ``owner``, if given: those its lease
        gave it, not those its peers in a shared lobby run), oldest first."""
        if tournament is not None:
            return self._load("tournament = ?", (tournament,))
        if owner is not None:
            return self._load("tournament IS NULL AND place = ? AND owner = ?", (place or "", owner))
        return self._load("tournament IS NULL AND place = ?", (place or "",))

    def all(self, gid: str | None = None) -> list[LiveGame]:
        """Every game in progress, wherever it runs, oldest first (only ``gid``, if given):
        what spectators may follow."""
        return self._load("1 = 1", ()) if gid is None else self._load("id = ?", (gid,))

    def listing(self, limit: int, offset: int = 0) -> tuple[list[LiveGame], int]:
        """``limit`` games in progress from the ``offset``-th, oldest first, as their setup
        alone (no answers, lines, talk or bookkeeping), and how many games are in progress:
        what a list of games shows, in two queries however many games run and however long."""
        db = self.db
        with db.transaction(write=False):
            rows = db.execute(
                f"SELECT {_SETUP} FROM live_games ORDER BY started, id LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
            total = db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0]
        return [_setup(row) for row in rows], int(total)

    def _load(self, where: str, args: tuple[Any, ...]) -> list[LiveGame]:
        """In one read transaction: a game's steps are not half-seen while its referee writes."""
        db = self.db
        with db.transaction(write=False):
            rows = db.execute(
                f"SELECT {_SETUP}, state FROM live_games WHERE {where} ORDER BY started, id", args
            ).fetchall()
            games = []
            for row in rows:
                gid, state = row[0], row[-1]
                history = tuple(
                    (seat, kind, _tuples(json.loads(value)))
                    for seat, kind, value in db.execute(
                        "SELECT seat, kind, value FROM live_actions WHERE gid = ? ORDER BY idx", (gid,)
                    )
                )
                lines = tuple(
                    db.execute("SELECT target, seat, line FROM live_lines WHERE gid = ? ORDER BY idx", (gid,))
                )
                talk, answers = said.load(db, gid)
                games.append(
                    dataclasses.replace(
                        _setup(row[:-1]),
                        history=history,
                        lines=lines,
                        state=json.loads(state),
                        talk=talk,
                        answers=answers,
                    )
                )
        return games


_SETUP = (
    "id, game, options, seed, deal, names, bots, place, tournament, started, resumes,"
    " EXISTS (SELECT 1 FROM games WHERE games.id = live_games.id)"
)
"""The columns of a live game's setup (``_setup``)."""


def _setup(row: Sequence[Any]) -> LiveGame:
    """A live game's setup from the ``_SETUP`` columns: nothing of its play."""
    gid, game, options, seed, deal, names, bots, place, tid, started, resumes, recorded = row
    return LiveGame(
        gid,
        game,
        json.loads(options),
        seed,
        None if deal is None else tuple(json.loads(deal)),
        tuple(json.loads(names)),
        tuple(json.loads(bots)),
        place,
        tid,
        started,
        resumes,
        recorded=bool(recorded),
    )


def _marks(columns: Sequence[str]) -> str:
    return ",".join("?" * len(columns))


def _at_once(
    db: Database, update: str, parts: Sequence[tuple[str, Sequence[str], Sequence[tuple[Any, ...]]]]
) -> tuple[str, tuple[str, ...]]:
    """One statement for a step (``LiveGames.append``): ``update`` of the game's row, and
    each table's rows inserted from one JSON parameter, only if that row was updated; its
    one result is how many rows it updated (1, or 0: not live, or fenced)."""
    ctes = [f"g AS ({update} RETURNING id)"]
    values = []
    for n, (table, columns, rows) in enumerate(parts):
        picked, source = ", ".join(f"r.{c}" for c in columns), db.dialect.json_rows(table)
        ctes.append(f"i{n} AS (INSERT INTO {table} ({', '.join(columns)}) SELECT {picked} FROM g, {source} AS r)")
        values.append(json.dumps([dict(zip(columns, row)) for row in rows]))
    return "WITH " + ", ".join(ctes) + " SELECT COUNT(*) FROM g", tuple(values)
