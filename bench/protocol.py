"""Protocol overhead: random Avalon games per second through the in-memory protocol
transport (referee + SDK bots exchanging real lines) against the pure engine.

Usage: python bench/protocol.py [--games N]

Beside the two rates it prints where a protocol game's time goes: the engine's share, the
grammar's share (formatting and parsing each of the game's lines exactly once, which no
line protocol can skip), and the rest (the referee's bookkeeping, the SDK, the hub).
"""

from __future__ import annotations

import argparse
import os
import time

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.protocol import parse
from arena.referee.local import LocalHub
from arena.sdk.bot import Bot
from arena.simulate import simulate


def game_lines(players: int, games: int) -> list[str]:
    """Every line of ``games`` random games: what the referee sent and what bots answered."""
    hub = LocalHub(TimeoutConfig())
    nicks = [f"bot{i}" for i in range(players)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(i))
    answers: list[str] = []
    on_message = hub.referee.on_message

    def heard(sender: str, target: str, text: str, now: float, account: str | None = None) -> None:
        answers.append(text)
        on_message(sender, target, text, now, account)

    hub.referee.on_message = heard  # type: ignore[method-assign]
    lines: list[str] = []
    for seed in range(games):
        match = hub.play("avalon", nicks, AvalonOptions(), seed)
        lines += [line for _, line in match.transcript]
    return lines + answers


def grammar_seconds(lines: list[str]) -> float:
    """Seconds to parse every line once and format it back once."""
    start = time.perf_counter()
    for line in lines:
        parse(line).format()
    return time.perf_counter() - start


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
        sample = max(args.games // 4, 1)
        lines = game_lines(players, sample)
        engine_us = 1e6 / e_rate
        grammar_us = grammar_seconds(lines) / sample * 1e6
        total_us = 1e6 / p_rate
        print(f"  per protocol game: {total_us:6.0f} us = engine {engine_us:4.0f} + grammar {grammar_us:4.0f} "
              f"({len(lines) / sample:.0f} lines parsed and formatted once) + referee, SDK and hub "
              f"{total_us - engine_us - grammar_us:5.0f}")
        print(f"  best ratio the grammar alone allows: {engine_us / (engine_us + grammar_us):.2f}")


if __name__ == "__main__":
    main()
