"""P3 neutral factions: the arsonist (oil and fire), the exile (absence), the dealer (a
seeded deck of boons and banes) and the cult leader (a change of side); their wins and
the order in which the end-of-game rule asks them."""

from __future__ import annotations

import pickle
from typing import Any

import pytest

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode, IllegalAction
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.lines import WerewolfLines
from arena.games.werewolf.mechanics import statuses
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles.dealer import DECK
from arena.games.werewolf.wins import winner
from arena.protocol import END, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot

from .helpers import ALL_ROLES, dead, events, game, last, night, step, until_kind
from .test_roles import execute
from . import test_roles_p3
from .test_roles_p2 import answer

QUIET = {
    **test_roles_p3.QUIET,
    "arsonist": "none",
    "exile_banish": "none",
    "dealer_deal": "none",
    "cult_recruit": "none",
    "jailer_jail": "none",
    "tracker_track": "none",
    "watcher_watch": "none",
    "detective_compare": lambda d: d.options[:2],
}


def next_night(g: WerewolfGame, kind: str) -> None:
    """Play the day with nobody executed, up to the first ``kind`` request of the night."""
    step(g, QUIET, stop=until_kind(kind))


def lynch(g: WerewolfGame, target: int) -> None:
    """Execute ``target`` today and play on to the night (or the end): the win check
    follows the executed's last words."""
    execute(g, target)
    step(g, QUIET, stop=lambda x: x.phase == "night")


def refused(g: WerewolfGame, seat: int, kind: str, value: Any) -> ErrorCode:
    with pytest.raises(IllegalAction) as err:
        g.apply(seat, kind, value)
    return err.value.code


# -- arsonist ------------------------------------------------------------------------------

ARSON = "arsonist werewolf werewolf doctor bodyguard witch priest villager villager"
# seats: 0 arsonist, 1-2 wolves, 3 doctor, 4 bodyguard, 5 witch, 6 priest, 7-8 villagers


def test_oil_accumulates_and_one_fire_burns_every_doused_player() -> None:
    g = game(ARSON, leaderEnabled=False)
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert "ignite" not in d.options and 0 not in d.options
    assert refused(g, 0, "arsonist", "ignite") is ErrorCode.TARGET_INVALID
    assert refused(g, 0, "arsonist", 0) is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "arsonist": 7})
    assert statuses.has(g, statuses.OILED, 7) and dead(g) == set()
    next_night(g, "arsonist")
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert 7 not in d.options and d.options[-2:] == ("ignite", "none")
    assert refused(g, 0, "arsonist", 7) is ErrorCode.TARGET_INVALID
    night(g, {**QUIET, "arsonist": 8})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite"})
    assert dead(g) == {7, 8} and last(g, "dawn")["dead"] == [7, 8]
    assert events(g, "blocked") == [] and not [v for v in g.plan.visits if v.visitor == 0]


def test_no_protection_stops_the_fire_and_no_bodyguard_takes_it() -> None:
    g = game(ARSON, leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 7})
    next_night(g, "arsonist")
    night(
        g,
        {
            **QUIET,
            "arsonist": "ignite",
            "doctor_protect": 7,
            "bodyguard_protect": 7,
            "wolf_vote": 7,
            "witch_save": "save",
            "witch_poison": "none",
        },
    )
    assert dead(g) == {7}  # the wolves' kill on 7 is stopped, the fire is not; the bodyguard lives


def test_with_protect_against_fire_a_protection_stops_one_fire_death_but_no_bodyguard_takes_it() -> None:
    g = game(ARSON, leaderEnabled=False, protectAgainstFire=True)
    night(g, {**QUIET, "arsonist": 7})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": 8})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite", "doctor_protect": 7, "bodyguard_protect": 8})
    assert dead(g) == {8}


