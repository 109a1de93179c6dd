"""Options (section 12), role counts, setup errors, and the role registry's shape."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.core.errors import SetupError
from arena.core.options import OptionError
from arena.games.werewolf import engine as engine_module
from arena.games.werewolf.choice import Choice
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import ACTIONS, REGISTRY, Action, Role, Team, register
from arena.games.werewolf.roles import registry as registry_module

from .helpers import ALL_ROLES, events, game, night

SECTION_12 = {
    "enabledRoles": "villager,werewolf,seer,doctor,hunter,witch",
    "revealRolesOnDeath": True,
    "allowDoctorSelfProtect": True,
    "allowRepeatedProtect": False,
    "hunterShootOnPoison": False,
    "dayVoteMajority": True,
    "leaderEnabled": True,
    "lastWordsMode": "limit_by_initial_wolves",
    "protectAgainstPoison": False,
    "protectAgainstVigilante": True,
    "witchCanSaveSelf": True,
    "witchSaveFirstNightOnly": False,
    "nightActionTime": 30,
    "discussionTime": 300,
    "voteTime": 30,
    "lastWordsTime": 30,
    "lastWordsScope": "day_only",
    "lastWordsOrder": "seating_order",
}
P0 = ["villager", "werewolf", "seer", "doctor", "hunter", "witch"]
P1 = ["bodyguard", "cupid", "vigilante", "idiot", "jester", "piper"]
TEAMS = {
    "villager": "village",
    "werewolf": "werewolf",
    "seer": "village",
    "doctor": "village",
    "hunter": "village",
    "witch": "village",
    "bodyguard": "village",
    "cupid": "neutral",
    "vigilante": "village",
    "idiot": "village",
    "jester": "neutral",
    "piper": "neutral",
}


def test_every_section_12_option_with_its_default() -> None:
    defaults = WerewolfOptions().to_dict()
    for name, value in SECTION_12.items():
        assert defaults[name] == value, name
    assert defaults["roleCounts"] == "" and defaults["preset"] == "none"  # neither: the spec's default deck
    assert sorted(WerewolfOptions().deal(8)) == sorted(["werewolf"] * 2 + ["seer", "doctor"] + ["villager"] * 4)


def test_roles_registered_with_spec_teams_and_priorities() -> None:
    assert list(REGISTRY)[:12] == P0 + P1
    for role in P0 + P1:
        assert REGISTRY[role].team.value == TEAMS[role]
        assert REGISTRY[role].priority == ("P0" if role in P0 else "P1")
        module = Path(__file__).parents[2] / "arena/games/werewolf/roles" / f"{role}.py"
        assert module.exists()


def test_core_code_names_no_role() -> None:
    root = Path(engine_module.__file__).parent
    for name in (
        "engine.py",
        "night.py",
        "assembly.py",
        "deaths.py",
        "wins.py",
        "day.py",
        "resolution.py",
        "choice.py",
    ):
        text = (root / name).read_text().replace('name: ClassVar[str] = "werewolf"', "")  # the game's name
        for role in REGISTRY:
            assert not re.search(rf"['\"]{role}['\"]", text), (name, role)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("werewolf:2,seer:1", {"werewolf": 2, "seer": 1}),
        ("werewolf=2, seer=1", {"werewolf": 2, "seer": 1}),
        ("{'werewolf': 3, 'witch': 1}", {"werewolf": 3, "witch": 1}),  # a YAML mapping read as text
        ("", {}),
    ],
)
def test_role_counts_forms(text: str, expected: dict[str, int]) -> None:
    assert WerewolfOptions(roleCounts=text).counts() == expected


def test_options_from_command_line_pairs() -> None:
    o = WerewolfOptions.from_pairs(
        [
            "roleCounts=werewolf:3,witch:1",
            "enabledRoles=werewolf,witch,villager",
            "dayVoteMajority=no",
            "lastWordsMode=all",
        ]
    )
    assert o.counts() == {"werewolf": 3, "witch": 1} and o.dayVoteMajority is False and o.lastWordsMode == "all"
    with pytest.raises(OptionError):
        WerewolfOptions.from_pairs(["lastWordsMode=some"])
    with pytest.raises(OptionError):
        WerewolfOptions(roleCounts="werewolf:two")


@pytest.mark.parametrize(
    "players,options,message",
    [
        (5, {}, "6 to 20"),
        (21, {}, "6 to 20"),
        (9, {"roleCounts": "werewolf:2,dragon:1"}, "unknown role"),
        (9, {"roleCounts": "werewolf:2,piper:1"}, "not in enabledRoles"),
        (9, {"roleCounts": "werewolf:8,seer:2", "enabledRoles": "werewolf,seer"}, "only 9 players"),
        (9, {"roleCounts": "seer:1"}, "at least one werewolf"),
        (6, {"roleCounts": "werewolf:3"}, "would win"),
        (9, {"roleCounts": "werewolf:2,cupid:2", "enabledRoles": ALL_ROLES}, "at most 1 cupid"),
        (9, {"roleCounts": "werewolf:2,seer:1", "enabledRoles": "werewolf,seer"}, "villager is not enabled"),
    ],
)
def test_impossible_setups(players: int, options: dict[str, Any], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        WerewolfGame.check_setup(players, WerewolfOptions(**options))
    with pytest.raises(SetupError):
        WerewolfGame(players, WerewolfOptions(**options))


def test_villagers_fill_the_rest_and_setup_is_public() -> None:
    g = WerewolfGame(10, WerewolfOptions(roleCounts="werewolf:3,seer:1,witch:1"), 4)
    assert sorted(g.roles) == sorted(["werewolf"] * 3 + ["seer", "witch"] + ["villager"] * 5)
    setup = g.events[0]
    assert (
        setup.kind == "setup"
        and setup.public
        and setup.data["roles"] == {"seer": 1, "villager": 5, "werewolf": 3, "witch": 1}
    )
    for seat in range(10):
        (e,) = [e for e in events(g, "role") if e.data["seat"] == seat]
        assert e.audience == {seat} and e.data["role"] == g.roles[seat]


def test_a_new_role_plugs_in_through_the_registry() -> None:
    """A P2-style role added from outside: a mason-like watcher who learns at step 6 whether
    the player they watch is alive, with no change to the engine."""

    class Watch(Action):
        kind = "test_watch"
        step = 6

        @classmethod
        def decision(cls, g: WerewolfGame, seat: int) -> Choice:
            return Choice(seat, cls.kind, (*[s for s in g.living() if s != seat], "none"))

        @classmethod
        def apply(cls, g: WerewolfGame, seat: int, value: Any) -> None:
            g.tell("test_watched", {"target": value}, (seat,))

    class Watcher(Role):
        id = "test_watcher"
        team = Team.VILLAGE
        priority = "P2"
        actions = (Watch,)

    register(Watcher)
    try:
        g = game(
            "werewolf werewolf test_watcher seer villager villager villager villager", enabledRoles=",".join(REGISTRY)
        )
        kinds = []
        while g.phase == "night":
            d = g.pending()[0]
            kinds.append(d.kind)
            g.apply(d.seat, d.kind, 4 if d.kind == "test_watch" else g.default_answer(d))
        assert kinds == ["seer_check", "test_watch", "wolf_vote", "wolf_vote"]
        assert [e.audience for e in events(g, "test_watched")] == [{2}]
    finally:
        del registry_module.REGISTRY["test_watcher"]
        del ACTIONS["test_watch"]


def test_time_limits_come_from_the_options() -> None:
    g = game(
        "werewolf werewolf seer villager villager villager villager villager",
        nightActionTime=17,
        voteTime=9,
        discussionTime=80,
        lastWordsTime=11,
        leaderEnabled=False,
    )
    assert g.time_limit(g.pending()[0]) == 17
    night(g, {"wolf_vote": 3})
    assert g.time_limit(g.pending()[0]) == 80 // 7


def test_forfeit_reveals_everything() -> None:
    g = WerewolfGame(8, WerewolfOptions(), 3)
    (end,) = g.forfeit(2, "timeout")
    assert end.public and end.data["reason"] == "forfeit" and end.data["forfeit"] == 2
    assert g.result is not None
    assert end.data["roles"] == g.roles and g.result.winner is None and g.pending() == ()


def test_default_answers_are_legal_and_documented_no_ops() -> None:
    g = game("werewolf werewolf seer doctor witch hunter cupid villager villager", leaderEnabled=True)
    seen: dict[str, Any] = {}
    while g.result is None and len(seen) < 14 and g.day < 4:
        d = g.pending()[0]
        value = g.default_answer(d)
        assert d.check(value) == value
        seen.setdefault(d.kind, value)
        g.apply(d.seat, d.kind, value)
    assert seen["wolf_vote"] == "abstain" and seen["vote"] == "abstain" and seen["seer_check"] == "none"
    assert seen["doctor_protect"] == "none" and seen["candidacy"] == "decline" and seen["speak"] == "done"
    assert seen["cupid_link"] == (6, 7)
