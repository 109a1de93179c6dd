"""Deterministic resume of local tournaments: a series killed (SIGKILL) at random points
and resumed each time (with worker processes, ``--jobs 2``, or without) plays exactly the
games an uninterrupted run in one process plays — same seeds, seats, roles, answers,
lines, winners and reasons, same final Elo and TrueSkill values —
because every random stream is per game (derived from the tournament's stored key), none
per process. The work is ``bench/kill_resume.py``'s, at a smaller scale."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.kill_resume import trial

GAMES = 60
KILLS = 3
NAIVE = (f"naive={Path(__file__).with_name('naive_bot.py')}:NaiveBot",)
"""A bot using the ``random`` module and ``Ask.random()``: their streams must be per game too."""


@pytest.mark.parametrize("game, extra, jobs", [("avalon", NAIVE, 2), ("werewolf", (), 1)])
def test_a_killed_and_resumed_tournament_plays_the_same_games(
    tmp_path: Path, game: str, extra: tuple[str, ...], jobs: int
) -> None:
    """The killed copy plays with ``jobs`` worker processes, the other in one: the same
    games either way, and no worker outlives its killed parent."""
    seed = random.randrange(2**32)
    killed, found, played = trial(tmp_path, game, GAMES, KILLS, random.Random(seed), extra, jobs)
    where = f"(kill points from seed {seed}: games stored at the kills {killed.killed_at})"
    assert len(killed.killed_at) == KILLS and killed.processes == KILLS + 1, where
    assert killed.workers_seen >= (jobs if jobs > 1 else 0), where
    assert len(played["games"]) == GAMES and played["done"] == GAMES
    assert not found, "\n".join([where, *found])
