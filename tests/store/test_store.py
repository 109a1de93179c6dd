"""The results store: schema and migrations, one-transaction writes, reads, rebuild."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.core.events import Event
from arena.ratings import BOT, SIDE, Elo, TrueSkill
from arena.store import MIGRATIONS, GameRecord, ParametersChanged, SchemaError, Store, build_match
from arena.store import ratings as store_ratings
from arena.store import replay as store_replay
from arena.store.schema import V1

from .helpers import avalon_record, many_records, old_copy, result_of

TABLES = ("games", "logs", "conduct", "outcomes", "rating_changes", "ratings", "tournaments", "rating_systems")


def counts(store: Store) -> dict[str, int]:
    return {t: store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


@pytest.fixture
def store(where: str) -> Iterator[Store]:
    with Store(where) as s:
        yield s


# -- schema ------------------------------------------------------------------------------


def test_a_new_database_gets_the_latest_schema_in_wal_mode(tmp_path: Path) -> None:
    with Store(tmp_path / "new.db") as s:
        assert s.migrated_from == 0
        assert s.version == len(MIGRATIONS)
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert counts(s) == dict.fromkeys(TABLES, 0)


def test_reopening_keeps_data_and_runs_nothing(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    with Store(path) as s:
        s.games.record(avalon_record(0, random.Random(0)))
    with Store(path) as s:
        assert s.migrated_from == len(MIGRATIONS)
        assert [g.id for g in s.games.find()] == ["g0"]


def test_a_later_migration_upgrades_an_existing_database(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    Store(path, migrations=(V1,)).close()
    v2 = ("ALTER TABLE games ADD COLUMN note TEXT", "UPDATE games SET note = 'migrated'")
    with Store(path, migrations=(V1, v2)) as s:
        assert (s.migrated_from, s.version) == (1, 2)
        assert s.conn.execute("SELECT note FROM games").fetchall() == []


def test_a_store_from_before_bot_identities_migrates(tmp_path: Path) -> None:
    """Games rated under nicks keep their ratings: each nick becomes a bot of that name, and
    the games name their bots."""
    with Store(tmp_path / "new.db") as s:
        for i in range(3):
            s.games.record(avalon_record(i, random.Random(i)))
        board = s.ratings.leaderboard("avalon", "elo")
    old_copy(tmp_path / "new.db", tmp_path / "old.db", (V1,))  # a store from before bots were identities
    with Store(tmp_path / "old.db") as s:
        assert s.migrated_from == 1 and s.version == len(MIGRATIONS)
        assert s.ratings.leaderboard("avalon", "elo") == board
        assert {b.name for b in s.bots.all()} == {r.bot for r in board}
        assert all(g.bots == g.nicks for g in s.games.find())
        assert s.ratings.rebuild().exact


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    Store(path, migrations=(V1,)).close()
    bad = ("CREATE TABLE extra (x)", "THIS IS NOT SQL")
    with pytest.raises(sqlite3.OperationalError):
        Store(path, migrations=(V1, bad))
    with Store(path, migrations=(V1,)) as s:
        assert s.version == 1
        assert s.conn.execute("SELECT name FROM sqlite_master WHERE name = 'extra'").fetchone() is None


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    Store(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(SchemaError, match="newer"):
        Store(path)


# -- one transaction per game ------------------------------------------------------------


def test_a_failure_mid_write_leaves_nothing(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.games.record(avalon_record(0, random.Random(0)))
    before = counts(store)
    ratings_before = store.ratings.current("avalon", "elo")

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected after the game, events and outcomes were written")

    monkeypatch.setattr(store_ratings.Ratings, "write", boom)
    with pytest.raises(RuntimeError, match="injected"):
        store.games.record(avalon_record(1, random.Random(1)))
    assert counts(store) == before
    assert store.ratings.current("avalon", "elo") == ratings_before
    monkeypatch.undo()
    store.games.record(avalon_record(1, random.Random(1)))  # the connection is still usable
    assert counts(store)["games"] == 2


def test_an_unwritable_event_leaves_nothing(store: Store) -> None:
    rec = avalon_record(0, random.Random(0))
    bad = rec.__class__(**{**rec.__dict__, "events": (*rec.events, Event("x", {"v": object()}))})
    with pytest.raises(TypeError):
        store.games.record(bad)
    assert counts(store) == dict.fromkeys(TABLES, 0)


def test_a_duplicate_game_id_is_refused_and_changes_nothing(store: Store) -> None:
    rec = avalon_record(0, random.Random(0))
    store.games.record(rec)
    before = counts(store), store.ratings.current("avalon", "trueskill")
    with pytest.raises(store.db.dialect.integrity_error):
        store.games.record(rec)
    assert (counts(store), store.ratings.current("avalon", "trueskill")) == before


def test_a_process_killed_mid_write_leaves_nothing(tmp_path: Path) -> None:
    """A real crash: the writing process dies (os._exit) between two inserts of a game."""
    path = tmp_path / "crash.db"
    with Store(path) as s:
        s.games.record(avalon_record(0, random.Random(0)))
    root = Path(__file__).resolve().parents[2]
    script = textwrap.dedent(f"""
        import os, random, sys
        sys.path[:0] = [{str(root)!r}]
        from arena.store import Store
        from arena.store.ratings import Ratings
        from tests.store.helpers import avalon_record
        def die(*a, **k):
            os._exit(3)
        Ratings.write = die
        s = Store({str(path)!r})
        s.games.record(avalon_record(1, random.Random(1)))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stderr
    with Store(path) as s:
        assert [g.id for g in s.games.find()] == ["g0"]
        assert counts(s)["logs"] == 1
        loaded = s.games.load("g0")
        assert loaded is not None and loaded.events == tuple(avalon_record(0, random.Random(0)).events)
        assert s.ratings.rebuild().exact


