"""Property tests: any sequence of game results stores, rebuilds exactly and counts right."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from arena.core.events import Event
from arena.core.game import Result
from arena.store import GameRecord, Store

from .helpers import result_of

BOTS = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]


@st.composite
def records(draw: st.DrawFn) -> list[GameRecord]:
    n = draw(st.integers(2, 12))
    out: list[GameRecord] = []
    for i in range(n):
        players = draw(st.integers(3, 8))
        nicks = tuple(draw(st.permutations(BOTS))[:players])
        evil = draw(st.integers(1, players - 1))
        sides = tuple("evil" if s < evil else "good" for s in range(players))
        kind = draw(st.sampled_from(["good", "evil", "forfeit", "aborted"]))
        if kind == "aborted":
            result = None
        elif kind == "forfeit":
            result = Result(None, frozenset(), "forfeit", forfeited=draw(st.integers(0, players - 1)))
        else:
            result = Result(kind, frozenset(s for s in range(players) if sides[s] == kind), "end")
        roles = tuple("assassin" if s == 0 else "merlin" if s == evil else "servant" for s in range(players))
        events = [Event("setup", {"players": players}), Event("role", {"role": roles[0]}, frozenset({0}))]
        out.append(
            GameRecord(
                f"g{i}", "avalon", {}, i, nicks, roles, sides, result, events, [(0, "x", [1, 2])], float(i), i + 1.0
            )
        )
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_any_results_rebuild_exactly_and_count_right(recs: list[GameRecord]) -> None:
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "p.db") as store:
        for r in recs:
            store.games.record(r)
        assert store.ratings.rebuild().exact
        stats = store.stats.bots("avalon")
        for bot in {b for r in recs for b in r.nicks}:
            mine = [(r, r.nicks.index(bot)) for r in recs if bot in r.nicks]
            rated = [(r, s) for r, s in mine if r.result is not None]
            assert stats[bot].overall.games == len(rated)
            assert stats[bot].overall.wins == sum(s in result_of(r).winners for r, s in rated)
            assert stats[bot].overall.forfeits == sum(result_of(r).forfeited == s for r, s in rated)
        for row in store.ratings.leaderboard("avalon", "elo"):
            assert row.games == sum(1 for r in recs if row.bot in r.nicks and r.result is not None)
        loaded = store.games.load(recs[-1].id)
        assert loaded is not None
        assert loaded.history == ((0, "x", (1, 2)),)
        assert loaded.view(1) == [recs[-1].events[0]]
