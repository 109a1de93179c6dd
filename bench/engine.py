"""Engine throughput: random legal Avalon, Werewolf and Tuvalon games per second on one core.

Usage: python bench/engine.py [--games N] [--seed S]
Prints games/s for 5- and 10-player Avalon games (default rules, and all optional roles on),
then for Werewolf at 8 and 16 players with each preset (classic: the spec's section 8;
advanced: P1/P2 roles; chaos: a deck drawn per game from every role); then Tuvalon's seven
players (each round adds 21 turns: two discussions and the moves).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.simulate import simulate


def reference_loop() -> float:
    """Seconds for a plain 10-million-step loop: shared virtual machines differ (and vary)
    by 2x or more, so figures from two machines compare only next to this number."""
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, {platform.machine()}, one core; "
        f"reference: a 10M-step Python loop takes {reference_loop():.2f} s here"
    )
    setups = {
        "default (merlin, assassin)": AvalonOptions(),
        "percival, morgana, mordred, lancelot=2": AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=2),
    }
    for label, options in setups.items():
        for players in (5, 10):
            if players == 5 and options.lancelot:
                continue  # five players have too few evil seats for every role
            s = simulate("avalon", players, args.games, args.seed, options)
            print(f"avalon {players:2d} players, {label:40s}: {args.games / s.seconds:8.0f} games/s")
    wolf_games = max(1, args.games // 10)  # a Werewolf game is some ten times longer
    for preset in ("classic", "advanced", "chaos"):
        for players in (8, 16):
            played = simulate("werewolf", players, wolf_games, args.seed, WerewolfOptions(preset=preset))
            print(f"werewolf {players:2d} players, preset {preset:31s}: {wolf_games / played.seconds:8.0f} games/s")
    s = simulate("tuvalon", 7, args.games, args.seed, TuvalonOptions())
    print(f"tuvalon 7 players, {'the fixed table':40s}: {args.games / s.seconds:8.0f} games/s")


if __name__ == "__main__":
    main()
