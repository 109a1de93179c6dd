"""The day (5.3): order, leader, votes with dayVoteMajority (each 5.3.4 example), runoff,
last words (10.5)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.games.werewolf.day import last_words_order, speaking_order, tally
from arena.games.werewolf.engine import WerewolfGame

from .helpers import Plan, dead, events, game, last, night, step, until_kind

# 5.3.4 examples: votes for two players and abstentions -> outcome.
MAJORITY_EXAMPLES = [
    ((2, 2), 2, "none"),
    ((3, 3), 2, "runoff"),
    ((3, 1), 2, "execution"),
    ((3,), 3, "none"),
]


def ballots(counts: tuple[int, ...], abstentions: int) -> dict[int, int | str]:
    votes: dict[int, int | str] = {}
    voter = 100
    for target, n in enumerate(counts):
        for _ in range(n):
            votes[voter] = target
            voter += 1
    for _ in range(abstentions):
        votes[voter] = "abstain"
        voter += 1
    return votes


def outcome(top: list[int]) -> str:
    return "none" if not top else "execution" if len(top) == 1 else "runoff"


@pytest.mark.parametrize("counts,abstentions,expected", MAJORITY_EXAMPLES)
def test_day_vote_majority_examples(counts: tuple[int, ...], abstentions: int, expected: str) -> None:
    _, abst, top = tally(ballots(counts, abstentions), majority=True)
    assert abst == abstentions and outcome(top) == expected


@pytest.mark.parametrize(
    "counts,abstentions,expected", [((2, 2), 2, "runoff"), ((3,), 3, "execution"), ((1,), 5, "execution")]
)
def test_without_majority_abstentions_do_not_count(counts: tuple[int, ...], abstentions: int, expected: str) -> None:
    assert outcome(tally(ballots(counts, abstentions), majority=False)[2]) == expected


def test_all_abstain_is_no_execution() -> None:
    assert tally({1: "abstain", 2: "abstain"}, majority=False)[2] == []


def test_speaking_order_skips_the_dead_start() -> None:
    alive = [True] * 6
    alive[2] = False
    assert speaking_order(alive, 2, "counterclockwise") == [1, 0, 5, 4, 3]
    assert speaking_order(alive, 2, "clockwise") == [3, 4, 5, 0, 1]
    assert speaking_order([True] * 4, 1, "clockwise") == [1, 2, 3, 0]


def test_last_words_quota_and_orders() -> None:
    rng = random.Random(1)
    assert last_words_order([5, 2, 7], None, "death_resolution", 9, rng) == [5, 2, 7]
    chosen = last_words_order([5, 2, 7], 2, "death_resolution", 9, rng)
    assert len(chosen) == 2 and set(chosen) < {5, 2, 7} and chosen == [s for s in [5, 2, 7] if s in chosen]
    for seed in range(20):
        order = last_words_order([5, 2, 7], None, "seating_order", 9, random.Random(seed))
        first = order[0]
        assert order == sorted([5, 2, 7], key=lambda s: (s - first) % 9)
    assert last_words_order([5, 2], 0, "seating_order", 9, rng) == []


# -- through the engine --------------------------------------------------------------------------

# seats: 0,1 wolves; 2 seer; 3 doctor; 4..8 villagers (9 players)
DEAL = "werewolf werewolf seer doctor villager villager villager villager villager"
QUIET = {"wolf_vote": "abstain", "seer_check": "none", "doctor_protect": "none", "candidacy": "decline"}


def to_vote(**options: Any) -> WerewolfGame:
    g = game(DEAL, **options)
    step(g, QUIET, stop=until_kind("vote"))
    return g


def cast(g: WerewolfGame, votes: dict[int, int]) -> None:
    """Answer the day's ballots: ``votes`` maps voter -> target (others abstain)."""
    while g.result is None and g.pending() and g.pending()[0].kind == "vote":
        d = g.pending()[0]
        g.apply(d.seat, "vote", votes.get(d.seat, "abstain"))


def test_no_leader_order_is_counterclockwise_from_a_random_seat() -> None:
    g = to_vote(leaderEnabled=False)
    order = last(g, "order")
    assert order["direction"] == "counterclockwise" and order["leader"] is None
    assert order["speakers"] == speaking_order([True] * 9, order["start"], "counterclockwise")
    assert [e.data["seat"] for e in events(g, "speech")] == order["speakers"]
    assert g.pending()[0].seat == order["speakers"][0]


