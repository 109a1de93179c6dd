"""The night: 4.2 order, the wolves' vote (5.2.1), seer, doctor, witch, and section-11 errors."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from arena.core.decisions import Decision
from arena.core.errors import ErrorCode, IllegalAction
from arena.games.werewolf.engine import WerewolfGame

from .helpers import dead, decision_of, events, game, last, night, step, until_kind

# seats: 0,1,2 wolves; 3 seer; 4 doctor; 5 witch; 6 bodyguard; 7 cupid; 8 vigilante; 9 piper; 10,11 villagers
DEAL = "werewolf werewolf werewolf seer doctor witch bodyguard cupid vigilante piper villager villager"
WOLVES = (0, 1, 2)


def kinds_in_order(g: WerewolfGame, wolf_target: int | str = 11) -> list[list[str]]:
    """The decision kinds of the current night, round by round, answering with defaults."""
    rounds = []
    while g.phase == "night" and g.result is None:
        pending = g.pending()
        rounds.append(sorted({d.kind for d in pending}))
        for d in pending:
            value = {"cupid_link": (10, 11)}.get(d.kind, g.default_answer(d))
            if d.kind == "wolf_vote":
                value = wolf_target
            g.apply(d.seat, d.kind, value)
    return rounds


def test_the_night_asks_everyone_at_once_but_the_witch() -> None:
    g = game(DEAL)
    assert kinds_in_order(g) == [
        [
            "bodyguard_protect",
            "cupid_link",
            "doctor_protect",
            "piper_charm",
            "seer_check",
            "vigilante_shoot",
            "wolf_vote",
        ],
        ["witch_save"],
        ["witch_poison"],
    ]
    assert g.dependent_kinds == {"witch_save", "witch_poison"}


def answer(g: WerewolfGame, seat: int, value: Any) -> None:
    (d,) = [d for d in g.pending() if d.seat == seat]
    g.apply(seat, d.kind, value)


def test_the_witch_is_asked_once_the_wolves_are_done_whoever_else_still_thinks() -> None:
    g = game(DEAL)
    for wolf in WOLVES:
        assert not any(d.kind == "witch_save" for d in g.pending())
        answer(g, wolf, 10)
    assert decision_of(g, 5).kind == "witch_save" and decision_of(g, 3).kind == "seer_check"
    assert last(g, "wolf_votes")["target"] == 10


def test_the_doctor_learns_the_wolves_target_only_after_protecting() -> None:
    g = game(DEAL)
    for wolf in WOLVES:
        answer(g, wolf, 10)
    told = [e for e in events(g, "wolf_target")]
    assert [e.audience for e in told] == [{5}]
    answer(g, 4, 10)
    assert [e.audience for e in events(g, "wolf_target")] == [{5}, {4}]


@pytest.mark.parametrize("first", ["wolves", "vigilante"])
def test_kills_are_resolved_in_4_2_order_whoever_answered_first(first: str) -> None:
    g = game(DEAL)
    order = [*WOLVES, 8] if first == "wolves" else [8, *WOLVES]
    for seat in order:
        answer(g, seat, 10)
    assert sorted((k.step, k.cause) for k in g.plan.kills) == [(8, "wolves"), (9, "vigilante")]
    night(g, {"cupid_link": (3, 4), "bodyguard_protect": 10, "doctor_protect": "none", "witch_save": "none"})
    assert dead(g) == {6, 10}


def test_cupid_only_on_the_first_night() -> None:
    g = game(DEAL)
    kinds_in_order(g)
    step(g, {"candidacy": "decline", "vote": "abstain"}, stop=lambda x: x.phase == "night")
    assert ["cupid_link"] not in kinds_in_order(g, "abstain")


def wolves_vote(votes: tuple[int | str, ...], **options: Any) -> WerewolfGame:
    g = game(DEAL, **options)
    night(g, {"cupid_link": (10, 11), **{("wolf_vote", w): v for w, v in zip(WOLVES, votes)}})
    return g


@pytest.mark.parametrize(
    "votes,target",
    [
        ((10, 10, 11), 10),
        ((10, "abstain", "abstain"), 10),
        ((10, 11, "abstain"), None),  # a tie: no kill
        ((10, 11, 3), None),  # a three-way tie
        (("abstain",) * 3, None),  # all abstain: no kill
        ((0, 0, "abstain"), 0),  # wolves may choose a wolf
    ],
)
def test_wolf_vote(votes: tuple[int | str, int | str, int | str], target: int | None) -> None:
    g = wolves_vote(votes)
    wv = last(g, "wolf_votes")
    assert wv["target"] == target and wv["votes"] == [[w, v] for w, v in zip(WOLVES, votes)]
    assert events(g, "wolf_votes")[-1].audience == set(WOLVES)
    # The doctor and the witch learn the final target, or that there is none.
    informed = events(g, "wolf_target")[-1]
    assert informed.audience == {4, 5} and informed.data["target"] == target
    lovers = {10, 11}  # linked by cupid: one dies, both die
    expected = set() if target is None else lovers if target in lovers else {target}
    assert dead(g) == expected


def test_wolves_see_each_other_and_nobody_else_does() -> None:
    g = game(DEAL)
    (e,) = events(g, "wolves")
    assert e.audience == set(WOLVES) and e.data["wolves"] == list(WOLVES)
    assert g.living_wolves() == list(WOLVES)


def test_seer_learns_a_team_privately() -> None:
    g = game(DEAL)
    night(g, {"cupid_link": (10, 11), ("seer_check", 3): 1})
    (e,) = events(g, "seer_result")
    assert e.audience == {3} and e.data == {"night": 1, "target": 1, "team": "werewolf"}
    g2 = game(DEAL)
    night(g2, {"cupid_link": (10, 11), ("seer_check", 3): 9})
    assert last(g2, "seer_result")["team"] == "village"  # the piper (neutral) looks like village


def at(g: WerewolfGame, kind: str) -> Decision:
    step(g, {"cupid_link": (10, 11)}, stop=until_kind(kind))
    return next(d for d in g.pending() if d.kind == kind)


def refused(g: WerewolfGame, seat: int, kind: str, value: Any, code: ErrorCode) -> None:
    before = pickle.dumps(g)
    with pytest.raises(IllegalAction) as err:
        g.apply(seat, kind, value)
    assert err.value.code is code, err.value
    assert pickle.dumps(g) == before


def test_doctor_self_protection_option() -> None:
    assert 4 in at(game(DEAL), "doctor_protect").options
    g = game(DEAL, allowDoctorSelfProtect=False)
    assert 4 not in at(g, "doctor_protect").options
    refused(g, 4, "doctor_protect", 4, ErrorCode.CANNOT_SELF_TARGET)


def test_no_repeated_protection_by_default() -> None:
    g = game(DEAL)
    night(g, {"cupid_link": (10, 11), "doctor_protect": 10, "bodyguard_protect": 11, "wolf_vote": "abstain"})
    step(g, {"candidacy": "decline", "vote": "abstain"}, stop=until_kind("doctor_protect"))
    d = next(d for d in g.pending() if d.kind == "doctor_protect")
    assert 10 not in d.options
    refused(g, 4, "doctor_protect", 10, ErrorCode.REPEATED_PROTECT)
    refused(g, 6, "bodyguard_protect", 11, ErrorCode.REPEATED_PROTECT)
    refused(g, 6, "bodyguard_protect", 6, ErrorCode.CANNOT_SELF_TARGET)
    g2 = game(DEAL, allowRepeatedProtect=True)
    night(g2, {"cupid_link": (10, 11), "doctor_protect": 10, "wolf_vote": "abstain"})
    step(g2, {"candidacy": "decline", "vote": "abstain"}, stop=until_kind("doctor_protect"))
    assert 10 in next(d for d in g2.pending() if d.kind == "doctor_protect").options


def test_witch_potions_are_used_once() -> None:
    g = game(DEAL)
    night(g, {"cupid_link": (10, 11), "wolf_vote": 3, "witch_save": "save", "witch_poison": 8})
    assert dead(g) == {8}
    assert g.state[5] == {"save": False, "poison": False}
    step(g, {"candidacy": "decline", "vote": "abstain"}, stop=lambda x: x.phase == "night")
    asked = {}
    while g.phase == "night":
        for d in g.pending():
            asked[d.kind] = d.options
            if d.kind == "seer_check":
                refused(g, 5, "witch_save", "save", ErrorCode.RESOURCE_EXHAUSTED)
                refused(g, 5, "witch_poison", 3, ErrorCode.RESOURCE_EXHAUSTED)
            if d.kind == "witch_poison":
                refused(g, 5, "witch_poison", 3, ErrorCode.RESOURCE_EXHAUSTED)
            g.apply(d.seat, d.kind, 10 if d.kind == "wolf_vote" else g.default_answer(d))
    # Asked all the same, with nothing to choose: a night without her would be shorter.
    assert asked["witch_save"] == asked["witch_poison"] == ("none",)
    assert last(g, "wolf_target")["target"] == 10  # still told the target


def test_witch_cannot_save_herself_when_not_allowed() -> None:
    g = game(DEAL, witchCanSaveSelf=False)
    step(g, {"cupid_link": (10, 11), "wolf_vote": 5}, stop=until_kind("witch_poison"))
    assert not events(g, "witch_save") and g.state[5]["save"] is True
    assert last(g, "wolf_target")["target"] == 5


def test_witch_save_first_night_only() -> None:
    g = game(DEAL, witchSaveFirstNightOnly=True)
    night(g, {"cupid_link": (10, 11), "wolf_vote": "abstain"})
    step(g, {"candidacy": "decline", "vote": "abstain", "wolf_vote": 10}, stop=until_kind("witch_poison"))
    assert g.day == 2 and g.state[5]["save"] is True


def test_hunter_shot_and_poisoned_hunter() -> None:
    deal = "werewolf werewolf hunter witch villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {"wolf_vote": 2})
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("hunter_shoot", 2) and 2 not in d.options and "none" in d.options
    g.apply(2, "hunter_shoot", 0)
    assert last(g, "hunter_shot") == {"hunter": 2, "target": 0} and not g.alive[0]
    assert last(g, "death")["seat"] == 0
    for option, asked in ((False, False), (True, True)):
        g = game(deal, leaderEnabled=False, hunterShootOnPoison=option)
        night(g, {"wolf_vote": "abstain", "witch_poison": 2})
        assert (g.pending()[0].kind == "hunter_shoot") is asked


def test_dead_players_get_player_dead() -> None:
    deal = "werewolf werewolf seer doctor villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {"wolf_vote": 2, "doctor_protect": "none"})
    refused(g, 2, "speak", "done", ErrorCode.PLAYER_DEAD)
    refused(g, 2, "vote", 0, ErrorCode.PLAYER_DEAD)
    step(g, {"speak": "done"}, stop=until_kind("vote"))
    d = g.pending()[0]
    refused(g, d.seat, "vote", 2, ErrorCode.TARGET_ALREADY_DEAD)
    refused(g, d.seat, "vote", d.seat, ErrorCode.CANNOT_SELF_TARGET)
    other = next(s for s in range(9) if g.alive[s] and s != d.seat)
    refused(g, other, "vote", 0, ErrorCode.NOT_YOUR_TURN)
    refused(
        g,
        d.seat,
        "seer_check",
        0,
        ErrorCode.ACTION_NOT_ALLOWED if g.roles[d.seat] != "seer" else ErrorCode.INVALID_PHASE,
    )
    refused(g, d.seat, "vote", 1.0, ErrorCode.TARGET_INVALID)
    refused(g, d.seat, "vote", True, ErrorCode.TARGET_INVALID)


def test_a_hunter_shot_at_dawn_can_undo_the_wolves_majority() -> None:
    # 2 wolves, hunter, 3 villagers: the wolves kill the hunter and the witch poisons a villager,
    # so wolves 2 >= village 2 at dawn; the hunter shoots a wolf and the day goes on.
    # (The day-1 election comes before the shot, 5.3: tests/werewolf/test_day.py.)
    deal = "werewolf werewolf hunter witch villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {"wolf_vote": 2, "witch_save": "none", "witch_poison": 4})
    assert dead(g) == {2, 4} and g.result is None
    (d,) = g.pending()
    assert (d.kind, d.seat) == ("hunter_shoot", 2)
    g.apply(2, "hunter_shoot", 0)
    assert g.result is None and g.pending()[0].kind == "speak"
    g2 = game(deal, leaderEnabled=False)
    night(g2, {"wolf_vote": 2, "witch_save": "none", "witch_poison": 4})
    g2.apply(2, "hunter_shoot", 5)
    assert g2.result is not None and g2.result.reason == "parity_or_majority"