def test_rules_show_protect_against_fire_only_with_an_arsonist_dealt() -> None:
    for deal, shown in ((ARSON, True), ("werewolf werewolf seer villager villager villager", False)):
        g = game(deal)
        (setup,) = events(g, "setup")
        message = WerewolfLines().event_message(setup, "g1", [f"p{i}" for i in range(g.players)])
        assert isinstance(message, list)
        _, rules = message
        assert any(o.startswith("protectAgainstFire:") for o in rules.list("options")) is shown


def test_a_priest_washes_the_oil_off_the_same_night_and_the_fire_spares_the_cleansed() -> None:
    g = game(ARSON, leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 7, "priest_cleanse": 7})
    assert not statuses.has(g, statuses.OILED, 7)
    assert last(g, "cleansed") == {"night": 1, "statuses": ["oiled"]}
    next_night(g, "arsonist")
    (d,) = [d for d in g.pending() if d.seat == 0]
    assert "ignite" not in d.options and 7 in d.options


def test_a_blocked_arsonist_burns_nobody_and_a_burnt_bomb_takes_it_along() -> None:
    g = game("arsonist roleblocker werewolf werewolf bomb villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 4})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite", "roleblock": 0})
    assert dead(g) == set() and statuses.has(g, statuses.OILED, 4)
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite"})
    assert dead(g) == {0, 4}


@pytest.mark.parametrize("protected", [False, True])
def test_a_warders_charm_stops_the_fire_only_with_protect_against_fire(protected: bool) -> None:
    """The charm stops one lethal event, a fire death too where protections stop fire
    (rules/werewolf.md: the warder, the arsonist); then it lifts. Otherwise the fire burns
    through it."""
    g = game(
        "arsonist werewolf werewolf warder villager villager villager villager villager",
        leaderEnabled=False,
        protectAgainstFire=protected,
    )
    night(g, {**QUIET, "arsonist": 5, "warder_ward": 5})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite", "warder_ward": "none"})
    assert dead(g) == (set() if protected else {5})
    if protected:
        assert not statuses.has(g, statuses.WARDED, 5)  # spent on the fire


def test_a_burnt_hunter_shoots() -> None:
    """``hunterShootOnPoison`` names the poison only: a hunter who dies in the fire shoots,
    as one killed by the wolves does."""
    g = game("arsonist werewolf werewolf hunter villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 3})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite"})
    assert dead(g) == {3}
    step(g, QUIET, stop=until_kind("hunter_shoot"))
    (d,) = g.pending()
    assert d.seat == 3 and 0 in d.options
    answer(g, 3, 0)
    assert dead(g) == {0, 3}


def test_a_burnt_avenger_kills_the_arsonist_the_next_night() -> None:
    """The arsonist is the attacker of every fire death it lights: a burnt avenger's
    killer (and a burnt bomb's, above)."""
    g = game("arsonist werewolf werewolf avenger villager villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 3})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite"})
    assert dead(g) == {3}
    next_night(g, "arsonist")
    night(g, QUIET)
    assert dead(g) == {0, 3} and last(g, "dawn")["dead"] == [0]