def test_order_starts_from_last_nights_victim() -> None:
    g = game(DEAL, leaderEnabled=False)
    step(g, {**QUIET, "wolf_vote": 5}, stop=until_kind("vote"))
    assert dead(g) == {5}
    assert last(g, "order")["speakers"] == [4, 3, 2, 1, 0, 8, 7, 6]


@pytest.mark.parametrize("counts,abstentions,expected", MAJORITY_EXAMPLES)
def test_engine_majority_examples(counts: tuple[int, ...], abstentions: int, expected: str) -> None:
    # 9 alive voters: the two targets get counts, `abstentions` abstain, the rest vote elsewhere
    # only when needed to fill (never more than the top).
    g = to_vote(leaderEnabled=False)
    voters = [d for d in last(g, "order")["speakers"]]
    targets = [4, 5]
    plan, i = {}, 0
    for t, n in zip(targets, counts):
        for _ in range(n):
            while voters[i] == t:
                i += 1
            plan[voters.pop(i)] = t
            i = 0
    rest = voters[abstentions:]
    # The remaining voters split one vote each over distinct other players (below every top).
    others = [s for s in range(9) if s not in targets]
    for voter in rest:
        plan[voter] = next(o for o in others if o != voter and o not in plan.values())
    cast(g, plan)
    result = last(g, "vote_result")
    assert result["outcome"] == expected, (plan, result)
    assert result["abstentions"] == abstentions


def test_runoff_then_second_tie_means_no_execution() -> None:
    g = to_vote(leaderEnabled=False, dayVoteMajority=False)
    order = last(g, "order")["speakers"]
    voters = [s for s in order if s not in (4, 5)]
    plan = {v: (4 if i % 2 == 0 else 5) for i, v in enumerate(voters[:6])}
    cast(g, plan)
    assert last(g, "vote_result")["outcome"] == "runoff"
    # The tied speak again in the same order, then only the others vote.
    runoff = [s for s in order if s in (4, 5)]
    for seat in runoff:
        (d,) = g.pending()
        assert (d.kind, d.seat) == ("speak", seat)
        g.apply(seat, "speak", "done")
    assert [e.data["purpose"] for e in events(g, "speech")][-2:] == ["runoff", "runoff"]
    second = []
    while g.pending()[0].kind == "vote":
        d = g.pending()[0]
        assert d.seat not in (4, 5) and set(d.options) == {4, 5, "abstain"}
        second.append(d.seat)
        g.apply(d.seat, "vote", "abstain" if len(second) == 7 else 4 if len(second) % 2 else 5)
    assert second == [s for s in order if s not in (4, 5)]
    result = last(g, "vote_result")
    assert result["round"] == 2 and result["outcome"] == "none"
    assert dead(g) == set() and last(g, "night")["night"] == 2


def test_runoff_winner_is_executed() -> None:
    g = to_vote(leaderEnabled=False, dayVoteMajority=False)
    order = last(g, "order")["speakers"]
    voters = [s for s in order if s not in (4, 5)]
    cast(g, {voters[0]: 4, voters[1]: 5})
    step(g, {"speak": "done"}, stop=until_kind("vote"))
    cast(g, {voters[0]: 4})
    assert last(g, "vote_result")["outcome"] == "execution" and last(g, "execution")["seat"] == 4
    assert not g.alive[4]


def test_executed_gets_last_words_within_quota() -> None:
    g = to_vote(leaderEnabled=False)
    cast(g, {s: 6 for s in range(9) if s != 6})
    assert last(g, "execution") == {"day": 1, "seat": 6, "spared": False, "role": "villager"}
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("last_words", 6)
    assert g.last_words_left == 1  # two initial wolves, one used


@pytest.mark.parametrize("mode,expected", [("none", False), ("all", True), ("limit_by_initial_wolves", True)])
def test_last_words_modes(mode: str, expected: bool) -> None:
    g = to_vote(leaderEnabled=False, lastWordsMode=mode)
    cast(g, {s: 6 for s in range(9) if s != 6})
    assert (g.pending()[0].kind == "last_words") is expected


