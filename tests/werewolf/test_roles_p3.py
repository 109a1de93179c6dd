"""P3 roles beyond the serial killer (tests/werewolf/test_roles_p2.py): the disguises
(miller, godfather, alpha werewolf) and the wolf seer."""

from __future__ import annotations

import pytest

from arena.games.werewolf.mechanics import statuses

from .helpers import events, game, last, night, step, until_kind
from . import test_roles_p2
from .test_roles_p2 import answer

QUIET = {**test_roles_p2.QUIET, "silencer_silence": "none", "priest_cleanse": "none", "wolf_seer_check": "none"}

DEAL = "seer detective miller godfather alpha_werewolf wolf_seer villager villager villager villager villager"
# seats: 0 seer, 1 detective, 2 miller, 3 godfather, 4 alpha werewolf, 5 wolf seer, 6-10 villagers


@pytest.mark.parametrize("target,side", [(2, "werewolf"), (3, "village"), (4, "village"), (5, "werewolf")])
def test_every_check_sees_the_disguise(target: int, side: str) -> None:
    g = game(DEAL, leaderEnabled=False)
    answer(g, 0, target)
    answer(g, 1, (target, 6))
    answer(g, 5, "none")  # the step (seer, detective, wolf seer) settles once all have answered
    assert last(g, "seer_result") == {"night": 1, "target": target, "team": side}
    assert last(g, "detective_result")["same"] is (side == "village")


def test_disguised_wolves_are_wolves_the_wolf_seer_checks_and_votes() -> None:
    g = game(DEAL, leaderEnabled=False)
    assert last(g, "wolves") == {"wolves": [3, 4, 5]}
    assert {d.kind for d in g.pending() if d.seat == 5} == {"wolf_seer_check"}
    answer(g, 5, 2)
    answer(g, 0, "none")
    answer(g, 1, (6, 7))
    assert [e.audience for e in events(g, "seer_result")] == [{5}]
    assert last(g, "seer_result")["team"] == "werewolf"  # the miller fools the wolves too
    assert {d.kind for d in g.pending() if d.seat == 5} == {"wolf_vote"}
    night(g, {**QUIET, "wolf_vote": 7})
    assert last(g, "wolf_votes")["votes"] == [[3, 7], [4, 7], [5, 7]] and not g.alive[7]


# -- silencer and priest: statuses with a lifetime, and their removal ------------------------

SILENT_DEAL = "silencer werewolf priest piper villager villager villager villager"
# seats: 0 silencer, 1 wolf, 2 priest, 3 piper, 4-7 villagers


def test_a_silenced_player_gets_no_turn_at_the_floor_that_day_but_votes() -> None:
    g = game(SILENT_DEAL, leaderEnabled=True, lastWordsScope="day_and_night")
    night(g, {**QUIET, "silencer_silence": 4, "priest_cleanse": "none", "candidacy": "decline"})
    assert last(g, "silenced") == {"day": 1, "players": [4]} and events(g, "silenced")[0].public
    step(g, {**QUIET, "candidacy": "decline"}, stop=until_kind("vote"))
    turns = {e.data["seat"] for e in events(g, "candidacy")} | {e.data["seat"] for e in events(g, "speech")}
    assert 4 not in turns and {5, 6, 7} <= turns
    assert 4 not in last(g, "order")["speakers"]
    step(g, {**QUIET, "vote": "abstain"}, stop=lambda x: any(e.data["seat"] == 4 for e in events(x, "vote")))
    # The silence ends with the day: night 2 begins without it.
    step(g, {**QUIET, "vote": "abstain"}, stop=until_kind("silencer_silence"))
    assert not statuses.has(g, statuses.SILENCED, 4)


def test_the_priest_lifts_a_charm_and_a_silence_of_the_same_night() -> None:
    g = game(SILENT_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "silencer_silence": 4, "piper_charm": 4, "priest_cleanse": 4})
    assert not statuses.has(g, statuses.SILENCED, 4) and not statuses.has(g, statuses.CHARMED, 4)
    assert events(g, "silenced") == []
    (e,) = events(g, "cleansed")
    assert e.audience == {4} and e.data == {"night": 1, "statuses": ["charmed", "silenced"]}


def test_a_priest_with_nothing_to_lift_says_nothing() -> None:
    g = game(SILENT_DEAL, leaderEnabled=False)
    night(g, {**QUIET, "priest_cleanse": 5})
    assert events(g, "cleansed") == []


def test_the_priest_acts_after_the_silencer_whoever_answered_first() -> None:
    g = game(SILENT_DEAL, leaderEnabled=False)
    answer(g, 2, 4)  # the priest answers first
    night(g, {**QUIET, "silencer_silence": 4, "wolf_vote": "abstain"})
    assert not statuses.has(g, statuses.SILENCED, 4)
