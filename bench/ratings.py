"""Rating update time for one 10-player game (6 good vs 4 evil), both systems.

Usage: python bench/ratings.py [--games N]
Times ``rate`` alone (the pure update, side terms included) over a pool of rated bots,
and prints the median and 99th percentile per update. Target: < 5 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from arena.ratings import Elo, TrueSkill, forfeit, ranked
from arena.ratings.model import Entity, Rating


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}, one core")
    pool = [f"bot{i}" for i in range(40)]
    for system in (Elo(), TrueSkill()):
        for label, kind in (("6 vs 4, normal end", "ranked"), ("10 players, forfeit", "forfeit")):
            rng = random.Random(args.seed)
            current: dict[Entity, Rating] = {}
            times = []
            for _ in range(args.games):
                seated = rng.sample(pool, 10)
                if kind == "ranked":
                    sides = {p: "good" if i < 6 else "evil" for i, p in enumerate(seated)}
                    winner = rng.choice(("good", "evil"))
                    match = ranked(sides, {winner: 0, "evil" if winner == "good" else "good": 1})
                else:
                    match = forfeit(seated, seated[rng.randrange(10)])
                start = time.perf_counter()
                changes = system.rate(match, current)
                times.append(time.perf_counter() - start)
                for c in changes:
                    current[c.entity] = c.after
            times.sort()
            median = statistics.median(times) * 1000
            p99 = times[int(len(times) * 0.99)] * 1000
            print(f"{system.name:9s} {label:20s}: median {median:.3f} ms, p99 {p99:.3f} ms per update")


if __name__ == "__main__":
    main()
