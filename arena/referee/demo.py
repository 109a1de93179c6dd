"""``arena demo``: a whole arena on this machine, shown as a spectator sees it.

An IRC server on a free loopback port, the referee (this process), sample bots as separate
processes, and a spectator connection that tells the games as the narrated channel does
(``raw``: prints every line of the lobby and of each game's channel, the bots' view).
Everything started here is stopped here.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from collections.abc import Callable

from ..config import Config
from ..core import kit as kits
from ..core.errors import SetupError
from ..core.words import counted
from ..irc.link import IrcLink, LinkSettings, strip_controls
from ..irc.servers import start_server
from ..spectate.spectator import Spectator
from ..protocol import TABLE, ProtocolError, parse
from ..store import Store
from .identity import make_verifier, new_key
from .match import Match
from .recorder import Recorder
from .service import RefereeService

SPECTATOR = "spectator"
"""The nick the demo watches under."""


def demo_config(config: Config, host: str, port: int, players: int, game: str = "avalon") -> Config:
    """The operator's configuration, pointed at the local server and tuned for a quick show."""
    return dataclasses.replace(
        config,
        server=dataclasses.replace(
            config.server,
            host=host,
            port=port,
            tls=False,
            password=None,
            sasl_account=None,
            sasl_password=None,
            lines_per_second=0,
        ),
        lobby=dataclasses.replace(
            config.lobby,
            game=game,
            auto_start=True,
            min_players=players,
            max_players=players,
            countdown=0.5,
            join_timeout=10.0,
        ),
    )


def run_demo(
    config: Config,
    games: int,
    players: int,
    server: str,
    echo: Callable[[str], None],
    timeout: float = 300.0,
    game: str = "avalon",
    raw: bool = False,
    color: bool = False,
) -> list[Match]:
    """Play ``games`` games of ``game`` between ``players`` sample bots, told to ``echo`` in
    sentences (``color``: with ANSI colours), or line by line if ``raw``; returns the
    finished matches."""
    finished: list[Match] = []
    # Results go to a throwaway database: the show has ratings, the operator's store stays clean.
    with (
        start_server(server) as (host, port),
        tempfile.TemporaryDirectory() as scratch,
        Store(Path(scratch) / "demo.db", config.ratings.systems()) as store,
    ):
        cfg = demo_config(config, host, port, players, game)
        sample = kits.find(game).demo
        if sample is None:
            raise SetupError(f"{game} has no sample bots to show")
        rule_bot, random_bot = sample
        service = RefereeService(
            cfg, max_games=games, on_game_end=finished.append, recorder=Recorder(store), watchers=[SPECTATOR]
        )  # it tells each game from its START
        referee = cfg.server.nick
        lobby = cfg.server.channel

        gone: list[BrokenPipeError] = []
        """Set when nobody reads the output any more (``arena demo | head``): the demo then
        ends, from its own loop, since an IRC callback's exceptions stay in the link."""

        def tell(text: str) -> None:
            if not gone:
                try:
                    echo(text)
                except BrokenPipeError as exc:
                    gone.append(exc)

        def show(sender: str, target: str, text: str) -> None:
            if target.startswith(("#", "&")):
                tell(f"{target:<12} <{sender}> {strip_controls(text)}")  # nothing for the terminal to obey
            if sender.lower() == referee.lower() and text.startswith(TABLE):
                try:
                    channel = parse(text).get("channel")
                except ProtocolError:
                    return
                if channel:
                    spectator.join(channel)

        spectator = IrcLink(
            host,
            port,
            SPECTATOR,
            LinkSettings(lines_per_second=0),
            channels=[lobby],
            reactor=service.reactor,
            on_message=show,
        )
        teller = Spectator(
            cfg.server,
            SPECTATOR,
            lambda s: tell(s.ansi() if color else s.plain()),
            lines_per_second=0,
            reactor=service.reactor,
        )
        if raw:
            spectator.connect()
        else:
            teller.start()
        bots = []
        try:
            for i in range(players):
                module = rule_bot if i < (players + 1) // 2 else random_bot
                nick = f"{'rule' if module == rule_bot else 'rand'}{i + 1}"
                key = new_key()  # each sample bot proves itself as a real one would, with its own key
                store.bots.add(nick, "arena", make_verifier(key), None, time.time())
                bots.append(
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            module,
                            "--server",
                            f"{host}:{port}",
                            "--nick",
                            nick,
                            "--referee",
                            referee,
                            "--channel",
                            lobby,
                            "--rate",
                            "0",
                            "--games",
                            str(games),
                            "--seed",
                            str(i),
                        ],
                        stdin=subprocess.DEVNULL,
                        env={**os.environ, "ARENA_KEY": key},
                    )
                )
            service.start()
            deadline = time.monotonic() + timeout
            while not service.done:
                if gone:
                    raise gone[0]
                if time.monotonic() > deadline:
                    raise TimeoutError(f"the demo did not finish {counted(games, 'game')} in {timeout:.0f} s")
                if service.fatal:
                    raise RuntimeError(service.fatal)
                service.turn(0.05)
            end = time.monotonic() + 2
            while time.monotonic() < end and (service.link.queued or any(b.poll() is None for b in bots)):
                service.turn(0.05)
        finally:
            if raw:
                spectator.close()
            else:
                teller.close()
            service.link.close("demo over")
            for bot in bots:
                if bot.poll() is None:
                    bot.terminate()
            for bot in bots:
                try:
                    bot.wait(5)
                except subprocess.TimeoutExpired:
                    bot.kill()
    return finished


def summary(matches: list[Match]) -> list[str]:
    lines = []
    wins: Counter[str] = Counter()
    played: Counter[str] = Counter()
    for match in matches:
        result = match.game.result
        assert result is not None
        lines.append(f"{match.gid}: {result.winner or 'nobody'} won ({result.reason})")
        for seat, nick in enumerate(match.bots or match.names):
            played[nick] += 1
            wins[nick] += seat in result.winners
    lines.append("bot          wins / games")
    for nick in sorted(played, key=lambda n: (-wins[n] / played[n], n)):
        lines.append(f"{nick:<12} {wins[nick]:>4} / {played[nick]}")
    return lines
