"""Each tournament's standings, kept game by game in the transaction that records the game:
the same numbers, to the last bit, as rating its games afresh in order; whatever other
games and tournaments are stored between, after a resume, after the migration that added
them, and checked (and repaired) by ``rebuild``."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from arena.ratings.model import Entity, Rating
from arena.store import GameRecord, Store
from arena.store.replay import wins
from arena.store.schema import MIGRATIONS, V7_STANDINGS

from .helpers import avalon_record, old_copy

Row = tuple[str, str, str, int, int, int]
"""A kept standing as compared: mu, sigma and score in hex (every bit), games, wins, last seq."""


def afresh(store: Store, records: list[GameRecord]) -> dict[tuple[str, str, str, str, str], Row]:
    """Every tournament's standings computed here from the records (stored in this order,
    seq 1, 2, ...): its games alone, every rating new, in order."""
    state: dict[tuple[str, str, str], dict[Entity, Rating]] = {}
    tally: dict[tuple[str, str, str, str, str], list[int]] = {}
    out: dict[tuple[str, str, str, str, str], Row] = {}
    for seq, r in enumerate(records, 1):
        if r.tournament is None:
            continue
        match = r.match()
        for system in store.systems:
            ratings = state.setdefault((r.tournament, r.game, system.name), {})
            for c in system.rate(match, ratings):
                ratings[c.entity] = c.after
                key = (r.tournament, r.game, system.name, *c.entity)
                t = tally.setdefault(key, [0, 0])
                t[0] += 1
                t[1] += c.entity in wins(match)
                a = c.after
                out[key] = (a.mu.hex(), a.sigma.hex(), system.score(a).hex(), t[0], t[1], seq)
    return out


def kept(store: Store) -> dict[tuple[str, str, str, str, str], Row]:
    return {
        (t, g, s, k, e): (mu.hex(), sigma.hex(), score.hex(), n, w, last)
        for t, g, s, k, e, mu, sigma, score, n, w, last in store.conn.execute(
            "SELECT tournament, game, system, kind, entity, mu, sigma, score, games, wins, last_seq FROM standings"
        )
    }


def mixed_records(n: int, seed: int) -> list[GameRecord]:
    """Games of two tournaments and of none, interleaved; some forfeited, some aborted."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        end = "forfeit" if i % 7 == 6 else "abort" if i % 11 == 10 else "play"
        tournament = rng.choice(("a", "b", None))
        out.append(avalon_record(i, rng, players=rng.choice((5, 6, 7)), end=end, tournament=tournament))
    return out


def record_all(store: Store, records: list[GameRecord]) -> None:
    for t in sorted({r.tournament for r in records if r.tournament is not None}):
        store.tournaments.start(t, {"game": "avalon"}, 0.0)
    for r in records:
        store.games.record(r)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 30), st.integers(0, 10**6))
def test_kept_standings_equal_the_tournaments_rated_afresh(n: int, seed: int) -> None:
    records = mixed_records(n, seed)
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "p.db") as store:
        record_all(store, records)
        assert kept(store) == afresh(store, records)
        assert store.ratings.rebuild().exact
        for t in {r.tournament for r in records} - {None}:
            for system in ("elo", "trueskill"):
                board = store.ratings.leaderboard("avalon", system, tournament=t)
                last = {bot: ratings[-1][1] for bot, ratings in store.ratings.history("avalon", system, t).items()}
                assert {row.bot: Rating(row.mu, row.sigma) for row in board} == last, "history ends at the board"
                assert [row.score for row in board] == sorted((row.score for row in board), reverse=True)


def test_a_tournaments_board_reads_its_kept_rows(tmp_path: Path) -> None:
    records = mixed_records(30, 4)
    with Store(tmp_path / "s.db") as store:
        record_all(store, records)
        board = store.ratings.leaderboard("avalon", "trueskill", limit=3, min_games=2, tournament="a")
        rows = {k[4]: v for k, v in afresh(store, records).items() if k[:4] == ("a", "avalon", "trueskill", "bot")}
        best = sorted((r for r in rows.items() if r[1][3] >= 2), key=lambda r: (-float.fromhex(r[1][2]), r[0]))[:3]
        assert [(row.bot, row.score.hex(), row.games, row.wins) for row in board] == [
            (bot, row[2], row[3], row[4]) for bot, row in best
        ]
        assert store.ratings.leaderboard("avalon", "elo", tournament="nope") == []


def test_the_migration_keeps_the_standings_of_tournaments_stored_before(tmp_path: Path) -> None:
    """A store from before kept standings (the same file without their table, at the
    schema version before it) gets them on opening: rated afresh, as its boards were."""
    records = mixed_records(40, 7)
    path = tmp_path / "old.db"
    with Store(path) as store:
        record_all(store, records)
        before = kept(store)
        boards = {
            (t, s): store.ratings.leaderboard("avalon", s, tournament=t) for t in "ab" for s in ("elo", "trueskill")
        }
    older = MIGRATIONS.index(V7_STANDINGS)
    old_copy(path, tmp_path / "older.db", MIGRATIONS[:older])
    path = tmp_path / "older.db"
    with Store(path) as store:
        assert store.migrated_from == older
        assert kept(store) == before == afresh(store, records)
        assert {key: store.ratings.leaderboard("avalon", key[1], tournament=key[0]) for key in boards} == boards
        assert store.ratings.rebuild().exact


def test_rebuild_finds_a_tampered_standing_and_rewrites_it(tmp_path: Path) -> None:
    records = mixed_records(25, 3)
    with Store(tmp_path / "t.db") as store:
        record_all(store, records)
        good = kept(store)
        bot = store.ratings.leaderboard("avalon", "elo", tournament="b")[0].bot
        store.conn.execute(
            "UPDATE standings SET mu = mu + 1e-9 WHERE tournament = 'b' AND system = 'elo' AND entity = ?", (bot,)
        )
        store.conn.execute("DELETE FROM standings WHERE tournament = 'a' AND system = 'trueskill' AND kind = 'side'")
        report = store.ratings.rebuild()
        assert not report.exact and report.standings_checked == len(good)
        assert any(m.where == f"standing b avalon elo bot {bot}" for m in report.mismatches)
        assert any(
            m.where.startswith("standing a avalon trueskill side ") and m.stored is None for m in report.mismatches
        )
        assert store.ratings.rebuild(write=True).written
        assert store.ratings.rebuild().exact
        assert kept(store) == good
