"""A large results store to measure whole-store work on: N games (default 100,000) written
into a new SQLite file in minutes, where playing them would take hours.

Usage: python bench/bigstore.py PATH [--games N] [--pool P] [--bots B] [--tournament-games T] [--seed S]

What is real: a pool of P Avalon games (5 to 10 players) played once through the referee's
in-memory transport by seeded random SDK bots, each with its events, answers, every line
the referee sent and the players' talk (as ``bench/store.py`` plays them). What is
repeated: each stored game is one of the pool's (drawn by the seeded generator) recorded
again under a new game id, new seats (its seats dealt to bots drawn from B, so the
ratings move as in a real history) and its own times; each T games in a row make a
tournament, but every fifth game, which belongs to none (as a lobby's games). Every game goes through
``store.games.record``, the path a referee records by (one transaction each: the game, its
log, outcomes, rating changes, current ratings and its tournament's standings), so every
table is filled as in production and ``arena ratings rebuild`` finds it exact.

Deterministic for the same arguments, but for each tournament's secret master key, which
``store.tournaments.start`` draws (no stored game depends on it here).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import time

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.local import LocalHub
from arena.sdk import Bot
from arena.store import GameRecord, Store, record_from_game


def pool(size: int, seed: int) -> list[GameRecord]:
    """``size`` real games between ten seeded random bots, as a referee records them."""
    rng = random.Random(seed)
    nicks = [f"p{i}" for i in range(10)]
    hub = LocalHub(TimeoutConfig())
    for n, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=seed * 1000 + n))
    records = []
    for i in range(size):
        seats = rng.sample(nicks, rng.choice((5, 6, 7, 8, 9, 10)))
        match = hub.play("avalon", seats, AvalonOptions(), rng.getrandbits(32), gid=f"pool{i}")
        records.append(
            record_from_game(
                f"pool{i}",
                match.game,
                match.names,
                started=0.0,
                finished=0.0,
                transcript=match.transcript,
                talk=match.talk,
                answers=match.answers,
            )
        )
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the store to create (must not exist)")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--pool", type=int, default=300, help="real games played, each recorded many times")
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument(
        "--tournament-games", type=int, default=1000, help="games in a row per tournament (every fifth outside it)"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if os.path.exists(args.path):
        parser.error(f"{args.path} exists: give a new file")
    start = time.perf_counter()
    played = pool(args.pool, args.seed)
    print(f"played {len(played)} real games in {time.perf_counter() - start:.1f} s")
    rng = random.Random(args.seed)
    bots = [f"bot{i}" for i in range(args.bots)]
    start = time.perf_counter()
    with Store(args.path) as store:
        for i in range(args.games):
            base = rng.choice(played)
            tournament = None if i % 5 == 4 else f"t{i // args.tournament_games}"
            if tournament is not None and store.tournaments.get(tournament) is None:
                store.tournaments.start(tournament, {"game": "avalon", "games": args.tournament_games}, float(i))
            store.games.record(
                dataclasses.replace(
                    base,
                    id=f"g{i}",
                    bots=tuple(rng.sample(bots, base.players)),
                    tournament=tournament,
                    started=float(i),
                    finished=i + 0.5,
                )
            )
            if (i + 1) % 10_000 == 0:
                print(f"{i + 1} games recorded, {time.perf_counter() - start:.0f} s")
    size = sum(os.path.getsize(args.path + end) for end in ("", "-wal") if os.path.exists(args.path + end))
    print(f"{args.games} games in {time.perf_counter() - start:.0f} s; {args.path}: {size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