def test_last_words_quota_runs_out() -> None:
    g = game(DEAL, leaderEnabled=False, lastWordsMode="limit_by_initial_wolves")
    for victim in (6, 7, 8):
        step(g, QUIET, stop=until_kind("vote"))
        cast(g, {s: victim for s in range(9) if s != victim})
        got = any(d.kind == "last_words" for d in g.pending())
        assert got is (victim != 8)
        step(g, QUIET, stop=lambda x: x.phase == "night" and bool(x.pending()) and x.pending()[0].kind != "last_words")


def test_night_victims_speak_with_day_and_night_scope() -> None:
    g = game(DEAL, leaderEnabled=False, lastWordsScope="day_and_night", lastWordsMode="all")
    night(g, {**QUIET, "wolf_vote": 7})
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("last_words", 7)


def test_no_night_last_words_by_default() -> None:
    g = game(DEAL, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 7})
    assert g.pending()[0].kind == "speak"


# -- the leader ----------------------------------------------------------------------------------


def test_leader_election_and_leader_directed_order() -> None:
    g = game(DEAL)
    night(g, {**QUIET, "wolf_vote": "abstain"})
    order = []
    while g.pending()[0].kind == "candidacy":
        d = g.pending()[0]
        order.append(d.seat)
        g.apply(d.seat, "candidacy", "stand" if d.seat in (2, 3) else "decline")
    assert order == speaking_order([True] * 9, order[0], "counterclockwise")
    # Non-candidates vote in the same order; candidates do not vote.
    voters = []
    while g.pending()[0].kind == "leader_vote":
        d = g.pending()[0]
        assert set(d.options) == {2, 3, "abstain"}
        voters.append(d.seat)
        g.apply(d.seat, "leader_vote", 3 if len(voters) <= 4 else 2)
    assert voters == [s for s in order if s not in (2, 3)]
    assert last(g, "leader")["leader"] == 3 and g.leader == 3
    # No death last night: the leader picks the direction, the round starts next to them and
    # they speak last.
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("order_direction", 3)
    g.apply(3, "order_direction", "clockwise")
    assert last(g, "order")["speakers"] == [4, 5, 6, 7, 8, 0, 1, 2, 3]


def test_leader_tie_is_random_among_the_tied() -> None:
    leaders = set()
    for seed in range(12):
        g = game(DEAL, seed=seed)
        step(
            g,
            {**QUIET, "candidacy": lambda d: "stand" if d.seat in (2, 3) else "decline", "leader_vote": "abstain"},
            stop=lambda x: bool(events(x, "leader")),
        )
        assert last(g, "leader")["tie"] is True
        leaders.add(g.leader)
    assert leaders == {2, 3}


def test_leader_chooses_start_among_several_victims_and_gets_extra_speech() -> None:
    # Night 1 nobody dies and 3 is elected; night 2 the wolves kill 5 and the witch poisons 7.
    deal = "werewolf werewolf seer doctor witch villager villager villager villager"
    g = game(deal)
    step(
        g,
        {
            **QUIET,
            "witch_save": "none",
            "witch_poison": "none",
            "candidacy": lambda d: "stand" if d.seat == 3 else "decline",
        },
        stop=until_kind("order_direction"),
    )
    assert g.leader == 3
    g.apply(3, "order_direction", "counterclockwise")
    step(g, {"vote": "abstain"}, stop=lambda x: x.day == 2)
    night(g, {**QUIET, "wolf_vote": 5, "witch_poison": 7, "witch_save": "none"})
    assert g.victims and set(g.victims) == {5, 7}
    (d,) = g.pending()
    assert (d.kind, d.seat, d.options) == ("order_start", 3, (5, 7))
    g.apply(3, "order_start", 7)
    g.apply(3, "order_direction", "clockwise")
    speakers = last(g, "order")["speakers"]
    assert speakers == [8, 0, 1, 2, 3, 4, 6, 3]  # from 7 clockwise, and the leader again at the end


def test_leader_is_asked_the_start_even_with_one_victim() -> None:
    # Every decision is asked, even with one legal choice (protocol.md, section 4).
    deal = "werewolf werewolf seer doctor witch villager villager villager villager"
    g = game(deal)
    step(
        g,
        {
            **QUIET,
            "witch_save": "none",
            "witch_poison": "none",
            "candidacy": lambda d: "stand" if d.seat == 3 else "decline",
        },
        stop=until_kind("order_direction"),
    )
    g.apply(3, "order_direction", "counterclockwise")
    step(g, {"vote": "abstain"}, stop=lambda x: x.day == 2)
    night(g, {**QUIET, "wolf_vote": 5, "witch_save": "none", "witch_poison": "none"})
    (d,) = g.pending()
    assert (d.kind, d.seat, d.options) == ("order_start", 3, (5,))
    g.apply(3, "order_start", 5)
    g.apply(3, "order_direction", "clockwise")
    assert last(g, "order")["start"] == 5


