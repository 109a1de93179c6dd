"""Results store: record 10,000 games into a temporary database, then time the reads.

Usage: python bench/store.py [--games N] [--bots B] [--postgres]
The games are real Avalon games (5 to 10 players) played through the referee's in-memory
transport by random SDK bots with seeded RNGs, each stored with its full event log, every
line the referee sent, outcomes and both rating systems' changes through
``store.games.record`` (one transaction per game). Then it times the
leaderboard (target: < 100 ms), game listing, one game's load, per-bot stats and a rebuild.
``--postgres``: the same into a PostgreSQL database of a server of its own, started here with
PostgreSQL's default durability (every commit flushed to disk; SQLite's WAL mode with
``synchronous=NORMAL`` flushes at checkpoints only), on the same core as this process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from typing import Any

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.local import LocalHub
from arena.sdk import Bot
from arena.store import Store, record_from_game
from arena.store.pgserver import LocalPostgres


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """Median and worst wall time in ms over ``repeat`` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000, max(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--postgres", action="store_true", help="a PostgreSQL database instead of a SQLite file")
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        server = stack.enter_context(LocalPostgres(durable=True)) if args.postgres else None
        run(args, server)


def run(args: argparse.Namespace, server: LocalPostgres | None) -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    if server is not None and hasattr(os, "sched_setaffinity"):
        for pid in server.pids():
            os.sched_setaffinity(pid, os.sched_getaffinity(0))  # its server shares the one core
    engine = "PostgreSQL" if server is not None else "SQLite"
    print(f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}, one core; {engine}")
    rng = random.Random(args.seed)
    bots = [f"bot{i}" for i in range(args.bots)]
    options = AvalonOptions()
    with tempfile.TemporaryDirectory() as tmp:
        path = server.new_database() if server is not None else os.path.join(tmp, "bench.db")
        store = Store(path)
        hub = LocalHub(TimeoutConfig())
        for n, nick in enumerate(bots):
            hub.connect(nick, Bot(seed=args.seed * 1000 + n))
        record_time = 0.0
        events = lines = 0
        start_all = time.perf_counter()
        for i in range(args.games):
            seats = rng.sample(bots, rng.choice((5, 6, 7, 8, 9, 10)))
            match = hub.play("avalon", seats, options, rng.getrandbits(32), gid=f"g{i}")
            rec = record_from_game(
                f"g{i}", match.game, seats, started=float(i), finished=i + 0.5, transcript=match.transcript
            )
            events += len(rec.events)
            lines += len(match.transcript)
            start = time.perf_counter()
            store.games.record(rec)
            record_time += time.perf_counter() - start
        total = time.perf_counter() - start_all
        if server is not None:
            size = store.db.execute("SELECT pg_database_size(current_database())").fetchone()[0]
        else:
            size = os.path.getsize(path) + (os.path.getsize(path + "-wal") if os.path.exists(path + "-wal") else 0)
        print(
            f"recorded {args.games} games ({events} events, {lines} lines) in {total:.1f} s; games.record "
            f"{record_time / args.games * 1000:.2f} ms per game (both ratings, one transaction); "
            f"database {size / 1e6:.1f} MB"
        )
        for system in ("elo", "trueskill"):
            med, worst = timed(lambda: store.ratings.leaderboard("avalon", system), 50)
            print(f"leaderboard {system:9s} ({args.bots} bots): median {med:.3f} ms, worst {worst:.3f} ms")
        fresh = Store(path)  # a cold connection, as `arena leaderboard` would open

        def cold() -> None:
            with Store(path) as s:
                s.ratings.leaderboard("avalon", "elo")

        med, worst = timed(cold, 10)
        print(f"open + leaderboard (new connection each): median {med:.3f} ms, worst {worst:.3f} ms")
        med, _ = timed(lambda: fresh.games.find(limit=50), 20)
        print(f"games.find (50 newest): median {med:.3f} ms")
        med, _ = timed(lambda: fresh.games.load(f"g{args.games // 2}"), 20)
        print(f"games.load (its log, outcomes, changes): median {med:.3f} ms")
        med, _ = timed(lambda: fresh.stats.bots("avalon"), 5)
        print(f"stats.bots (all bots, all roles, figures, conduct): median {med:.1f} ms")
        start = time.perf_counter()
        report = fresh.ratings.rebuild()
        print(
            f"ratings.rebuild ({report.games} games, {report.changes_checked} changes): "
            f"{time.perf_counter() - start:.1f} s, exact: {report.exact}"
        )
        fresh.close()
        store.close()


if __name__ == "__main__":
    main()
