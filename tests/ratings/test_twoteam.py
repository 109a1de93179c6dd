"""The two-team TrueSkill path (``arena.ratings.twoteam``) gives the ``trueskill`` package's
numbers to the last bit, so ratings stored before it existed still equal a rebuild; what it
does not cover is the package's."""

from __future__ import annotations

import pytest
import trueskill

from arena.ratings import BOT, TrueSkill, ranked
from arena.ratings.model import Entity, Rating
from arena.ratings.twoteam import Pair
from bench.twoteam import compare


def package(
    system: TrueSkill, teams: list[list[Pair]], weights: list[list[float]], ranks: list[int]
) -> list[list[Pair]]:
    rated = system.env.rate([[trueskill.Rating(*p) for p in t] for t in teams], ranks, weights)
    return [[(float(r.mu), float(r.sigma)) for r in t] for t in rated]


def test_random_two_team_matches_are_rated_as_the_package_rates_them() -> None:
    # 1,000 matches, 1 to 10 players a side, forfeits among them: ~1,800 calls (players and
    # side terms). bench/twoteam.py runs 10,000.
    result = compare(1000, seed=1)
    assert result.calls > 1000
    assert (result.identical, result.declined, result.max_diff) == (result.calls, 0, 0.0)


def test_a_draw_margin_is_followed_too() -> None:
    result = compare(150, seed=2, system=TrueSkill(draw_probability=0.25))
    assert result.identical == result.calls > 150


def test_a_result_too_certain_to_say_anything_takes_the_package_s_zero_precision_branch() -> None:
    system = TrueSkill()
    teams, weights = [[(100.0, 1.0)], [(0.0, 1.0)]], [[1.0], [1.0]]
    got = system.two_teams.rate(teams, weights, [0, 1])
    assert got is not None and got == package(system, teams, weights, [0, 1])
    assert got[1][0][0] == 0.0  # the loser's mean did not move; deviations grew by tau only


def test_ties_and_more_than_two_teams_are_left_to_the_package() -> None:
    system = TrueSkill()
    two, three = [[(25.0, 8.0)], [(20.0, 5.0)]], [[(25.0, 8.0)], [(20.0, 5.0)], [(30.0, 2.0)]]
    assert system.two_teams.rate(two, [[1.0], [1.0]], [0, 0]) is None
    assert system.two_teams.rate(three, [[1.0], [1.0], [1.0]], [0, 1, 1]) is None
    jester = ranked({"a": "village", "b": "wolves", "c": "jester"}, {"jester": 0, "village": 1, "wolves": 1})
    changes = system.rate(jester, {})
    assert {c.entity[1] for c in changes if c.entity[0] == BOT} == {"a", "b", "c"}


def test_an_upset_the_package_cannot_compute_still_raises_its_error() -> None:
    system = TrueSkill()
    current: dict[Entity, Rating] = {(BOT, "a"): Rating(-300.0, 1.0), (BOT, "b"): Rating(300.0, 1.0)}
    match = ranked({"a": "good", "b": "evil"}, {"good": 0, "evil": 1})
    assert system.two_teams.rate([[(-300.0, 1.0)], [(300.0, 1.0)]], [[1.0], [1.0]], [0, 1]) is None
    with pytest.raises(FloatingPointError):
        system.rate(match, current)
