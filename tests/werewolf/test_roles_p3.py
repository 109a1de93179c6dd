"""P3 roles beyond the serial killer (tests/werewolf/test_roles_p2.py): the disguises
(miller, godfather, alpha werewolf) and the wolf seer."""

from __future__ import annotations

import pytest

from .helpers import events, game, last, night
from .test_roles_p2 import QUIET, answer

DEAL = "seer detective miller godfather alpha_werewolf wolf_seer villager villager villager villager villager"
# seats: 0 seer, 1 detective, 2 miller, 3 godfather, 4 alpha werewolf, 5 wolf seer, 6-10 villagers


@pytest.mark.parametrize("target,side", [(2, "werewolf"), (3, "village"), (4, "village"), (5, "werewolf")])
def test_every_check_sees_the_disguise(target, side):
    g = game(DEAL, leaderEnabled=False)
    answer(g, 0, target)
    answer(g, 1, (target, 6))
    answer(g, 5, "none")  # the step (seer, detective, wolf seer) settles once all have answered
    assert last(g, "seer_result") == {"night": 1, "target": target, "team": side}
    assert last(g, "detective_result")["same"] is (side == "village")


def test_disguised_wolves_are_wolves_the_wolf_seer_checks_and_votes():
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