# -- reading -----------------------------------------------------------------------------


def test_a_stored_game_replays_exactly_and_gives_every_view(store: Store) -> None:
    rec = avalon_record(3, random.Random(3), players=7)
    store.games.record(rec)
    game = store.games.load("g3")
    assert game is not None and game.summary.nicks == rec.nicks
    assert list(game.events) == list(rec.events)
    assert game.replay().events == list(rec.events)
    for seat in (None, *range(7)):
        assert game.view(seat) == [e for e in rec.events if e.visible_to(seat)]
    roles = [e.data["role"] for e in game.view(2) if e.kind == "role"]
    assert roles == [rec.roles[2]]
    assert {o.result for o in game.outcomes} == {"win", "loss"}
    assert set(game.changes) == {"elo", "trueskill"}
    assert store.games.load("nope") is None


def test_a_game_dealt_by_a_series_replays_with_its_deal(store: Store) -> None:
    deal = (4, 3, 2, 1, 0)
    rec = avalon_record(4, random.Random(4), deal=deal)
    store.games.record(rec)
    game = store.games.load("g4")
    assert game is not None
    assert game.deal == deal
    assert game.replay().events == list(rec.events)


def test_forfeited_and_aborted_games_follow_the_abnormal_end_rule(store: Store) -> None:
    rng = random.Random(5)
    store.games.record(avalon_record(0, rng, end="forfeit"))
    store.games.record(avalon_record(1, rng, end="abort"))
    forfeited = store.games.load("g0")
    assert forfeited is not None
    assert forfeited.summary.kind == "forfeit" and forfeited.forfeited == 1
    assert forfeited.replay().events == list(forfeited.events)
    assert {o.seat: o.result for o in forfeited.outcomes} == {0: "draw", 1: "forfeit", 2: "draw", 3: "draw", 4: "draw"}
    offender = forfeited.outcomes[1].bot
    elo = {c.entity: c.delta for c in forfeited.changes["elo"]}
    assert elo[(BOT, offender)] == pytest.approx(-16.0)
    assert not any(e[0] == SIDE for e in elo)
    stopped = store.games.load("g1")
    assert stopped is not None
    assert stopped.summary.kind == "aborted" and stopped.summary.reason == "operator stop"
    assert {o.result for o in stopped.outcomes} == {"aborted"} and stopped.changes == {}
    assert store.ratings.rebuild().exact


