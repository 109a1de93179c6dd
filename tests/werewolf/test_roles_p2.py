"""P2 and P3 roles: guardian angel, roleblocker (blocks), serial killer; and the shared
mechanics they stand on (blocks, visits, statuses)."""

from __future__ import annotations

import pickle
from collections import Counter
from typing import Any

import pytest

from arena.core.errors import ErrorCode, IllegalAction
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.mechanics import statuses
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.mechanics.visits import visited_by, visitors_of

from .helpers import dead, events, game, last, night, private_to, step, until_kind
from . import test_roles
from .test_roles import execute

QUIET = {
    **test_roles.QUIET,
    "guardian_angel_protect": "none",
    "roleblock": "none",
    "serial_kill": "none",
    "witch_save": "none",
    "witch_poison": "none",
    "bodyguard_protect": "none",
}


def answer(g: WerewolfGame, seat: int, value: Any) -> None:
    (d,) = [d for d in g.pending() if d.seat == seat]
    g.apply(seat, d.kind, value)


# -- guardian angel ------------------------------------------------------------------------

GA_DEAL = "guardian_angel werewolf werewolf villager villager villager villager villager"


def test_guardian_angel_saves_another_player_from_the_wolves() -> None:
    g = game(GA_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "guardian_angel_protect": 3, "wolf_vote": 3})
    assert dead(g) == set()


def test_guardian_angel_never_protects_itself_nor_the_same_player_twice_running() -> None:
    g = game(GA_DEAL, leaderEnabled=False)
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert 0 not in d.options
    with pytest.raises(IllegalAction) as err:
        g.apply(0, "guardian_angel_protect", 0)
    assert err.value.code is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "guardian_angel_protect": 3})
    step(g, QUIET, stop=until_kind("guardian_angel_protect"))
    with pytest.raises(IllegalAction) as err:
        g.apply(0, "guardian_angel_protect", 3)
    assert err.value.code is ErrorCode.REPEATED_PROTECT


def test_guardian_angel_does_not_stop_poison_unless_protect_against_poison() -> None:
    deal = "guardian_angel werewolf werewolf witch villager villager villager villager"
    for stops in (False, True):
        g = game(deal, leaderEnabled=False, protectAgainstPoison=stops)
        night(g, {**QUIET, "guardian_angel_protect": 4, "witch_poison": 4})
        assert dead(g) == (set() if stops else {4})


# -- roleblocker -----------------------------------------------------------------------------

RB_DEAL = "roleblocker werewolf werewolf seer doctor witch villager villager villager"
# seats: 0 roleblocker, 1 and 2 wolves, 3 seer, 4 doctor, 5 witch, 6-8 villagers


def test_a_blocked_seer_learns_nothing_whoever_answered_first() -> None:
    for first_blocker in (True, False):
        g = game(RB_DEAL, leaderEnabled=False)
        order = [(0, 3), (3, 1)] if first_blocker else [(3, 1), (0, 3)]
        for seat, value in order:
            answer(g, seat, value)
        night(g, QUIET)
        assert events(g, "seer_result") == [] and [e.audience for e in events(g, "blocked")] == [{3}]


def test_the_seer_waits_for_the_block_then_learns() -> None:
    g = game(RB_DEAL, leaderEnabled=False)
    answer(g, 3, 1)
    assert events(g, "seer_result") == []  # the roleblocker has not chosen yet
    answer(g, 0, 4)
    assert last(g, "seer_result") == {"night": 1, "target": 1, "team": "werewolf"}


def test_a_blocked_doctor_saves_nobody() -> None:
    g = game(RB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 4, "doctor_protect": 7, "wolf_vote": 7})
    assert dead(g) == {7}


def test_a_blocked_wolf_vote_does_not_count() -> None:
    g = game(RB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 1, ("wolf_vote", 1): 6, ("wolf_vote", 2): 7})
    assert last(g, "wolf_votes") == {"night": 1, "votes": [[2, 7]], "target": 7}
    assert dead(g) == {7}


