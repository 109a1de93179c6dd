"""The store on PostgreSQL: the same reads as SQLite's, one writer at a time across
referees, and a server that goes away costs no half-written game."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import psycopg
import pytest

from arena.referee.identity import make_verifier
from arena.referee.pause import unwritable
from arena.store import MIGRATIONS, Store
from arena.store import ratings as store_ratings
from arena.store.database import Unavailable
from arena.store.dialect import shown
from arena.store.pgserver import LocalPostgres
from arena.store.postgres import PostgreSQL
from arena.store.referees import Fenced

from .helpers import avalon_record
from .test_dialect import everything
from .test_referees import PLACE, lapse, live, step

TABLES = ("games", "logs", "outcomes", "rating_changes", "ratings", "game_ids")


def counts(store: Store) -> dict[str, int]:
    return {t: store.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def backend(store: Store) -> int:
    return int(store.db.execute("SELECT pg_backend_pid()").fetchone()[0])


def terminate(postgres: LocalPostgres, pid: int) -> None:
    """Cut one connection, as a server restart or a network failure does."""
    with psycopg.connect(postgres.url(), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))


def test_every_repository_reads_on_postgresql_what_it_reads_on_sqlite(tmp_path: Path, postgres: LocalPostgres) -> None:
    alice, bob = make_verifier("k" * 32, 4096), make_verifier("q" * 32, 4096)
    with Store(postgres.new_database()) as pg, Store(tmp_path / "sqlite.db") as sqlite:
        assert pg.version == len(MIGRATIONS) == sqlite.version
        seen, expected = everything(pg, alice, bob), everything(sqlite, alice, bob)
    keys = {0, 1, 2}  # drawn at random: equal within a store, not across two
    assert [x for i, x in enumerate(seen) if i not in keys] == [x for i, x in enumerate(expected) if i not in keys]


def test_a_bot_name_is_one_name_whatever_its_case(postgres: LocalPostgres) -> None:
    with Store(postgres.new_database()) as s:
        s.bots.add("Alice", "ann", None, None, 1.0)
        with pytest.raises(KeyError):
            s.bots.add("ALICE", "eve", None, None, 2.0)
        found = s.bots.get("alice")
        assert found is not None and found.name == "Alice"


def test_a_connection_lost_mid_game_stores_nothing_and_the_next_write_reconnects(
    postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store(postgres.new_database()) as s:
        s.games.record(avalon_record(0, random.Random(0)))
        before = counts(s)
        write = store_ratings.Ratings.write

        def cut_then_write(self: store_ratings.Ratings, *args: object, **kwargs: object) -> None:
            terminate(postgres, backend(s))
            write(self, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(store_ratings.Ratings, "write", cut_then_write)
        with pytest.raises(Unavailable) as lost:
            s.games.record(avalon_record(1, random.Random(1)))
        assert unwritable(lost.value)  # a referee pauses the game and tries again
        monkeypatch.undo()
        assert counts(s) == before  # read on a new connection
        s.games.record(avalon_record(1, random.Random(1)))
        assert counts(s)["games"] == 2 and s.ratings.rebuild().exact


def test_a_lost_transaction_runs_none_of_its_later_statements(postgres: LocalPostgres) -> None:
    """Nothing of a lost transaction may go out alone on a new connection: every later
    statement of it fails until the store rolls it back."""
    with Store(postgres.new_database()) as s:
        with pytest.raises(Unavailable), s.db.transaction():
            s.db.execute("INSERT INTO game_ids (id, reserved) VALUES (?, ?)", ("a", 1.0))
            terminate(postgres, backend(s))
            with pytest.raises(Unavailable):
                s.db.execute("INSERT INTO game_ids (id, reserved) VALUES (?, ?)", ("b", 1.0))
            s.db.execute("INSERT INTO game_ids (id, reserved) VALUES (?, ?)", ("c", 1.0))
        assert s.db.execute("SELECT COUNT(*) FROM game_ids").fetchone()[0] == 0


def test_a_server_that_cannot_be_reached_is_unavailable_not_a_bug(postgres: LocalPostgres) -> None:
    url = postgres.new_database()
    with Store(url) as s:
        terminate(postgres, backend(s))
        s.db.conn._conn.close()  # type: ignore[attr-defined]  # and the server is gone meanwhile:
        s.db.conn.url = url.replace(str(postgres.port), "1")  # type: ignore[attr-defined]
        with pytest.raises(Unavailable) as gone:
            s.games.record(avalon_record(0, random.Random(0)))
        assert unwritable(gone.value)


def test_referees_on_one_database_never_share_a_game_id(postgres: LocalPostgres) -> None:
    url = postgres.new_database()
    Store(url).close()
    got: list[list[str]] = [[], [], []]

    def take(mine: list[str]) -> None:
        with Store(url) as s:
            mine.extend(s.live.new_id(1.0) for _ in range(30))

    threads = [threading.Thread(target=take, args=(mine,)) for mine in got]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = [gid for mine in got for gid in mine]
    assert sorted(ids, key=lambda g: int(g[1:])) == [f"g{n}" for n in range(1, 91)]


def test_referees_starting_together_on_a_new_database_migrate_it_once(postgres: LocalPostgres) -> None:
    url = postgres.new_database()
    script = textwrap.dedent(f"""
        from arena.store import Store
        with Store({url!r}) as s:
            print(s.migrated_from, s.version)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=120)[0].split() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert min(int(o[0]) for o in outs) == 0  # the others found it new or part-way, and went on from there
    assert {int(o[1]) for o in outs} == {len(MIGRATIONS)}


