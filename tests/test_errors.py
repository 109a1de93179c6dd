"""Every error code the Avalon engine uses, and that a refused action changes nothing."""

from __future__ import annotations

import pickle
from collections.abc import Iterable
from typing import Any

import pytest

from arena.core.errors import ErrorCode, IllegalAction
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.options import AvalonOptions
from arena.games.avalon.roles import Role, Side

QUEST_SIZES_5 = (2, 3, 2, 3, 3)


# -- helpers ------------------------------------------------------------------------------------


def new_game(players: int = 5, seed: int = 0, **options: Any) -> AvalonGame:
    return AvalonGame(players, AvalonOptions(**options), seed)


def side_seats(game: AvalonGame, side: Side) -> list[int]:
    return [s for s in range(game.players) if game.sides_now[s] is side]


def team_size(game: AvalonGame) -> int:
    (d,) = game.pending()
    assert d.kind == "team"
    count: int = d.count
    return count


def propose(game: AvalonGame, team: Iterable[int]) -> None:
    game.apply(game.leader, "team", tuple(team))


def vote_all(game: AvalonGame, value: str = "approve") -> None:
    for s in range(game.players):
        game.apply(s, "vote", value)


def run_quest(game: AvalonGame, n_fail: int = 0) -> None:
    size = team_size(game)
    evil = side_seats(game, Side.EVIL)[:n_fail]
    good = side_seats(game, Side.GOOD)[: size - n_fail]
    propose(game, evil + good)
    vote_all(game)
    for s in game.team:
        game.apply(s, "quest", "fail" if s in evil else "success")


def at_team(seed: int = 0, players: int = 5, **options: Any) -> AvalonGame:
    return new_game(players, seed, **options)


def at_vote(seed: int = 0, players: int = 5, **options: Any) -> AvalonGame:
    game = new_game(players, seed, **options)
    propose(game, range(team_size(game)))
    return game


def at_quest(seed: int = 0, players: int = 5, **options: Any) -> AvalonGame:
    game = at_vote(seed, players, **options)
    vote_all(game)
    return game


def at_assassination(seed: int = 0, players: int = 5) -> AvalonGame:
    game = new_game(players, seed)
    for n_fail in (0, 1, 0, 0):
        run_quest(game, n_fail)
    (d,) = game.pending()
    assert d.kind == "assassinate"
    return game


def ended(seed: int = 0, players: int = 5) -> AvalonGame:
    game = new_game(players, seed, merlin=False)
    for _ in range(3):
        run_quest(game, 1)
    assert game.result is not None
    return game


def refused(game: AvalonGame, seat: Any, kind: Any, value: Any) -> ErrorCode:
    """Apply an action that must be refused (a seat or a kind of the wrong type too); check
    nothing changed; return its code."""
    before = pickle.dumps(game)
    events, history, pending = list(game.events), list(game.history), game.pending()
    with pytest.raises(IllegalAction) as err:
        game.apply(seat, kind, value)
    assert pickle.dumps(game) == before
    assert game.events == events and game.history == history and game.pending() == pending
    assert str(err.value).startswith(err.value.code.value)
    return err.value.code


# -- one test per code ---------------------------------------------------------------------------


def test_invalid_phase() -> None:
    game = at_team()
    assert refused(game, game.leader, "vote", "approve") is ErrorCode.INVALID_PHASE
    assert refused(game, game.leader, "quest", "success") is ErrorCode.INVALID_PHASE
    assert refused(game, game.leader, "assassinate", 0) is ErrorCode.INVALID_PHASE
    assert refused(game, game.leader, "dance", None) is ErrorCode.INVALID_PHASE
    game = at_vote()
    assert refused(game, game.leader, "team", (0, 1)) is ErrorCode.INVALID_PHASE
    assert refused(game, 0, "quest", "success") is ErrorCode.INVALID_PHASE
    game = at_quest()
    assert refused(game, game.team[0], "vote", "approve") is ErrorCode.INVALID_PHASE
    assert refused(game, game.team[0], "assassinate", 0) is ErrorCode.INVALID_PHASE
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    assert refused(game, assassin, "quest", "fail") is ErrorCode.INVALID_PHASE
    assert refused(game, assassin, "team", (0, 1)) is ErrorCode.INVALID_PHASE


def test_not_your_turn() -> None:
    game = at_team()
    for seat in range(5):
        if seat != game.leader:
            assert refused(game, seat, "team", (0, 1)) is ErrorCode.NOT_YOUR_TURN
    game = at_quest()
    outsiders = [s for s in range(5) if s not in game.team]
    assert outsiders
    for seat in outsiders:
        assert refused(game, seat, "quest", "success") is ErrorCode.NOT_YOUR_TURN
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    for seat in range(5):
        if seat != assassin:
            assert refused(game, seat, "assassinate", assassin) is ErrorCode.NOT_YOUR_TURN


def test_already_acted() -> None:
    game = at_vote()
    game.apply(3, "vote", "approve")
    assert refused(game, 3, "vote", "approve") is ErrorCode.ALREADY_ACTED
    assert refused(game, 3, "vote", "reject") is ErrorCode.ALREADY_ACTED
    game = at_quest()
    first = game.team[0]
    game.apply(first, "quest", "success")
    assert refused(game, first, "quest", "success") is ErrorCode.ALREADY_ACTED


def test_wrong_count() -> None:
    game = at_team()
    size = team_size(game)
    assert size == QUEST_SIZES_5[0]
    for team in [(), (0,), (0, 1, 2), (0, 1, 2, 3, 4), 3, None]:
        assert refused(game, game.leader, "team", team) is ErrorCode.WRONG_COUNT


