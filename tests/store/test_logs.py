"""A finished game's log kept as one document: read back exactly, the same packed where the
game is played or where it is stored, its conduct counted as the lines say, and the stores
that kept logs as rows moved to documents with nothing lost."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import zlib
from pathlib import Path

import pytest

from arena.core.said import Answer, Talk
from arena.store import GameRecord, Store
from arena.store.logs import FELL_BACK, REFUSED, TIMED_OUT, WARNED, conduct, unpack
from arena.store.schema import MIGRATIONS, V9_LOGS

from .helpers import avalon_record, many_records, old_copy


def _misbehaving(i: int, tournament: str | None = None) -> GameRecord:
    """Game ``i`` with a transcript and answers that a bot's conduct is counted from."""
    record = avalon_record(i, random.Random(i), tournament=tournament)
    a, b, c = record.nicks[:3]
    transcript = (
        (None, f"START g{i} avalon"),
        (a, f"ERROR ACTION_NOT_ALLOWED g{i} 4 :not your turn"),
        (a.upper(), f"ERROR MALFORMED g{i} count=3 :three refused lines"),
        (b, f"WARN g{i} 5 seconds=10 :your deadline passed; answer now or the default applies"),
        (None, f"TIMEOUT g{i} 5 player={b} action=default"),
        (None, f"TIMEOUT g{i} 6 player={c.upper()} action=forfeit"),
        ("stranger", f"ERROR MALFORMED g{i} :not seated"),
        (a, "WARNING: not a conduct line"),
    )
    answers = (
        Answer(0, "4", f"ANSWER g{i} 4 approve", 2.0, 0.5, None, None, 2),
        Answer(1, "5", f"ANSWER g{i} 5 reject fallback=late", 3.0, 1.0, None, "late", 4),
        Answer(1, "7", f"ANSWER g{i} 7 reject fallback=late", 4.0, 1.0, None, "late", 5),
        Answer(2, "8", f"ANSWER g{i} 8 a,b fallback=error", 5.0, 1.0, "MALFORMED", "error", 6),
    )
    talk = (Talk(0, a, "I am good", 1.25, 1), Talk(2, c, "é ;-- :x", 9.0, 7))
    return dataclasses.replace(record, transcript=transcript, answers=answers, talk=talk)


def test_a_log_reads_back_exactly(tmp_path: Path) -> None:
    records = [*many_records(20), _misbehaving(20)]
    with Store(tmp_path / "r.db") as store:
        for record in records:
            store.games.record(record)
        for record in records:
            game = store.games.load(record.id)
            assert game is not None
            assert game.events == tuple(record.events)
            assert game.history == tuple(record.history)
            assert game.transcript == tuple(record.transcript)
            assert game.talk == tuple(record.talk) and game.answers == tuple(record.answers)


def test_packed_where_played_or_where_stored_the_same_rows(tmp_path: Path) -> None:
    record = _misbehaving(1, tournament="t")
    packed = record.pack()
    assert packed.events == () and packed.transcript == () and packed.packed is not None
    assert packed.pack() is packed and packed.log() == record.log()
    rows = []
    for name, r in (("a", record), ("b", packed)):
        with Store(tmp_path / f"{name}.db") as store:
            store.tournaments.start("t", {}, 0.0)
            store.games.record(r)
            rows.append(
                [
                    store.conn.execute(f"SELECT * FROM {table}").fetchall()
                    for table in ("logs", "conduct", "outcomes", "rating_changes")
                ]
            )
    assert rows[0] == rows[1]


def test_conduct_is_counted_from_the_lines_to_each_seat() -> None:
    record = _misbehaving(3)
    bots = ("alpha", "beta", "gamma", "delta", "eps")
    found = {
        (bot, kind, what): n for bot, kind, what, n in conduct(bots, record.nicks, record.transcript, record.answers)
    }
    assert found == {
        ("alpha", REFUSED, "ACTION_NOT_ALLOWED"): 1,
        ("alpha", REFUSED, "MALFORMED"): 3,  # count=3, to the nick in other letters' case
        ("beta", WARNED, ""): 1,
        ("beta", TIMED_OUT, "default"): 1,
        ("gamma", TIMED_OUT, "forfeit"): 1,
        ("beta", FELL_BACK, "late"): 2,
        ("gamma", FELL_BACK, "error"): 1,
    }


def test_stats_read_the_conduct_of_each_tournament(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        for t in ("a", "b"):
            store.tournaments.start(t, {}, 0.0)
        store.games.record(_misbehaving(1, tournament="a"))
        store.games.record(_misbehaving(2, tournament="b"))
        store.games.record(_misbehaving(3))
        one = _misbehaving(1)
        beta = one.nicks[1]
        everywhere = store.stats.bots("avalon")
        in_a = store.stats.bots("avalon", tournament="a")
    bots = {_misbehaving(i).nicks[1] for i in (1, 2, 3)}
    assert sum(everywhere[b].conduct.fallbacks.get("late", 0) for b in bots) == 6
    assert in_a[beta].conduct.fallbacks == {"late": 2} and in_a[beta].conduct.warnings == 1
    assert in_a[beta].conduct.defaults == 1


def test_a_store_with_logs_as_rows_moves_them_to_documents(tmp_path: Path) -> None:
    """A store from before documents (its logs as rows, at the version before) keeps every
    game's log and every bot's conduct on opening, and the rows' tables are gone."""
    path = tmp_path / "new.db"
    records = [*many_records(12), _misbehaving(12, tournament="a"), _misbehaving(13)]
    with Store(path) as store:
        store.tournaments.start("a", {}, 0.0)
        for record in records:
            store.games.record(record)
        games = [store.games.load(r.id) for r in records]
        stats = {t: store.stats.bots("avalon", tournament=t) for t in ("a", None)}
        kept = store.conn.execute("SELECT * FROM conduct ORDER BY 1, 2, 3, 4, 5").fetchall()
    older = MIGRATIONS.index(V9_LOGS)
    old_copy(path, tmp_path / "old.db", MIGRATIONS[:older])
    conn = sqlite3.connect(tmp_path / "old.db")
    assert conn.execute("SELECT COUNT(*) FROM lines").fetchone()[0] == sum(len(r.transcript) for r in records)
    conn.close()
    with Store(tmp_path / "old.db") as store:
        assert (store.migrated_from, store.version) == (older, len(MIGRATIONS))
        assert [store.games.load(r.id) for r in records] == games
        assert {t: store.stats.bots("avalon", tournament=t) for t in ("a", None)} == stats
        assert store.conn.execute("SELECT * FROM conduct ORDER BY 1, 2, 3, 4, 5").fetchall() == kept
        tables = {name for (name,) in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert not tables & {"events", "actions", "lines", "talk", "answers"}


def test_a_log_of_another_version_is_refused() -> None:
    with pytest.raises(ValueError, match="version 2"):
        unpack(zlib.compress(json.dumps({"v": 2}).encode()))
