"""P3 roles that change where actions land and what is seen of them: the bus driver
(mechanics/redirects.py), the trickster (a forged visit) and the shadow
(mechanics/copies.py)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode, IllegalAction
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot

from .helpers import dead, events, game, last, night, step, until_kind
from .test_roles import execute
from . import test_roles_p3
from .test_roles_p2 import answer

QUIET = {
    **test_roles_p3.QUIET,
    "tracker_track": "none",
    "watcher_watch": "none",
    "jailer_jail": "none",
    "shadow_follow": "none",
    "detective_compare": (10, 11),
}

BUS = "bus_driver seer doctor werewolf werewolf witch tracker watcher jailer roleblocker villager villager"
# seats: 0 bus driver, 1 seer, 2 doctor, 3 and 4 wolves, 5 witch, 6 tracker, 7 watcher, 8 jailer,
# 9 roleblocker, 10 and 11 villagers


def results(g: WerewolfGame, kind: str) -> list[tuple[dict[str, Any], frozenset[int] | None]]:
    return [(e.data, e.audience) for e in events(g, kind)]


# -- bus driver ---------------------------------------------------------------------------------


def test_a_swap_moves_the_wolves_kill_and_a_protection_alike() -> None:
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "wolf_vote": 10})
    assert dead(g) == {11}
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "wolf_vote": 10, "doctor_protect": 10})
    assert dead(g) == set()  # the protection aimed at 10 landed on 11, as the kill did
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "wolf_vote": 10, "doctor_protect": 11})
    assert dead(g) == {11}


def test_results_name_the_player_chosen_with_what_was_found_where_the_action_landed() -> None:
    g = game(BUS, leaderEnabled=False)
    night(
        g,
        {
            **QUIET,
            "bus_driver_swap": (3, 10),
            "seer_check": 10,
            "wolf_vote": 11,
            "tracker_track": 10,
            "watcher_watch": 11,
        },
    )
    assert last(g, "seer_result") == {"night": 1, "target": 10, "team": "werewolf"}
    assert last(g, "tracked") == {"night": 1, "target": 10, "visited": [11]}  # wolf 3 went to 11
    assert last(g, "watched") == {"night": 1, "target": 11, "visitors": [3, 4]}
    assert last(g, "wolf_votes")["target"] == 11


def test_the_driver_visits_both_passengers_and_is_told_nothing() -> None:
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "watcher_watch": 11})
    # The watcher aimed at 11 watched 10, whom the driver visited.
    assert last(g, "watched") == {"night": 1, "target": 11, "visitors": [0]}
    assert not [e for e in g.events if e.audience == {0} and e.kind not in ("role",)]


def test_the_witch_heals_where_the_kill_landed_and_is_told_the_wolves_choice() -> None:
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "wolf_vote": 10, "witch_save": "save"})
    assert dead(g) == set()
    (told,) = events(g, "wolf_target")
    assert told.data["target"] == 10 and told.audience == {2, 5}  # the doctor and the witch


def test_the_jail_and_the_roleblock_come_first_and_stop_the_driver() -> None:
    for blocker in ({"jailer_jail": 0}, {"roleblock": 0}):
        g = game(BUS, leaderEnabled=False)
        night(g, {**QUIET, **blocker, "bus_driver_swap": (10, 11), "wolf_vote": 10})
        assert dead(g) == {10}
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 10, "bus_driver_swap": (10, 11), "wolf_vote": 11})
    assert dead(g) == set()  # aimed at 11, the kill landed on 10, whose jail (not moved) protects them
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 10, "bus_driver_swap": (10, 11), "wolf_vote": 10})
    assert dead(g) == {11} and last(g, "blocked") == {"night": 1}
    assert events(g, "blocked")[-1].audience == {10}


def test_a_repeated_protection_is_judged_on_the_player_chosen() -> None:
    g = game(BUS, leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (10, 11), "doctor_protect": 10})
    step(g, QUIET, stop=until_kind("doctor_protect"))
    with pytest.raises(IllegalAction) as err:
        answer(g, 2, 10)
    assert err.value.code is ErrorCode.REPEATED_PROTECT
    answer(g, 2, 11)


def test_the_self_protection_options_limit_the_choice_and_a_swap_may_still_land_it_on_its_giver() -> None:
    g = game(BUS, leaderEnabled=False, allowDoctorSelfProtect=False)
    night(g, {**QUIET, "bus_driver_swap": (2, 10), "wolf_vote": 10, "doctor_protect": 10})
    assert dead(g) == set()  # kill and protection, both aimed at 10, landed on the doctor
    g = game(BUS, leaderEnabled=False, witchCanSaveSelf=False)
    night(g, {**QUIET, "bus_driver_swap": (5, 10), "wolf_vote": 10, "witch_save": "save"})
    assert dead(g) == set()  # the heal of the wolves' target went where their kill did: the witch


def test_an_avengers_vengeance_is_not_moved_by_a_swap() -> None:
    """Vengeance is no one's choice of the night (the bomb's blast neither): it finds its killer."""
    g = game(BUS.rsplit(" ", 2)[0] + " avenger villager", leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (0, 1), "wolf_vote": 10})  # wolf 3 kills the avenger
    step(g, {**QUIET, "vote": "abstain"}, stop=lambda x: x.phase == "night")
    night(g, {**QUIET, "bus_driver_swap": (3, 11), "wolf_vote": 1})
    assert dead(g) == {10, 1, 3}


def test_the_swap_takes_two_distinct_living_players_the_driver_allowed() -> None:
    g = game(BUS, leaderEnabled=False)
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert d.count == 2 and 0 in d.options and "none" not in d.options
    for value, code in (
        ((10, 10), ErrorCode.TARGET_INVALID),
        (10, ErrorCode.WRONG_COUNT),
        ((10, 12), ErrorCode.TARGET_INVALID),
    ):
        with pytest.raises(IllegalAction) as err:
            answer(g, 0, value)
        assert err.value.code is code
    assert g.default_answer(d) == (0, 1)
    night(g, {**QUIET, "wolf_vote": 10})
    step(g, QUIET, stop=until_kind("bus_driver_swap"))
    with pytest.raises(IllegalAction) as err:
        answer(g, 0, (10, 11))
    assert err.value.code is ErrorCode.TARGET_ALREADY_DEAD
    answer(g, 0, (0, 11))


def test_the_driver_wins_with_the_winning_side_when_alive() -> None:
    g = game("bus_driver werewolf seer villager villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (3, 4)})
    execute(g, 1)
    step(g, QUIET)
    assert g.result is not None and g.result.winner == "village" and 0 in g.result.winners


# -- trickster ----------------------------------------------------------------------------------

TRICK = "trickster tracker watcher werewolf werewolf jailer bus_driver villager villager villager"
# seats: 0 trickster, 1 tracker, 2 watcher, 3 and 4 wolves, 5 jailer, 6 bus driver, 7-9 villagers


def test_a_forged_visit_is_seen_by_the_tracker_and_the_watcher_and_the_trickster_is_not() -> None:
    g = game(TRICK, leaderEnabled=False)
    night(g, {**QUIET, "trickster_forge": (8, 9), "tracker_track": 8, "watcher_watch": 9, "bus_driver_swap": (6, 7)})
    assert last(g, "tracked") == {"night": 1, "target": 8, "visited": [9]}
    assert last(g, "watched") == {"night": 1, "target": 9, "visitors": [8]}


def test_the_forgery_keeps_its_order_visitor_first() -> None:
    g = game(TRICK, leaderEnabled=False)
    answer(g, 0, (9, 8))
    assert g.history[-1] == (0, "trickster_forge", (9, 8))
    night(g, {**QUIET, "tracker_track": 8, "watcher_watch": 9, "bus_driver_swap": (6, 7)})
    assert last(g, "tracked")["visited"] == [] and last(g, "watched")["visitors"] == []


def test_the_forgery_is_not_moved_by_a_swap_and_may_name_a_jailed_visitor() -> None:
    g = game(TRICK, leaderEnabled=False)
    night(g, {**QUIET, "trickster_forge": (8, 9), "jailer_jail": 8, "bus_driver_swap": (8, 9), "watcher_watch": 9})
    # The watcher aimed at 9 watched 8 (the swap), visited by the jailer and the driver; the
    # forged visit went to 9, not moved.
    assert last(g, "watched") == {"night": 1, "target": 9, "visitors": [5, 6]}
    g = game(TRICK, leaderEnabled=False)
    night(g, {**QUIET, "trickster_forge": (8, 9), "jailer_jail": 8, "bus_driver_swap": (6, 7), "watcher_watch": 9})
    assert last(g, "watched")["visitors"] == [8]


def test_a_blocked_trickster_forges_nothing() -> None:
    g = game(TRICK, leaderEnabled=False)
    night(g, {**QUIET, "trickster_forge": (8, 9), "jailer_jail": 0, "watcher_watch": 9, "bus_driver_swap": (6, 7)})
    assert last(g, "watched")["visitors"] == []


def test_the_forgery_takes_two_distinct_living_players() -> None:
    g = game(TRICK, leaderEnabled=False)
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert d.count == 2 and 0 in d.options and "none" not in d.options
    with pytest.raises(IllegalAction) as err:
        answer(g, 0, (8, 8))
    assert err.value.code is ErrorCode.TARGET_INVALID
    assert g.default_answer(d) == (0, 1)  # its own visit to the next seat


# -- shadow ---------------------------------------------------------------------------------------

SHADOW = "shadow seer doctor werewolf werewolf serial_killer witch vigilante watcher jailer villager villager"
# seats: 0 shadow, 1 seer, 2 doctor, 3 and 4 wolves, 5 serial killer, 6 witch, 7 vigilante, 8 watcher,
# 9 jailer, 10 and 11 villagers
S_QUIET = {**QUIET, "serial_kill": "none"}


def test_the_shadow_copies_a_check_and_is_told_its_result() -> None:
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 1, "seer_check": 3})
    assert results(g, "seer_result") == [
        ({"night": 1, "target": 3, "team": "werewolf"}, {1}),
        ({"night": 1, "target": 3, "team": "werewolf"}, {0}),
    ]


def test_a_copied_protection_stops_a_second_kill() -> None:
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "wolf_vote": 10, "serial_kill": 10, "doctor_protect": 10})
    assert dead(g) == {10}  # example 6: one block, two kills
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 2, "wolf_vote": 10, "serial_kill": 10, "doctor_protect": 10})
    assert dead(g) == set()


def test_a_copied_heal_and_a_copied_kill_spend_nothing() -> None:
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 6, "wolf_vote": 10, "serial_kill": 10, "witch_save": "save"})
    assert dead(g) == set() and g.state[6]["save"] is False
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 7, "vigilante_shoot": 10})
    assert dead(g) == {10} and g.state[7]["shots"] == 0
    kills = [k for k in g.plan.kills]
    assert sorted((k.actor, k.target, k.cause) for k in kills) == [(0, 10, "vigilante"), (7, 10, "vigilante")]


def test_the_shadow_visits_its_target_and_where_it_copies() -> None:
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 2, "doctor_protect": 10, "watcher_watch": 10})
    assert last(g, "watched")["visitors"] == [0, 2]
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 2, "doctor_protect": 10, "watcher_watch": 2})
    assert last(g, "watched")["visitors"] == [0]


def test_nothing_is_copied_from_a_wolfs_vote_a_blocked_player_or_by_a_blocked_shadow() -> None:
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 3, "wolf_vote": 10})
    assert [k.actor for k in g.plan.kills] == [3]
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 1, "seer_check": 3, "jailer_jail": 1})
    assert events(g, "seer_result") == []
    g = game(SHADOW, leaderEnabled=False)
    night(g, {**S_QUIET, "shadow_follow": 1, "seer_check": 3, "jailer_jail": 0})
    assert [e.audience for e in events(g, "seer_result")] == [{1}]


def test_a_swap_moves_whom_the_shadow_follows() -> None:
    g = game(BUS.replace("villager villager", "shadow villager"), leaderEnabled=False)
    # seats as BUS, 10 is the shadow
    night(g, {**QUIET, "bus_driver_swap": (1, 11), "shadow_follow": 11, "seer_check": 3})
    assert [e.audience for e in events(g, "seer_result")] == [{1}, {10}]


def test_the_shadow_follows_another_living_player() -> None:
    g = game(SHADOW, leaderEnabled=False)
    with pytest.raises(IllegalAction) as err:
        answer(g, 0, 0)
    assert err.value.code is ErrorCode.CANNOT_SELF_TARGET


# -- all three: the night as a set, and secrets -------------------------------------------------

ALL3 = "bus_driver trickster shadow seer doctor werewolf werewolf watcher tracker villager villager villager"
# seats: 0 bus driver, 1 trickster, 2 shadow, 3 seer, 4 doctor, 5 and 6 wolves, 7 watcher, 8 tracker, 9-11


def test_a_night_does_not_depend_on_the_order_of_its_answers() -> None:
    plan = {0: (9, 10), 1: (11, 3), 2: 4, 3: 9, 4: 10, 5: 9, 6: 9, 7: 10, 8: 11}
    start = game(ALL3, leaderEnabled=False)
    outcomes = []
    for order in (sorted(plan), sorted(plan, reverse=True), [2, 0, 7, 5, 1, 8, 3, 6, 4]):
        g = pickle.loads(pickle.dumps(start))
        for seat in order:
            answer(g, seat, plan[seat])
        assert g.phase != "night"
        outcomes.append((dead(g), sorted(repr((e.kind, e.data, e.audience)) for e in g.events)))
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert outcomes[0][0] == {10}  # the kill aimed at 9 landed on 10; the protections on 10 landed on 9


def test_the_new_requests_go_by_dm_and_nothing_of_them_reaches_the_channel() -> None:
    nicks = [f"p{i}" for i in range(12)]
    hub = LocalHub(TimeoutConfig(), messages=False)  # every line through send
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    said: list[tuple[str, str]] = []
    send = hub.referee.send

    def spy(target: str, text: str) -> None:
        said.append((target, text))
        send(target, text)

    hub.referee.send = spy
    options = WerewolfOptions(
        enabledRoles="villager,werewolf,seer,tracker,watcher,bus_driver,trickster,shadow",
        roleCounts="werewolf:2,seer:1,tracker:1,watcher:1,bus_driver:1,trickster:1,shadow:1",
    )
    hub.play("werewolf", nicks, options, 3)
    kinds = {"bus_driver_swap": "bus_driver", "trickster_forge": "trickster", "shadow_follow": "shadow"}
    asks = [(target, parse(text)) for target, text in said if text.startswith(ASK)]
    end = parse(next(text for _, text in said if text.startswith("END")))
    holder = {role: nick for nick, role in (item.split(":") for item in end.fields["roles"].split(","))}
    mine = [(target, m.args[2]) for target, m in asks if m.args[2] in kinds]
    assert {kind for _, kind in mine} == set(kinds)
    assert all(target == holder[kinds[kind]] for target, kind in mine)
    assert not any(kind in text for target, text in said if target.startswith("#") for kind in kinds)


def test_an_answer_of_a_step_before_a_block_stands_whenever_it_comes() -> None:
    """A Cupid who answers after the roleblock on them has settled has still linked the
    lovers (4.2: the link comes first), as one who answered before."""
    for cupid_first in (True, False):
        g = game("cupid roleblocker werewolf werewolf villager villager villager villager", leaderEnabled=False)
        if cupid_first:
            answer(g, 0, (4, 5))
        answer(g, 1, 0)
        if not cupid_first:
            answer(g, 0, (4, 5))
        night(g, QUIET)
        assert g.links == {4: 5, 5: 4} and last(g, "blocked") == {"night": 1}


def test_a_swap_moves_a_silence_and_the_public_line_names_who_is_silenced() -> None:
    g = game("bus_driver silencer werewolf priest villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "bus_driver_swap": (4, 5), "silencer_silence": 4, "priest_cleanse": "none"})
    assert last(g, "silenced") == {"day": 1, "players": [5]}


def test_a_shadow_following_a_bodyguard_guards_as_its_own_and_takes_the_kill_first() -> None:
    g = game("shadow bodyguard werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "shadow_follow": 1, "bodyguard_protect": 5, "wolf_vote": 5})
    assert dead(g) == {0}  # the lowest seat among the guards intercepts (10.4.4)


def test_a_shadow_copying_a_charm_learns_who_is_charmed() -> None:
    g = game("shadow piper werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "shadow_follow": 1, "piper_charm": 5})
    assert [e.audience for e in events(g, "charmed")] == [{1, 5}, {0, 5}]


def test_the_werewolf_leaders_victim_is_moved_like_the_packs() -> None:
    g = game(
        "bus_driver werewolf_leader werewolf villager villager villager villager villager villager", leaderEnabled=False
    )
    night(g, {**QUIET, "bus_driver_swap": (6, 7), "werewolf_leader_kill": 6})
    assert dead(g) == {7} and last(g, "wolf_votes")["target"] == 6


def test_a_shadow_following_a_decoy_draws_the_kill_onto_itself() -> None:
    g = game("shadow decoy werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "shadow_follow": 1, "decoy_draw": 5, "wolf_vote": 5})
    assert dead(g) == {0}  # the lowest seat among the lures draws the kill
    assert "lure" not in g.state[0] and g.state[1]["lure"] is False  # the copy spent nothing of the shadow's


def test_a_shadow_following_a_warder_charms_the_same_player_and_keeps_no_charm_of_its_own() -> None:
    g = game("shadow warder werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "shadow_follow": 1, "warder_ward": 5, "wolf_vote": 5})
    assert dead(g) == set() and g.state[1]["charm"] == 5 and "charm" not in g.state[0]
