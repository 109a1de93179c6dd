"""A referee stopped mid-game on a real server, and the next one taking the game up.

The first referee stops without a word to its games (as after a crash or Ctrl-C); the SDK
bots stay connected, see the next referee join the lobby, register again, follow the
RESUME and RESYNC into the game's new channel, and the game goes on to a normal end. (A bot
that never comes back makes the game end aborted, rated for nobody: ``test_abort_irc.py``.)
(``bench/kill_irc.py`` kills a referee process with SIGKILL; this runs in one process.)
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, StoreConfig, TimeoutConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import parse
from arena.referee.recorder import Recorder
from arena.referee.service import RefereeService
from arena.sdk import Bot
from arena.sdk.runner import BotRunner
from arena.store import Store

from .conftest import RawClient, until


class Slow(Bot):
    """Thinks a little: the first referee surely stops mid-game."""

    def decide(self, game, ask):  # type: ignore[no-untyped-def]
        time.sleep(0.05)
        return ask.random(self.rng)


def config_for(server: LocalServer, tmp_path: Path, resume: float) -> Config:
    return Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=server.host, port=server.address.port, lines_per_second=0, max_targets=server.max_targets
        ),
        timeouts=TimeoutConfig(decision=10.0, grace=2.0, resume=resume),
        lobby=LobbyConfig(min_players=5, max_players=5, countdown=0.2, join_timeout=5.0),
        store=StoreConfig(str(tmp_path / "results.db")),
    )


def referee(config: Config, out: dict[str, Any], max_games: int | None = None) -> threading.Thread:
    def serve() -> None:
        with Store(config.store.path) as store:
            service = RefereeService(config, max_games=max_games, key=b"k" * 32, recorder=Recorder(store))
            out["service"] = service
            service.serve()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    until(lambda: "service" in out, 5)
    return thread


def live_steps(path: str) -> int:
    with Store(path) as store:
        return int(store.conn.execute("SELECT COUNT(*) FROM live_actions").fetchone()[0])


def stop_mid_game(config: Config, runners: list[BotRunner]) -> None:
    """Run a referee until its game has taken a dozen answers, then stop it dead."""
    first: dict[str, Any] = {}
    thread = referee(config, first)
    for runner in runners:
        runner.start()
    until(lambda: live_steps(config.store.path) >= 12, 30)
    first["service"].fatal = "stopped for the test"  # the serve loop ends: no END, no record
    thread.join(10)
    assert not thread.is_alive()
    with Store(config.store.path) as store:
        assert (
            store.games.find() == []
            and len(store.live.unfinished(place=first["service"].room.resumed.journal.place)) == 1
        )


def test_a_restarted_referee_takes_up_the_game_and_it_ends_normally(irc_server: LocalServer, tmp_path: Path) -> None:
    config = config_for(irc_server, tmp_path, resume=20.0)
    reactor = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            Slow(seed=i), irc_server.host, irc_server.address.port, f"b{i}", lines_per_second=0, reactor=reactor.reactor
        )
        for i in range(5)
    ]
    watcher = RawClient(irc_server, "watcher")
    watcher.send(b"JOIN #arena\r\n")
    watcher.expect(b"JOIN")
    try:
        stop_mid_game(config, runners)
        second: dict[str, Any] = {}
        thread = referee(config, second, max_games=1)
        resume = parse(watcher.expect(b"RESUME", timeout=10).split(b" :", 1)[1].decode())
        assert resume.args == ("g1",) and resume.get("channel") == "#arena-g1-r1" and resume.get("wait") == "20"
        thread.join(60)
        assert not thread.is_alive(), "the resumed game did not end"
        until(lambda: all(r.session.finished == 1 and not r.session.games for r in runners), 10)
    finally:
        for runner in runners:
            runner.link.close()
        reactor.stop()
        watcher.close()
    with Store(config.store.path) as store:
        (summary,) = store.games.find()
        game = store.games.load(summary.id)
        assert game is not None and game.summary.kind == "ranked" and game.changes["elo"]
        assert game.replay().events == list(game.events)
        assert store.live.unfinished(place=f"{irc_server.host}:{irc_server.port}/#arena") == []
        lines = [line for to, line in game.transcript if to is None]
        assert sum(line.startswith("START ") for line in lines) == 1
        assert sum(line.startswith("RESUME ") for line in lines) == 1
        assert store.ratings.rebuild().exact
