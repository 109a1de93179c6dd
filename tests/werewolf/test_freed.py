"""A finished Werewolf game is freed by reference counting alone, the moment it is dropped.

A game that is a reference cycle (a part holding the game back, a method of the game bound
and kept on the game) outlives its last reference until the cyclic garbage collector runs,
which then costs every simulated or refereed game a share of its time. So the game's parts
(the night, the assembly, deaths) and its agenda take the game as an argument instead of
holding it: here every game, of every preset (chaos deals most roles), with roles shown or
hidden, must be gone as soon as its last reference is, with the collector switched off.
"""

from __future__ import annotations

import gc
import random
import weakref

import pytest

from arena.games.werewolf.engine import WerewolfGame
from arena.simulate import play_random


@pytest.mark.parametrize(
    ("preset", "players", "reveal"),
    [("classic", 8, True), ("advanced", 10, True), ("chaos", 16, True), ("chaos", 16, False)],
)
def test_a_played_game_is_freed_without_the_cyclic_collector(preset: str, players: int, reveal: bool) -> None:
    options = WerewolfGame.Options.from_mapping({"preset": preset, "revealRolesOnDeath": reveal}, game="werewolf")
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for seed in range(4):
            game = WerewolfGame(players, options, seed)
            play_random(game, random.Random(seed))
            freed = weakref.ref(game)
            del game
            assert freed() is None, f"{preset} game {seed} is a reference cycle"
    finally:
        if was_enabled:
            gc.enable()
