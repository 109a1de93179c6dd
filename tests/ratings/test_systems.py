"""Elo and TrueSkill: the documented formulas, the abnormal-end rule, determinism."""

from __future__ import annotations

import math
from collections.abc import Iterable

import pytest
from hypothesis import given, settings, strategies as st

from arena.ratings import (
    ABORTED,
    BOT,
    Change,
    DRAW,
    FORFEIT,
    LOSS,
    SIDE,
    WIN,
    Elo,
    Group,
    Match,
    Rating,
    TrueSkill,
    aborted,
    forfeit,
    ranked,
    side_key,
    wilson,
)
from arena.ratings.announce import announce
from arena.ratings.model import RANKED, Entity

FIVE = {"a": "good", "b": "good", "c": "good", "d": "evil", "e": "evil"}


def deltas(changes: Iterable[Change]) -> dict[Entity, float]:
    return {c.entity: c.delta for c in changes}


def test_elo_two_equal_teams_of_five_is_textbook_elo() -> None:
    sides = {f"g{i}": "good" for i in range(5)} | {f"e{i}": "evil" for i in range(5)}
    cur: dict[Entity, Rating] = {(BOT, "g0"): Rating(1600.0)}  # good's mean is 1520
    d = deltas(Elo(k=32).rate(ranked(sides, {"good": 0, "evil": 1}), cur))
    expected = 1 / (1 + 10 ** ((1500 - 1520) / 400))
    assert d[(BOT, "g3")] == pytest.approx(32 * (1 - expected))
    assert d[(BOT, "e3")] == pytest.approx(-32 * (1 - expected))


def test_elo_uneven_teams_split_equal_stakes() -> None:
    d = deltas(Elo(k=32).rate(ranked(FIVE, {"good": 0, "evil": 1}), {}))
    # c = 5/2 players per group; the stake K*c*(1-0.5) = 40 is split 3 and 2 ways.
    assert d[(BOT, "a")] == pytest.approx(40 / 3)
    assert d[(BOT, "d")] == pytest.approx(-20)
    assert d[(SIDE, side_key("good", 5))] == pytest.approx(4.0 * 0.5)


ratings_st = st.floats(min_value=1000, max_value=2000, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    good=st.lists(ratings_st, min_size=1, max_size=7),
    evil=st.lists(ratings_st, min_size=1, max_size=5),
    third=st.lists(ratings_st, max_size=2),
    ranks=st.lists(st.integers(0, 2), min_size=3, max_size=3),
    adv=st.floats(-200, 200),
)
def test_elo_is_zero_sum_over_players_for_any_table(
    good: list[float], evil: list[float], third: list[float], ranks: list[int], adv: float
) -> None:
    players = {f"g{i}": "good" for i in range(len(good))} | {f"e{i}": "evil" for i in range(len(evil))}
    players |= {f"j{i}": "jester" for i in range(len(third))}
    cur: dict[Entity, Rating] = {(BOT, f"g{i}"): Rating(r) for i, r in enumerate(good)}
    cur |= {(BOT, f"e{i}"): Rating(r) for i, r in enumerate(evil)}
    cur |= {(BOT, f"j{i}"): Rating(r) for i, r in enumerate(third)}
    cur[(SIDE, side_key("evil", len(players)))] = Rating(adv)
    side_ranks = {"good": ranks[0], "evil": ranks[1], "jester": ranks[2]}
    changes = Elo().rate(ranked(players, {s: side_ranks[s] for s in set(players.values())}), cur)
    assert math.fsum(c.delta for c in changes if c.entity[0] == BOT) == pytest.approx(0.0, abs=1e-9)
    assert Elo().rate(ranked(players, {s: side_ranks[s] for s in set(players.values())}), cur) == changes


