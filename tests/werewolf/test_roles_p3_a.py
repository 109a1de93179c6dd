"""P3 roles: werewolf leader, wolf witch, wolf guard, warder, decoy, avenger, scapegoat: each
power, its limits and errors, blocks, protections and statuses, and nights that come out
the same whatever order their answers arrive in."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.decisions import Decision
from arena.core.errors import ErrorCode, IllegalAction, SetupError
from arena.games.werewolf.choice import Choice
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.mechanics import statuses
from arena.games.werewolf.mechanics.visits import visitors_of
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.resolution import BLOCK, DRAW, GUARD, HEAL, INTERCEPT, WARD, Kill, Protection, resolve
from arena.narrate.narrator import Narrator
from arena.protocol import parse
from arena.referee.local import LocalHub
from arena.sdk import Bot
from arena.sdk.werewolf import WerewolfState

from .helpers import ALL_ROLES, Plan, dead, decision_of, events, game, last, night, step, until_kind
from .test_roles import execute
from . import test_roles_p3
from .test_roles_p2 import answer

QUIET = {
    **test_roles_p3.QUIET,
    "werewolf_leader_kill": "none",
    "wolf_witch_poison": "none",
    "wolf_guard_protect": "none",
    "warder_ward": "none",
    "decoy_draw": "none",
    "jailer_jail": "none",
}


def refused(g: WerewolfGame, seat: int, kind: str, value: Any) -> ErrorCode:
    with pytest.raises(IllegalAction) as err:
        g.apply(seat, kind, value)
    return err.value.code


def in_orders(deal: str, plan: Plan, seats: list[int], **options: Any) -> list[tuple[set[int], dict[str, Any]]]:
    """Night 1 played with ``plan``, the seats answering first in the order ``seats`` then
    in the reverse order: the dead and the dawn of each."""
    outcomes: list[tuple[set[int], dict[str, Any]]] = []
    for order in (seats, seats[::-1]):
        g = game(deal, leaderEnabled=False, **options)
        while g.phase == "night" and g.result is None:
            d = min(g.pending(), key=lambda d: order.index(d.seat) if d.seat in order else len(order))
            value = plan.get((d.kind, d.seat), plan.get(d.kind, QUIET.get(d.kind)))
            g.apply(d.seat, d.kind, g.default_answer(d) if value is None else value)
        outcomes.append((dead(g), last(g, "dawn")))
    return outcomes


def same_in_orders(deal: str, plan: Plan, **options: Any) -> set[int]:
    seats = list(range(len(deal.split())))
    first, second = in_orders(deal, plan, seats, **options)
    assert first == second
    return first[0]


# -- the resolver's new protections ------------------------------------------------------------

WOLVES_ON_A = Kill(0, "wolves", 9, step=8)
SHOT_ON_A = Kill(0, "vigilante", 8, step=9)
STOPPABLE_POISON = Kill(0, "poison", 7, step=10.5, ordinary=False)  # protectAgainstPoison


def test_a_guard_blocks_ordinary_kills_only() -> None:
    guard = Protection(5, 0, GUARD)
    assert resolve([WOLVES_ON_A], [guard]).deaths == {}
    assert list(resolve([STOPPABLE_POISON], [guard]).deaths) == [0]
    assert resolve([STOPPABLE_POISON], [Protection(5, 0, BLOCK)]).deaths == {}


def test_a_ward_comes_after_the_blocks_and_before_the_heal() -> None:
    ward = Protection(5, 0, WARD, statuses.WARDED)
    doctor, heal = Protection(6, 0, BLOCK), Protection(4, 0, HEAL)
    assert resolve([WOLVES_ON_A], [ward, doctor]).used == [doctor]
    assert resolve([WOLVES_ON_A], [ward, heal]).used == [ward]
    assert resolve([WOLVES_ON_A, SHOT_ON_A], [ward, heal, doctor]).deaths == {}
    assert resolve([STOPPABLE_POISON], [ward]).deaths == {}
    assert list(resolve([Kill(0, "poison", 7, step=10.5, ordinary=False, stoppable=False)], [ward]).deaths) == [0]


def test_a_drawn_kill_changes_victim_once() -> None:
    draw, guard_a, guard_decoy = Protection(3, 0, DRAW), Protection(1, 0, INTERCEPT), Protection(2, 3, INTERCEPT)
    outcome = resolve([WOLVES_ON_A], [draw, guard_a, guard_decoy])
    assert list(outcome.deaths) == [3] and outcome.used == [draw]
    outcome = resolve([WOLVES_ON_A, SHOT_ON_A], [draw, guard_a])
    assert list(outcome.deaths) == [3, 1]  # the first kill drawn, the second taken by the bodyguard


seats = st.integers(0, 3)
kill_records = st.builds(
    Kill,
    seats,
    st.sampled_from(("wolves", "vigilante", "poison", "avenger")),
    st.one_of(st.none(), st.integers(4, 9)),
    st.sampled_from((8, 9, 10.5, 10.6)),
    st.booleans(),
    st.booleans(),
)
protection_records = st.builds(
    Protection,
    st.integers(0, 9),
    seats,
    st.sampled_from((DRAW, INTERCEPT, BLOCK, GUARD, WARD, HEAL)),
)


@settings(max_examples=3000, deadline=None, derandomize=True)
@given(
    kills=st.lists(kill_records, max_size=4),
    protections=st.lists(protection_records, max_size=6),
    order=st.randoms(use_true_random=False),
)
def test_with_the_new_protections_the_outcome_does_not_depend_on_the_order_of_the_records(
    kills: list[Kill], protections: list[Protection], order: random.Random
) -> None:
    expected = resolve(kills, protections)
    order.shuffle(kills)
    order.shuffle(protections)
    again = resolve(kills, protections)
    assert again.deaths == expected.deaths and again.used == expected.used


# -- werewolf leader -----------------------------------------------------------------------

LEADER = "werewolf_leader werewolf werewolf doctor witch villager villager villager bomb"
# seats: 0 leader, 1 and 2 wolves, 3 doctor, 4 witch, 5-7 villagers, 8 bomb


def test_the_leader_names_the_victim_over_the_packs_vote() -> None:
    g = game(LEADER, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 5, "werewolf_leader_kill": 6})
    assert dead(g) == {6}
    assert last(g, "wolf_votes") == {"night": 1, "votes": [[0, 5], [1, 5], [2, 5]], "target": 6}
    assert {e.data["target"] for e in events(g, "wolf_target")} == {6}
    assert visitors_of(g, 6) == [0] and visitors_of(g, 5) == []


def test_the_leader_decides_a_tie_and_none_leaves_the_vote() -> None:
    g = game(LEADER, leaderEnabled=False)
    votes = {("wolf_vote", 0): 5, ("wolf_vote", 1): 6, ("wolf_vote", 2): "abstain"}
    night(g, {**QUIET, **votes, "werewolf_leader_kill": 7})
    assert dead(g) == {7}
    g = game(LEADER, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 5, "werewolf_leader_kill": "none"})
    assert dead(g) == {5} and last(g, "wolf_votes")["target"] == 5


def test_the_leader_votes_first_then_names_and_never_itself() -> None:
    g = game(LEADER, leaderEnabled=False)
    assert decision_of(g, 0).kind == "wolf_vote"
    answer(g, 0, 5)
    d = g.decision_for(0)
    assert d is not None
    assert d.kind == "werewolf_leader_kill" and 0 not in d.options and "none" in d.options
    assert refused(g, 0, "werewolf_leader_kill", 0) is ErrorCode.CANNOT_SELF_TARGET
    assert refused(g, 1, "werewolf_leader_kill", 5) is ErrorCode.ACTION_NOT_ALLOWED


def test_the_leader_carries_out_the_kill_a_bomb_takes_it_along() -> None:
    g = game(LEADER, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 8, "werewolf_leader_kill": 8})
    assert dead(g) == {0, 8}


def test_a_blocked_leaders_choice_is_void() -> None:
    deal = "werewolf_leader werewolf werewolf roleblocker villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 0, ("wolf_vote", 1): 5, ("wolf_vote", 2): 5, "werewolf_leader_kill": 6})
    assert dead(g) == {5}


def test_at_most_one_werewolf_leader() -> None:
    with pytest.raises(SetupError):
        game("werewolf_leader werewolf_leader villager villager villager villager villager")


def test_the_leaders_night_does_not_depend_on_the_order_of_answers() -> None:
    plan = {**QUIET, "wolf_vote": 5, "werewolf_leader_kill": 6, "doctor_protect": 6, "witch_save": "none"}
    assert same_in_orders(LEADER, plan) == set()


# -- wolf witch ----------------------------------------------------------------------------

WOLF_WITCH = "wolf_witch werewolf bodyguard doctor hunter villager villager villager"
# seats: 0 wolf witch, 1 wolf, 2 bodyguard, 3 doctor, 4 hunter, 5-7 villagers


def test_the_wolf_witch_poisons_once_and_votes_with_the_pack() -> None:
    g = game(WOLF_WITCH, leaderEnabled=False)
    assert {d.kind for d in g.pending() if d.seat == 0} == {"wolf_vote"}
    night(g, {**QUIET, "wolf_vote": 6, "wolf_witch_poison": 5})
    assert dead(g) == {5, 6}
    step(g, {**QUIET, "hunter_shoot": "none"}, stop=until_kind("wolf_vote"))
    answer(g, 0, "abstain")
    assert decision_of(g, 0).options == ("none",)  # the poison is spent: nothing to choose
    assert refused(g, 0, "wolf_witch_poison", 7) is ErrorCode.RESOURCE_EXHAUSTED


def test_the_wolf_witch_never_poisons_itself() -> None:
    g = game(WOLF_WITCH, leaderEnabled=False)
    answer(g, 0, "abstain")
    assert refused(g, 0, "wolf_witch_poison", 0) is ErrorCode.CANNOT_SELF_TARGET


@pytest.mark.parametrize("against", [False, True])
def test_wolf_witch_poison_is_poison(against: bool) -> None:
    """No bodyguard intercepts it; a doctor stops it only with protectAgainstPoison."""
    g = game(WOLF_WITCH, leaderEnabled=False, protectAgainstPoison=against)
    night(g, {**QUIET, "wolf_witch_poison": 5, "bodyguard_protect": 5, "doctor_protect": 5})
    assert dead(g) == (set() if against else {5})
    g = game(WOLF_WITCH, leaderEnabled=False, protectAgainstPoison=against)
    night(g, {**QUIET, "wolf_witch_poison": 5, "bodyguard_protect": 5})
    assert dead(g) == {5}


@pytest.mark.parametrize("shoots", [False, True])
def test_a_hunter_poisoned_by_the_wolf_witch_shoots_only_with_hunter_shoot_on_poison(shoots: bool) -> None:
    g = game(WOLF_WITCH, leaderEnabled=False, hunterShootOnPoison=shoots)
    night(g, {**QUIET, "wolf_witch_poison": 4})
    assert dead(g) == {4}
    assert any(d.kind == "hunter_shoot" for d in g.pending()) is shoots


def test_a_blocked_wolf_witch_keeps_its_poison() -> None:
    deal = "wolf_witch werewolf roleblocker villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 0, "wolf_witch_poison": 5})
    assert dead(g) == set() and g.state[0]["poison"]


# -- wolf guard ----------------------------------------------------------------------------

WOLF_GUARD = "wolf_guard werewolf vigilante serial_killer witch villager villager villager villager"
# seats: 0 wolf guard, 1 wolf, 2 vigilante, 3 serial killer, 4 witch, 5-8 villagers


def test_the_wolf_guard_saves_a_wolf_from_an_ordinary_kill() -> None:
    g = game(WOLF_GUARD, leaderEnabled=False)
    night(g, {**QUIET, "wolf_guard_protect": 1, "vigilante_shoot": 1})
    assert dead(g) == set()


def test_the_wolf_guard_protects_only_the_pack_itself_included_not_twice_running() -> None:
    g = game(WOLF_GUARD, leaderEnabled=False)
    d = g.decision_for(0)
    assert isinstance(d, Choice)
    assert d.kind == "wolf_guard_protect" and set(d.seats) == {0, 1}  # step 7: before the pack's vote
    assert refused(g, 0, "wolf_guard_protect", 5) is ErrorCode.TARGET_INVALID
    night(g, {**QUIET, "wolf_guard_protect": 0})
    step(g, QUIET, stop=until_kind("wolf_guard_protect"))
    assert refused(g, 0, "wolf_guard_protect", 0) is ErrorCode.REPEATED_PROTECT


def test_the_wolf_guard_stops_one_kill_only() -> None:
    g = game(WOLF_GUARD, leaderEnabled=False)
    night(g, {**QUIET, "wolf_guard_protect": 1, "vigilante_shoot": 1, "serial_kill": 1})
    assert dead(g) == {1}


def test_the_wolf_guard_never_stops_poison() -> None:
    for against in (False, True):
        g = game(WOLF_GUARD, leaderEnabled=False, protectAgainstPoison=against)
        night(g, {**QUIET, "wolf_guard_protect": 1, "witch_poison": 1})
        assert dead(g) == {1}


def test_a_blocked_wolf_guard_protects_nobody() -> None:
    deal = "wolf_guard werewolf vigilante roleblocker villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 0, "wolf_guard_protect": 1, "vigilante_shoot": 1})
    assert dead(g) == {1}


def test_the_wolf_guards_night_does_not_depend_on_the_order_of_answers() -> None:
    plan = {**QUIET, "wolf_guard_protect": 1, "vigilante_shoot": 1, "serial_kill": 1, "wolf_vote": 5}
    assert same_in_orders(WOLF_GUARD, plan) == {1, 5}


# -- warder --------------------------------------------------------------------------------

WARDER = "warder werewolf werewolf doctor witch priest villager villager villager"
# seats: 0 warder, 1 and 2 wolves, 3 doctor, 4 witch, 5 priest, 6-8 villagers


def test_a_charm_stops_one_kill_then_lifts_and_the_warder_charms_again() -> None:
    g = game(WARDER, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6, "wolf_vote": 6})
    assert dead(g) == set() and not statuses.has(g, statuses.WARDED, 6)
    step(g, QUIET, stop=until_kind("wolf_vote"))
    assert decision_of(g, 0).kind == "warder_ward"


def test_a_charm_lasts_until_it_is_spent_and_the_warder_waits_meanwhile() -> None:
    g = game(WARDER, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6})
    assert statuses.has(g, statuses.WARDED, 6)
    step(g, QUIET, stop=until_kind("wolf_vote"))
    assert decision_of(g, 0).options == ("none",)
    assert refused(g, 0, "warder_ward", 7) is ErrorCode.RESOURCE_EXHAUSTED
    night(g, {**QUIET, "wolf_vote": 6})
    assert 6 not in dead(g) and not statuses.has(g, statuses.WARDED, 6)


def test_the_nights_blocks_come_before_the_charm() -> None:
    g = game(WARDER, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6, "doctor_protect": 6, "wolf_vote": 6})
    assert dead(g) == set() and statuses.has(g, statuses.WARDED, 6)


def test_a_charm_and_a_heal_stop_two_kills() -> None:
    deal = "warder werewolf werewolf vigilante witch villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6, "wolf_vote": 6, "vigilante_shoot": 6, "witch_save": "save"})
    assert dead(g) == set()


@pytest.mark.parametrize("against", [False, True])
def test_a_charm_stops_poison_only_with_protect_against_poison(against: bool) -> None:
    g = game(WARDER, leaderEnabled=False, protectAgainstPoison=against)
    night(g, {**QUIET, "warder_ward": 6, "witch_poison": 6})
    assert dead(g) == (set() if against else {6})


def test_the_priest_leaves_a_charm_and_a_block_leaves_it_too() -> None:
    deal = "warder werewolf werewolf priest roleblocker villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6, "priest_cleanse": 6, "roleblock": 6})
    assert statuses.has(g, statuses.WARDED, 6) and events(g, "cleansed") == []


def test_a_blocked_warder_charms_nobody_and_never_itself() -> None:
    deal = "warder werewolf werewolf roleblocker villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    assert 0 not in decision_of(g, 0).options
    assert refused(g, 0, "warder_ward", 0) is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "roleblock": 0, "warder_ward": 6, "wolf_vote": 6})
    assert dead(g) == {6} and statuses.holders(g, statuses.WARDED) == []


def test_a_dead_warders_charm_still_protects() -> None:
    g = game(WARDER, leaderEnabled=False)
    night(g, {**QUIET, "warder_ward": 6})
    step(g, QUIET, stop=until_kind("wolf_vote"))
    night(g, {**QUIET, ("wolf_vote", 1): 0, ("wolf_vote", 2): 0})
    assert dead(g) == {0}
    step(g, QUIET, stop=until_kind("wolf_vote"))
    night(g, {**QUIET, "wolf_vote": 6})
    assert dead(g) == {0}


def test_at_most_one_warder() -> None:
    with pytest.raises(SetupError):
        game("warder warder werewolf villager villager villager villager")


def test_the_warders_night_does_not_depend_on_the_order_of_answers() -> None:
    plan = {**QUIET, "warder_ward": 6, "doctor_protect": 6, "wolf_vote": 6, "witch_save": "save"}
    assert same_in_orders(WARDER, plan) == set()


# -- decoy ---------------------------------------------------------------------------------

DECOY = "decoy werewolf werewolf doctor bodyguard witch villager villager villager"
# seats: 0 decoy, 1 and 2 wolves, 3 doctor, 4 bodyguard, 5 witch, 6-8 villagers


def test_the_decoy_draws_the_kill_aimed_at_its_target() -> None:
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "wolf_vote": 6, "witch_save": "save"})
    assert dead(g) == {0}  # 6 was not attacked: the heal on 6 found nobody dying


def test_a_drawn_kill_is_aimed_at_the_decoy_from_then_on() -> None:
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "wolf_vote": 6, "doctor_protect": 0})
    assert dead(g) == set()
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "wolf_vote": 6, "doctor_protect": 6})
    assert dead(g) == {0}
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "wolf_vote": 6, "bodyguard_protect": 0})
    assert dead(g) == {0}  # a kill is redirected once at most: protections do not chain
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "wolf_vote": 6, "bodyguard_protect": 6})
    assert dead(g) == {0}  # the bodyguard on 6 finds no kill to take


def test_the_decoy_never_draws_poison() -> None:
    g = game(DECOY, leaderEnabled=False)
    night(g, {**QUIET, "decoy_draw": 6, "witch_poison": 6})
    assert dead(g) == {6}


def test_the_lure_is_used_once_even_when_no_kill_came() -> None:
    g = game(DECOY, leaderEnabled=False)
    assert 0 not in decision_of(g, 0).options
    assert refused(g, 0, "decoy_draw", 0) is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "decoy_draw": 6})
    step(g, QUIET, stop=until_kind("wolf_vote"))
    assert decision_of(g, 0).options == ("none",)
    assert refused(g, 0, "decoy_draw", 6) is ErrorCode.RESOURCE_EXHAUSTED


def test_a_blocked_decoy_keeps_its_lure() -> None:
    deal = "decoy werewolf werewolf jailer villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 0, "decoy_draw": 6, "wolf_vote": 6})
    assert dead(g) == {6} and g.state[0]["lure"]


def test_the_decoys_night_does_not_depend_on_the_order_of_answers() -> None:
    deal = "decoy werewolf werewolf doctor bodyguard witch vigilante villager villager"
    plan = {
        **QUIET,
        "decoy_draw": 7,
        "wolf_vote": 7,
        "vigilante_shoot": 7,
        "bodyguard_protect": 7,
        "doctor_protect": 0,
        "witch_save": "none",
    }
    assert same_in_orders(deal, plan) == {4}  # the wolves' kill drawn and stopped, the shot taken


# -- avenger -------------------------------------------------------------------------------

AVENGER = "avenger werewolf werewolf doctor vigilante villager villager villager villager"
# seats: 0 avenger, 1 and 2 wolves, 3 doctor, 4 vigilante, 5-8 villagers


def to_next_night(g: WerewolfGame) -> None:
    step(g, QUIET, stop=until_kind("wolf_vote"))


def test_the_avenger_kills_the_wolf_who_killed_it_the_next_night() -> None:
    g = game(AVENGER, leaderEnabled=False)
    night(g, {**QUIET, ("wolf_vote", 1): 0, ("wolf_vote", 2): 0})
    assert dead(g) == {0}
    to_next_night(g)
    night(g, QUIET)
    assert dead(g) == {0, 1}  # the first wolf by seat among those who voted for it
    to_next_night(g)
    night(g, QUIET)
    assert dead(g) == {0, 1}  # once


def test_the_avenger_kills_the_vigilante_who_shot_it_and_every_killer() -> None:
    g = game(AVENGER, leaderEnabled=False)
    night(g, {**QUIET, ("wolf_vote", 1): 0, ("wolf_vote", 2): "abstain", "vigilante_shoot": 0})
    to_next_night(g)
    night(g, QUIET)
    assert dead(g) == {0, 1, 4}


def test_the_vengeance_is_an_ordinary_kill_a_doctor_stops() -> None:
    g = game(AVENGER, leaderEnabled=False)
    night(g, {**QUIET, "vigilante_shoot": 0})
    to_next_night(g)
    night(g, {**QUIET, "doctor_protect": 4})
    assert dead(g) == {0}


def test_a_jailed_killer_is_protected_from_the_vengeance_a_roleblocked_one_is_not() -> None:
    for role, blocker, dies in (("jailer", "jailer_jail", set()), ("roleblocker", "roleblock", {2})):
        deal = f"avenger werewolf werewolf {role} villager villager villager villager"
        g = game(deal, leaderEnabled=False)
        night(g, {**QUIET, ("wolf_vote", 1): "abstain", ("wolf_vote", 2): 0, blocker: "none"})
        assert dead(g) == {0}
        to_next_night(g)
        night(g, {**QUIET, blocker: 2})
        assert dead(g) - {0} == dies


def test_an_executed_or_saved_avenger_avenges_nobody() -> None:
    g = game(AVENGER, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 0, "doctor_protect": 0})
    assert dead(g) == set()
    step(g, QUIET, stop=until_kind("vote"))
    execute(g, 0)
    to_next_night(g)
    night(g, QUIET)
    assert dead(g) == {0}


def test_the_werewolf_leader_is_the_avengers_killer() -> None:
    deal = "avenger werewolf werewolf_leader villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 5, "werewolf_leader_kill": 0})
    to_next_night(g)
    night(g, QUIET)
    assert dead(g) == {0, 2}


# -- scapegoat -----------------------------------------------------------------------------

SCAPEGOAT = "scapegoat werewolf werewolf villager villager villager villager villager priest"
# seats: 0 scapegoat, 1 and 2 wolves, 3-7 villagers, 8 priest


def executed_scapegoat(**options: Any) -> WerewolfGame:
    g = game(SCAPEGOAT, leaderEnabled=False, dayVoteMajority=False, **options)
    night(g, QUIET)
    step(
        g,
        {**QUIET, "vote": lambda d: 0 if d.seat in (1, 3, 5) and 0 in d.options else "abstain"},
        stop=until_kind("scapegoat_punish"),
    )
    return g


def test_the_scapegoat_punishes_one_of_its_voters_who_does_not_vote_the_next_day() -> None:
    g = executed_scapegoat()
    (d,) = g.pending()
    assert d.options == (1, 3, 5)
    assert refused(g, 0, "scapegoat_punish", 4) is ErrorCode.TARGET_INVALID
    g.apply(0, "scapegoat_punish", 3)
    (e,) = events(g, "punished")
    assert e.public and e.data == {"day": 1, "seat": 3, "punishment": "lose_vote"}
    step(g, {**QUIET, "vote": "abstain"}, stop=until_kind("vote"))
    assert g.day == 2
    voters: list[int] = []

    def abstains(d: Decision) -> str:
        voters.append(d.seat)
        return "abstain"

    step(g, {**QUIET, "vote": abstains}, stop=until_kind("wolf_vote"))
    assert 3 not in voters and 4 in voters
    step(g, QUIET, stop=until_kind("vote"))
    assert not statuses.has(g, statuses.VOTELESS, 3)


def test_a_punished_voter_may_be_cleansed_by_the_priest() -> None:
    g = executed_scapegoat()
    g.apply(0, "scapegoat_punish", 3)
    step(g, QUIET, stop=until_kind("priest_cleanse"))
    night(g, {**QUIET, "priest_cleanse": 3})
    assert last(g, "cleansed") == {"night": 2, "statuses": ["voteless"]}


def test_with_death_the_punished_dies_at_once() -> None:
    g = executed_scapegoat(scapegoatPunishment="death")
    g.apply(0, "scapegoat_punish", 1)
    assert last(g, "punished")["punishment"] == "death"
    assert last(g, "death") == {"seat": 1, "day": 1, "role": "werewolf"} and dead(g) == {0, 1}


def test_a_scapegoat_killed_at_night_punishes_nobody() -> None:
    g = game(SCAPEGOAT, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 0})
    assert dead(g) == {0} and not any(d.kind == "scapegoat_punish" for d in g.pending())


def test_with_roles_hidden_every_dead_is_asked_one_kind_of_cover() -> None:
    deal = "scapegoat werewolf werewolf hunter villager villager villager villager"
    g = game(deal, leaderEnabled=False, revealRolesOnDeath=False)
    night(g, {**QUIET, "wolf_vote": 4})
    (d,) = g.pending()
    assert (d.seat, d.kind, d.options) == (4, "hunter_shoot", ("none",))


def test_the_punishment_reads_for_spectators() -> None:
    narrator = Narrator("#arena", "arena")
    lines = [
        "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=scapegoat:1,villager:4,werewolf:1",
        "EXECUTION g3 day=1 player=ann spared=false role=scapegoat",
        "PUNISHED g3 day=1 player=ben punishment=lose_vote",
        "PUNISHED g3 day=2 player=cat punishment=death",
    ]
    text = [s.plain() for line in lines for s in narrator.hear("arena", "#arena-g3", line)]
    assert "The scapegoat punishes ben: no vote tomorrow." in text
    assert "The scapegoat punishes cat: they die." in text


# -- secrets on the wire -------------------------------------------------------------------

SECRET_KINDS = ("werewolf_leader_kill", "wolf_witch_poison", "wolf_guard_protect", "warder_ward", "decoy_draw")


@pytest.mark.parametrize("reveal", [True, False])
def test_the_channel_learns_no_secret_of_these_roles_before_the_end(reveal: bool) -> None:
    """Rule bots and random bots play these roles over the referee: before END the channel
    never carries their requests, a living player's role, nor (roles hidden) a role at all."""
    options = WerewolfOptions(
        enabledRoles=ALL_ROLES,
        revealRolesOnDeath=reveal,
        scapegoatPunishment="death",
        roleCounts="werewolf_leader:1,wolf_witch:1,wolf_guard:1,warder:1,decoy:1,avenger:1,scapegoat:2,hunter:1,seer:1",
    )
    nicks = [f"p{i}" for i in range(12)]
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(nicks):
        hub.connect(nick, WerewolfRuleBot(seed=i) if i % 2 else Bot(seed=i))
    for seed in range(6):
        start = len(hub.channel_log)
        match = hub.play("werewolf", nicks, options, seed)
        dead: set[str] = set()
        for text in hub.channel_log[start:]:
            msg = parse(text)
            if msg.verb == "END":
                break
            assert not (msg.verb == "ASK" and msg.args[2] in SECRET_KINDS + ("scapegoat_punish",)), text
            if msg.verb in ("DAWN", "EXECUTION", "DEATH"):
                dead.update(msg.list("dead") or [msg.get("player", "")])
            named = msg.pairs("roles") if msg.verb == "DAWN" else {msg.get("player", ""): msg.get("role")}
            for nick, role in named.items():
                assert role is None or (reveal and nick in dead), text
        assert match.game.result is not None


# -- blocks settle in the night order whatever order answers arrive in --------------------------


@pytest.mark.parametrize("cupid_first", [True, False])
def test_a_roleblocked_cupids_link_stands_whichever_answer_came_first(cupid_first: bool) -> None:
    g = game("roleblocker cupid werewolf werewolf villager villager villager villager", leaderEnabled=False)
    for seat, value in [(1, (4, 5)), (0, 1)] if cupid_first else [(0, 1), (1, (4, 5))]:
        answer(g, seat, value)
    assert g.links == {4: 5, 5: 4}


def test_the_sdk_keeps_the_punished_and_how_they_died() -> None:
    state = WerewolfState(seats=["ann", "ben", "cat", "dan", "eve", "fay"])
    for line in [
        "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=scapegoat:1,villager:4,werewolf:1",
        "EXECUTION g3 day=1 player=ann spared=false role=scapegoat",
        "PUNISHED g3 day=1 player=ben punishment=death",
        "DEATH g3 day=1 player=ben role=werewolf",
    ]:
        state.apply(parse(line))
    assert state.punished == {1: "ben"} and [(d.player, d.cause) for d in state.deaths] == [
        ("ann", "execution"),
        ("ben", "punished"),
    ]
