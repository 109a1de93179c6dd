"""Every game ends cleanly when nobody is at fault, over a real server: an operator's
``!stop`` and a restart that a bot never comes back to both say ``END … reason=aborted``,
free the bots, and leave the lobby playing. (A Tuvalon abort once raised while formatting
its END: the game hung with its bots seated, and a restart crashed on every start.)"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, StoreConfig, TimeoutConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import parse
from arena.referee.recorder import Recorder
from arena.referee.service import RefereeService
from arena.sdk import Ask, Bot, GameView
from arena.sdk.runner import BotRunner
from arena.store import Store

from .conftest import RawClient, until
from .test_restart_irc import Slow, referee, stop_mid_game

SEATS = {"avalon": 5, "werewolf": 8, "tuvalon": 7}
ON_NGIRCD = pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)  # where the defect was seen


def config_for(server: LocalServer, tmp_path: Path, game: str, resume: float = 60.0) -> Config:
    seats = SEATS[game]
    return Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=server.host, port=server.address.port, lines_per_second=0, max_targets=server.max_targets
        ),
        timeouts=TimeoutConfig(decision=30.0, grace=2.0, resume=resume),
        lobby=LobbyConfig(
            game=game, min_players=seats, max_players=seats, countdown=0.2, join_timeout=10.0, operators=("boss",)
        ),
        store=StoreConfig(str(tmp_path / "results.db")),
    )


def _ends(transcript: Any) -> list[str]:
    return [line for to, line in transcript if to is None and line.startswith("END ")]


@ON_NGIRCD
@pytest.mark.parametrize("game", sorted(SEATS))
def test_an_operators_stop_ends_the_game_aborted_and_the_lobby_goes_on(
    irc_server: LocalServer, tmp_path: Path, game: str
) -> None:
    config = config_for(irc_server, tmp_path, game)
    release = threading.Event()

    class Stalling(Bot):
        """Holds its first decision until the operator has stopped the game, then plays on."""

        def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
            release.wait(60)
            return ask.random(self.rng)

    out: dict[str, Any] = {}

    def serve() -> None:
        with Store(config.store.path) as store:
            service = RefereeService(config, max_games=2, key=b"k" * 32, recorder=Recorder(store))
            out["service"] = service
            service.serve()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    boss = RawClient(irc_server, "boss")
    boss.send(b"JOIN #arena\r\n")
    boss.expect(b"JOIN")
    reactor = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            Stalling(seed=i),
            irc_server.host,
            irc_server.address.port,
            f"s{i}",
            lines_per_second=0,
            reactor=reactor.reactor,
        )
        for i in range(SEATS[game])
    ]
    try:
        for runner in runners:
            runner.start()
        gid = parse(boss.expect(b"TABLE", timeout=20).split(b" :", 1)[1].decode()).args[0]
        until(lambda: gid in out["service"].referee.matches, 20)
        boss.send(f"PRIVMSG #arena :!stop {gid}\r\n".encode())
        until(lambda: all(r.session.finished == 1 for r in runners), 20)  # every bot heard END
        release.set()
        thread.join(120)
        assert not thread.is_alive(), "the lobby did not go on to a second game"
        assert out["service"].fatal is None
    finally:
        release.set()
        for runner in runners:
            runner.link.close()
        reactor.stop()
        boss.close()
    with Store(config.store.path) as store:
        stopped, after = (store.games.load(s.id) for s in sorted(store.games.find(), key=lambda s: s.id))
        assert stopped is not None and after is not None
        assert stopped.summary.kind == "aborted" and stopped.summary.reason == "stopped by boss"
        assert {o.result for o in stopped.outcomes} == {"aborted"} and not stopped.changes.get("elo")
        (end,) = _ends(stopped.transcript)
        assert parse(end).get("reason") == "aborted" and parse(end).get("winner") == "none"
        assert after.summary.kind == "ranked" and len(_ends(after.transcript)) == 1
        assert store.live.unfinished(place=f"{irc_server.host}:{irc_server.port}/#arena") == []


@ON_NGIRCD
@pytest.mark.parametrize("game", sorted(SEATS))
def test_a_restart_that_a_bot_never_returns_to_aborts_cleanly(
    irc_server: LocalServer, tmp_path: Path, game: str
) -> None:
    config = config_for(irc_server, tmp_path, game, resume=1.5)
    reactor = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            Slow(seed=i), irc_server.host, irc_server.address.port, f"b{i}", lines_per_second=0, reactor=reactor.reactor
        )
        for i in range(SEATS[game])
    ]
    try:
        stop_mid_game(config, runners)
        runners[3].link.close()  # b3 is gone for good
        until(lambda: runners[3].link.is_closed, 5)
        second: dict[str, Any] = {}
        thread = referee(config, second, max_games=1)
        thread.join(60)
        assert not thread.is_alive(), "the game was not aborted"
        assert second["service"].fatal is None
        until(lambda: all(r.session.finished == 1 for i, r in enumerate(runners) if i != 3), 10)
    finally:
        for runner in runners:
            runner.link.close()
        reactor.stop()
    with Store(config.store.path) as store:
        (summary,) = store.games.find()
        assert summary.kind == "aborted"
        assert summary.reason == "the referee restarted and b3 did not come back within 2 s"
        stored = store.games.load(summary.id)
        assert stored is not None
        (end,) = _ends(stored.transcript)
        assert parse(end).get("reason") == "aborted"
        assert store.ratings.leaderboard(game, "elo") == []
        assert store.live.unfinished(place=f"{irc_server.host}:{irc_server.port}/#arena") == []