def test_games_recorded_by_two_processes_rate_as_one_sequence(postgres: LocalPostgres) -> None:
    url = postgres.new_database()
    Store(url).close()
    script = textwrap.dedent(f"""
        import sys
        from tests.store.helpers import many_records
        from arena.store import Store
        part = int(sys.argv[1])
        with Store({url!r}) as s:
            for r in many_records(30, seed=4)[part::2]:
                s.games.record(r)
    """)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(i)]) for i in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with Store(url) as s:
        assert counts(s)["games"] == 30
        assert s.ratings.rebuild().exact


def test_the_schema_in_postgresql_words() -> None:
    pg = PostgreSQL()
    assert pg.ddl("CREATE TABLE t (seq INTEGER PRIMARY KEY AUTOINCREMENT, x REAL, b BLOB, t TEXT) WITHOUT ROWID") == [
        "CREATE TABLE t (seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
        ' x DOUBLE PRECISION, b BYTEA, t TEXT COLLATE "C")'
    ]
    nocase = pg.ddl("CREATE TABLE bots (\n name TEXT PRIMARY KEY COLLATE NOCASE,\n owner TEXT NOT NULL\n)")
    assert nocase[1] == (
        'CREATE TABLE bots (\n name TEXT COLLATE nocase PRIMARY KEY,\n owner TEXT COLLATE "C" NOT NULL\n)'
    )
    assert nocase[0].startswith("CREATE COLLATION IF NOT EXISTS nocase")
    assert pg.sql("SELECT x FROM t WHERE a = ? AND b LIKE '5%'") == "SELECT x FROM t WHERE a = %s AND b LIKE '5%%'"


def test_a_url_is_shown_without_its_password() -> None:
    assert shown("postgresql://arena:hunter2@db.example:5432/arena") == "postgresql://arena:***@db.example:5432/arena"
    assert shown("postgresql://arena@db/arena") == "postgresql://arena@db/arena"
    assert shown("/var/lib/arena/results.db") == "/var/lib/arena/results.db"


def test_a_rebuild_with_a_worker_for_the_standings_is_exact(postgres: LocalPostgres) -> None:
    with Store(postgres.new_database()) as s:
        s.tournaments.start("t1", {"game": "avalon"}, now=1.0)
        rng = random.Random(4)
        for i in range(12):
            s.games.record(avalon_record(i, rng, tournament="t1" if i % 2 else None))
        report = s.ratings.rebuild(jobs=2)
        assert report.exact and report.standings_checked > 0


