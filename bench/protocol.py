"""Protocol overhead: Avalon games per second through the in-memory protocol transport
(referee + SDK bots exchanging real lines) against the pure engine, and where a protocol
game's time goes.

Usage: python bench/protocol.py [--games N] [--bots random|rules] [--players 5,10] [--text]

``--bots random`` (the default) seats the SDK's generic ``Bot``, which answers at random:
the games ``arena simulate --transport protocol`` plays. ``--bots rules`` seats
``arena/bots/avalon_rules_bot.py``'s ``RuleBot``, which reads the game's state before each
decision, as bots that authors train do.

The hub hands each line's reader the message it was formatted from (``LocalHub``);
``--text`` sends every line as text alone, which its reader parses, as over IRC: what the
hand-over saves.

Beside the two rates it prints where a protocol game's time goes, from a second run in
which the referee's and the bots' entry points are timed:

- engine: the same number of random games on the pure engine (its own rate);
- grammar: formatting and parsing the game's lines as the transport does, each distinct
  line once: the referee formats each of its lines and the bots each distinct answer
  (lines are recorded and sent as text, so no transport can skip that); with ``--text``
  the readers parse them too (bots in one process share a line said to several of them);
- referee: the referee's own work beside those two (routing, requests and deadlines,
  choosing and writing each line);
- bots: the SDK (each bot's view of the game, its requests) and the bots' decisions;
- hub: delivering the lines, parsing excepted.

Times are for one core: the script pins itself to one where it can.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import TimeoutConfig
from arena.core.seeds import derive_seed
from arena.parallel import settle
from arena.games.avalon.options import AvalonOptions
from arena.protocol import Message, parse
from arena.referee.local import LocalHub
from arena.sdk.bot import Bot
from arena.simulate import simulate

BOTS: dict[str, Callable[[int], Bot]] = {
    "random": lambda seed: Bot(seed=seed),
    "rules": lambda seed: RuleBot(seed=seed),
}
"""The bots a table can seat, by ``--bots``: each made from its seed."""


def table(players: int, bots: str, text: bool = False) -> tuple[LocalHub, list[str]]:
    """A hub with ``players`` bots of one kind connected, seeded as ``arena simulate`` seeds
    them; ``text``: lines go as text alone."""
    hub = LocalHub(TimeoutConfig(), messages=not text)
    nicks = [f"{bots}{i + 1}" for i in range(players)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, BOTS[bots](derive_seed(1, "bot", i)))
    return hub, nicks


def play(hub: LocalHub, nicks: list[str], first: int, stop: int) -> list[Any]:
    """Play games ``first`` to ``stop`` (seeds as ``arena simulate`` derives them); their matches."""
    return [hub.play("avalon", nicks, AvalonOptions(), derive_seed(1, "game", i)) for i in range(first, stop)]


def rate(players: int, games: int, bots: str, text: bool = False) -> float:
    """Protocol games per second."""
    if bots == "random" and not text:  # exactly what `arena simulate --transport protocol` runs
        summary = simulate("avalon", players, games, 1, AvalonOptions(), transport="protocol", timeouts=TimeoutConfig())
        return summary.games / summary.seconds
    hub, nicks = table(players, bots, text)
    start = time.perf_counter()
    play(hub, nicks, 0, games)
    return games / (time.perf_counter() - start)


def timed_split(
    players: int, games: int, bots: str, text: bool = False
) -> tuple[float, dict[str, float], list[Any], list[list[str]]]:
    """Play ``games`` games with the referee's and the bots' entry points timed: the
    seconds of the whole run, the seconds spent in each side, the matches and, per game,
    the lines the bots sent."""
    hub, nicks = table(players, bots, text)
    spent: dict[str, float] = {"referee": 0.0, "bots": 0.0}
    clock = time.perf_counter

    inside: set[str] = set()

    def timed(side: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if side in inside:  # (``feed`` hands its line to ``receive``: counted once)
                return call(*args, **kwargs)
            inside.add(side)
            start = clock()
            try:
                return call(*args, **kwargs)
            finally:
                spent[side] += clock() - start
                inside.discard(side)

        return run

    answers: list[str] = []
    on_message = hub.referee.on_message

    def heard(
        sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        answers.append(text)
        on_message(sender, target, text, now, account, msg)

    referee = hub.referee
    referee.on_message = timed("referee", heard)  # type: ignore[method-assign]
    referee.start_game = timed("referee", referee.start_game)  # type: ignore[method-assign]
    referee.poll = timed("referee", referee.poll)  # type: ignore[method-assign]
    for session in hub.sessions.values():
        for name in ("replies", "feed", "chat"):
            setattr(session, name, timed("bots", getattr(session, name)))
    matches, sent = [], []
    start = clock()
    for i in range(games):
        before = len(answers)
        matches += play(hub, nicks, i, i + 1)
        sent.append(answers[before:])
    return clock() - start, spent, matches, sent


def grammar(matches: list[Any], sent: list[list[str]], text: bool = False) -> dict[str, float]:
    """Seconds each side spends on the grammar, as the transport uses it: the referee
    formats each of its lines and the bots each distinct answer. With ``text`` the readers
    parse them too: the referee each distinct answer, the bots each distinct private line,
    the hub each channel line (once for all its bots)."""
    work: dict[str, list[tuple[Callable[[Any], Any], Any]]] = {"referee": [], "bots": [], "hub": []}
    for match, answers in zip(matches, sent):
        mine = [parse(line) for _, line in match.transcript]  # the messages the referee formatted
        work["referee"] += [(_format, msg) for msg in mine]
        work["bots"] += [(_format, parse(line)) for line in dict.fromkeys(answers)]
        if text:
            work["referee"] += [(parse, line) for line in dict.fromkeys(answers)]
            private = dict.fromkeys(line for to, line in match.transcript if to is not None)
            work["bots"] += [(parse, line) for line in private]
            work["hub"] += [(parse, line) for to, line in match.transcript if to is None]
    seconds = {}
    for side, calls in work.items():
        start = time.perf_counter()
        for call, arg in calls:
            call(arg)
        seconds[side] = time.perf_counter() - start if calls else 0.0
    return seconds


def _format(msg: Message) -> str:
    return msg.format()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--bots", choices=sorted(BOTS), default="random")
    parser.add_argument("--players", default="5,10", help="comma-separated table sizes")
    parser.add_argument("--text", action="store_true", help="send every line as text alone, as over IRC")
    args = parser.parse_args()
    settle()  # as the arena's long-running commands do once they are set up
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    options = AvalonOptions()
    for players in (int(p) for p in args.players.split(",")):
        engine = simulate("avalon", players, args.games * 5, 1, options)
        e_rate = engine.games / engine.seconds
        p_rate = rate(players, args.games, args.bots, args.text)
        print(
            f"avalon {players:2d} players, {args.bots} bots: engine {e_rate:7.0f} games/s, "
            f"protocol {p_rate:6.0f} games/s, ratio {p_rate / e_rate:.2f}"
        )
        sample = max(args.games // 4, 1)
        seconds, spent, matches, sent = timed_split(players, sample, args.bots, args.text)
        lines = sum(len(m.transcript) for m in matches) + sum(len(a) for a in sent)
        total_us = 1e6 / p_rate
        engine_us = 1e6 / e_rate
        per_game = {side: s / sample * 1e6 for side, s in grammar(matches, sent, args.text).items()}
        grammar_us = sum(per_game.values())
        own = {
            "referee": spent["referee"] / sample * 1e6 - engine_us - per_game["referee"],
            "bots": spent["bots"] / sample * 1e6 - per_game["bots"],
            "hub": (seconds - spent["referee"] - spent["bots"]) / sample * 1e6 - per_game["hub"],
        }
        # The timed run is slower (every call through a timer): its split of what is
        # neither engine nor grammar is scaled to the plain run's total.
        rest = total_us - engine_us - grammar_us
        scale = rest / max(sum(own.values()), 1e-9)
        print(f"  per protocol game: {total_us:6.0f} us ({lines / sample:.0f} lines)")
        print(f"    engine  {engine_us:6.0f} us  {engine_us / total_us:4.0%}")
        print(
            f"    grammar {grammar_us:6.0f} us  {grammar_us / total_us:4.0%}  (referee {per_game['referee']:.0f}, "
            f"bots {per_game['bots']:.0f}, hub {per_game['hub']:.0f})"
        )
        for side in ("referee", "bots", "hub"):
            us = own[side] * scale
            print(f"    {side:7s} {us:6.0f} us  {us / total_us:4.0%}")
        print(f"  best ratio the grammar alone allows: {engine_us / (engine_us + grammar_us):.2f}")


if __name__ == "__main__":
    main()