def test_target_invalid() -> None:
    game = at_team()
    for team in [(0, 5), (-1, 0), (99, 1), (0, 0), (4, 4), ("0", "1"), ("a", "b")]:
        assert refused(game, game.leader, "team", team) is ErrorCode.TARGET_INVALID, team
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    for target in (5, -1, 99, None, "1"):
        assert refused(game, assassin, "assassinate", target) is ErrorCode.TARGET_INVALID


def test_cannot_self_target() -> None:
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    assert refused(game, assassin, "assassinate", assassin) is ErrorCode.CANNOT_SELF_TARGET


def test_action_not_allowed() -> None:
    game = at_quest()
    good = [s for s in game.team if game.sides_now[s] is Side.GOOD]
    assert good
    assert refused(game, good[0], "quest", "fail") is ErrorCode.ACTION_NOT_ALLOWED
    for card in ("pass", "", None, "SUCCESS", 1):
        assert refused(game, game.team[0], "quest", card) is ErrorCode.ACTION_NOT_ALLOWED
    game = at_vote()
    for value in ("yes", "Approve", None, True, 1, ("approve",)):
        assert refused(game, 0, "vote", value) is ErrorCode.ACTION_NOT_ALLOWED


def test_not_a_player() -> None:
    for game in (at_team(), at_vote(), at_quest(), at_assassination()):
        kind = game.pending()[0].kind
        for seat in (99, 5, -1, None, "0"):
            assert refused(game, seat, kind, game.pending()[0].options[0]) is ErrorCode.NOT_A_PLAYER


def test_game_over() -> None:
    game = ended()
    assert game.pending() == ()
    for seat, kind, value in [
        (0, "team", (0, 1)),
        (0, "vote", "approve"),
        (1, "quest", "success"),
        (0, "assassinate", 1),
        (99, "vote", "approve"),
        (0, "dance", None),
    ]:
        assert refused(game, seat, kind, value) is ErrorCode.GAME_OVER
    # After an assassination, too.
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    game.apply(assassin, "assassinate", (assassin + 1) % 5)
    assert game.result is not None
    assert refused(game, assassin, "assassinate", (assassin + 2) % 5) is ErrorCode.GAME_OVER


def test_lancelot2_wrong_card_not_allowed() -> None:
    def first_card(g: AvalonGame) -> str:
        card: str = next(e for e in g.events if e.kind == "loyalty_deck").data["cards"][0]
        return card

    game = next(g for g in (new_game(7, seed, lancelot=2) for seed in range(200)) if first_card(g) == "blank")
    evil_l = game.roles.index(Role.EVIL_LANCELOT)
    good_l = game.roles.index(Role.GOOD_LANCELOT)
    propose(game, [evil_l, good_l])
    vote_all(game)
    assert refused(game, evil_l, "quest", "success") is ErrorCode.ACTION_NOT_ALLOWED
    assert refused(game, good_l, "quest", "fail") is ErrorCode.ACTION_NOT_ALLOWED


def test_refusals_leave_the_game_playable() -> None:
    """After a storm of refused actions the game plays on exactly like an untouched copy."""
    game, twin = at_vote(seed=4), at_vote(seed=4)
    for seat, kind, value in [(0, "team", (0, 1)), (9, "vote", "approve"), (0, "vote", "maybe"), (0, "quest", "fail")]:
        with pytest.raises(IllegalAction):
            game.apply(seat, kind, value)
    for g in (game, twin):
        vote_all(g, "reject")
    assert game.events == twin.events and game.history == twin.history
    assert pickle.dumps(game) == pickle.dumps(twin)


# -- answers of the wrong type -------------------------------------------------------------------
# A driver may hand the engine anything a bot typed; ``apply`` promises IllegalAction (and no
# change) for every bad answer, and the event log must only ever hold plain seat numbers.


def test_team_of_right_size_with_a_non_seat_is_target_invalid() -> None:
    # Two items were given, as asked: the problem is the item, not the count.
    game = at_team()
    assert team_size(game) == 2
    for team in [(0, None), (1, "2"), (0, (1,))]:
        assert refused(game, game.leader, "team", team) is ErrorCode.TARGET_INVALID, team


@pytest.mark.parametrize(
    "where,seat,kind,value",
    [
        ("team", "leader", "team", ([0], [1])),
        ("team", "leader", "team", ({0}, {1})),
        ("team", [0], "team", (0, 1)),
        ("vote", {"seat": 0}, "vote", "approve"),
        ("team", "leader", ["team"], (0, 1)),
        ("vote", 0, "vote", ["approve"]),
    ],
)
def test_unhashable_answers_are_refused_not_crashing(where: str, seat: Any, kind: Any, value: Any) -> None:
    game = {"team": at_team, "vote": at_vote}[where]()
    if seat == "leader":
        seat = game.leader
    refused(game, seat, kind, value)


@pytest.mark.parametrize("team", [(True, 2), (0.0, 1.0), (False, 1.0)])
def test_non_int_seats_never_reach_the_event_log(
    team: tuple[bool | float, float | int],
) -> None:
    game = at_team()
    try:
        game.apply(game.leader, "team", team)
    except IllegalAction as err:
        assert err.code is ErrorCode.TARGET_INVALID
        return
    recorded = game.events[-1].data["team"]
    assert all(type(s) is int for s in recorded), recorded
    assert all(type(s) is int for s in game.history[-1][2]), game.history[-1]


def test_non_int_assassination_target_never_reaches_the_event_log() -> None:
    game = at_assassination()
    assassin = game.roles.index(Role.ASSASSIN)
    target = next(s for s in (1, 0) if s != assassin)
    try:
        game.apply(assassin, "assassinate", bool(target) if target == 1 else float(target))
    except IllegalAction as err:
        assert err.code is ErrorCode.TARGET_INVALID
        return
    assert type(game.events[-2].data["target"]) is int