def test_list_games_filters_and_pages(store: Store) -> None:
    recs = many_records(12)
    for r in recs:
        store.games.record(r)
    assert [g.id for g in store.games.find(limit=3)] == ["g11", "g10", "g9"]
    assert [g.id for g in store.games.find(limit=2, before_seq=10)] == ["g8", "g7"]
    bot = recs[4].nicks[0]
    mine = store.games.find(bot=bot, limit=100)
    assert mine and all(bot in g.nicks for g in mine)
    assert len(mine) == sum(bot in r.nicks for r in recs)
    assert store.games.find(game="werewolf") == []


def test_leaderboard_reads_current_ratings_in_score_order(store: Store) -> None:
    for r in many_records(40):
        store.games.record(r)
    for system in (Elo(), TrueSkill()):
        board = store.ratings.leaderboard("avalon", system.name)
        assert [row.rank for row in board] == list(range(1, len(board) + 1))
        assert [row.score for row in board] == sorted((row.score for row in board), reverse=True)
        assert all(row.score == system.score(store.ratings.current("avalon", system.name)[row.bot]) for row in board)
        assert not any(row.bot.startswith(("good", "evil")) for row in board)
    assert len(store.ratings.leaderboard("avalon", "elo", limit=3)) == 3
    assert all(r.games >= 15 for r in store.ratings.leaderboard("avalon", "elo", min_games=15))


def test_tournament_progress_is_written_with_each_game(store: Store) -> None:
    store.tournaments.start("t1", {"games": 100, "bots": ["a", "b"]}, now=1.0)
    rng = random.Random(2)
    for i in range(3):
        store.games.record(avalon_record(i, rng, tournament="t1"))
    assert store.tournaments.get("t1") == ({"games": 100, "bots": ["a", "b"]}, 3)
    assert store.tournaments.get("t2") is None
    with pytest.raises(store.db.dialect.integrity_error):  # an unknown tournament: nothing is stored
        store.games.record(avalon_record(9, rng, tournament="t2"))
    assert counts(store)["games"] == 3


# -- rebuild -----------------------------------------------------------------------------


def test_rebuild_reproduces_every_stored_value_exactly(store: Store) -> None:
    for r in many_records(60):
        store.games.record(r)
    report = store.ratings.rebuild()
    assert report.exact, report.mismatches[:5]
    assert report.games == 60
    assert report.changes_checked == counts(store)["rating_changes"]
    assert report.ratings_checked == counts(store)["ratings"]


def test_rebuild_reports_a_tampered_value_and_can_rewrite_it(store: Store) -> None:
    for r in many_records(20):
        store.games.record(r)
    good = store.ratings.current("avalon", "trueskill")
    bot = next(iter(good))
    store.db.execute("UPDATE ratings SET mu = mu + 1e-12 WHERE system = 'trueskill' AND entity = ?", (bot,))
    store.conn.execute("UPDATE rating_changes SET mu_after = 0 WHERE game_seq = 3 AND system = 'elo'")
    report = store.ratings.rebuild()
    assert not report.exact
    assert any(m.where.startswith("rating avalon trueskill bot " + bot) for m in report.mismatches)
    assert any(m.where.startswith("game 3 elo") for m in report.mismatches)
    assert store.ratings.rebuild(write=True).written
    assert store.ratings.rebuild().exact
    assert store.ratings.current("avalon", "trueskill") == good


def test_the_rated_match_is_rebuilt_identically_from_outcome_rows(store: Store) -> None:
    for r in many_records(30):
        store.games.record(r)
        seq = store.games.find(limit=1)[0].seq
        rows = store.db.execute(
            "SELECT seat, bot, grp, rank, adv FROM outcomes WHERE game_seq = ? ORDER BY seat", (seq,)
        ).fetchall()
        forfeited = r.result.forfeited if r.result else None
        assert store_replay.match_from_rows(r.match().kind, rows, forfeited) == build_match(r.nicks, r.sides, r.result)


