"""Protocol overhead: random Avalon games per second through the in-memory protocol
transport (referee + SDK bots exchanging real lines) against the pure engine.

Usage: python bench/protocol.py [--games N]
"""

from __future__ import annotations

import argparse
import os

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    options = AvalonOptions()
    for players in (5, 10):
        engine = simulate("avalon", players, args.games * 5, 1, options)
        proto = simulate("avalon", players, args.games, 1, options, transport="protocol", timeouts=TimeoutConfig())
        e_rate = engine.games / engine.seconds
        p_rate = proto.games / proto.seconds
        print(f"avalon {players:2d} players: engine {e_rate:7.0f} games/s, protocol {p_rate:6.0f} games/s, "
              f"ratio {p_rate / e_rate:.2f}")


if __name__ == "__main__":
    main()