def test_dead_leader_falls_back_to_default_order() -> None:
    g = game(DEAL)
    step(g, {**QUIET, "candidacy": lambda d: "stand" if d.seat == 4 else "decline"}, stop=until_kind("order_direction"))
    g.apply(4, "order_direction", "clockwise")
    step(g, {"vote": "abstain"}, stop=lambda x: x.phase == "night")
    night(g, {**QUIET, "wolf_vote": 4})
    assert not g.alive[4]
    order = last(g, "order")
    assert order["leader"] is None and order["direction"] == "counterclockwise" and order["start"] == 4


@pytest.mark.parametrize("order", ["death_resolution", "seating_order"])
def test_night_last_words_order_and_quota(order: str) -> None:
    # The wolves' kill (8) resolves before the witch's poison (7).
    deal = "werewolf werewolf seer doctor witch villager villager villager villager"
    g = game(deal, leaderEnabled=False, lastWordsScope="day_and_night", lastWordsMode="all", lastWordsOrder=order)
    night(g, {**QUIET, "wolf_vote": 8, "witch_save": "none", "witch_poison": 7})
    assert g.victims == [8, 7]
    speakers = []
    while g.pending()[0].kind == "last_words":
        speakers.append(g.pending()[0].seat)
        g.apply(speakers[-1], "last_words", "done")
    assert speakers == [8, 7] if order == "death_resolution" else sorted(speakers) == [7, 8]
    # One initial wolf: one last word for two night victims, given to one of them at random.
    deal = "werewolf seer doctor witch villager villager villager villager villager"
    g = game(deal, leaderEnabled=False, lastWordsScope="day_and_night", lastWordsOrder=order)
    night(g, {**QUIET, "wolf_vote": 8, "witch_save": "none", "witch_poison": 7})
    (d,) = g.pending()
    assert d.kind == "last_words" and d.seat in (7, 8) and g.last_words_left == 0
    g.apply(d.seat, "last_words", "done")
    assert g.pending()[0].kind == "speak"


# -- the morning in the order of 5.3: election, last words, death-triggered abilities, win check

PARITY_DEAL = "werewolf werewolf hunter villager villager witch"
# seats: 0,1 wolves; 2 hunter; 3,4 villagers; 5 witch. Night 1: wolves kill the hunter, the
# witch poisons a villager: two wolves against two villagers, a wolves' win unless the hunter
# (who speaks first) shoots a wolf.


def kinds_until_check(g: WerewolfGame, plan: Plan) -> list[str]:
    """The decision kinds of the morning, in order, until a speaking turn or the end."""
    kinds = []
    while g.result is None and g.pending()[0].kind != "speak":
        d = g.pending()[0]
        kinds.append(d.kind)
        value = plan.get(d.kind)
        g.apply(d.seat, d.kind, g.default_answer(d) if value is None else value)
    return kinds


@pytest.mark.parametrize("leader", [True, False])
def test_a_parity_night_keeps_5_3_order_last_words_before_the_hunter(leader: bool) -> None:
    g = game(PARITY_DEAL, leaderEnabled=leader, lastWordsScope="day_and_night", lastWordsMode="all")
    night(g, {"wolf_vote": 2, "witch_save": "none", "witch_poison": 3})
    assert dead(g) == {2, 3} and g.result is None
    kinds = kinds_until_check(g, {"candidacy": "decline", "hunter_shoot": 0})
    election = ["candidacy"] * 4 if leader else []
    assert kinds == [*election, "last_words", "last_words", "hunter_shoot"]
    assert g.result is None and not g.alive[0]  # the shot undid the wolves' parity: the day goes on


def test_a_night_that_decides_the_game_still_gives_its_last_words() -> None:
    g = game(
        "werewolf werewolf villager villager villager witch",
        leaderEnabled=False,
        lastWordsScope="day_and_night",
        lastWordsMode="all",
    )
    night(g, {"wolf_vote": 2, "witch_save": "none", "witch_poison": 3})
    assert kinds_until_check(g, {}) == ["last_words", "last_words"]
    assert g.result is not None and g.result.reason == "parity_or_majority"
