"""Cost per game of a local tournament as it grows: the first games against the last ones.

Usage: python bench/tournament.py [--games N] [--bots B] [--players P] [--window W] [--jobs J]

Plays a local tournament (``play_local``, the code behind ``arena tournament --transport
local``, virtual clock) of N Avalon games between B rule bots, P seats a game, into a
scratch store, with a progress callback that asks for the leaders after every game as the
CLI does; prints the milliseconds per game of the first W and the last W games, in wall
time (and the games/s it amounts to) and in this process's CPU time. The machine may be
busy: the ratio of the two is the figure, in CPU time above all (a cost per game that grows
with the tournament shows as a ratio above 1). ``--jobs J`` plays in J worker processes
(``arena tournament --jobs``): the per-game CPU figures are then this process's alone (it
stores and rates every game), and the last line gives the whole run, workers included:
games/s in wall time and games per CPU-second.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from arena.config import load_config
from arena.games import GAMES
from arena.parallel import settle
from arena.store import Store
from arena.tournament import Progress, Settings, play_local


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--bots", type=int, default=7)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--window", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (arena tournament --jobs)")
    args = ap.parse_args()
    config = load_config(None, environ={})
    options = GAMES["avalon"].Options.from_pairs((), game="avalon")
    settings = Settings(
        id="bench",
        game="avalon",
        games=args.games,
        players=args.players,
        bots=tuple(f"rule{i}=avalon_rule" for i in range(1, args.bots + 1)),
        options=options.to_dict(),
        transport="local",
        keep=config.seating.games_per_order,
    )
    ends: list[tuple[float, float]] = []
    shown: list[Progress] = []

    def report(p: Progress) -> None:
        ends.append((time.perf_counter(), time.process_time()))
        shown[:] = [p]

    settle()  # as `arena tournament` does once it is set up
    before = os.times()
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "results.db") as store:
        ends.append((time.perf_counter(), time.process_time()))
        play_local(settings, options, store, config, report, jobs=args.jobs)
    after = os.times()  # the workers have been waited for: their time is counted
    wall = ends[-1][0] - ends[0][0]
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("user", "system", "children_user", "children_system"))
    w = args.window
    print(f"{len(ends) - 1} games, {ends[-1][0] - ends[0][0]:.1f} s")
    for clock, name in ((0, "wall"), (1, "CPU")):
        first = (ends[w][clock] - ends[0][clock]) / w
        last = (ends[-1][clock] - ends[-w - 1][clock]) / w
        print(
            f"{name}: first {w} {first * 1000:.2f} ms a game ({1 / first:.1f} games/s), "
            f"last {w} {last * 1000:.2f} ms ({1 / last:.1f} games/s), last / first {last / first:.2f}"
        )
    if shown:
        p = shown[0]
        print(f"leaders: {', '.join(f'{b} {s:.0f}' for b, s in p.leaders)}")
    games = len(ends) - 1
    print(
        f"whole run, --jobs {args.jobs}: {games / wall:.1f} games/s wall, {cpu:.1f} CPU-s with the workers "
        f"({games / cpu:.1f} games per CPU-second)"
    )


if __name__ == "__main__":
    main()
