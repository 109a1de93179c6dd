"""Random games with any valid role mix and options end legally and consistently, secrets stay
with their audience, and no illegal action ever changes the state (hypothesis)."""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from arena.core.errors import ErrorCode, IllegalAction, SetupError
from arena.core.events import Event
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import ACTIONS, REGISTRY, Team

MAX_ACTIONS = 20000
SETTINGS = settings(
    max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.filter_too_much]
)
SPECIALS = [r for r in REGISTRY if r not in ("villager", "werewolf")]
PRIVATE = {
    "role",
    "wolves",
    "lovers",
    "seer_result",
    "wolf_votes",
    "wolf_target",
    "charmed",
    "blocked",
    "masons",
    "detective_result",
    "tracked",
    "watched",
    "caught",
    "dealt",
    "cult",
}
DEAD_MAY_ANSWER = {"last_words"} | {kind for kind, action in ACTIONS.items() if action.step is None}
"""Last words and the death triggers (the hunter's shot, the scapegoat's punishment)."""


Setup = tuple[int, WerewolfOptions]
"""A table size and options that make a legal game."""


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    players = draw(st.integers(6, 20))
    counts = {"werewolf": draw(st.integers(1, max(1, players // 3)))}
    for role in SPECIALS:
        most = REGISTRY[role].max_count or 2
        n = draw(st.integers(0, most)) if draw(st.integers(0, 2)) else 0
        if n:
            counts[role] = n
    flags: dict[str, Any] = {
        name: draw(st.booleans())
        for name in (
            "revealRolesOnDeath",
            "allowDoctorSelfProtect",
            "allowRepeatedProtect",
            "hunterShootOnPoison",
            "dayVoteMajority",
            "leaderEnabled",
            "protectAgainstPoison",
            "protectAgainstVigilante",
            "protectAgainstFire",
            "witchCanSaveSelf",
            "witchSaveFirstNightOnly",
        )
    }
    options = WerewolfOptions(
        enabledRoles=",".join(REGISTRY),
        roleCounts=",".join(f"{r}:{n}" for r, n in counts.items()),
        lastWordsMode=draw(st.sampled_from(("none", "all", "limit_by_initial_wolves"))),
        lastWordsScope=draw(st.sampled_from(("day_only", "day_and_night"))),
        lastWordsOrder=draw(st.sampled_from(("seating_order", "death_resolution"))),
        vigilanteShots=draw(st.integers(0, 3)),
        maxDays=draw(st.sampled_from((0, 3, 50))),
        **flags,
    )
    try:
        WerewolfGame.check_setup(players, options)
    except SetupError:
        assume(False)
    return players, options


seeds = st.integers(0, 2**32 - 1)


def play(game: WerewolfGame, rng: random.Random, on_step: Callable[[WerewolfGame], None] | None = None) -> int:
    actions = 0
    while game.result is None:
        assert actions < MAX_ACTIONS, "the game did not terminate"
        if on_step is not None:
            on_step(game)
        pending = game.pending()
        assert pending, "a game that is not over waits for someone"
        decision = pending[int(rng.random() * len(pending))]
        assert game.alive[decision.seat] or decision.kind in DEAD_MAY_ANSWER, decision
        value = decision.random_choice(rng) if rng.random() < 0.8 else game.default_answer(decision)
        game.apply(decision.seat, decision.kind, value)
        actions += 1
    assert game.pending() == ()
    return actions


def nobody_acts_while_blocked(game: WerewolfGame) -> None:
    """A blocked player's answers, from the block's step on, visit and kill nobody (every
    protection, check and block is a visit; mechanics/blocks.py). A trickster's forged
    visit is no act of its visitor's."""
    plan = game.plan
    assert not any(
        v.visitor in plan.blocked and v.step >= plan.blocked[v.visitor]
        for v in plan.visits
        if v.kind != "trickster_forge"
    )
    assert not any(k.actor in plan.blocked and k.step >= plan.blocked[k.actor] for k in plan.kills)


def of(game: WerewolfGame, kind: str) -> list[Event]:
    return [e for e in game.events if e.kind == kind]


@SETTINGS
@given(setup=setups(), seed=seeds, player_seed=seeds)
def test_random_games_end_legally_and_consistently(setup: Setup, seed: int, player_seed: int) -> None:
    players, options = setup
    game = WerewolfGame(players, options, seed)
    play(game, random.Random(player_seed), on_step=nobody_acts_while_blocked)
    result = game.result
    roles = [REGISTRY[r] for r in game.roles]
    alive = [s for s in range(players) if game.alive[s]]
    wolves = [s for s in alive if roles[s].team is Team.WEREWOLF]
    village = [s for s in alive if roles[s].team is Team.VILLAGE]
    hostile = [s for s in alive if roles[s].hostile]
    assert result is not None
    survivors = {s for s in alive if roles[s].survivor} if result.winner is not None else set()
    assert result.reason in WerewolfGame.end_reasons
    assert result.winner is None or result.winner in WerewolfGame.sides

    # The win condition holds at the end.
    if result.reason == "all_wolves_eliminated":
        assert not wolves and not hostile
        assert result.winners == {s for s in range(players) if roles[s].team is Team.VILLAGE} | survivors
    elif result.reason == "parity_or_majority":
        assert 0 < len(wolves) >= len(village) and not hostile
        assert result.winners == {s for s in range(players) if roles[s].team is Team.WEREWOLF} | survivors
    elif result.reason == "serial_killer_survived":
        assert len(alive) <= 2 and any(game.roles[s] == "serial_killer" for s in alive)
    elif result.reason == "arsonist_survived":
        assert len(alive) <= 2 and any(game.roles[s] == "arsonist" for s in alive)
    elif result.reason == "cult_recruited_all":
        assert all(s in game.statuses["cult"] or game.roles[s] == "cult_leader" for s in alive)
        assert any(game.roles[s] == "cult_leader" for s in alive) and set(game.statuses["cult"]) <= result.winners
    elif result.reason == "lovers_last_alive":
        assert set(game.links) <= set(alive) and set(game.links) <= result.winners
        assert all(s in game.links or game.roles[s] == "cupid" for s in alive)
    elif result.reason == "piper_charmed_all":
        assert all(s in game.statuses["charmed"] or game.roles[s] == "piper" for s in alive)
    elif result.reason == "jester_executed":
        (seat,) = result.winners - survivors
        assert game.roles[seat] == "jester" and of(game, "execution")[-1].data["seat"] == seat
    else:
        assert result.reason == "day_limit" and options.maxDays and game.day == options.maxDays

    # Deaths: announced once each, never undone, and matching the final state.
    announced = [s for e in of(game, "dawn") for s in e.data["dead"]] + [e.data["seat"] for e in of(game, "death")]
    announced += [e.data["seat"] for e in of(game, "execution") if not e.data["spared"]]
    assert len(announced) == len(set(announced)) and set(announced) == set(range(players)) - set(alive)
    # Lovers die together.
    if game.links:
        a, b = sorted(game.links)
        assert game.alive[a] == game.alive[b]
    # A day names only a living leader (one who died at its dawn leads nobody).
    for e in of(game, "day"):
        assert e.data["leader"] is None or e.data["leader"] in e.data["alive"]
    # Votes come only from living players with a vote, for living players.
    for e in of(game, "vote"):
        assert e.data["vote"] == "abstain" or e.data["vote"] != e.data["seat"]

    # The end event is last, public, once, and reveals every role.
    end = game.events[-1]
    assert end.kind == "end" and end.public and [e.kind for e in game.events].count("end") == 1
    assert end.data["roles"] == game.roles and end.data["winner"] == result.winner

    # Secrets: private kinds go only to their audience; public events never name a living
    # player's role.
    for e in game.events[:-1]:
        if e.kind in PRIVATE:
            assert e.audience is not None, e
        if e.kind == "role":
            assert e.audience == {e.data["seat"]}
        if e.kind == "seer_result":
            assert e.audience is not None
            (seer,) = e.audience
            assert game.roles[seer] in ("seer", "wolf_seer", "shadow")  # a shadow copies a check
        if e.kind in ("wolves", "wolf_votes"):
            assert e.audience is not None
            assert all(roles[s].team is Team.WEREWOLF for s in e.audience)
        if e.kind == "wolf_target":
            assert e.audience is not None
            assert all(roles[s].learns_wolf_target or game.roles[s] == "little_girl" for s in e.audience)
        if e.kind == "caught":
            assert e.audience is not None
            assert all(roles[s].team is Team.WEREWOLF for s in e.audience)
        if e.public and e.kind in ("dawn", "death", "execution"):
            shown = e.data.get("roles", {}) or ({e.data["seat"]: e.data["role"]} if "role" in e.data else {})
            assert bool(shown) <= options.revealRolesOnDeath
    # Every event survives the wire and the store (JSON) unchanged.
    for e in game.events:
        assert json.loads(json.dumps(e.to_dict())) == e.to_dict(), e
    for seat in [None, *range(players)]:
        assert game.view(seat) == [
            e for e in game.events if e.audience is None or (seat is not None and seat in e.audience)
        ]

    # Determinism and replay.
    again = WerewolfGame(players, options, seed)
    again.replay(game.history)
    assert again.events == game.events and again.result == result
    assert pickle.dumps(again) == pickle.dumps(game)


def _settle_night(game: WerewolfGame) -> None:
    """Answer the rest of the night (the witch) the same way whatever happened before."""
    while game.phase == "night" and game.result is None:
        d = game.pending()[0]
        game.apply(d.seat, d.kind, d.random_choice(random.Random(f"{game.day}:{d.seat}:{d.kind}")))


@SETTINGS
@given(setup=setups(), seed=seeds, player_seed=seeds)
def test_a_night_does_not_depend_on_the_order_of_its_answers(setup: Setup, seed: int, player_seed: int) -> None:
    """Every night's simultaneous answers, recorded in three orders, make the same dawn."""
    players, options = setup
    game = WerewolfGame(players, options, seed)
    rng = random.Random(player_seed)
    while game.result is None and game.day <= 6:
        pending = game.pending()
        if game.phase == "night" and len(pending) > 1:
            answers = [(d.seat, d.kind, d.random_choice(rng)) for d in pending]
            outcomes = []
            for order in (answers, answers[::-1], rng.sample(answers, len(answers))):
                g = pickle.loads(pickle.dumps(game))
                for answer in order:
                    g.apply(*answer)
                _settle_night(g)
                dawn = [e.data for e in g.events if e.kind == "dawn"][-1:]
                outcomes.append((g, list(g.alive), dawn, g.victims, g.result))
            assert all(o[1:] == outcomes[0][1:] for o in outcomes), [o[1:] for o in outcomes]
            game = outcomes[0][0]
            continue
        d = pending[int(rng.random() * len(pending))]
        game.apply(d.seat, d.kind, d.random_choice(rng))


def _illegal(game: WerewolfGame, rng: random.Random) -> list[tuple[Any, Any, Any]]:
    """Actions that are certainly illegal now (value, and who sends what)."""
    n = game.players
    if game.result is not None:
        return [(rng.randrange(n), rng.choice(list(ACTIONS) + ["vote"]), 0)]
    decision = rng.choice(game.pending())
    out = [
        (rng.choice([-1, n, None, "0", True]), decision.kind, decision.options[0]),
        (decision.seat, "dance", decision.options[0]),
        (decision.seat, decision.kind, rng.choice([n, -1, 1.0, True, None, "nobody", [0], (0, 1, 2)])),
    ]
    waiting = {d.seat for d in game.pending()}
    idle = [s for s in range(n) if s not in waiting]
    if idle:
        out.append((rng.choice(idle), decision.kind, decision.options[0]))
    dead = [s for s in range(n) if not game.alive[s]]
    if dead and decision.count == 1:
        out.append((decision.seat, decision.kind, rng.choice(dead)))
    return [
        (s, k, v)
        for s, k, v in out
        if not (k == decision.kind and s == decision.seat and v in decision.options and type(v) in (int, str))
    ]


@SETTINGS
@given(setup=setups(), seed=seeds, player_seed=seeds, probe_seed=seeds)
def test_illegal_actions_change_nothing(setup: Setup, seed: int, player_seed: int, probe_seed: int) -> None:
    players, options = setup
    game = WerewolfGame(players, options, seed)
    probe = random.Random(probe_seed)
    codes: list[ErrorCode] = []

    def try_illegal(g: WerewolfGame) -> None:
        if probe.random() >= 0.1 or len(codes) >= 25:
            return
        before = pickle.dumps(g)
        for seat, kind, value in _illegal(g, probe):
            try:
                g.apply(seat, kind, value)
            except IllegalAction as err:
                codes.append(err.code)
                if type(seat) is int and 0 <= seat < players and not g.alive[seat] and seat not in g._round:
                    assert err.code is ErrorCode.PLAYER_DEAD
            else:
                raise AssertionError(f"accepted illegal action {(seat, kind, value)}")
            assert pickle.dumps(g) == before

    play(game, random.Random(player_seed), on_step=try_illegal)
    clean = WerewolfGame(players, options, seed)
    play(clean, random.Random(player_seed))
    assert clean.events == game.events and clean.history == game.history


def _random_setup(rng: random.Random) -> tuple[int, WerewolfOptions]:
    """Any table of 6 to 20 with a random mix drawn from every role and random options."""
    while True:
        players = rng.randint(6, 20)
        counts = {"werewolf": rng.randint(1, max(1, players // 3))}
        for role in SPECIALS:
            if rng.random() < 0.4:
                counts[role] = rng.randint(1, REGISTRY[role].max_count or 2)
        options = WerewolfOptions(
            enabledRoles=",".join(REGISTRY),
            roleCounts=",".join(f"{r}:{n}" for r, n in counts.items()),
            revealRolesOnDeath=rng.random() < 0.5,
            leaderEnabled=rng.random() < 0.5,
            protectAgainstPoison=rng.random() < 0.5,
            protectAgainstVigilante=rng.random() < 0.5,
            protectAgainstFire=rng.random() < 0.5,
            lastWordsScope=rng.choice(("day_only", "day_and_night")),
            littleGirlCaughtPercent=rng.randint(0, 100),
        )
        try:
            WerewolfGame.check_setup(players, options)
        except SetupError:
            continue
        return players, options


def test_thousands_of_games_with_every_role_keep_the_invariants() -> None:
    """2,000 games, every role in play somewhere: each ends, the dead stay dead, nobody acts
    while blocked, and nothing private reaches the channel before END."""
    rng = random.Random(2026)
    dealt: set[str] = set()
    for i in range(2000):
        players, options = _random_setup(rng)
        game = WerewolfGame(players, options, seed=i)
        dealt.update(game.roles)
        died: set[int] = set()

        def watch(g: WerewolfGame) -> None:
            nobody_acts_while_blocked(g)
            gone = {s for s in range(players) if not g.alive[s]}
            assert died <= gone, "a dead player came back"
            died.update(gone)

        play(game, random.Random(i), on_step=watch)
        assert game.result is not None and game.result.reason in WerewolfGame.end_reasons
        for e in game.events[:-1]:
            assert e.audience is not None or e.kind not in PRIVATE, e
    assert dealt >= set(REGISTRY) - {"thief"}  # a thief's seat holds another role after night 1
