"""What spectators are told of the P2/P3 roles' public lines: the oracle's reveal, the
serial killer's win, and the living neutrals who win alongside the winning side."""

from __future__ import annotations

from arena.narrate.narrator import Narrator


def told(lines: list[str]) -> list[str]:
    narrator = Narrator("#arena", "arena")
    return [s.plain() for line in lines for s in narrator.hear("arena", "#arena-g3", line)]


START = "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=oracle:1,roleblocker:1,villager:3,werewolf:1"


def test_the_oracles_reveal_and_a_living_roleblocker_among_the_winners() -> None:
    text = told(
        [
            START,
            "NIGHT g3 night=1",
            "ORACLE g3 target=fay role=werewolf",
            "DAWN g3 day=1 dead=ann roles=ann:oracle",
            "EXECUTION g3 day=1 player=fay spared=false role=werewolf",
            "END g3 winner=village reason=all_wolves_eliminated roles=ann:oracle,ben:roleblocker,cat:villager,"
            "dan:villager,eve:villager,fay:werewolf",
        ]
    )
    assert "An oracle died: fay is the werewolf." in text
    assert (
        text[-2]
        == "Game over after night 1: the village wins: every wolf is dead. Winners: ann, ben, cat, dan and eve."
    )


def test_the_serial_killers_win_reads_as_such() -> None:
    text = told(
        [
            "START g3 game=werewolf seats=ann,ben,cat,dan,eve,fay roles=serial_killer:1,villager:4,werewolf:1",
            "END g3 winner=serial_killer reason=serial_killer_survived "
            "roles=ann:serial_killer,ben:villager,cat:villager,"
            "dan:villager,eve:villager,fay:werewolf",
        ]
    )
    assert "the serial killer wins: the serial killer is alive with at most one other" in text[-2]
