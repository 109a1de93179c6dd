"""Group commit: what the referee handles in one batch (one turn of the IRC reactor) is
stored in one transaction, and its lines go out only once it is committed.

Each game's step is a part of that transaction: a step that cannot be written leaves
nothing (the transaction is written again without it: its game pauses, the others go on),
and a transaction the engine rolled back whole stops the writes that were nested in it, so
none is stored on its own. Elsewhere a transaction nested in another is a savepoint of it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.journal import Journal
from arena.referee.local import LocalHub
from arena.referee.recorder import Recorder
from arena.sdk import Bot
from arena.store import Store
from arena.store.database import TransactionLost
from arena.store.dialect import Connection, Cursor

PLACE = "127.0.0.1:6667/#arena"


class Commits:
    """A store's connection that counts the commits of its write transactions."""

    def __init__(self, conn: Connection) -> None:
        self._conn, self.commits, self._writing = conn, 0, False

    def execute(self, sql: str, *args: Any) -> Cursor:
        if sql.startswith("BEGIN"):
            self._writing = sql == "BEGIN IMMEDIATE"
        elif sql == "COMMIT":
            self.commits += self._writing
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_two_games_answered_in_batches_cost_a_commit_a_batch_and_send_nothing_unstored(tmp_path: Path) -> None:
    store = Store(tmp_path / "results.db")
    counted = Commits(store.conn)
    store.conn = counted
    hub = LocalHub(TimeoutConfig(), journal=Journal(store, PLACE))
    Recorder(store).attach(hub.referee)
    for i in range(10):
        hub.connect(f"p{i}", Bot(seed=i))
    referee = hub.referee
    matches = [
        referee.start_game("avalon", [f"p{i}" for i in seats], AvalonOptions(), seed, hub.channel, hub.now, gid=gid)
        for gid, seats, seed in (("g1", range(5), 1), ("g2", range(5, 10), 2))
    ]
    batches = 0
    before = counted.commits
    while not all(m.over for m in matches):
        with referee.batch():
            hub.run()  # the bots answer what went out; the referee's replies wait for the commit
            running = [m for m in matches if not m.over]
            for match in running:
                stored = store.live.all(match.gid)[0].lines
                assert len(stored) < len(match.transcript), "a step was stored before its batch ended"
        batches += 1
        assert batches < 200
        for match in running:
            if not match.over:
                assert len(store.live.all(match.gid)[0].lines) == len(match.transcript), "a line went out unstored"
    answers = sum(len(m.answers) for m in matches)
    # One commit a batch, and for each game its record (with the ratings), the step that
    # announces its ratings and its removal from the games in progress: per line, it would
    # have been one an answer.
    assert counted.commits - before <= batches + 3 * len(matches), (counted.commits - before, batches)
    assert batches * 2 < answers
    assert sorted(summary.id for summary in store.games.find()) == ["g1", "g2"]
    assert store.live.all() == []


def test_a_step_that_fails_leaves_nothing_and_the_other_games_steps_are_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "results.db")
    hub = LocalHub(TimeoutConfig(), journal=Journal(store, PLACE))
    for i in range(10):
        hub.connect(f"p{i}", Bot(seed=i))
    referee = hub.referee
    g1, g2 = (
        referee.start_game("avalon", [f"p{i}" for i in seats], AvalonOptions(), seed, hub.channel, hub.now, gid=gid)
        for gid, seats, seed in (("g1", range(5), 1), ("g2", range(5, 10), 2))
    )
    before = len(store.live.all("g1")[0].lines)
    append = store.live.append

    def written_then_failed(gid: str, *args: Any, **kwargs: Any) -> None:
        append(gid, *args, **kwargs)  # the whole step written, and yet:
        if gid == "g1":
            raise RuntimeError("a bug after the step's rows")

    monkeypatch.setattr(store.live, "append", written_then_failed)
    with referee.batch():
        hub.run()
    assert len(store.live.all("g1")[0].lines) == before < len(g1.transcript)  # nothing of g1's step
    assert len(store.live.all("g2")[0].lines) == len(g2.transcript)  # g2's step, whole
    assert set(referee.writeahead.paused) == {"g1"}  # (tried again later: tests/test_full_store.py)


def test_a_savepoint_that_fails_is_rolled_back_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "results.db")
    db = store.db
    db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    with db.transaction():
        with db.transaction():
            db.execute("INSERT INTO t VALUES (1)")
        with pytest.raises(sqlite3.IntegrityError):
            with db.transaction():
                db.execute("INSERT INTO t VALUES (2)")
                db.execute("INSERT INTO t VALUES (1)")
        with db.transaction():
            db.execute("INSERT INTO t VALUES (3)")
    assert [x for (x,) in db.execute("SELECT x FROM t ORDER BY x")] == [1, 3]


def test_a_write_nested_in_a_transaction_the_engine_rolled_back_is_not_stored_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "results.db")
    db = store.db
    db.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
    with pytest.raises(sqlite3.OperationalError):
        with db.transaction():
            db.execute("INSERT INTO t VALUES (1)")
            db.execute("ROLLBACK")  # as SQLite does by itself on a full disk
            with pytest.raises(TransactionLost):
                with db.transaction():
                    db.execute("INSERT INTO t VALUES (2)")
    assert list(db.execute("SELECT x FROM t")) == []
    with db.transaction():  # and the next transaction is a fresh one
        db.execute("INSERT INTO t VALUES (4)")
    assert [x for (x,) in db.execute("SELECT x FROM t")] == [4]
