"""Avalon (or Tuvalon) over a real IRC server on 127.0.0.1: seconds per game and referee lines per game.

Ten rule-based SDK bots (seven for ``--game tuvalon``) (one reactor thread) and the referee service (another thread)
play on a local ngircd or the embedded server. With ``--penalties`` ngircd's default flood
penalties are on and the referee keeps the configured outgoing rate (lines per game then
decide the time). Lines are counted as the referee's link writes them: a direct message
to several nicks at once (``PRIVMSG a,b :...``, where the server takes it) is one line, and
so is a bundled line of several channel messages (protocol 2, which the SDK's bots speak).
With ``--store`` the referee keeps results in a scratch store, as ``arena serve`` does:
every step of a game is written ahead to it before its lines go out, and every game is
recorded and rated. With ``--narrator`` the narrator of ``arena serve`` tells the games in a
spectators' channel, on a connection and in a process of its own, as ``narrator.channel`` makes
it (measure with and without, alternating runs: it must cost the referee nothing). ``--watch``
adds a spectator: the web view (``arena web``) reading that store, ten times a second, the page
of every game in progress and the list of games, as ten browsers on live pages would, so its
cost to the referee shows. ``--kinds`` prints the referee's lines per game by kind: the verb (an
``ASK`` with its request kind) and where it went (the channel, a DM to one nick, or one line to
several nicks).

Usage: python bench/irc_games.py [--server ngircd|embedded] [--game avalon|tuvalon] [--games N] [--players P]
                                 [--penalties] [--rate LINES_PER_SECOND] [--store [--watch]]
                                 [--narrator] [--kinds]
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, NarratorConfig, ServerConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import MAX_TARGETS, start_server
from arena.irc.writer import Entry
from arena.protocol import unbundle
from arena.spectate.service import narrating
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.referee.service import RefereeService
from arena.sdk.runner import BotRunner
from arena.store import Store


def watch(path: str, ready: Any, stop: Any, reads: Any) -> None:
    """A spectator, in a process of its own as ``arena web`` is: ten browsers on the page
    of every game in progress (each reads it once a second) and one on the list of games.
    ``ready`` is set once it reads (imports and store done), before the games start."""
    from arena.web import create_app

    client = create_app(path).test_client()
    with Store(path) as store:
        client.get("/")
        ready.set()
        rounds = 0
        while not stop.is_set():
            for live in store.live.all():
                client.get(f"/games/{live.id}/body")
                reads.value += 1
            if rounds % 10 == 0:
                client.get("/")
                reads.value += 1
            rounds += 1
            time.sleep(0.1)


def kind_of(line: str) -> str | None:
    """A referee line's kind for ``--kinds``: its verb (an ``ASK`` with the request's kind;
    several for a bundled line, joined by " + ") and where it went; None for a line that is
    no message (JOIN, MODE, ...)."""
    command, _, rest = line.partition(" ")
    if command != "PRIVMSG":
        return None
    target, _, text = rest.partition(" :")
    verbs = []
    for message in unbundle(text):
        words = message.split(" ", 4)
        verbs.append(f"{words[0]} {words[3]}" if words[0] == "ASK" and len(words) > 3 else words[0])
    verb = " + ".join(verbs)
    where = "channel" if target.startswith("#") else "several" if "," in target else "dm"
    return f"{verb} ({where})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("ngircd", "embedded"), default="ngircd")
    parser.add_argument("--game", choices=("avalon", "tuvalon"), default="avalon")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--penalties", action="store_true", help="ngircd's default flood penalties on")
    parser.add_argument("--rate", type=float, default=0.0, help="referee lines per second (0: unlimited)")
    parser.add_argument("--store", action="store_true", help="write ahead and record every game, as arena serve does")
    parser.add_argument("--narrator", action="store_true", help="narrate the games in #arena-live, as arena serve does")
    parser.add_argument(
        "--watch", action="store_true", help="with --store: the web view reads every game in progress 10 times a second"
    )
    parser.add_argument("--kinds", action="store_true", help="print the referee's lines per game by verb and target")
    args = parser.parse_args()
    if args.watch and not args.store:
        parser.error("--watch needs --store (it reads the games the referee writes there)")
    bot_class: type[RuleBot] = RuleBot
    if args.game == "tuvalon":
        args.players, bot_class = 7, TuvalonRuleBot
    options = {"flood_penalties": True} if args.penalties else {}
    with start_server(args.server, **options) as (host, port):
        config = Config(
            # Names alone: bots register once, so keys would change nothing per game.
            identity=IdentityConfig(require_key=False),
            server=ServerConfig(host=host, port=port, lines_per_second=args.rate, max_targets=MAX_TARGETS[args.server]),
            lobby=LobbyConfig(
                game=args.game, min_players=args.players, max_players=args.players, countdown=0.0, join_timeout=10.0
            ),
            narrator=NarratorConfig(channel="#arena-live" if args.narrator else None, lines_per_second=0),
        )
        marks: list[float] = []
        sent: list[int] = []
        matches: list[Match] = []
        kinds: Counter[str] = Counter()

        def ended(match: Match) -> None:
            matches.append(match)
            marks.append(time.monotonic())
            sent.append(services[0].link.sent_messages)

        services: list[RefereeService] = []

        def serve(store: Store | None) -> None:
            services.append(
                RefereeService(
                    config,
                    max_games=args.games,
                    key=bytes(32),
                    on_game_end=ended,  # the same
                    recorder=None if store is None else Recorder(store),
                )
            )  # games every run
            if args.kinds:
                writer = services[0].link.outbox.writer
                add = writer.add

                def counted(line: str, entry: Entry) -> None:
                    kind = kind_of(line)
                    if kind is not None and matches:  # from the first END on, as ``lines`` counts
                        kinds[kind] += 1
                    add(line, entry)

                writer.add = counted  # type: ignore[method-assign]
            services[0].serve(tick=0.01)

        scratch = tempfile.TemporaryDirectory()
        path = Path(scratch.name) / "results.db"
        spawn = multiprocessing.get_context("spawn")
        stop, ready = spawn.Event(), spawn.Event()

        def run() -> None:
            if not args.store:
                serve(None)
                return
            with Store(path) as store:
                serve(store)  # a store is used by the thread that opened it

        bots = ReactorThread(tick=0.01).start()
        runners = [
            BotRunner(bot_class(seed=i), host, port, f"bot{i}", lines_per_second=args.rate, reactor=bots.reactor)
            for i in range(args.players)
        ]
        for runner in runners:
            runner.start()
        thread = threading.Thread(target=run, daemon=True)
        reads = spawn.Value("i", 0)
        watcher = spawn.Process(target=watch, args=(str(path), ready, stop, reads), daemon=True)
        if args.watch:
            Store(path).close()  # the store exists before the spectator opens it
            watcher.start()
            ready.wait()
        with narrating(config.server, config.narrator):  # in its own process, as arena serve runs it
            start = time.monotonic()
            thread.start()
            thread.join()
        if args.watch:
            stop.set()
            watcher.join()
        bots.stop()
        scratch.cleanup()
    starts = [start] + marks[:-1]
    # The first game includes registration and the lobby countdown; report the rest.
    durations = [b - a for a, b in zip(starts, marks)][1:] or [marks[0] - start]
    # From one END to the next: the lobby's TABLE, then the whole next game.
    lines = [b - a for a, b in zip(sent, sent[1:])] or sent
    print(
        f"{args.server}{' with flood penalties' if args.penalties else ''}, referee rate "
        f"{args.rate or 'unlimited'}{', results stored' if args.store else ''}"
        f"{', narrated' if args.narrator else ''}"
        f"{f', watched ({reads.value} pages read)' if args.watch else ''}: {len(matches)} games of "
        f"{args.players} players"
    )
    print(
        f"  seconds per game: mean {statistics.mean(durations):.3f}, median {statistics.median(durations):.3f}, "
        f"max {max(durations):.3f}"
    )
    print(
        f"  referee lines per game: mean {statistics.mean(lines):.1f}, median {statistics.median(lines)}, "
        f"max {max(lines)}"
    )
    if args.kinds:
        games = max(1, len(matches) - 1)
        for kind, n in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
            print(f"    {n / games:7.2f}  {kind}")


if __name__ == "__main__":
    main()