def test_other_parameters_are_refused_until_a_rebuild_rewrites(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    recs = many_records(11)
    with Store(path) as s:
        for r in recs[:10]:
            s.games.record(r)
    with Store(path, systems=(Elo(k=16), TrueSkill())) as s:
        before = counts(s)
        with pytest.raises(ParametersChanged, match="rebuild"):
            s.games.record(recs[10])
        assert counts(s) == before
        assert not s.ratings.rebuild().exact
        s.ratings.rebuild(write=True)
        assert s.ratings.rebuild().exact
        s.games.record(recs[10])
        assert s.ratings.rebuild().exact


# -- stats -------------------------------------------------------------------------------


def test_bot_stats_count_results_per_role_with_wilson_intervals_and_figures(store: Store) -> None:
    recs = many_records(80)
    for r in recs:
        store.games.record(r)
    stats = store.stats.bots("avalon")
    for bot, s in stats.items():
        mine = [(r, r.nicks.index(bot)) for r in recs if bot in r.nicks]
        played = [(r, seat) for r, seat in mine if r.result is not None]
        wins = sum(1 for r, seat in played if result_of(r).forfeited is None and seat in result_of(r).winners)
        assert (s.overall.games, s.overall.wins) == (len(played), wins)
        assert s.overall.aborted == len(mine) - len(played)
        assert s.overall.forfeits == sum(1 for r, seat in played if result_of(r).forfeited == seat)
        assert s.overall.win_rate.low <= (wins / len(played) if played else 0) <= s.overall.win_rate.high
        assert sum(rs.games for rs in s.roles.values()) == s.overall.games
        merlin = [
            (r, seat)
            for r, seat in played
            if r.roles[seat] == "merlin" and result_of(r).reason in ("merlin_survived", "assassinated_merlin")
        ]
        if "merlin" in s.roles:
            fig = s.roles["merlin"].figures["merlin_survival"]
            assert fig.trials == len(merlin)
            assert fig.successes == sum(result_of(r).reason == "merlin_survived" for r, _ in merlin)
        if "assassin" in s.roles:
            assert "assassin_hit" in s.roles["assassin"].figures
            assert "merlin_survival" not in s.roles["assassin"].figures
    one = store.stats.bots("avalon", bot=recs[0].nicks[0])
    assert list(one) == [recs[0].nicks[0]]


def test_stored_json_is_plain(store: Store) -> None:
    store.games.record(avalon_record(0, random.Random(0)))
    options, nicks = store.conn.execute("SELECT options, nicks FROM games").fetchone()
    assert json.loads(options)["merlin"] is True and len(json.loads(nicks)) == 5


def test_two_writers_on_one_database_serialise_and_stay_exact(where: str) -> None:
    """Two referees (threads, each with its own connection) record games at once: every
    game is rated from the ratings the other committed, so rebuild still matches."""
    import threading

    path = where
    Store(path).close()
    recs = many_records(40, seed=9)
    errors: list[BaseException] = []

    def write(part: list[GameRecord]) -> None:
        try:
            with Store(path) as s:
                for r in part:
                    s.games.record(r)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(recs[i::2],)) for i in range(2)]
    for t in threads:
        t.start()
    with Store(path) as reader:  # WAL: reading while the others write
        reader.ratings.leaderboard("avalon", "elo")
    for t in threads:
        t.join()
    assert not errors
    with Store(path) as s:
        assert counts(s)["games"] == 40
        assert s.ratings.rebuild().exact


def test_report_lines_for_the_cli(store: Store) -> None:
    from arena.store.report import games_lines, leaderboard_lines, stats_lines

    recs = many_records(30)
    for r in recs:
        store.games.record(r)
    for system in ("elo", "trueskill"):
        rows = store.ratings.leaderboard("avalon", system)
        lines = leaderboard_lines(rows, system)
        assert len(lines) == len(rows) + 1 and rows[0].bot in lines[1]
        assert rows[0].win_rate.trials == rows[0].games
        rate = lines[0].index("win rate")
        assert {line[rate - 2 : rate] for line in lines[1:]} == {"  "}, "the column starts where its header does"
        assert len({line.index("%") for line in lines[1:]}) == 1, "aligned"
        assert not any("\x1b" in line or "─" in line for line in lines), "plain text"
    head, first, _ = games_lines(store.games.find(limit=2))
    assert head.split()[:2] == ["id", "finished"] and first.startswith("g29  1970-01-01 00:00  avalon")
    bot = recs[0].nicks[0]
    lines = stats_lines(store.stats.bots("avalon", bot)[bot])
    assert lines[0].startswith(f"{bot} (avalon): ")
    assert lines[1].split()[:2] == ["role", "games"]
    assert len(lines) == 4 + len(store.stats.bots("avalon", bot)[bot].roles)
    assert lines[-2] == "  lines refused: 0; late: 0 warned, 0 answered by default, 0 forfeited"
    assert lines[-1] == "  fallbacks: 0 (error 0, late 0)"