def test_elo_forfeit_offender_takes_one_loss_others_share_it_and_sides_are_untouched() -> None:
    cur: dict[Entity, Rating] = {(BOT, "c"): Rating(1600.0)}
    changes = Elo(k=32).rate(forfeit(list("abcde"), "c"), cur)
    d = deltas(changes)
    e = 1 / (1 + 10 ** ((1500 - 1600) / 400))
    assert d[(BOT, "c")] == pytest.approx(-32 * e)
    for p in "abde":
        assert d[(BOT, p)] == pytest.approx(32 * e / 4)
    assert not any(c.entity[0] == SIDE for c in changes)


@pytest.mark.parametrize("system", [Elo(), TrueSkill()], ids=lambda s: s.name)
def test_aborted_games_change_nothing(system: Elo | TrueSkill) -> None:
    assert system.rate(aborted(list("abcde")), {}) == ()


def test_trueskill_forfeit_offender_drops_others_gain_alike() -> None:
    changes = TrueSkill().rate(forfeit(list("abcde"), "b"), {})
    d = deltas(changes)
    assert d[(BOT, "b")] < -3
    others = {d[(BOT, p)] for p in "acde"}
    assert len(others) == 1 and 0 < others.pop() < 2
    assert not any(c.entity[0] == SIDE for c in changes)


def test_trueskill_rates_sides_and_players_deterministically() -> None:
    m = ranked(FIVE, {"good": 1, "evil": 0})
    first = TrueSkill().rate(m, {})
    assert first == TrueSkill().rate(m, {})
    d = deltas(first)
    assert d[(BOT, "d")] > 0 > d[(BOT, "a")]
    assert d[(SIDE, "evil/5")] > 0 > d[(SIDE, "good/5")]


def test_neutral_winner_is_a_ranking_of_three_groups() -> None:
    sides = {"v1": "village", "v2": "village", "v3": "village", "w1": "wolves", "w2": "wolves", "j": "jester"}
    m = ranked(sides, {"jester": 0, "village": 1, "wolves": 1})
    assert [m.result_of(p) for p in ("j", "v1", "w1")] == [WIN, LOSS, LOSS]
    for system in (Elo(), TrueSkill()):
        d = deltas(system.rate(m, {}))
        assert d[(BOT, "j")] > 0 and d[(BOT, "v1")] < 0 and d[(BOT, "w1")] < 0


def test_results_per_player() -> None:
    assert forfeit(list("abc"), "b").result_of("b") == FORFEIT
    assert forfeit(list("abc"), "b").result_of("a") == DRAW
    assert aborted(list("abc")).result_of("a") == ABORTED
    assert ranked({"a": "x", "b": "y"}, {"x": 0, "y": 0}).result_of("a") == DRAW


def test_bad_matches_are_refused() -> None:
    with pytest.raises(ValueError):
        ranked({"a": "x", "b": "y"}, {"x": 0})
    with pytest.raises(ValueError):
        ranked({"a": "x", "b": "x"}, {"x": 0})
    with pytest.raises(ValueError):
        forfeit(["a", "b"], "z")
    with pytest.raises(ValueError):
        Elo().rate(Match(RANKED, (Group(("a",), 0), Group(("a",), 1))), {})


def test_wilson_interval_values() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2365931, abs=1e-6), pytest.approx(0.7634069, abs=1e-6))
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775328, abs=1e-6))
    assert wilson(10, 10) == (pytest.approx(0.7224672, abs=1e-6), 1.0)
    low, high = wilson(81, 263)  # Wilson's own kind of example: 30.8%
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_announcement_is_one_sendable_line() -> None:
    changes = {
        s.name: s.rate(ranked({f"bot{i}": "good" if i < 6 else "evil" for i in range(10)}, {"good": 0, "evil": 1}), {})
        for s in (Elo(), TrueSkill())
    }
    line = announce("avalon", changes)
    assert "\n" not in line and "\r" not in line and len(line.encode()) <= 400
    assert line.startswith("ratings avalon | elo: bot0 1513 +13")
    long = {
        "elo": Elo().rate(
            ranked({"x" * 30 + str(i): "good" if i < 6 else "evil" for i in range(10)}, {"good": 0, "evil": 1}), {}
        )
    }
    assert len(announce("avalon", long).encode()) <= 400
