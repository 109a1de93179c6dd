"""A local tournament played by worker processes (``--jobs``) stores what one process
stores: the same games, byte for byte, rated in the same order, whatever the number of
workers; only the wall-clock times of when things happened differ."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.config import parse_config
from arena.games.avalon.options import AvalonOptions
from arena.store import Store
from arena.tournament import Settings, TournamentError, play_local
from arena.tournament.run import open_tournament
from arena.tournament.workers import BATCH

NAIVE = f"naive={Path(__file__).with_name('naive_bot.py')}:NaiveBot"
"""Draws from the ``random`` module: each worker's stream must be seeded per game too."""

BOTS = ("rule1=avalon_rule", "rule2=avalon_rule", "rand1=random", "rand2=random", "rand3=random", NAIVE)

WALL_TIMES = {"created", "updated", "started", "finished", "seen", "reserved"}
"""Columns that hold when something happened on the wall clock: the one difference allowed."""


def _settings(games: int) -> Settings:
    return Settings(
        id="t1",
        game="avalon",
        games=games,
        players=5,
        bots=BOTS,
        options=AvalonOptions().to_dict(),
        transport="local",
        keep=4,
    )


def _dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, in storage order, wall-clock columns blanked."""
    conn = sqlite3.connect(path)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        dump: dict[str, list[tuple[Any, ...]]] = {}
        for table in tables:
            cursor = conn.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            dump[table] = [
                tuple(None if name in WALL_TIMES else value for name, value in zip(names, row)) for row in cursor
            ]
        return dump
    finally:
        conn.close()


def test_any_number_of_workers_stores_the_same_games_and_ratings(tmp_path: Path) -> None:
    games = 2 * BATCH + 3  # batches of both workers, and a short last one
    first = tmp_path / "one" / "results.db"
    first.parent.mkdir()
    with Store(first) as store:
        open_tournament(store, _settings(games))  # the secret key both copies share
    second = tmp_path / "two" / "results.db"
    second.parent.mkdir()
    shutil.copy(first, second)
    for path, jobs in ((first, 1), (second, 2)):
        config = parse_config({"store": {"path": str(path)}})
        with Store(path) as store:
            assert play_local(_settings(games), AvalonOptions(), store, config, jobs=jobs) == games
    one, two = _dump(first), _dump(second)
    assert len(one["games"]) == games and {row[2] for row in one["outcomes"]} >= {"naive", "rule1"}
    assert one == two


def test_a_worker_whose_bot_cannot_start_stops_the_tournament_before_anything_is_stored(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    broken = (*BOTS, f"late={Path(__file__).with_name('naive_bot.py')}:NoSuchBot")
    settings = Settings(
        id="t1",
        game="avalon",
        games=3 * BATCH,
        players=5,
        bots=broken,
        options=AvalonOptions().to_dict(),
        transport="local",
        keep=4,
    )
    with Store(path) as store:
        with pytest.raises(TournamentError, match="NoSuchBot"):
            play_local(settings, AvalonOptions(), store, parse_config({"store": {"path": str(path)}}), jobs=2)
        assert store.tournaments.get("t1") is None