def test_tables_align_by_the_columns_a_terminal_shows() -> None:
    """Wide characters take two columns of a terminal and a combining accent none; a cell
    is one line, shown as written: no markup, a control character as a space."""
    from arena.store.records import LeaderRow
    from arena.store.report import leaderboard_lines

    owners = ["日本語ボット", "e\u0301te\u0301", "tab\there", "two\nlines"]
    bots = [(1, "a", 1500.0, 2, 1), (2, "b", 1234.5, 10, 0), (3, "[b]x", 987.0, 3, 3), (10, "d", 10.0, 0, 0)]
    rows = [
        LeaderRow(rank, bot, 0, 0, score, games, wins, owner)
        for (rank, bot, score, games, wins), owner in zip(bots, owners)
    ]
    assert leaderboard_lines(rows, "elo") == [
        " #  bot   owner            elo  games  win rate [95% CI]",
        " 1  a     日本語ボット  1500.0      2   50.0% [ 9.5- 90.5]",
        " 2  b     e\u0301te\u0301           1234.5     10    0.0% [ 0.0- 27.8]",
        " 3  [b]x  tab here       987.0      3  100.0% [43.9-100.0]",
        "10  d     two lines       10.0      0  -",
    ]


def test_stats_count_refused_lines_and_timeouts_per_bot(store: Store) -> None:
    """A bot that answers nonsense and one that stays silent, recorded from real games: the
    refused lines, warnings and timeouts are told per bot, by code."""
    from arena.config import TimeoutConfig
    from arena.games.avalon.options import AvalonOptions
    from arena.referee.local import LocalHub
    from arena.referee.recorder import Recorder
    from arena.sdk import Ask, Bot, GameView
    from arena.store.report import stats_lines

    class Nonsense(Bot):
        def vote(self, game: GameView[Any], ask: Ask) -> str:
            return "maybe"  # refused, then the SDK answers at random

    hub = LocalHub(TimeoutConfig(escalation=("warn", "default")))
    Recorder(store).attach(hub.referee)
    nicks = ["odd", "mute", "p3", "p4", "p5"]
    hub.connect("odd", Nonsense(seed=1))
    for i, nick in enumerate(nicks[2:]):
        hub.connect(nick, Bot(seed=i))
    for seed in range(3):
        hub.play("avalon", nicks, AvalonOptions(), seed)  # "mute" never connected: it never answers
    found = store.stats.bots("avalon")
    odd, mute, p3 = found["odd"].conduct, found["mute"].conduct, found["p3"].conduct
    assert len(list(store.games.find(limit=10))) == 3
    assert set(odd.refused) == {"ACTION_NOT_ALLOWED"} and odd.refused["ACTION_NOT_ALLOWED"] > 0
    assert odd.warnings == odd.defaults == odd.forfeits == 0
    assert mute.refused == {} and mute.warnings == 3 and mute.defaults > 0 and mute.forfeits == 0
    assert p3 == type(p3)({}, 0, 0, 0)
    assert stats_lines(found["mute"])[-2] == (
        f"  lines refused: 0; late: 3 warned, {mute.defaults} answered by default, 0 forfeited"
    )


def test_matches_for_neutral_and_cross_side_winners() -> None:
    from arena.core.game import Result

    nicks = ("v1", "v2", "w1", "j", "v3")
    sides = ("village", "village", "wolves", "jester", "village")
    jester = build_match(nicks, sides, Result("jester", frozenset({3}), "jester_lynched"))
    assert {g.side: (g.players, g.rank) for g in jester.groups} == {
        "village/5": (("v1", "v2", "v3"), 1),
        "wolves/5": (("w1",), 1),
        "jester/5": (("j",), 0),
    }
    lovers = build_match(nicks, sides, Result("lovers", frozenset({1, 2}), "lovers_survive"))
    assert [(g.players, g.rank) for g in lovers.groups] == [(("v1", "v3"), 1), (("v2", "w1"), 0), (("j",), 1)]
    with pytest.raises(ValueError):
        build_match(nicks, sides, Result("village", frozenset({0}), "x"))