def test_a_block_holds_one_night_and_removes_no_status() -> None:
    g = game("roleblocker piper werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "roleblock": "none", "piper_charm": 4})
    assert statuses.has(g, "charmed", 4)
    step(g, QUIET, stop=until_kind("roleblock"))
    answer(g, 0, 4)  # a block on a charmed player
    night(g, {**QUIET, "piper_charm": 5})
    assert statuses.holders(g, "charmed") == [4, 5]
    step(g, QUIET, stop=until_kind("piper_charm"))
    assert g.plan.blocked == {}  # a new night: last night's block is over


def test_a_roleblocked_cupid_has_already_linked() -> None:
    g = game("roleblocker cupid werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 1, "cupid_link": (4, 5)})
    assert g.links == {4: 5, 5: 4}  # Cupid (step 1) acts before the roleblocker (step 4)


def test_a_living_roleblocker_wins_with_the_winning_side() -> None:
    g = game("roleblocker werewolf villager villager villager villager", leaderEnabled=False)
    night(g, QUIET)
    execute(g, 1)
    step(g, QUIET, stop=lambda x: x.result is not None)  # after the wolf's last words
    assert g.result is not None
    assert g.result.reason == "all_wolves_eliminated" and g.result.winners == {0, 2, 3, 4, 5}
    assert last(g, "end")["winners"] == [0, 2, 3, 4, 5]


def test_visits_are_recorded_for_the_unblocked_only() -> None:
    g = game(RB_DEAL, leaderEnabled=False)
    for seat, value in [(0, 4), (4, 6), (3, 6), (1, 6), (2, 7)]:
        answer(g, seat, value)
    assert visitors_of(g, 6) == [3] and visited_by(g, 0) == [4]
    assert visited_by(g, 1) == []  # the pack had no target (a tie): no kill, no visit


# -- serial killer ---------------------------------------------------------------------------

SK_DEAL = "serial_killer werewolf werewolf doctor bodyguard villager villager villager"


def test_serial_killer_kills_every_night_without_limit() -> None:
    g = game(SK_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "serial_kill": 5})
    assert dead(g) == {5}
    step(g, QUIET, stop=until_kind("serial_kill"))
    night(g, {**QUIET, "serial_kill": 6})
    assert dead(g) == {5, 6}


def test_serial_killers_kill_is_blocked_and_intercepted_like_the_wolves() -> None:
    g = game(SK_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "serial_kill": 5, "doctor_protect": 5})
    assert dead(g) == set()
    g = game(SK_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "serial_kill": 5, "bodyguard_protect": 5})
    assert dead(g) == {4}


def test_no_team_wins_while_the_serial_killer_lives() -> None:
    # Both wolves executed or killed: the village has not won while the serial killer lives.
    g = game("serial_killer werewolf villager villager villager villager", leaderEnabled=False)
    night(g, QUIET)
    execute(g, 1)
    step(g, QUIET, stop=until_kind("serial_kill"))
    assert g.result is None
    night(g, {**QUIET, "serial_kill": 2})
    execute(g, 0)
    step(g, QUIET, stop=lambda x: x.result is not None)
    assert g.result is not None
    assert g.result.reason == "all_wolves_eliminated"


def test_serial_killer_wins_alone_with_one_other_left() -> None:
    g = game("serial_killer werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "serial_kill": 2, "wolf_vote": 3})
    execute(g, 4)
    step(g, QUIET, stop=until_kind("serial_kill"))
    assert g.result is None  # serial killer, wolf, villager 5: three alive
    night(g, {**QUIET, "serial_kill": 5, "wolf_vote": 5})
    assert g.result is not None
    assert (g.result.winner, g.result.reason, g.result.winners) == ("serial_killer", "serial_killer_survived", {0})


def test_a_roleblocked_serial_killer_kills_nobody() -> None:
    g = game("serial_killer roleblocker werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "roleblock": 0, "serial_kill": 5})
    assert dead(g) == set()


# -- statuses --------------------------------------------------------------------------------


def test_statuses_expire_after_their_last_day_and_can_be_removed() -> None:
    g = game(SK_DEAL, leaderEnabled=False)
    statuses.add(g, "silenced", 5, until=1)
    statuses.add(g, "charmed", 6)
    night(g, QUIET)
    assert statuses.has(g, "silenced", 5)  # through day 1
    step(g, QUIET, stop=until_kind("serial_kill"))
    assert not statuses.has(g, "silenced", 5) and statuses.has(g, "charmed", 6)
    assert statuses.remove(g, 6, ["silenced", "charmed"]) == ["charmed"]
    assert statuses.holders(g, "charmed") == []
    pickle.loads(pickle.dumps(g))  # statuses are plain data


# -- jailer ----------------------------------------------------------------------------------

JAIL_DEAL = "jailer roleblocker werewolf werewolf seer villager villager villager villager"
# seats: 0 jailer, 1 roleblocker, 2 and 3 wolves, 4 seer, 5-8 villagers


def test_the_prisoner_is_protected_from_one_kill_and_blocked() -> None:
    g = game(JAIL_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 4, "wolf_vote": 4, "seer_check": 2})
    assert dead(g) == set() and events(g, "seer_result") == []
    assert [e.audience for e in events(g, "blocked")] == [{4}]


def test_the_jail_comes_before_the_roleblock() -> None:
    g = game(JAIL_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 1, "roleblock": 4, "seer_check": 2})
    assert last(g, "seer_result")["target"] == 2  # the jailed roleblocker blocked nobody
    assert [e.audience for e in events(g, "blocked")] == [{1}]


