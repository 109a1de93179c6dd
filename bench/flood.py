"""A flooded referee on ngircd with its default flood penalties: do honest bots still play?

Five rule-based SDK bots play one Avalon game against the referee at 2 lines/s (the rate
ngircd's penalties allow). With ``--flood``, three strangers send the referee a garbage
direct message twice a second each, and one of the seated bots does the same with stale
answers (each a refusal its game records). Prints the game's seconds, who forfeited, the
referee's dropped replies and what the stored transcript kept. Run it with and without
``--flood`` (``--both`` does) to compare.

Usage: python bench/flood.py [--both | --flood] [--rate LINES_PER_SECOND] [--flood-rate LINES_PER_SECOND]
"""

from __future__ import annotations

import argparse
import threading
import time
from dataclasses import dataclass

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig
from arena.irc.link import IrcLink, LinkSettings, ReactorThread
from arena.irc.servers import MAX_TARGETS, start_server
from arena.referee.match import Match
from arena.referee.service import RefereeService
from arena.sdk.runner import BotRunner

PLAYERS = 5
STRANGERS = 3
FLOODER = "bot4"
"""The seated bot that floods as well as plays."""


@dataclass(frozen=True)
class Figures:
    seconds: float
    """From the game's start to its end (registration and the lobby excluded)."""
    forfeited: str | None
    referee_lines: int
    replies_dropped: int
    """Replies the referee's per-sender budget or its link's reply queue dropped."""
    transcript_lines: int
    flood_lines: int
    """Lines the flooders had sent when the game ended."""


def play(*, flood: bool, rate: float = 2.0, flood_rate: float = 2.0, timeout: float = 120.0) -> Figures:
    """One game on a fresh ngircd with default flood penalties; the same game every run."""
    with start_server("ngircd", flood_penalties=True) as (host, port):
        config = Config(
            identity=IdentityConfig(require_key=False),
            server=ServerConfig(host=host, port=port, lines_per_second=rate, max_targets=MAX_TARGETS["ngircd"]),
            lobby=LobbyConfig(min_players=PLAYERS, max_players=PLAYERS, countdown=0.0, join_timeout=10.0),
        )
        started: list[float] = []
        ended: list[tuple[float, Match]] = []
        service = RefereeService(
            config, max_games=1, key=bytes(32), on_game_end=lambda m: ended.append((time.monotonic(), m))
        )
        service.referee.on_game_start.append(lambda m: started.append(time.monotonic()))
        clients = ReactorThread(tick=0.01).start()
        runners = [
            BotRunner(
                RuleBot(seed=i),
                host,
                port,
                f"bot{i}",
                reactor=clients.reactor,
                lines_per_second=0 if f"bot{i}" == FLOODER else rate,
            )
            for i in range(PLAYERS)
        ]
        strangers = (
            [
                IrcLink(host, port, f"stranger{i}", LinkSettings(lines_per_second=flood_rate), reactor=clients.reactor)
                for i in range(STRANGERS)
            ]
            if flood
            else []
        )
        for link in strangers:
            link.connect()
        for runner in runners:
            runner.start()
        stop = threading.Event()
        sent = [0]

        def flood_loop() -> None:
            flooder = next(r for r in runners if r.link.preferred_nick == FLOODER).link
            while not stop.wait(1 / flood_rate):
                for link in strangers:
                    link.send(config.server.nick, f"garbage {sent[0]} from a stranger")
                if started:  # refusals the game must count: answers to a request never issued
                    flooder.send(config.server.nick, f"ANSWER g1 {999000 + sent[0] % 1000} approve")
                sent[0] += 1

        flooding = threading.Thread(target=flood_loop, daemon=True)
        if flood:
            flooding.start()
        thread = threading.Thread(target=service.serve, kwargs={"tick": 0.01}, daemon=True)
        thread.start()
        thread.join(timeout)
        stop.set()
        for link in strangers:
            link.close()
        clients.stop()
        assert ended and started, f"the game did not end in {timeout} s"
        end, match = ended[0]
        result = match.game.result
        assert result is not None
        forfeited = None if result.forfeited is None else match.names[result.forfeited]
        return Figures(
            end - started[0],
            forfeited,
            service.link.sent_messages,
            service.referee.budget.dropped + service.link.replies_dropped if service.referee.budget else 0,
            len(match.transcript),
            sent[0],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", action="store_true", help="strangers and a seated bot flood the referee")
    parser.add_argument("--both", action="store_true", help="one game without the flood, then one with it")
    parser.add_argument("--rate", type=float, default=2.0, help="referee and bot lines per second")
    parser.add_argument("--flood-rate", type=float, default=2.0, help="lines per second of each flooder")
    args = parser.parse_args()
    for flood in (False, True) if args.both else (args.flood,):
        f = play(flood=flood, rate=args.rate, flood_rate=args.flood_rate)
        print(
            f"{'flooded' if flood else 'quiet'}: {f.seconds:.1f} s, forfeit {f.forfeited or 'none'}, "
            f"{f.referee_lines} referee lines, {f.replies_dropped} replies dropped, "
            f"{f.flood_lines} flood rounds, transcript {f.transcript_lines} lines"
        )


if __name__ == "__main__":
    main()
