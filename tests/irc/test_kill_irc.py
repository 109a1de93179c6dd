"""A tournament on a real IRC server (ngircd) whose referee is killed (SIGKILL) at random
points, most of them inside a game, and restarted each time: every game is stored exactly
once, ranked or aborted for a bot that did not come back, never forfeited; every replay is
exact, the ratings rebuild exactly, no process logs a traceback, and every bot (a process
of its own) leaves by itself once it has seen all the games end. The work is
``bench/kill_irc.py``'s, at a smaller scale."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from arena.store import Store
from bench.kill_irc import DB, TOURNAMENT, Watch, soak

from ..store.helpers import avalon_record
from .conftest import require_ngircd

CASES = [("avalon", 30, 12), ("werewolf", 20, 8)]
"""(game, games, kills)."""


@pytest.fixture(autouse=True)
def _ngircd() -> None:
    require_ngircd()


@pytest.mark.parametrize("game, games, kills", CASES)
def test_a_referee_killed_at_random_points_loses_no_game_and_strands_no_bot(
    tmp_path: Path, game: str, games: int, kills: int
) -> None:
    seed = random.randrange(2**32)
    result = soak(tmp_path, game, games, kills, random.Random(seed))
    where = (
        f"{result.summary()} (python bench/kill_irc.py --game {game} --games {games} --kills {kills} "
        f"--seed {seed} --keep DIR makes the same choices of kill points and keeps the logs)"
    )
    assert not result.failures, "\n".join([where, *result.failures])
    # A kill planned near the end may find the tournament over (a game or two can go by
    # before it lands): most of them, not every one, must have landed.
    assert len(result.kills) >= kills * 3 // 4 and result.processes == len(result.kills) + 1, where
    assert result.inside >= 1, where
    assert sum(result.kinds.values()) == games, where


def test_a_kill_is_timed_from_the_games_no_restart_interrupted(tmp_path: Path) -> None:
    """A game taken up after kills keeps its first start, so its stored length holds the
    restarts (here 30 s, for games of 0.5 s): counted in, it put the next kill so late
    that the tournament ended before the rest of the kills could land."""
    rng = random.Random(1)
    resumed = ((None, "RESUME t1-1 game=avalon channel=#arena-t1-1-r1 seats=a,b,c,d,e wait=20"),)
    with Store(tmp_path / DB) as store:
        store.tournaments.start(TOURNAMENT, {"game": "avalon"}, 0.0)
        watch = Watch(tmp_path)
        assert watch.game_length() == 0.1  # (nothing stored yet)
        first = avalon_record(1, rng, tournament=TOURNAMENT)
        store.games.record(
            dataclasses.replace(first, id=f"{TOURNAMENT}-1", finished=first.started + 30.0, transcript=resumed)
        )
        assert watch.game_length() == 0.1  # (only an interrupted game)
        for i in (2, 3):
            store.games.record(
                dataclasses.replace(avalon_record(i, rng, tournament=TOURNAMENT), id=f"{TOURNAMENT}-{i}")
            )
        assert watch.game_length() == pytest.approx(0.5)
        watch.close()
