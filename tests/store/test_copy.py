"""``arena store copy``: a store moved from SQLite into PostgreSQL (and back) is the same
store, row for row, and a rebuild of the copy finds every value it holds."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.core.said import Answer, Talk
from arena.referee.identity import make_verifier
from arena.store import Store
from arena.store.copy import BATCH, TABLES, CannotCopy, copy_store
from arena.store.live import LiveGame
from arena.store.pgserver import LocalPostgres

from .helpers import avalon_record, many_records


def fill(store: Store, games: int) -> None:
    """A store with something in every table."""
    store.tournaments.start("t1", {"game": "avalon"}, now=1.0)
    store.secrets.get("serve")
    for record in many_records(games, seed=5):
        store.games.record(record)
    warned = avalon_record(games + 6, random.Random(2))
    warning = (warned.nicks[0], f"WARN g{games + 6} 4 seconds=10 :your deadline passed")
    store.games.record(dataclasses.replace(warned, transcript=(*warned.transcript, warning)))
    rng = random.Random(8)
    for i in range(games, games + 6):
        store.games.record(avalon_record(i, rng, tournament="t1"))
    store.bots.add("Alice", "ann", make_verifier("k" * 32, 4096), None, 1.0)
    store.bots.save("bob", "bea", "1.0", "acct", 3.0)
    store.rosters.save("avalon", "a,b,c,d,e", 2, 5)
    store.live.new_id(5.0)
    live = LiveGame(
        "g900", "avalon", {"merlin": True}, 2**62 + 1, None, tuple("abcde"), tuple("abcde"), "here", None, 6.5
    )
    store.live.open(live, owner="r1")
    assert store.referees.hold("r1", "here", "arena", "host", 13, 30.0) is None
    # (a shared lobby's rows, as written where NOTIFY is not at hand)
    store.db.execute(
        "INSERT INTO lobby_bots (token, place, name, folded, nick, owner, version, account, protocol, referee)"
        " VALUES ('t1', 'net/#arena', 'Alice', 'alice', 'alice_', 'me', '1', NULL, 2, 'r1')"
    )
    store.db.execute(
        "INSERT INTO lobby_tables (gid, place, game, seats, referee, dealt)"
        " VALUES ('g901', 'net/#arena', 'avalon', '[\"a\", \"b\"]', 'r1', 7.25)"
    )
    store.live.append(
        "g900",
        0,
        [(0, "team", (0, 1))],
        0,
        [(None, None, "START g900"), ("a", 0, "ROLE x")],
        {"n": 1},
        talk=[Talk(1, "b", "I am good", 1.25, 2)],
        answers=[Answer(0, "3", "ANSWER g900 3 team=a,b", 1.5, 0.25, None, "random", 2)],
    )


def rows(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    return {
        table: [tuple(r) for r in store.db.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()]
        for table, key in TABLES
    }


def test_every_table_of_the_schema_is_copied(tmp_path: Path, postgres: LocalPostgres) -> None:
    with Store(tmp_path / "a.db") as s:
        names = {r[0] for r in s.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names - {"sqlite_sequence"} == {t for t, _ in TABLES}
    with Store(postgres.new_database()) as s:
        query = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        assert {r[0] for r in s.db.execute(query)} - {"arena_schema"} == {t for t, _ in TABLES}


def test_sqlite_to_postgresql_and_back_is_the_same_store(tmp_path: Path, postgres: LocalPostgres) -> None:
    games = BATCH + 20  # more rows than one batch in several tables
    with Store(tmp_path / "original.db") as original:
        fill(original, games)
        before = rows(original)
    assert all(before[t] for t, _ in TABLES)
    url = postgres.new_database()
    with Store(tmp_path / "original.db") as original, Store(url) as pg:
        copied = copy_store(original, pg)
        assert copied == {t: len(r) for t, r in before.items()}
        assert rows(pg) == before
        assert pg.ratings.rebuild().exact
    with Store(url) as pg, Store(tmp_path / "back.db") as back:
        copy_store(pg, back)
        assert rows(back) == before
        assert back.ratings.rebuild().exact
    for where in (url, str(tmp_path / "back.db")):
        with Store(where) as s:  # numbering goes on after the copied games, on either engine
            s.games.record(avalon_record(10_000, random.Random(1)))
            assert s.games.find(limit=1)[0].seq == before["games"][-1][0] + 1
            assert s.live.new_id(7.0) == f"g{games + 8}"  # after the copied g{games + 7}
            assert s.bots.get("ALICE") is not None


def test_a_store_that_holds_something_is_not_copied_into(tmp_path: Path, postgres: LocalPostgres) -> None:
    url = postgres.new_database()
    with Store(tmp_path / "a.db") as a, Store(url) as pg:
        fill(a, 3)
        pg.bots.save("carol", "cat", "1.0", None, 1.0)
        with pytest.raises(CannotCopy, match="bots"):
            copy_store(a, pg)
        assert pg.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


def test_the_command_copies_and_says_what(
    tmp_path: Path, postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with Store(tmp_path / "a.db") as a:
        fill(a, 4)
    url = postgres.new_database()
    runner = CliRunner()
    done = runner.invoke(main, ["store", "copy", "a.db", url])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("copied 11 games (") and done.output.rstrip().endswith(f"to {url}")
    again = runner.invoke(main, ["store", "copy", "a.db", url])
    assert again.exit_code == 1 and "already holds rows" in again.output
    missing = runner.invoke(main, ["store", "copy", "nothing.db", url])
    assert missing.exit_code == 1 and "no results database at nothing.db" in missing.output
    assert not (tmp_path / "nothing.db").exists()