def test_a_roleblocked_jailer_has_jailed_already() -> None:
    g = game(JAIL_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 5, "roleblock": 0, "wolf_vote": 5})
    assert dead(g) == set()  # step 3 settled before the block of step 4


def test_the_jailer_neither_jails_themself_nor_the_same_player_twice_running() -> None:
    g = game(JAIL_DEAL, leaderEnabled=False)
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert 0 not in d.options
    night(g, {**QUIET, "jailer_jail": 5})
    step(g, QUIET, stop=until_kind("jailer_jail"))
    with pytest.raises(IllegalAction) as err:
        g.apply(0, "jailer_jail", 5)
    assert err.value.code is ErrorCode.REPEATED_PROTECT


# -- detective, tracker, watcher, mason ------------------------------------------------------

INFO_DEAL = "detective tracker watcher werewolf werewolf doctor piper mason mason villager"
# seats: 0 detective, 1 tracker, 2 watcher, 3 and 4 wolves, 5 doctor, 6 piper, 7 and 8 masons, 9 villager


def test_the_detective_compares_sides_as_the_seer_sees_them() -> None:
    g = game(INFO_DEAL, leaderEnabled=False)
    answer(g, 0, (3, 4))
    assert last(g, "detective_result") == {"night": 1, "players": [3, 4], "same": True}
    g = game(INFO_DEAL, leaderEnabled=False)
    answer(g, 0, (6, 9))  # the neutral piper looks like the village
    assert last(g, "detective_result")["same"] is True
    g = game(INFO_DEAL, leaderEnabled=False)
    answer(g, 0, (3, 9))
    assert last(g, "detective_result")["same"] is False


def test_tracker_and_watcher_learn_the_nights_visits_at_dawn_before_the_deaths() -> None:
    g = game(INFO_DEAL, leaderEnabled=False)
    night(
        g,
        {
            **QUIET,
            "tracker_track": 3,
            "watcher_watch": 9,
            ("wolf_vote", 3): 9,
            ("wolf_vote", 4): 9,
            "doctor_protect": 9,
            "piper_charm": 1,
            "detective_compare": (1, 2),
        },
    )
    kinds = [e.kind for e in g.events]
    assert kinds.index("tracked") < kinds.index("dawn") and kinds.index("watched") < kinds.index("dawn")
    assert last(g, "tracked") == {"night": 1, "target": 3, "visited": [9]}
    assert last(g, "watched") == {"night": 1, "target": 9, "visitors": [3, 4, 5]}
    assert events(g, "tracked")[-1].audience == {1} and events(g, "watched")[-1].audience == {2}


def test_a_visit_counts_only_from_the_unblocked_and_a_lone_vote_visits_nobody() -> None:
    g = game("roleblocker watcher werewolf werewolf doctor villager villager villager villager", leaderEnabled=False)
    night(
        g, {**QUIET, "roleblock": 4, "doctor_protect": 8, "watcher_watch": 8, ("wolf_vote", 2): 8, ("wolf_vote", 3): 7}
    )
    assert last(g, "watched")["visitors"] == []  # the doctor was blocked; the wolves tied


def test_masons_know_each_other_from_the_start() -> None:
    g = game(INFO_DEAL, leaderEnabled=False)
    (e,) = events(g, "masons")
    assert e.data == {"masons": [7, 8]} and e.audience == {7, 8}


