"""A Werewolf game is the same in every process: nothing in it hangs on where objects lie in memory.

A set of classes iterates in the order of their ids, which differ from one process to the
next (another import order, other objects allocated first). An engine that let such an
order decide anything (whose setup line goes first, whose night action is asked first)
would play a stored seed differently when a restarted referee, a replay or a report
rebuilds it. Here the same chaos games, with every role in play, are played in processes
whose memory is laid out differently (a varying number of classes made before the engine
or other modules imported before the engine), and their event logs must be identical.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLAY = """
import hashlib, random, sys
exec(sys.argv[1])
from arena.games.werewolf.engine import WerewolfGame
from arena.simulate import play_random
digest = hashlib.sha256()
for seed in range(12):
    options = WerewolfGame.Options.from_mapping({"preset": "chaos"}, game="werewolf")
    game = WerewolfGame(16, options, seed)
    play_random(game, random.Random(seed))
    digest.update(repr([(e.kind, e.data, e.audience) for e in game.events]).encode())
print(digest.hexdigest())
"""

BEFORE = (
    "",
    "import pytest",
    "import hypothesis, sqlite3, json",
    "junk = [type(f'J{i}', (), {}) for i in range(500)]",
    "import arena.config, arena.store",
)
"""What each process does before it imports the engine: enough to lay its memory out otherwise."""


def test_the_same_seed_plays_the_same_game_whatever_the_memory_layout() -> None:
    digests = {
        subprocess.run(
            [sys.executable, "-c", PLAY, before], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout.strip()
        for before in BEFORE
    }
    assert len(digests) == 1, f"the same seeds played {len(digests)} different ways in 5 processes"
