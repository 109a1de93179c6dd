"""Presets: section 8's table as written, the advanced decks, and chaos's recipe (drawn from
the registry, secret and fixed by the game's seed, every draw dealable)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena.core.errors import SetupError
from arena.core.options import OptionError
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import REGISTRY, Team
from arena.simulate import simulate

SIZES = range(6, 21)
SECTION_8 = [  # (sizes, wolves, villagers, powers, neutrals) as the specification's table
    (range(6, 8), 2, 2, ["seer", "doctor"], []),
    (range(8, 10), 2, 3, ["seer", "doctor", "witch"], []),
    (range(10, 12), 3, 3, ["seer", "doctor", "witch"], ["thief"]),
    (range(12, 15), 3, 4, ["seer", "doctor", "witch", "hunter"], ["thief", "piper"]),
    (range(15, 21), 4, 5, ["seer", "doctor", "witch", "hunter", "bodyguard"], ["thief", "cupid", "piper"]),
]


def deck(players: int, seed: int = 0, **options: Any) -> Counter[str]:
    return Counter(WerewolfOptions(**options).deal(players, random.Random(seed)))


@pytest.mark.parametrize("sizes,wolves,villagers,powers,neutrals", SECTION_8)
def test_classic_is_section_8(
    sizes: range, wolves: int, villagers: int, powers: list[str], neutrals: list[str]
) -> None:
    for players in sizes:
        cards = deck(players, preset="classic")
        extra = 2 if "thief" in neutrals else 0
        assert sum(cards.values()) == players + extra
        assert cards["werewolf"] == wolves
        assert cards - Counter({"werewolf": wolves, "villager": cards["villager"]}) == Counter(powers + neutrals)
        assert cards["villager"] >= villagers  # the filler: the table's rows do not add up alike with a thief


@pytest.mark.parametrize("preset", ["advanced", "chaos"])
def test_every_size_is_dealt_and_played(preset: str) -> None:
    for players in SIZES:
        WerewolfGame.check_setup(players, WerewolfOptions(preset=preset))
        s = simulate("werewolf", players, 3, players, WerewolfOptions(preset=preset))
        assert sum(s.wins.values()) == 3


def test_advanced_adds_p1_and_p2_roles() -> None:
    for players in SIZES:
        priorities = {REGISTRY[r].priority for r in deck(players, preset="advanced")}
        assert priorities <= {"P0", "P1", "P2"} and {"P1", "P2"} <= priorities


def test_chaos_follows_its_recipe() -> None:
    for players in SIZES:
        wolves = 2 if players < 10 else 3 if players < 15 else 4
        neutrals = 1 if players < 12 else 2 if players < 15 else 3
        for seed in range(40):
            cards = deck(players, seed, preset="chaos")
            extra = sum(REGISTRY[r].extra_cards * n for r, n in cards.items())
            assert sum(cards.values()) == players + extra
            by_team: Counter[Team] = Counter()
            for role, n in cards.items():
                by_team[REGISTRY[role].team] += n
                if role not in ("villager", "werewolf"):
                    assert n == REGISTRY[role].chaos_copies
            assert by_team[Team.WEREWOLF] == wolves and by_team[Team.NEUTRAL] == neutrals
            assert (
                sum(n for r, n in cards.items() if REGISTRY[r].team is Team.WEREWOLF and r != "werewolf") == wolves // 2
            )
            village = players - wolves - neutrals
            assert cards["villager"] - extra == village // 3


def test_chaos_draws_every_registered_role_and_the_seed_fixes_the_deck() -> None:
    seen: set[str] = set()
    for seed in range(300):
        seen |= set(deck(16, seed, preset="chaos"))
    assert seen == {r for r, role in REGISTRY.items() if role.chaos_copies}
    assert deck(16, 7, preset="chaos") == deck(16, 7, preset="chaos")
    assert len({tuple(sorted(deck(16, s, preset="chaos").items())) for s in range(20)}) > 15
    games = [WerewolfGame(16, WerewolfOptions(preset="chaos"), seed) for seed in (5, 5, 6)]
    assert games[0].roles == games[1].roles and games[0].extra == games[1].extra
    assert sorted(games[0].roles + games[0].extra) != sorted(games[2].roles + games[2].extra)


def test_a_role_can_leave_chaos_or_come_in_a_group(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(REGISTRY["seer"], "chaos_copies", 0)
    monkeypatch.setattr(REGISTRY["detective"], "chaos_copies", 2)
    decks = [deck(20, seed, preset="chaos") for seed in range(200)]
    assert not any("seer" in d for d in decks)
    assert all(d["detective"] in (0, 2) for d in decks) and any(d["detective"] for d in decks)
    assert all(d["mason"] in (0, 2) for d in decks)  # masons come as a pair


def test_role_counts_win_over_a_preset() -> None:
    options = WerewolfOptions.from_pairs(["preset=chaos", "roleCounts=werewolf:2,seer:1"])
    assert deck(12, **options.to_dict()) == Counter({"werewolf": 2, "seer": 1, "villager": 9})
    assert "enabledRoles" in str(
        pytest.raises(SetupError, WerewolfOptions(preset="classic", roleCounts="werewolf:2,thief:1").deal, 10).value
    )


def test_a_preset_needs_a_known_name_and_a_table_it_covers() -> None:
    with pytest.raises(OptionError, match="preset must be one of none, classic, advanced, chaos"):
        WerewolfOptions.from_pairs(["preset=wild"])
    for players in (5, 21):
        with pytest.raises(SetupError, match="6 to 20 players \\(preset classic included\\)"):
            WerewolfGame.check_setup(players, WerewolfOptions(preset="classic"))
