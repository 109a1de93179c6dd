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
from arena.store.codec import encode
from arena.store.logs import Log, unpack
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
    a store made by that version looks like (its tables' columns copied, nothing newer;
    the games' logs as the rows the versions before documents kept them in)."""
    Store(target, migrations=migrations).close()
    conn = sqlite3.connect(target)
    conn.execute("ATTACH DATABASE ? AS src", (str(source),))
    mine = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    theirs = {name for (name,) in conn.execute("SELECT name FROM src.sqlite_master WHERE type = 'table'")}
    for table in sorted(mine & theirs - {"sqlite_sequence"}):
        columns = ", ".join(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
        conn.execute(f"INSERT OR REPLACE INTO {table} ({columns}) SELECT {columns} FROM src.{table}")
    if "events" in mine:
        for seq, data in conn.execute("SELECT game_seq, data FROM src.logs").fetchall():
            _log_rows(conn, seq, unpack(data), "talk" in mine)
    conn.commit()
    conn.close()


def _log_rows(conn: sqlite3.Connection, seq: int, log: Log, said: bool) -> None:
    """A game's log as the rows of the tables before documents (``said``: with talk and answers)."""
    conn.executemany(
        "INSERT INTO events (game_seq, idx, kind, data, audience) VALUES (?,?,?,?,?)",
        (
            (seq, i, e.kind, encode(e.data), None if e.audience is None else encode(sorted(e.audience)))
            for i, e in enumerate(log.events)
        ),
    )
    conn.executemany(
        "INSERT INTO actions (game_seq, idx, seat, kind, value) VALUES (?,?,?,?,?)",
        ((seq, i, seat, kind, encode(value)) for i, (seat, kind, value) in enumerate(log.history)),
    )
    conn.executemany(
        "INSERT INTO lines (game_seq, idx, target, line) VALUES (?,?,?,?)",
        ((seq, i, target, line) for i, (target, line) in enumerate(log.transcript)),
    )
    if said:
        conn.executemany(
            "INSERT INTO talk (game_seq, idx, seat, nick, text, at, after_lines) VALUES (?,?,?,?,?,?,?)",
            ((seq, i, *t) for i, t in enumerate(log.talk)),
        )
        conn.executemany(
            "INSERT INTO answers (game_seq, idx, seat, rid, line, at, latency, error, fallback, after_lines)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            ((seq, i, *a) for i, a in enumerate(log.answers)),
        )
