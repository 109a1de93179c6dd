"""P1 roles and the lovers: cupid (10.1), idiot, jester, piper, vigilante, bodyguard."""

from __future__ import annotations

from arena.games.werewolf.engine import WerewolfGame

from .helpers import dead, events, game, last, night, step, until_kind

QUIET = {
    "wolf_vote": "abstain",
    "candidacy": "decline",
    "vote": "abstain",
    "piper_charm": "none",
    "vigilante_shoot": "none",
    "seer_check": "none",
    "doctor_protect": "none",
}


def execute(g: WerewolfGame, target: int) -> None:
    """Everyone votes for ``target`` today."""
    before = len(events(g, "execution"))
    step(
        g,
        {**QUIET, "vote": lambda d: target if target in d.options else "abstain"},
        stop=lambda x: len(events(x, "execution")) > before,
    )


def test_lovers_are_told_and_die_together() -> None:
    g = game("cupid werewolf werewolf villager villager villager villager villager", leaderEnabled=False)
    g.apply(0, "cupid_link", (3, 1))
    (e,) = events(g, "lovers")
    assert e.audience == {0, 1, 3} and e.data == {"lovers": [1, 3], "cupid": 0}
    night(g, {"wolf_vote": 3})
    assert dead(g) == {1, 3} and last(g, "dawn")["dead"] == [1, 3]


def test_lover_executed_takes_the_other_along() -> None:
    g = game("cupid werewolf werewolf villager villager villager villager villager", leaderEnabled=False)
    step(g, {**QUIET, "cupid_link": (4, 5)}, stop=until_kind("vote"))
    execute(g, 4)
    assert dead(g) == {4, 5}
    assert last(g, "death") == {"seat": 5, "day": 1, "role": "villager"}


def test_cross_team_lovers_win_as_the_last_alive() -> None:
    g = game("cupid werewolf villager villager villager villager", leaderEnabled=False)
    step(g, {**QUIET, "cupid_link": (1, 2)}, stop=until_kind("vote"))
    # 0 cupid, 1 wolf (lover), 2 villager (lover), 3,4,5 villagers: the village executes 3 and 5,
    # the wolf kills 4.
    execute(g, 3)
    step(g, {**QUIET, "wolf_vote": 4}, stop=until_kind("vote"))
    assert dead(g) == {3, 4}
    # Alive: 0 cupid, 1 wolf, 2 villager, 5 villager: wolves 1 < village 2.
    execute(g, 5)
    assert g.result is not None
    # Alive: cupid 0, lovers 1 and 2 -> the lovers (and cupid) win before the wolves' parity.
    assert (g.result.winner, g.result.reason, g.result.winners) == ("lovers", "lovers_last_alive", {0, 1, 2})


def test_idiot_survives_the_first_execution_and_loses_the_vote() -> None:
    g = game("werewolf werewolf idiot villager villager villager villager villager", leaderEnabled=False)
    step(g, QUIET, stop=until_kind("vote"))
    execute(g, 2)
    assert g.alive[2] and last(g, "execution")["spared"] is True
    assert last(g, "idiot_revealed") == {"seat": 2, "role": "idiot"}
    step(g, QUIET, stop=until_kind("vote"))
    voters = []
    while g.pending()[0].kind == "vote":
        d = g.pending()[0]
        voters.append(d.seat)
        g.apply(d.seat, "vote", 2 if 2 in d.options else "abstain")
    assert 2 not in voters
    assert not g.alive[2] and last(g, "execution")["spared"] is False  # the second time kills


def test_jester_executed_wins_alone() -> None:
    g = game("werewolf werewolf jester villager villager villager villager villager", leaderEnabled=False)
    step(g, QUIET, stop=until_kind("vote"))
    execute(g, 2)
    assert g.result is not None
    assert (g.result.winner, g.result.reason, g.result.winners) == ("jester", "jester_executed", {2})
    assert g.events[-1].kind == "end" and g.events[-1].data["roles"][2] == "jester"


def test_jester_killed_at_night_wins_nothing() -> None:
    g = game("werewolf werewolf jester villager villager villager villager villager", leaderEnabled=False)
    night(g, {"wolf_vote": 2})
    assert not g.alive[2] and g.result is None


def test_piper_charms_and_wins() -> None:
    g = game("werewolf piper villager villager villager villager", leaderEnabled=False)
    for target in (0, 2, 3, 4, 5):
        step(
            g,
            {**QUIET, "piper_charm": target},
            stop=lambda x: bool(events(x, "charmed")) and last(x, "charmed")["new"] == target,
        )
        e = events(g, "charmed")[-1]
        assert e.audience == set(e.data["charmed"]) | {1}
        if g.result is None:
            d = next((d for d in g.pending() if d.kind == "piper_charm"), None)
            assert d is None
    assert g.result is not None
    assert (g.result.winner, g.result.reason, g.result.winners) == ("piper", "piper_charmed_all", {1})


def test_vigilante_has_limited_shots() -> None:
    deal = "werewolf werewolf vigilante villager villager villager villager villager"
    g = game(deal, leaderEnabled=False)
    night(g, {"wolf_vote": "abstain", "vigilante_shoot": 3})
    assert dead(g) == {3} and g.state[2]["shots"] == 0
    step(g, QUIET, stop=lambda x: x.day == 2)
    asked = {}
    while g.phase == "night":
        d = g.pending()[0]
        asked[d.kind] = d.options
        g.apply(d.seat, d.kind, g.default_answer(d))
    assert "wolf_vote" in asked and asked["vigilante_shoot"] == ("none",)  # asked, nothing to choose
    g = game(deal, leaderEnabled=False, vigilanteShots=2)
    night(g, {"wolf_vote": "abstain", "vigilante_shoot": 3})
    step(g, QUIET, stop=until_kind("vigilante_shoot"))
    assert g.day == 2 and g.state[2]["shots"] == 1


def test_cupid_default_links_themself_and_the_next_seat() -> None:
    g = game("cupid werewolf werewolf villager villager villager villager villager")
    d = g.decision_for(0)
    assert d is not None
    assert d.kind == "cupid_link" and g.default_answer(d) == (0, 1)


def test_bodyguard_dies_in_place_of_the_guarded() -> None:
    g = game("werewolf werewolf bodyguard villager villager villager villager villager", leaderEnabled=False)
    night(g, {"wolf_vote": 5, "bodyguard_protect": 5})
    assert dead(g) == {2}
