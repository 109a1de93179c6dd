"""Real Avalon games played by random legal players, as the store receives them."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from arena.core.game import Result
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.options import AvalonOptions
from arena.simulate import play_random
from arena.store import GameRecord, Store, record_from_game
from arena.store.schema import Migration

BOTS = [f"bot{i}" for i in range(12)]


def avalon_record(
    i: int,
    rng: random.Random,
    players: int = 5,
    end: str = "play",
    tournament: str | None = None,
    deal: tuple[int, ...] | None = None,
) -> GameRecord:
    """Game ``i``: ``end`` is "play" (to the end), "forfeit" (seat 1 forfeits mid-game) or "abort"."""
    options = AvalonOptions()
    game = AvalonGame(players, options, seed=1000 + i, deal=deal)
    nicks = rng.sample(BOTS, players)
    if end == "play":
        play_random(game, rng)
    else:
        for decision in game.pending():
            game.apply(decision.seat, decision.kind, decision.random_choice(rng))
        if end == "forfeit":
            game.forfeit(1, "timeout")
    return record_from_game(
        f"g{i}",
        game,
        nicks,
        started=float(i),
        finished=i + 0.5,
        tournament=tournament,
        aborted_reason="operator stop" if end == "abort" else None,
    )


def many_records(n: int, seed: int = 1) -> list[GameRecord]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        end = "forfeit" if i % 7 == 6 else "abort" if i % 11 == 10 else "play"
        out.append(avalon_record(i, rng, players=rng.choice((5, 6, 7, 8, 10)), end=end))
    return out


def result_of(record: GameRecord) -> Result:
    """The result of a game that ended (not aborted)."""
    assert record.result is not None, f"{record.id} was aborted"
    return record.result


def old_copy(source: Path, target: Path, migrations: Sequence[Migration]) -> None:
    """A store at the version of ``migrations`` holding what ``source`` holds of it: what
    a store made by that version looks like (its tables' columns copied, nothing newer)."""
    Store(target, migrations=migrations).close()
    conn = sqlite3.connect(target)
    conn.execute("ATTACH DATABASE ? AS src", (str(source),))
    for (table,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%sqlite_%' AND name != 'sqlite_sequence'"
    ).fetchall():
        columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
        conn.execute(f"INSERT OR REPLACE INTO {table} ({columns}) SELECT {columns} FROM src.{table}")
    conn.commit()
    conn.close()