def test_the_oracles_last_mark_is_revealed_when_it_dies() -> None:
    g = game("oracle werewolf werewolf villager villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "oracle_mark": 1})
    assert events(g, "oracle_reveal") == []
    step(g, QUIET, stop=until_kind("oracle_mark"))
    night(g, {**QUIET, "oracle_mark": 3, "wolf_vote": 0})  # the mark of the night it dies counts
    (e,) = events(g, "oracle_reveal")
    assert e.public and e.data == {"target": 3, "role": "villager"}
    kinds = [x.kind for x in g.events]
    assert kinds[kinds.index("oracle_reveal") + 1] == "dawn"


# -- bomb --------------------------------------------------------------------------------------

BOMB_DEAL = "bomb werewolf werewolf vigilante doctor villager villager villager villager"


def test_the_bomb_takes_the_wolf_who_killed_it_along() -> None:
    g = game(BOMB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, ("wolf_vote", 1): 5, ("wolf_vote", 2): 0, "vigilante_shoot": "none"})
    assert dead(g) == set()  # a tie: no kill
    g = game(BOMB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 0})
    assert dead(g) == {0, 1}  # the first wolf by seat who voted for it carried out the kill
    assert last(g, "dawn")["dead"] == [0, 1]


def test_the_bomb_takes_the_vigilante_along_unless_the_kill_is_stopped() -> None:
    g = game(BOMB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "vigilante_shoot": 0})
    assert dead(g) == {0, 3}
    g = game(BOMB_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "vigilante_shoot": 0, "doctor_protect": 0})
    assert dead(g) == set()


def test_an_executed_bomb_takes_nobody_along() -> None:
    g = game(BOMB_DEAL, leaderEnabled=False)
    night(g, QUIET)
    execute(g, 0)
    assert dead(g) == {0}


# -- little girl -----------------------------------------------------------------------------

GIRL_DEAL = "little_girl werewolf werewolf doctor villager villager villager villager"


def test_a_peek_tells_the_wolves_target_and_a_caught_girl_is_attacked() -> None:
    g = game(GIRL_DEAL, leaderEnabled=False, littleGirlCaughtPercent=0)
    night(g, {**QUIET, "little_girl_peek": "peek", "wolf_vote": 5})
    assert [(e.data, e.audience) for e in events(g, "wolf_target") if private_to(e, 0)] == [
        ({"night": 1, "target": 5}, {0})
    ]
    assert dead(g) == {5} and events(g, "caught") == []
    g = game(GIRL_DEAL, leaderEnabled=False, littleGirlCaughtPercent=100)
    night(g, {**QUIET, "little_girl_peek": "peek", "wolf_vote": 5})
    (e,) = events(g, "caught")
    assert e.audience == {1, 2} and e.data == {"night": 1, "player": 0}
    assert dead(g) == {0, 5}


def test_a_caught_girl_can_be_saved_and_not_peeking_is_safe() -> None:
    g = game(GIRL_DEAL, leaderEnabled=False, littleGirlCaughtPercent=100)
    night(g, {**QUIET, "little_girl_peek": "peek", "wolf_vote": 5, "doctor_protect": 0})
    assert dead(g) == {5}
    g = game(GIRL_DEAL, leaderEnabled=False, littleGirlCaughtPercent=100)
    night(g, {**QUIET, "little_girl_peek": "none", "wolf_vote": 5})
    assert dead(g) == {5} and not [e for e in events(g, "wolf_target") if private_to(e, 0)]


# -- thief -----------------------------------------------------------------------------------

THIEF_DEAL = "thief werewolf werewolf seer villager villager villager villager"


def test_the_thief_sees_two_extra_cards_and_becomes_the_one_taken() -> None:
    g = game(THIEF_DEAL, extra="witch werewolf", leaderEnabled=False)
    (e,) = events(g, "thief_cards")
    assert e.audience == {0} and e.data == {"cards": ["witch", "werewolf"]}
    assert last(g, "setup")["roles"] == {"seer": 1, "thief": 1, "villager": 4, "werewolf": 3, "witch": 1}
    answer(g, 0, "card2")
    assert g.roles[0] == "werewolf" and g.extra == ["witch", "thief"]
    assert last(g, "role") == {"seat": 0, "role": "werewolf", "team": "werewolf"}
    assert last(g, "wolves") == {"wolves": [0, 1, 2]}
    assert any(d.seat == 0 and d.kind == "wolf_vote" for d in g.pending())  # votes with the pack tonight
    night(g, {**QUIET, "wolf_vote": 5})
    assert dead(g) == {5} and last(g, "wolf_votes")["votes"] == [[0, 5], [1, 5], [2, 5]]


def test_a_thief_who_takes_nothing_is_a_villager_and_two_wolf_cards_force_a_choice() -> None:
    g = game(THIEF_DEAL, extra="witch seer", leaderEnabled=False)
    answer(g, 0, "none")
    assert g.roles[0] == "villager" and g.extra == ["witch", "seer"]
    g = game(
        "thief werewolf seer villager villager villager villager villager",
        extra="werewolf werewolf",
        leaderEnabled=False,
    )
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert d.options == ("card1", "card2")


