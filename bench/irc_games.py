"""Avalon over a real IRC server on 127.0.0.1: seconds per game and referee lines per game.

Ten rule-based SDK bots (one reactor thread) and the referee service (another thread)
play on a local ngircd or the embedded server. With ``--penalties`` ngircd's default flood
penalties are on and the referee keeps the configured outgoing rate (lines per game then
decide the time). Lines are counted as the referee's link writes them: a direct message
to several nicks at once (``PRIVMSG a,b :...``, where the server takes it) is one line.
With ``--store`` the referee keeps results in a scratch store, as ``arena serve`` does:
every step of a game is written ahead to it before its lines go out, and every game is
recorded and rated. With ``--narrator`` the narrator of ``arena serve`` tells the games in a
spectators' channel, on a connection and in a process of its own, as ``narrator.channel`` makes
it (measure with and without, alternating runs: it must cost the referee nothing).

Usage: python bench/irc_games.py [--server ngircd|embedded] [--games N] [--players P]
                                 [--penalties] [--rate LINES_PER_SECOND] [--store] [--narrator]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, NarratorConfig, ServerConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import MAX_TARGETS, start_server
from arena.narrate.service import narrating
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.referee.service import RefereeService
from arena.sdk.runner import BotRunner
from arena.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("ngircd", "embedded"), default="ngircd")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--penalties", action="store_true", help="ngircd's default flood penalties on")
    parser.add_argument("--rate", type=float, default=0.0, help="referee lines per second (0: unlimited)")
    parser.add_argument("--store", action="store_true", help="write ahead and record every game, as arena serve does")
    parser.add_argument("--narrator", action="store_true", help="narrate the games in #arena-live, as arena serve does")
    args = parser.parse_args()
    options = {"flood_penalties": True} if args.penalties else {}
    with start_server(args.server, **options) as (host, port):
        config = Config(
            # Names alone: bots register once, so keys would change nothing per game.
            identity=IdentityConfig(require_key=False),
            server=ServerConfig(host=host, port=port, lines_per_second=args.rate, max_targets=MAX_TARGETS[args.server]),
            lobby=LobbyConfig(min_players=args.players, max_players=args.players, countdown=0.0, join_timeout=10.0),
            narrator=NarratorConfig(channel="#arena-live" if args.narrator else None, lines_per_second=0),
        )
        marks: list[float] = []
        sent: list[int] = []
        matches: list[Match] = []

        def ended(match: Match) -> None:
            matches.append(match)
            marks.append(time.monotonic())
            sent.append(services[0].link.sent_messages)

        services: list[RefereeService] = []

        def serve(store: Store | None) -> None:
            services.append(RefereeService(config, max_games=args.games, key=bytes(32), on_game_end=ended,  # the same
                                           recorder=None if store is None else Recorder(store)))  # games every run
            services[0].serve(tick=0.01)

        def run() -> None:
            if not args.store:
                serve(None)
                return
            with tempfile.TemporaryDirectory() as scratch, Store(Path(scratch) / "results.db") as store:
                serve(store)  # a store is used by the thread that opened it

        bots = ReactorThread(tick=0.01).start()
        runners = [BotRunner(RuleBot(seed=i), host, port, f"bot{i}", lines_per_second=args.rate,
                             reactor=bots.reactor) for i in range(args.players)]
        for runner in runners:
            runner.start()
        thread = threading.Thread(target=run, daemon=True)
        with narrating(config.server, config.narrator):  # in its own process, as arena serve runs it
            start = time.monotonic()
            thread.start()
            thread.join()
        bots.stop()
    starts = [start] + marks[:-1]
    # The first game includes registration and the lobby countdown; report the rest.
    durations = [b - a for a, b in zip(starts, marks)][1:] or [marks[0] - start]
    # From one END to the next: the lobby's TABLE, then the whole next game.
    lines = [b - a for a, b in zip(sent, sent[1:])] or sent
    print(f"{args.server}{' with flood penalties' if args.penalties else ''}, referee rate "
          f"{args.rate or 'unlimited'}{', results stored' if args.store else ''}"
          f"{', narrated' if args.narrator else ''}: {len(matches)} games of {args.players} players")
    print(f"  seconds per game: mean {statistics.mean(durations):.3f}, median {statistics.median(durations):.3f}, "
          f"max {max(durations):.3f}")
    print(f"  referee lines per game: mean {statistics.mean(lines):.1f}, median {statistics.median(lines)}, "
          f"max {max(lines)}")


if __name__ == "__main__":
    main()