def test_a_connection_lost_between_transactions_costs_one_write_at_most(postgres: LocalPostgres) -> None:
    """The server ended the session while it was idle (a restart, an idle timeout): the
    write that finds out fails (the referee pauses and tries again), the next reconnects."""
    with Store(postgres.new_database()) as s:
        for i in range(3):
            terminate(postgres, backend(s))
            try:
                s.games.record(avalon_record(i, random.Random(i)))
            except Unavailable:
                s.games.record(avalon_record(i, random.Random(i)))
        assert counts(s)["games"] == 3 and s.ratings.rebuild().exact


def test_ctrl_c_in_the_middle_of_a_statement_leaves_the_store_usable(
    postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C may land after a statement went out and before its result came back: the
    server still has a command in progress on that connection and refuses the next one. The
    store drops it, so the referee's cleanup after Ctrl-C (giving its place up, telling the
    other referees) still reaches the database."""
    with Store(postgres.new_database()) as s:
        conn = s.db.conn._conn  # type: ignore[attr-defined]

        def sent_then_interrupted(sql: str, parameters: object = None) -> None:
            monkeypatch.undo()
            conn.pgconn.send_query(b"SELECT pg_sleep(0.1)")
            raise KeyboardInterrupt

        monkeypatch.setattr(conn, "execute", sent_then_interrupted)
        with pytest.raises(KeyboardInterrupt):
            s.db.execute("SELECT 1")
        assert s.db.execute("SELECT 1").fetchone()[0] == 1
        s.games.record(avalon_record(0, random.Random(0)))
        assert counts(s)["games"] == 1


def waiting_for_a_lock(store: Store) -> int:
    """How many sessions of the store's database wait for a lock now."""
    sql = "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    return int(store.db.execute(sql).fetchone()[0])


def test_steps_of_live_games_need_no_write_lock_and_a_takeover_waits_for_the_step_it_meets(
    postgres: LocalPostgres,
) -> None:
    """A turn's steps are rows of its referee's own games: they commit while another
    referee holds the write lock (recording a game, say). A takeover of a game (its owner
    changed) that meets a step not yet committed waits for it, so the heir reads that step,
    and the old owner's next step is refused."""
    url = postgres.new_database()
    with Store(url) as a, Store(url) as b, Store(url) as watcher:
        for s in (a, b):
            s.db.execute("SET lock_timeout = '30s'")
        a.referees.hold("A", PLACE, "arena", "host-a", 11, 30.0)
        b.referees.hold("B", PLACE, "arena2", "host-b", 12, 30.0, shared=True)
        a.live.open(live("g1"), owner="A")
        with b.db.transaction():  # B holds the write lock meanwhile
            b.db.execute("UPDATE counters SET value = value WHERE name = 'none'")
            step(a, "g1", 0, "A")  # (it would wait to lock_timeout, and fail, if it took the lock)
        lapse(a, "A")
        taken = threading.Event()

        def take_over() -> None:
            assert b.referees.inherit("B", PLACE)
            taken.set()

        with a.db.transaction(alone=False):
            step(a, "g1", 1, "A")
            heir = threading.Thread(target=take_over)
            heir.start()
            while not waiting_for_a_lock(watcher):  # the heir meets the step's row lock
                assert heir.is_alive() and not taken.is_set()
                time.sleep(0.01)
        heir.join()
        assert taken.is_set()
        with pytest.raises(Fenced):
            step(a, "g1", 2, "A")
        [game] = b.live.all("g1")
        assert [line for _, _, line in game.lines] == ["LINE 0", "LINE 1"] and game.state == {"n": 1}


def test_a_write_that_needs_the_write_lock_cannot_hide_in_a_transaction_without_it(postgres: LocalPostgres) -> None:
    with Store(postgres.new_database()) as s:
        with pytest.raises(RuntimeError, match="write lock"), s.db.transaction(alone=False):
            s.games.record(avalon_record(0, random.Random(0)))
        assert counts(s)["games"] == 0
