"""Whole-store work holds what its answer needs, not the stored history: a rebuild reads
(and rewrites) the games a batch at a time, and the per-role results are kept as games are
recorded, equal to counting every stored seat (which a store from before them migrates to)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from arena import parallel
from arena.store import Store, rebuild, replay
from arena.store.dialect import Connection, Cursor
from arena.store.schema import MIGRATIONS, V8_FLAT

from .helpers import avalon_record, old_copy

ROW_LIMIT = 3 * 2 * 13
"""The most rows a rebuild may read or write by one statement with batches of 3 games: each
game's changes under 2 systems, at most 10 seats and 3 sides (more than the current ratings
of the 12 bots and their sides)."""


class _Rows:
    """A cursor that reports how many rows were read from it."""

    def __init__(self, cursor: Cursor, seen: list[int]) -> None:
        self.cursor = cursor
        self.seen = seen
        seen.append(0)
        self.index = len(seen) - 1

    @property
    def rowcount(self) -> int:
        return self.cursor.rowcount

    @property
    def description(self) -> Any:
        return self.cursor.description

    def fetchone(self) -> Any:
        row = self.cursor.fetchone()
        self.seen[self.index] += row is not None
        return row

    def fetchall(self) -> list[Any]:
        rows = self.cursor.fetchall()
        self.seen[self.index] += len(rows)
        return rows

    def __iter__(self) -> Iterator[Any]:
        for row in self.cursor:
            self.seen[self.index] += 1
            yield row


class _Counting:
    """A connection that counts the rows of every statement: read, or given to write."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.seen: list[int] = []

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    def execute(self, sql: str, parameters: Sequence[Any] = (), /) -> Cursor:
        return _Rows(self.conn.execute(sql, parameters), self.seen)

    def executemany(self, sql: str, parameters: Iterable[Sequence[Any]], /) -> Cursor:
        rows = list(parameters)
        self.seen.append(len(rows))
        return self.conn.executemany(sql, rows)

    def close(self) -> None:
        self.conn.close()


def _store(path: Path, games: int) -> Store:
    """``games`` games of 5 or 10 players, a third in each of two tournaments."""
    store = Store(path)
    for t in "ab":
        store.tournaments.start(t, {"game": "avalon"}, now=0.0)
    rng = random.Random(4)
    for i in range(games):
        tournament = ("a", "b", None)[i % 3]
        store.games.record(avalon_record(i, rng, players=rng.choice((5, 10)), tournament=tournament))
    return store


@pytest.mark.parametrize("games", [15, 60])
def test_a_rebuild_reads_and_writes_a_batch_of_games_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, games: int
) -> None:
    """No statement of a rebuild, check or rewrite, reads or writes more rows than a batch
    of games has, however many are stored (where it once read every game at once)."""
    monkeypatch.setattr(replay, "BATCH", 3, raising=False)
    with _store(tmp_path / "a.db", games) as store:
        counting = _Counting(store.conn)
        store.conn = counting
        assert store.ratings.rebuild().exact
        assert store.ratings.rebuild(write=True).exact
        assert store.ratings.rebuild().games == games
        assert 0 < max(counting.seen) <= ROW_LIMIT


def test_rebuild_counts_every_difference_and_names_the_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with _store(tmp_path / "a.db", 12) as store:
        store.conn.execute("UPDATE rating_changes SET mu_after = mu_after + 1")
        changes = store.conn.execute("SELECT COUNT(*) FROM rating_changes").fetchone()[0]
        monkeypatch.setattr("arena.store.rebuild.KEPT", 5)
        report = store.ratings.rebuild()
        assert report.differences == changes and len(report.mismatches) == 5
        assert [m.where.split()[:2] for m in report.mismatches] == [["game", "1"]] * 5
        assert store.ratings.rebuild(write=True).differences == changes
        assert store.ratings.rebuild().exact


def test_a_worker_rates_the_standings_as_this_process_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the tournaments' standings rated in a worker process (``jobs=2``), a rebuild
    reports what it reports in one process, differences named in the same order, and
    rewrites what one process then finds exact."""
    monkeypatch.setattr(replay, "BATCH", 7, raising=False)  # several tasks, given ahead of their answers
    monkeypatch.setattr(rebuild, "KEPT", 6)
    started: list[int] = []
    real = parallel.Workers

    def workers(*args: Any) -> parallel.Workers:
        started.append(args[2])
        return real(*args)

    monkeypatch.setattr(parallel, "Workers", workers)
    with _store(tmp_path / "a.db", 40) as store:
        store.conn.execute("UPDATE rating_changes SET mu_after = mu_after + 1 WHERE game_seq % 9 = 0")
        store.conn.execute("UPDATE standings SET mu = mu + 1e-9 WHERE tournament = 'a' AND kind = 'bot'")
        store.conn.execute("DELETE FROM standings WHERE tournament = 'b' AND kind = 'side'")
        alone = store.ratings.rebuild(jobs=1)
        assert started == [] and alone.differences > len(alone.mismatches) == 6
        assert store.ratings.rebuild(jobs=2) == alone and started == [1]
        assert store.ratings.rebuild(write=True, jobs=2) == dataclasses.replace(alone, written=True)
        assert store.ratings.rebuild(jobs=1).exact


def _kept(store: Store) -> list[tuple[Any, ...]]:
    return store.conn.execute(
        "SELECT * FROM role_results ORDER BY game, tournament, bot, role, result, reason"
    ).fetchall()


def test_the_migration_keeps_the_role_results_of_games_stored_before(tmp_path: Path) -> None:
    """A store from before the kept role results (the same file without their table and
    the indexes that came with them, at the version before) gets them on opening: what was
    kept game by game, as the stats counted every seat."""
    path = tmp_path / "old.db"
    with _store(path, 30) as store:
        before = _kept(store)
        stats = {t: store.stats.bots("avalon", tournament=t) for t in ("a", "b", None)}
        one = store.stats.bots("avalon", "bot3")
    older = MIGRATIONS.index(V8_FLAT)
    old_copy(path, tmp_path / "older.db", MIGRATIONS[:older])
    path = tmp_path / "older.db"
    with Store(path) as store:
        assert store.migrated_from == older and store.version == len(MIGRATIONS)
        assert _kept(store) == before
        assert sum(row[-1] for row in before) == store.conn.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]
        assert {t: store.stats.bots("avalon", tournament=t) for t in ("a", "b", None)} == stats
        assert store.stats.bots("avalon", "bot3") == one
        names = {row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "games_by_tournament" in names
