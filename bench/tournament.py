"""Cost per game of a local tournament as it grows: the first games against the last ones.

Usage: python bench/tournament.py [--games N] [--bots B] [--players P] [--window W]

Plays a local tournament (``play_local``, the code behind ``arena tournament --transport
local``, virtual clock) of N Avalon games between B rule bots, P seats a game, into a
scratch store, with a progress callback that asks for the leaders after every game as the
CLI does; prints the milliseconds per game of the first W and the last W games, and the
games/s each amounts to. The machine may be busy: the ratio of the two is the figure (a
cost per game that grows with the tournament shows as a ratio above 1).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from arena.config import load_config
from arena.games import GAMES
from arena.store import Store
from arena.tournament import Progress, Settings, play_local


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--bots", type=int, default=7)
    ap.add_argument("--players", type=int, default=5)
    ap.add_argument("--window", type=int, default=200)
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
    ends: list[float] = []
    shown: list[Progress] = []

    def report(p: Progress) -> None:
        ends.append(time.perf_counter())
        shown[:] = [p]

    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "results.db") as store:
        start = time.perf_counter()
        play_local(settings, options, store, config, report)
    w = args.window
    first = (ends[w - 1] - start) / w
    last = (ends[-1] - ends[-w - 1]) / w
    print(f"{len(ends)} games, {ends[-1] - start:.1f} s")
    print(f"first {w}: {first * 1000:.2f} ms a game ({1 / first:.1f} games/s)")
    print(f"last {w}: {last * 1000:.2f} ms a game ({1 / last:.1f} games/s)")
    print(f"last / first: {last / first:.2f}")
    if shown:
        p = shown[0]
        print(f"leaders: {', '.join(f'{b} {s:.0f}' for b, s in p.leaders)}")


if __name__ == "__main__":
    main()
