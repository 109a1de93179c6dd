"""Properties of random Avalon games over every valid rule combination (hypothesis)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.core.errors import ErrorCode, IllegalAction, SetupError
from arena.core.events import Event
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.options import AvalonOptions
from arena.games.avalon.roles import Role

MAX_ACTIONS = 1000
KINDS = ("team", "vote", "quest", "assassinate")
EVIL_REASONS = {"three_fails", "five_rejections", "assassinated_merlin"}
GOOD_REASONS = {"three_successes", "merlin_survived"}

SETTINGS = settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much]
)


Setup = tuple[int, AvalonOptions]
"""A table size and options that make a legal game."""


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    """(players, options) over every rule combination; invalid ones are filtered out."""
    merlin = draw(st.booleans())
    if merlin:
        flags = {name: draw(st.booleans()) for name in ("percival", "morgana", "mordred", "oberon")}
        lancelot = draw(st.integers(0, 3))
    else:
        # Mostly plain games, sometimes an illegal extra (which must raise and be filtered).
        flags = {
            name: draw(st.booleans()) if draw(st.integers(0, 9)) == 0 else False
            for name in ("percival", "morgana", "mordred", "oberon")
        }
        lancelot = 0
    options = AvalonOptions(merlin=merlin, lancelot=lancelot, evil_at_nine=draw(st.sampled_from((3, 4))), **flags)
    players = draw(st.integers(5, 10))
    try:
        AvalonGame.check_setup(players, options)
    except SetupError:
        if not merlin:
            assert any(flags.values())
        assume(False)
    return players, options


seeds = st.integers(0, 2**32 - 1)


def play(game: AvalonGame, rng: random.Random, on_step: Callable[[AvalonGame], None] | None = None) -> int:
    """Random legal answers until the end; returns the number of actions."""
    actions = 0
    while game.result is None:
        assert actions < MAX_ACTIONS, "the game did not terminate"
        if on_step is not None:
            on_step(game)
        pending = game.pending()
        decision = pending[int(rng.random() * len(pending))]
        game.apply(decision.seat, decision.kind, decision.random_choice(rng))
        actions += 1
    assert game.result is not None and game.pending() == ()
    return actions


def of(game: AvalonGame, kind: str) -> list[Event]:
    return [e for e in game.events if e.kind == kind]


@SETTINGS
@given(setup=setups(), seed=seeds, player_seed=seeds)
def test_random_games_are_legal_and_consistent(setup: Setup, seed: int, player_seed: int) -> None:
    players, options = setup
    game = AvalonGame(players, options, seed)
    actions = play(game, random.Random(player_seed))
    assert actions == len(game.history) < MAX_ACTIONS
    result = game.result

    # The result is legal and the winners are exactly the seats on the winning side at the end.
    assert result is not None
    assert result.winner in AvalonGame.sides and result.reason in AvalonGame.end_reasons
    assert result.winners == frozenset(s for s in range(players) if game.sides_now[s].value == result.winner)
    assert result.winner == ("evil" if result.reason in EVIL_REASONS else "good")
    if options.merlin:
        assert result.reason != "three_successes"
    else:
        assert result.reason not in {"merlin_survived", "assassinated_merlin"}

    # Quest events agree with the result.
    quests = of(game, "quest")
    assert [e.data["quest"] for e in quests] == list(range(1, len(quests) + 1))
    for e in quests:
        fails_needed = 2 if players >= 7 and e.data["quest"] == 4 else 1
        assert 0 <= e.data["fails"] <= len(e.data["team"])
        assert e.data["result"] == ("fail" if e.data["fails"] >= fails_needed else "success")
    last = quests[-1].data if quests else {"successes": 0, "failures": 0}
    assert last["successes"] + last["failures"] == len(quests) <= 5
    votes = of(game, "votes")
    if result.reason == "three_fails":
        assert last["failures"] == 3 and last["successes"] < 3
    elif result.reason in {"three_successes", "merlin_survived", "assassinated_merlin"}:
        assert last["successes"] == 3 and last["failures"] < 3
    else:
        assert result.reason == "five_rejections"
        assert votes[-1].data["rejections"] == 5 and votes[-1].data["passed"] is False
        assert last["successes"] < 3 and last["failures"] < 3
    assassinations = of(game, "assassination")
    if result.reason in {"merlin_survived", "assassinated_merlin"}:
        (a,) = assassinations
        assert a.data["assassin"] == game.roles.index(Role.ASSASSIN)
        assert a.data["hit"] == (game.roles[a.data["target"]] is Role.MERLIN)
        assert a.data["hit"] == (result.reason == "assassinated_merlin")
    else:
        assert not assassinations

    # Votes: each a partition of the table, counted in a row, reset by a passed vote.
    run = 0
    for e in votes:
        assert sorted(e.data["approve"] + e.data["reject"]) == list(range(players))
        assert e.data["passed"] == (2 * len(e.data["approve"]) > players)
        run = 0 if e.data["passed"] else run + 1
        assert e.data["rejections"] == run <= 5
    assert sum(e.data["passed"] for e in votes) == len(quests)

    # The end event is last, public and complete.
    end = game.events[-1]
    assert end.kind == "end" and end.public
    assert [e.kind for e in game.events].count("end") == 1
    assert end.data == {
        "winner": result.winner,
        "reason": result.reason,
        "roles": [r.value for r in game.roles],
        "sides": [s.value for s in game.sides_now],
    }

    # Nobody is told what is not theirs to know.
    for e in game.events:
        if not e.public:
            assert e.kind == "role" and e.audience == frozenset({e.data["seat"]})
    for seat in [None, *range(players)]:
        seen = game.view(seat)
        assert seen == [e for e in game.events if e.audience is None or (seat is not None and seat in e.audience)]
        private = [e for e in seen if not e.public]
        assert [e.data["seat"] for e in private] == ([] if seat is None else [seat])

    # Determinism: the same seeds give the same game, and replaying the history reproduces it.
    again = AvalonGame(players, options, seed)
    play(again, random.Random(player_seed))
    assert again.events == game.events and again.history == game.history and again.result == result
    replayed = AvalonGame(players, options, seed)
    replayed.replay(game.history)
    assert replayed.events == game.events and replayed.result == result
    assert pickle.dumps(replayed) == pickle.dumps(game)


def _illegal_actions(game: AvalonGame, rng: random.Random) -> list[tuple[Any, Any, Any, ErrorCode]]:
    """A few actions that are certainly illegal now, each with the code it must get."""
    players = game.players
    if game.result is not None:
        return [(rng.randrange(players), rng.choice(KINDS), None, ErrorCode.GAME_OVER)]
    pending = game.pending()
    kind = pending[0].kind
    decision = rng.choice(pending)
    legal_value = decision.random_choice(rng)
    out: list[tuple[Any, Any, Any, ErrorCode]] = []
    # A seat that is not at the table.
    out.append(
        (
            rng.choice([-1, players, players + rng.randrange(1, 90), None, "0"]),
            kind,
            legal_value,
            ErrorCode.NOT_A_PLAYER,
        )
    )
    # A kind that is not asked for now.
    out.append(
        (decision.seat, rng.choice([k for k in KINDS if k != kind] + ["dance"]), legal_value, ErrorCode.INVALID_PHASE)
    )
    # A seat at the table that is not asked.
    asked_in_round = {
        "team": {game.leader},
        "vote": set(range(players)),
        "quest": set(game.team),
        "assassinate": {game.roles.index(Role.ASSASSIN)} if Role.ASSASSIN in game.roles else set(),
    }[kind]
    waiting = {d.seat for d in pending}
    idle = [s for s in range(players) if s not in waiting]
    if idle:
        seat = rng.choice(idle)
        code = ErrorCode.ALREADY_ACTED if seat in asked_in_round else ErrorCode.NOT_YOUR_TURN
        out.append((seat, kind, legal_value, code))
    # A bad value from a seat that is asked.
    seat = decision.seat
    if kind == "team":
        size = decision.count
        choices = [
            (tuple(range(size + 1)) if size < players else tuple(range(size - 1)), ErrorCode.WRONG_COUNT),
            (tuple(range(size - 1)), ErrorCode.WRONG_COUNT),
            (rng.randrange(players), ErrorCode.WRONG_COUNT),
            ((0,) * size, ErrorCode.TARGET_INVALID),
            (tuple(range(size - 1)) + (rng.choice([players, -1, 99]),), ErrorCode.TARGET_INVALID),
        ]
        value, code = rng.choice(choices)
    elif kind == "vote":
        value, code = rng.choice(["yes", "no", "", None, "APPROVE", 1]), ErrorCode.ACTION_NOT_ALLOWED
    elif kind == "quest":
        bad = [c for c in ("success", "fail", "pass", None) if c not in decision.options]
        value, code = rng.choice(bad), ErrorCode.ACTION_NOT_ALLOWED
    else:
        value, code = rng.choice(
            [(seat, ErrorCode.CANNOT_SELF_TARGET), (players, ErrorCode.TARGET_INVALID), (-1, ErrorCode.TARGET_INVALID)]
        )
    out.append((seat, kind, value, code))
    return out


@SETTINGS
@given(setup=setups(), seed=seeds, player_seed=seeds, probe_seed=seeds)
def test_illegal_actions_change_nothing(setup: Setup, seed: int, player_seed: int, probe_seed: int) -> None:
    players, options = setup
    game = AvalonGame(players, options, seed)
    probe = random.Random(probe_seed)
    rate = probe.choice([0.03, 0.1, 0.3])
    tried: list[ErrorCode] = []

    def try_illegal(g: AvalonGame) -> None:
        if probe.random() >= rate or len(tried) >= 40:
            return
        before = pickle.dumps(g)
        for seat, kind, value, code in _illegal_actions(g, probe):
            try:
                g.apply(seat, kind, value)
            except IllegalAction as err:
                assert err.code is code, (seat, kind, value, err)
            else:
                raise AssertionError(f"accepted illegal action {(seat, kind, value)}")
            assert pickle.dumps(g) == before
            tried.append(code)

    play(game, random.Random(player_seed), on_step=try_illegal)
    before = pickle.dumps(game)
    for seat, kind, value, code in _illegal_actions(game, probe):
        try:
            game.apply(seat, kind, value)
        except IllegalAction as err:
            assert err.code is code
        else:
            raise AssertionError("accepted an action after the end")
        assert pickle.dumps(game) == before

    # The probes did not disturb the game: it equals an unprobed game with the same seeds.
    clean = AvalonGame(players, options, seed)
    play(clean, random.Random(player_seed))
    assert clean.events == game.events and clean.history == game.history