def test_nothing_after_the_steal_settles_before_the_thief_chose() -> None:
    g = game(THIEF_DEAL, extra="witch seer", leaderEnabled=False)
    answer(g, 3, 1)
    assert events(g, "seer_result") == []
    answer(g, 0, "card2")  # the thief becomes a second seer, asked tonight: step 5 waits for them
    assert events(g, "seer_result") == []
    answer(g, 0, 2)
    assert [(e.audience, e.data["target"]) for e in events(g, "seer_result")] == [({0}, 2), ({3}, 1)]


def test_a_thief_who_takes_a_mason_card_is_told_the_masons_with_the_other() -> None:
    """Regression: the thief became a mason and was told its role only, and the mason
    dealt believed itself alone."""
    g = game(
        "thief werewolf werewolf seer mason villager villager villager", extra="mason villager", leaderEnabled=False
    )
    assert [(e.audience, e.data) for e in events(g, "masons")] == [({4}, {"masons": [4]})]
    answer(g, 0, "card1")
    assert g.roles[0] == "mason"
    assert [(e.audience, e.data) for e in events(g, "masons")][-1] == ({0, 4}, {"masons": [0, 4]})


def test_the_thief_card_is_never_one_of_the_two_extra_cards() -> None:
    """Regression: the deal shuffled the thief's card among the two left over (54 of 441
    chaos decks at 12 seats): no thief played, and its cards went to nobody. The thief is
    always dealt, to every seat alike."""
    options = WerewolfOptions(enabledRoles="villager,werewolf,seer,thief", roleCounts="werewolf:3,seer:1,thief:1")
    seats: Counter[int] = Counter()
    for seed in range(1200):
        g = WerewolfGame(12, options, seed)
        assert "thief" not in g.extra and g.roles.count("thief") == 1
        seats[g.roles.index("thief")] += 1
    assert len(seats) == 12 and min(seats.values()) > 50 and max(seats.values()) < 150, seats  # 100 each expected
    chaos = WerewolfOptions(preset="chaos")
    decks = 0
    for seed in range(3000):
        g = WerewolfGame(12, chaos, seed)
        if "thief" in g.roles + g.extra:
            decks += 1
            assert "thief" not in g.extra, seed
    assert decks > 100


def test_a_thief_needs_two_wolves_in_the_deck() -> None:
    from arena.core.errors import SetupError
    from arena.games.werewolf.options import WerewolfOptions

    with pytest.raises(SetupError):
        WerewolfOptions(enabledRoles="villager,werewolf,thief", roleCounts="werewolf:1,thief:1").deal(8)
    assert len(WerewolfOptions(enabledRoles="villager,werewolf,thief", roleCounts="werewolf:2,thief:1").deal(8)) == 10


def test_with_every_wolf_blocked_nobody_catches_the_little_girl() -> None:
    g = game(
        "little_girl roleblocker werewolf villager villager villager villager villager",
        leaderEnabled=False,
        littleGirlCaughtPercent=100,
    )
    night(g, {**QUIET, "roleblock": 2, "little_girl_peek": "peek"})
    assert events(g, "caught") == [] and dead(g) == set()


def test_the_little_girl_sees_the_target_whoever_answered_first() -> None:
    g = game(GIRL_DEAL, leaderEnabled=False, littleGirlCaughtPercent=0)
    answer(g, 0, "peek")  # before the wolves: her step waits for theirs
    assert not [e for e in events(g, "wolf_target") if private_to(e, 0)]
    answer(g, 1, 6)
    answer(g, 2, 6)
    answer(g, 3, "none")  # the doctor: every step before hers has settled now
    assert [e.data for e in events(g, "wolf_target") if private_to(e, 0)] == [{"night": 1, "target": 6}]


def test_a_thief_who_takes_the_jail_jails_before_any_later_step_settles() -> None:
    g = game(
        "thief werewolf werewolf seer villager villager villager villager", extra="jailer villager", leaderEnabled=False
    )
    answer(g, 3, 1)  # the seer answers first
    answer(g, 0, "card1")  # the thief becomes the jailer: step 5 waits for the jail
    assert events(g, "seer_result") == []
    answer(g, 0, 3)
    assert events(g, "seer_result") == [] and [e.audience for e in events(g, "blocked")] == [{3}]