def test_the_arsonist_stops_the_teams_wins_and_wins_last_standing() -> None:
    g = game("arsonist werewolf seer villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 3})
    lynch(g, 1)  # the last wolf: the village has not won while the arsonist lives
    assert g.result is None
    step(g, QUIET, stop=until_kind("arsonist"))
    night(g, {**QUIET, "arsonist": 4})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite"})
    step(g, QUIET, stop=until_kind("arsonist"))
    night(g, {**QUIET, "arsonist": 5})
    lynch(g, 2)  # the arsonist and one other are left
    assert g.result is not None
    assert (g.result.winner, g.result.reason, g.result.winners) == ("arsonist", "arsonist_survived", {0})


# -- exile ---------------------------------------------------------------------------------

EXILE = "exile werewolf werewolf seer doctor tracker watcher jailer villager villager"
# seats: 0 exile, 1-2 wolves, 3 seer, 4 doctor, 5 tracker, 6 watcher, 7 jailer, 8-9 villagers


def test_a_banished_player_is_beyond_every_kill_and_cannot_act() -> None:
    g = game(EXILE, leaderEnabled=False)
    night(g, {**QUIET, "exile_banish": 3, "wolf_vote": 3, "seer_check": 1})
    assert dead(g) == set()
    assert [e.audience for e in events(g, "blocked")] == [{3}]
    assert events(g, "seer_result") == []


def test_nothing_reaches_the_absent_player_not_even_a_visit() -> None:
    g = game(EXILE, leaderEnabled=False)
    night(g, {**QUIET, "exile_banish": 8, "jailer_jail": 8, "doctor_protect": 8, "seer_check": 8, "tracker_track": 7})
    assert events(g, "seer_result") == [] and [e.audience for e in events(g, "blocked")] == [{8}]
    assert last(g, "tracked") == {"night": 1, "target": 7, "visited": []}  # the jail's visit is gone too
    assert not any(v.target == 8 for v in g.plan.visits)
    # A watcher's or a detective's look at the absent player fails whole: no report.
    g = game("exile werewolf werewolf detective watcher villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "exile_banish": 6, "detective_compare": (5, 6), "watcher_watch": 6})
    assert events(g, "detective_result") == [] and events(g, "watched") == []


def test_fire_passes_a_banished_player_by_who_stays_doused() -> None:
    g = game("exile arsonist werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "arsonist": 4})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": 5})
    next_night(g, "arsonist")
    night(g, {**QUIET, "arsonist": "ignite", "exile_banish": 4})
    assert dead(g) == {5} and statuses.has(g, statuses.OILED, 4)


def test_a_vote_for_a_banished_player_still_counts_and_the_kill_is_lost() -> None:
    g = game("exile werewolf werewolf werewolf seer villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "exile_banish": 5, ("wolf_vote", 1): 5, ("wolf_vote", 2): 5, ("wolf_vote", 3): 6})
    assert last(g, "wolf_votes")["target"] == 5 and dead(g) == set()


def test_a_swap_naming_the_banished_player_fails_whole() -> None:
    g = game("exile bus_driver werewolf werewolf seer doctor villager villager villager", leaderEnabled=False)
    night(
        g, {**QUIET, "exile_banish": 6, "bus_driver_swap": (6, 7), "seer_check": 7, "wolf_vote": 7, "doctor_protect": 8}
    )
    assert last(g, "seer_result") == {"night": 1, "target": 7, "team": "village"} and dead(g) == {7}
    assert not [v for v in g.plan.visits if v.visitor == 1]


def test_a_shadow_copies_a_douse_but_neither_the_fire_nor_a_recruitment() -> None:
    g = game("arsonist shadow cult_leader werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "shadow_follow": 0, "arsonist": 5})
    assert statuses.holders(g, statuses.OILED) == [5]
    next_night(g, "arsonist")
    night(g, {**QUIET, "shadow_follow": 0, "arsonist": "ignite"})
    assert dead(g) == {5} and g.plan.kills == [k for k in g.plan.kills if k.actor == 0]
    next_night(g, "cult_recruit")
    night(g, {**QUIET, "shadow_follow": 2, "cult_recruit": 6})
    (e,) = events(g, "cult")
    assert e.data["leader"] == 2 and e.audience == {2, 6}


def test_the_jailer_stops_the_exile_and_the_exile_stops_the_roleblocker() -> None:
    g = game(EXILE, leaderEnabled=False)
    night(g, {**QUIET, "jailer_jail": 0, "exile_banish": 1, "wolf_vote": 8})
    assert dead(g) == {8}  # the jailed exile banished nobody: the wolves' kill landed
    g = game("exile roleblocker werewolf werewolf seer villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "exile_banish": 1, "roleblock": 4, "seer_check": 2})
    assert last(g, "seer_result") == {"night": 1, "target": 2, "team": "werewolf"}
    assert [e.audience for e in events(g, "blocked")] == [{1}]


def test_the_exile_never_banishes_itself_and_wins_alive_with_the_winners() -> None:
    g = game("exile werewolf seer villager villager villager", leaderEnabled=False)
    assert refused(g, 0, "exile_banish", 0) is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "exile_banish": 2})
    lynch(g, 1)
    assert g.result is not None
    assert g.result.winner == "village" and 0 in g.result.winners


# -- dealer --------------------------------------------------------------------------------

DEALER = "dealer werewolf werewolf seer villager villager villager villager"
# seats: 0 dealer, 1-2 wolves, 3 seer, 4-7 villagers


def dealt(card: str) -> WerewolfGame:
    """A game in which the dealer's first card, dealt to the seer, is ``card``."""
    for seed in range(200):
        g = game(DEALER, seed=seed, leaderEnabled=False)
        probe = pickle.loads(pickle.dumps(g))
        answer(probe, 0, 3)
        if last(probe, "dealt")["card"] == card:
            return g
    raise AssertionError(f"no seed deals {card}")


def test_a_shield_stops_one_ordinary_kill() -> None:
    g = dealt("shield")
    night(g, {**QUIET, "dealer_deal": 3, "wolf_vote": 3})
    (e,) = events(g, "dealt")
    assert e.audience == {3} and e.data == {"night": 1, "card": "shield"}
    assert dead(g) == set()


def test_a_vision_shows_a_side_as_the_seer_would_see_it() -> None:
    g = dealt("vision")
    night(g, {**QUIET, "dealer_deal": 3})
    data = last(g, "dealt")
    assert data["player"] != 3 and data["side"] == g.role_of(data["player"]).seen_as()


def test_a_silence_takes_the_floor_the_next_day() -> None:
    g = dealt("silence")
    night(g, {**QUIET, "dealer_deal": 3})
    assert last(g, "silenced") == {"day": 1, "players": [3]}


def test_a_block_stops_the_players_night_actions() -> None:
    g = dealt("block")
    night(g, {**QUIET, "dealer_deal": 3, "seer_check": 1})
    assert [e.audience for e in events(g, "blocked")] == [{3}] and events(g, "seer_result") == []


def test_every_card_is_in_the_deck_and_a_blocked_dealer_deals_nothing() -> None:
    assert set(DECK) == {"shield", "vision", "silence", "block"}
    g = game("dealer jailer werewolf werewolf seer villager villager villager", leaderEnabled=False)
    assert refused(g, 0, "dealer_deal", 0) is ErrorCode.CANNOT_SELF_TARGET
    night(g, {**QUIET, "jailer_jail": 0, "dealer_deal": 4})
    assert events(g, "dealt") == []


def test_the_card_does_not_depend_on_the_order_answers_came_in() -> None:
    outcomes = []
    for first in (0, 3):
        g = game(DEALER, seed=7, leaderEnabled=False)
        answers = {0: 4, 3: 1}
        answer(g, first, answers[first])
        answer(g, 3 - first, answers[3 - first])
        night(g, QUIET)
        outcomes.append(([e.data for e in events(g, "dealt")], [e.data for e in events(g, "seer_result")], dead(g)))
    assert outcomes[0] == outcomes[1]


# -- cult leader ---------------------------------------------------------------------------

CULT = "cult_leader werewolf seer serial_killer villager villager villager villager"
# seats: 0 cult leader, 1 wolf, 2 seer, 3 serial killer, 4-7 villagers


def test_a_recruit_joins_and_every_member_learns_the_cult() -> None:
    g = game(CULT, leaderEnabled=False)
    night(g, {**QUIET, "cult_recruit": 4, "serial_kill": "none"})
    (e,) = events(g, "cult")
    assert e.audience == {0, 4} and e.data == {"night": 1, "leader": 0, "members": [0, 4], "new": 4}
    next_night(g, "cult_recruit")
    (d,) = [d for d in g.pending() if d.kind == "cult_recruit"]
    assert 4 not in d.options and 0 not in d.options
    assert refused(g, 0, "cult_recruit", 4) is ErrorCode.TARGET_INVALID
    night(g, {**QUIET, "cult_recruit": 2, "serial_kill": "none", "seer_check": 4})
    assert last(g, "cult")["members"] == [0, 2, 4] and events(g, "cult")[-1].audience == {0, 2, 4}
    assert last(g, "seer_result")["team"] == "village"  # a recruit looks as before


@pytest.mark.parametrize("target", [1, 3])
def test_wolves_and_killers_refuse_silently(target: int) -> None:
    g = game(CULT, leaderEnabled=False)
    night(g, {**QUIET, "cult_recruit": target, "serial_kill": "none"})
    assert events(g, "cult") == [] and not statuses.has(g, statuses.CULT, target)


def test_an_absent_or_blocked_recruitment_fails() -> None:
    g = game("cult_leader exile roleblocker werewolf werewolf villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "cult_recruit": 5, "exile_banish": 5})
    assert events(g, "cult") == []
    next_night(g, "cult_recruit")
    night(g, {**QUIET, "cult_recruit": 6, "roleblock": 0})
    assert events(g, "cult") == []


def test_the_cult_wins_when_everyone_alive_is_in_it_the_dead_members_too() -> None:
    g = game("cult_leader werewolf seer villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "cult_recruit": 3, "wolf_vote": 5})
    lynch(g, 1)  # the last wolf: no village win while the cult leader lives
    assert g.result is None
    step(g, QUIET, stop=until_kind("cult_recruit"))
    night(g, {**QUIET, "cult_recruit": 2, "seer_check": "none"})
    assert g.result is None
    lynch(g, 3)  # a member dies; the others are the cult
    step(g, QUIET, stop=until_kind("cult_recruit"))
    night(g, {**QUIET, "cult_recruit": 4})
    assert g.result is not None
    assert (g.result.winner, g.result.reason, g.result.winners) == ("cult", "cult_recruited_all", {0, 2, 3, 4})
    assert g.events[-1].data["cult"] == [2, 3, 4]


def test_while_the_cult_leader_lives_the_wolves_parity_is_no_win() -> None:
    g = game("cult_leader werewolf werewolf seer villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "wolf_vote": 4})
    lynch(g, 3)  # two wolves, two village players and the leader
    assert g.result is None
    night(g, {**QUIET, "wolf_vote": 0})
    assert g.result is not None and g.result.reason == "parity_or_majority"


def test_the_cult_dissolves_with_its_leader_and_its_members_win_with_their_side() -> None:
    g = game("cult_leader werewolf seer villager villager villager villager", leaderEnabled=False)
    night(g, {**QUIET, "cult_recruit": 3})
    lynch(g, 0)
    assert statuses.holders(g, statuses.CULT) == []
    step(g, QUIET, stop=until_kind("wolf_vote"))
    night(g, QUIET)
    lynch(g, 1)
    assert g.result is not None
    assert g.result.winner == "village" and 3 in g.result.winners and not g.events[-1].data.get("cult")


# -- the order of the wins -----------------------------------------------------------------


def test_wins_are_asked_in_their_documented_order() -> None:
    """The piper before the cult, the cult before the serial killer, the serial killer
    before the arsonist; hostile neutrals hold the teams' wins."""
    g = game("cult_leader piper serial_killer arsonist werewolf villager villager villager", leaderEnabled=False)

    def reason() -> str:
        result = winner(g)
        assert result is not None, "no win"
        return result.reason

    for seat in (4, 5, 6, 7):
        g.alive[seat] = False
    statuses.add(g, statuses.CHARMED, 0)
    statuses.add(g, statuses.CULT, 1)
    for seat in (2, 3):
        g.alive[seat] = False
    assert reason() == "piper_charmed_all"
    statuses.remove(g, 0, (statuses.CHARMED,))
    assert reason() == "cult_recruited_all"
    g.alive[0] = g.alive[1] = False
    g.alive[2] = g.alive[3] = True
    assert reason() == "serial_killer_survived"
    g.alive[2], g.alive[5] = False, True
    assert reason() == "arsonist_survived"
    g.alive[0] = True  # three alive, a hostile neutral among them: no win
    assert winner(g) is None


# -- the night as a set, the wire, the spectators ------------------------------------------


@pytest.mark.parametrize("cupid_first", [True, False])
def test_a_block_or_a_banishment_never_reaches_back_to_an_earlier_step(cupid_first: bool) -> None:
    """Cupid (step 1) jailed (3) and a lover banished (3.5): the link stands, however late
    Cupid answered (the jail and the banishment may settle first)."""
    g = game("cupid jailer exile werewolf werewolf villager villager villager villager", leaderEnabled=False)
    answers = [(0, (5, 6)), (1, 0), (2, 6)]
    for seat, value in answers if cupid_first else answers[::-1]:
        answer(g, seat, value)
    night(g, QUIET)
    assert g.links == {5: 6, 6: 5} and [e.audience for e in events(g, "blocked")] == [{0}, {6}]


ALL_FOUR = "exile dealer arsonist cult_leader werewolf werewolf seer doctor priest villager villager"
# seats: 0 exile, 1 dealer, 2 arsonist, 3 cult leader, 4-5 wolves, 6 seer, 7 doctor, 8 priest


@pytest.mark.parametrize("seed", range(6))
def test_a_night_of_all_four_does_not_depend_on_the_order_of_its_answers(seed: int) -> None:
    plan = {0: 6, 1: 7, 2: 9, 3: 10, 4: 7, 5: 7, 6: 3, 7: 7, 8: 9}
    outcomes = []
    for order in (sorted(plan), sorted(plan, reverse=True), [3, 8, 0, 5, 2, 7, 1, 6, 4]):
        g = game(ALL_FOUR, seed=seed, leaderEnabled=False)
        for seat in order:
            if any(d.seat == seat for d in g.pending()):
                answer(g, seat, plan[seat])
        night(g, QUIET)
        told = sorted(repr((e.kind, e.data, sorted(e.audience or ()))) for e in g.events)  # when may differ, not what
        outcomes.append((dead(g), g.statuses, told))
    assert outcomes[0] == outcomes[1] == outcomes[2]


def test_no_secret_of_the_four_reaches_the_channel_before_the_end() -> None:
    hub = LocalHub(TimeoutConfig(), messages=False)  # every line through send
    nicks = [f"p{i}" for i in range(11)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, WerewolfRuleBot(seed=i) if i % 2 else Bot(seed=i))
    said: list[tuple[str, str]] = []
    send = hub.referee.send

    def spy(target: str, text: str) -> None:
        said.append((target, text))
        send(target, text)

    hub.referee.send = spy
    options = WerewolfOptions(
        enabledRoles=ALL_ROLES,
        roleCounts="werewolf:2,seer:1,priest:1,arsonist:1,exile:1,dealer:1,cult_leader:1",
        revealRolesOnDeath=False,
    )
    for seed in range(4):
        hub.play("werewolf", nicks, options, seed)
    channel = [parse(text) for target, text in said if target.startswith("#")]
    assert any(m.verb == END for m in channel)
    private = {"DEALT", "CULT", "BLOCKED", "ROLE", "SEER", "CLEANSED"}
    for m in channel:
        assert m.verb not in private, m
        if m.verb != END:
            assert "cult" not in m.fields and "oiled" not in m.fields, m
    sent = {parse(text).verb for target, text in said if not target.startswith("#")}
    assert {"DEALT", "CULT"} <= sent


def test_spectators_read_the_cults_win_with_its_members() -> None:
    from .test_narration_roles import told

    text = told(
        [
            "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=cult_leader:1,villager:4,werewolf:1",
            "END g3 winner=cult reason=cult_recruited_all roles=ann:cult_leader,ben:villager,cat:villager,"
            "dan:villager,eve:villager,fay:werewolf cult=ben,cat",
        ]
    )
    assert text[-2].endswith("the cult wins: everyone alive is in the cult. Winners: ann, ben and cat.")
