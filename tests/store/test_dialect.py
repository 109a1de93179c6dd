"""The store's repositories say nothing in SQLite's own words: every statement goes through
the dialect, which alone writes placeholders, ignoring inserts, upserts, transactions and
"no limit". So another engine is one more dialect, not an edit of every repository."""

from __future__ import annotations

import random
import re
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from arena.core.said import Answer, Talk
from arena.referee.identity import make_verifier
from arena.store import Store
from arena.store.dialect import Connection, Cursor, SQLite
from arena.store.live import LiveGame
from arena.store.records import Verifier

from .helpers import avalon_record, many_records

OWN_WORDS = ("OR IGNORE", "ON CONFLICT", "PRAGMA", "BEGIN", "LIMIT -1")
"""SQLite's way of saying what the dialect says: only the dialect may write these."""


class Checked:
    """A connection that refuses a statement with a bare ``?``: it did not go through ``Numbered.sql``."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.statements = 0

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Cursor:
        assert not re.search(r"\?(?!\d)", sql), f"not through the dialect: {sql}"
        self.statements += 1
        return self.conn.execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any) -> Cursor:
        assert not re.search(r"\?(?!\d)", sql), f"not through the dialect: {sql}"
        self.statements += 1
        return self.conn.executemany(sql, parameters)

    def close(self) -> None:
        self.conn.close()


class Numbered(SQLite):
    """SQLite with numbered placeholders (``?1``, ``?2``), as another engine has its own
    style, and refusing any statement that says in SQLite's words what it did not write."""

    def __init__(self) -> None:
        self.written: set[str] = set()

    def connect(self, path: str) -> Connection:
        return Checked(super().connect(path))

    def sql(self, statement: str) -> str:
        for word in OWN_WORDS:
            assert word not in statement or statement in self.written, f"SQLite's own words: {statement}"
        numbers = iter(range(1, statement.count("?") + 1))
        return re.sub(r"\?", lambda _: f"?{next(numbers)}", statement)

    def _own(self, statement: str) -> str:
        self.written.add(statement)
        return statement

    def begin(self, write: bool, alone: bool = True) -> str:
        return self._own(super().begin(write, alone))

    def insert_ignore(self, insert: str) -> str:
        return self._own(super().insert_ignore(insert))

    def upsert(self, insert: str, key: str, update: str, returning: str = "") -> str:
        return self._own(super().upsert(insert, key, update, returning))


def everything(store: Store, alice: Verifier, bob: Verifier) -> list[Any]:
    """Every repository at work, writing and reading; what it read."""
    seen: list[Any] = []
    store.tournaments.start("t1", {"game": "avalon"}, now=1.0)
    seen += [store.tournaments.key("t1"), store.secrets.get("serve"), store.secrets.get("serve")]
    rng = random.Random(3)
    for record in many_records(12):
        store.games.record(record)
    for i in range(20, 24):
        store.games.record(avalon_record(i, rng, tournament="t1"))
    store.bots.add("alice", "ann", alice, None, 1.0)
    store.bots.save("alice", "mallory", "2.0", "acct", 2.0)
    store.bots.save("bob", "bea", "1.0", None, 3.0)
    store.bots.set_key("bob", bob)
    seen += [store.bots.get("alice"), store.bots.all()]
    store.rosters.save("avalon", "a,b,c,d,e", 1, 2)
    store.rosters.save("avalon", "a,b,c,d,e", 2, 1)
    seen += [
        store.rosters.get("avalon", "a,b,c,d,e"),
        store.live.new_id(5.0),
        store.live.new_id(5.0),
        store.live.reserve("g0", 5.0),
        store.live.reserve("t1-9", 5.0),
    ]
    live = LiveGame("g90", "avalon", {}, 7, None, tuple("abcde"), tuple("abcde"), "here", None, 6.0)
    store.live.open(live)
    store.live.append("g90", 0, [(0, "team", (0, 1))], 0, [(None, None, "START g90")], {"n": 1})
    store.live.append(  # every kind of row at once, with what a text format could garble
        "g90",
        1,
        [(1, "vote", True), (2, "vote", False)],
        1,
        [("p2", 2, 'ASK g90 1 to=p2 "quoted" \\ é'), (None, None, "VOTES g90 p1=yes")],
        {"n": 2, "s": "ünï"},
        0,
        [Talk(1, "p1", 'hi 👋 "there"', 0.1 + 0.2, 1)],
        0,
        [
            Answer(2, "1", "ANSWER g90 1 yes", 1e-7, None, "late: ünï", None, 2),
            Answer(1, "2", "x", 2.5, 0.125, None, "no", 3),
        ],
    )
    store.live.resumed("g90", "there")
    seen += [store.live.all(), store.live.unfinished(place="there")]
    store.live.close("g90")
    seen += [
        store.live.all("g90"),
        store.games.find(limit=None),
        store.games.find(game="avalon", limit=3),
        store.games.load("g5"),
        store.games.has("g5"),
        store.tournaments.get("t1"),
        store.tournaments.all(),
    ]
    for system in ("elo", "trueskill"):
        seen += [
            store.ratings.leaderboard("avalon", system),
            store.ratings.standings("avalon", system, "t1"),
            store.ratings.history("avalon", system),
            store.ratings.current("avalon", system),
        ]
    seen += [store.stats.bots("avalon"), store.ratings.rebuild(write=True), store.ratings.rebuild()]
    return seen


def test_every_statement_of_every_repository_goes_through_the_dialect(tmp_path: Path) -> None:
    Store(tmp_path / "other.db").close()  # the schema's migrations are SQLite's own, released as they are
    dialect = Numbered()
    alice, bob = make_verifier("k" * 32, 4096), make_verifier("q" * 32, 4096)  # salted at random
    with Store(tmp_path / "other.db", dialect=dialect) as other, Store(tmp_path / "sqlite.db") as sqlite:
        seen = everything(other, alice, bob)
        assert other.conn.statements > 100  # type: ignore[attr-defined]
        expected = everything(sqlite, alice, bob)
    keys = {0, 1, 2}  # drawn at random: equal within a store, not across two
    assert seen[1] == seen[2] and len(seen[0]) == 32
    assert [x for i, x in enumerate(seen) if i not in keys] == [x for i, x in enumerate(expected) if i not in keys]
