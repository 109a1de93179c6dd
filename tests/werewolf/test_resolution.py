"""Section 10.4: every worked example of 10.4.9 as a test of the resolver (example 11, a
block, happens before the resolver), and all twelve played through the engine with the real
roles: serial killer, guardian angel and roleblocker included."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.resolution import BLOCK, HEAL, INTERCEPT, Kill, Protection, resolve

from .helpers import Plan, dead, events, game, last, night

A, BG, DOC, GA, WITCH, VIG, SK = 0, 1, 2, 3, 4, 5, 6

WOLF = Kill(A, "wolves", step=8)
SERIAL = Kill(A, "serial_killer", SK, step=9)
VIGIL = Kill(A, "vigilante", VIG, step=9)
POISON = Kill(A, "poison", WITCH, step=10.5, ordinary=False, stoppable=False)
GUARD = Protection(BG, A, INTERCEPT)
DOCTOR = Protection(DOC, A, BLOCK)
ANGEL = Protection(GA, A, BLOCK)
HEALS = Protection(WITCH, A, HEAL)


def dies(kills: list[Kill], protections: list[Protection]) -> set[int]:
    return set(resolve(kills, protections).deaths)


def test_example_1_single_kill_doctor() -> None:
    assert dies([WOLF], [DOCTOR]) == set()


def test_example_2_single_kill_bodyguard() -> None:
    assert dies([WOLF], [GUARD]) == {BG}


def test_example_3_single_kill_bodyguard_and_doctor() -> None:
    outcome = resolve([WOLF], [GUARD, DOCTOR])
    assert set(outcome.deaths) == set()
    assert outcome.used == [GUARD, DOCTOR]  # the doctor stopped the bodyguard's death


def test_example_4_single_kill_bodyguard_and_heal() -> None:
    outcome = resolve([WOLF], [GUARD, HEALS])
    assert set(outcome.deaths) == {BG}
    assert HEALS not in outcome.used  # A was not dying: the heal failed


def test_example_5_single_kill_doctor_and_heal() -> None:
    outcome = resolve([VIGIL], [DOCTOR, HEALS])
    assert set(outcome.deaths) == set()
    assert outcome.used == [DOCTOR]


def test_example_6_double_kill_doctor() -> None:
    assert dies([WOLF, SERIAL], [DOCTOR]) == {A}


def test_example_7_double_kill_bodyguard() -> None:
    assert dies([WOLF, SERIAL], [GUARD]) == {A, BG}


def test_example_8_double_kill_bodyguard_and_doctor() -> None:
    assert dies([WOLF, SERIAL], [GUARD, DOCTOR]) == {A}


def test_example_9_double_kill_bodyguard_and_heal() -> None:
    assert dies([WOLF, VIGIL], [GUARD, HEALS]) == {BG}


@pytest.mark.parametrize("protections", [[DOCTOR], [GUARD], [ANGEL], [HEALS], [GUARD, DOCTOR, ANGEL, HEALS]])
def test_example_10_poison_bypasses_every_protection(protections: list[Protection]) -> None:
    outcome = resolve([POISON], protections)
    assert set(outcome.deaths) == {A} and outcome.deaths[A] == ["poison"]
    assert outcome.used == []


def test_example_12_guardian_angel_and_doctor() -> None:
    outcome = resolve([WOLF], [ANGEL, DOCTOR])
    assert set(outcome.deaths) == set() and len(outcome.used) == 1


def test_heal_cancels_only_one_death_event() -> None:
    # Two ordinary kills land on A; one heal leaves one (10.4.7: "still may die").
    assert dies([WOLF, VIGIL], [HEALS]) == {A}


def test_protections_do_not_chain() -> None:
    # A bodyguard's interception is not passed on to a second bodyguard guarding the first.
    other = Protection(7, BG, INTERCEPT)
    assert dies([WOLF], [GUARD, other]) == {BG}


def test_protectable_poison_behaves_like_a_kill() -> None:
    poison = Kill(A, "poison", WITCH, step=10.5, ordinary=False)  # protectAgainstPoison: true
    assert dies([poison], [DOCTOR]) == set()
    assert dies([poison], [HEALS]) == set()


def test_no_bodyguard_intercepts_poison_even_when_protections_stop_it() -> None:
    # 10.4.4: a bodyguard cannot intercept poison; with protectAgainstPoison only blocks and
    # heals stop it (the rules' README).
    poison = Kill(A, "poison", WITCH, step=10.5, ordinary=False)
    outcome = resolve([poison], [GUARD])
    assert set(outcome.deaths) == {A} and outcome.used == []
    assert dies([poison], [GUARD, DOCTOR]) == set()


# -- the same examples through the engine, with the real roles ----------------------------------

DEAL = (
    "villager bodyguard doctor werewolf witch vigilante werewolf guardian_angel serial_killer roleblocker"
    " villager villager"
)
# seats: 0=A 1=BG 2=DOC 3=wolf 4=witch 5=vig 6=wolf 7=GA 8=SK 9=roleblocker 10,11 villagers
E_GA, E_SK, E_RB = 7, 8, 9


def first_night(plan: Plan, **options: Any) -> WerewolfGame:
    g = game(DEAL, **options)
    base = {
        "wolf_vote": A,
        "doctor_protect": "none",
        "bodyguard_protect": "none",
        "vigilante_shoot": "none",
        "witch_save": "none",
        "witch_poison": "none",
        "guardian_angel_protect": "none",
        "serial_kill": "none",
        "roleblock": "none",
        "candidacy": "decline",
    }
    night(g, {**base, **plan})
    return g


def test_engine_example_1() -> None:
    assert dead(first_night({"doctor_protect": A})) == set()


def test_engine_example_2() -> None:
    assert dead(first_night({"bodyguard_protect": A})) == {BG}


def test_engine_example_3() -> None:
    assert dead(first_night({"bodyguard_protect": A, "doctor_protect": A})) == set()


def test_engine_example_4() -> None:
    g = first_night({"bodyguard_protect": A, "witch_save": "save"})
    assert dead(g) == {BG}
    assert g.state[WITCH]["save"] is False  # spent although useless


def test_engine_example_5_with_the_wolves_on_a() -> None:
    # The witch can heal only the wolves' target, so here A is the target of wolves and vigilante
    # (the doctor stops one, the heal the other: both lines of 10.4.7 at once).
    g = first_night({"vigilante_shoot": A, "doctor_protect": A, "witch_save": "save"})
    assert dead(g) == set()


def test_engine_example_6_wolves_and_serial_killer_against_a_doctor() -> None:
    assert dead(first_night({"serial_kill": A, "doctor_protect": A})) == {A}


def test_engine_example_7_wolves_and_serial_killer_against_a_bodyguard() -> None:
    assert dead(first_night({"serial_kill": A, "bodyguard_protect": A})) == {A, BG}


def test_engine_example_8_wolves_and_serial_killer_against_bodyguard_and_doctor() -> None:
    assert dead(first_night({"serial_kill": A, "bodyguard_protect": A, "doctor_protect": A})) == {A}


@pytest.mark.parametrize(
    "example,plan,expected",
    [
        (6, {"doctor_protect": A}, {A}),
        (7, {"bodyguard_protect": A}, {A, BG}),
        (8, {"bodyguard_protect": A, "doctor_protect": A}, {A}),
    ],
)
def test_engine_examples_6_to_8_with_the_vigilante_as_second_killer(
    example: int, plan: dict[str, int], expected: set[int]
) -> None:
    assert dead(first_night({"vigilante_shoot": A, **plan})) == expected


def test_engine_example_9() -> None:
    assert dead(first_night({"vigilante_shoot": A, "bodyguard_protect": A, "witch_save": "save"})) == {BG}


def test_engine_example_10() -> None:
    g = first_night({"wolf_vote": "abstain", "witch_poison": A, "doctor_protect": A, "bodyguard_protect": A})
    assert dead(g) == {A}
    assert last(g, "dawn")["dead"] == [A]


def test_engine_example_10_with_the_guardian_angel() -> None:
    g = first_night({"wolf_vote": "abstain", "witch_poison": A, "guardian_angel_protect": A})
    assert dead(g) == {A}


def test_engine_example_11_roleblocked_witch_poisons_nobody() -> None:
    g = first_night({"wolf_vote": "abstain", "roleblock": WITCH, "witch_poison": A})
    assert dead(g) == set()
    assert [e.audience for e in events(g, "blocked")] == [{WITCH}]
    assert g.state[WITCH]["poison"] is True  # asked with nothing to choose: the poison is kept
    assert [value for _, kind, value in g.history if kind == "witch_poison"] == ["none"]


def test_engine_example_12_guardian_angel_and_doctor() -> None:
    assert dead(first_night({"guardian_angel_protect": A, "doctor_protect": A})) == set()


def test_engine_poison_stopped_with_protect_against_poison() -> None:
    g = first_night({"wolf_vote": "abstain", "witch_poison": A, "doctor_protect": A}, protectAgainstPoison=True)
    assert dead(g) == set()


def test_engine_vigilante_unstoppable_without_protect_against_vigilante() -> None:
    g = first_night({"wolf_vote": "abstain", "vigilante_shoot": A, "doctor_protect": A}, protectAgainstVigilante=False)
    assert dead(g) == {A}


# -- the night as a set: no outcome depends on the order answers arrived in ------------------

DOC2 = 7


def test_two_doctors_save_both_whatever_order_they_answered() -> None:
    # Wolves and vigilante on A, the bodyguard on A, doctor 1 on A, doctor 2 on the bodyguard:
    # the bodyguard's doctor saves the bodyguard, A's doctor saves A.
    kills = [WOLF, VIGIL]
    doctor2 = Protection(DOC2, BG, BLOCK)
    for protections in ([GUARD, DOCTOR, doctor2], [GUARD, doctor2, DOCTOR], [doctor2, DOCTOR, GUARD]):
        assert dies(kills, protections) == set()
        assert dies(kills[::-1], protections) == set()


seats = st.integers(0, 3)
kill_records = st.builds(
    Kill,
    seats,
    st.sampled_from(("wolves", "vigilante", "serial_killer", "poison")),
    st.one_of(st.none(), st.integers(4, 9)),
    st.sampled_from((8, 9, 10.5)),
    st.booleans(),
    st.booleans(),
)
protection_records = st.builds(Protection, st.integers(0, 9), seats, st.sampled_from((INTERCEPT, BLOCK, HEAL)))


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(
    kills=st.lists(kill_records, max_size=4),
    protections=st.lists(protection_records, max_size=5),
    order=st.randoms(use_true_random=False),
)
def test_the_outcome_does_not_depend_on_the_order_of_the_records(
    kills: list[Kill], protections: list[Protection], order: random.Random
) -> None:
    expected = resolve(kills, protections)
    order.shuffle(kills)
    order.shuffle(protections)
    again = resolve(kills, protections)
    assert again.deaths == expected.deaths and again.used == expected.used


def test_engine_two_doctors_whoever_answers_first() -> None:
    # seats: 0=A, 1=bodyguard, 2=doctor 1, 3=doctor 2, 4 and 6 wolves, 5 vigilante
    deal = "villager bodyguard doctor doctor werewolf vigilante werewolf villager villager"
    plan = {
        1: ("bodyguard_protect", A),
        3: ("doctor_protect", BG),
        4: ("wolf_vote", A),
        5: ("vigilante_shoot", A),
        6: ("wolf_vote", A),
    }
    for first, second in ((2, 3), (3, 2)):
        g = game(deal)
        for seat in (first, second, 1, 4, 5, 6):
            kind, target = plan[seat] if seat != 2 else ("doctor_protect", A)
            g.apply(seat, kind, target)
        night(g, {"candidacy": "decline"})
        assert dead(g) == set(), (first, second)


def test_engine_bodyguard_never_takes_poison() -> None:
    g = first_night({"wolf_vote": "abstain", "witch_poison": A, "bodyguard_protect": A}, protectAgainstPoison=True)
    assert dead(g) == {A}
