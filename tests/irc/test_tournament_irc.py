"""A tournament refereed over a real IRC server: SDK bots connect, the schedule seats them,
every game is stored with its ratings and announced, and a second run resumes."""

from __future__ import annotations

import threading
from pathlib import Path

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, StoreConfig, TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.irc.link import ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import parse
from arena.sdk import Bot
from arena.sdk.runner import BotRunner
from arena.store import Store
from arena.tournament import Schedule, Settings, play_irc

NICKS = ("rule1", "rule2", "rand1", "rand2", "rand3")


def run(settings: Settings, config: Config, results: list[int]) -> None:
    with Store(config.store.path, config.ratings.systems()) as store:  # SQLite: one thread per connection
        results.append(play_irc(settings, AvalonOptions(), store, config))


def test_an_irc_tournament_stores_rates_and_resumes(irc_server: LocalServer, tmp_path: Path) -> None:
    config = Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=irc_server.host, port=irc_server.address.port, lines_per_second=0, max_targets=irc_server.max_targets
        ),
        timeouts=TimeoutConfig(decision=5.0, grace=1.0),
        lobby=LobbyConfig(countdown=0.2, join_timeout=5.0),
        store=StoreConfig(str(tmp_path / "results.db")),
    )
    settings = Settings(
        id="net",
        game="avalon",
        games=3,
        players=5,
        bots=NICKS,
        options=AvalonOptions().to_dict(),
        transport="irc",
        keep=16,
    )
    reactor = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            RuleBot(seed=i) if nick.startswith("rule") else Bot(seed=i),
            irc_server.host,
            irc_server.address.port,
            nick,
            lines_per_second=0,
            reactor=reactor.reactor,
        )
        for i, nick in enumerate(NICKS)
    ]
    try:
        for runner in runners:
            runner.start()
        for games in (3, 5):  # the second run resumes after the third game
            played: list[int] = []
            thread = threading.Thread(
                target=run, args=(settings.__class__(**{**settings.__dict__, "games": games}), config, played)
            )
            thread.start()
            thread.join(60)
            assert not thread.is_alive(), "the tournament did not finish"
            assert played == [3 if games == 3 else 2]
    finally:
        for runner in runners:
            runner.link.close()
        reactor.stop()
    with Store(config.store.path) as store:
        ids = sorted(g.id for g in store.games.find(limit=100))
        assert ids == [f"net-{i}" for i in range(1, 6)]
        progress = store.tournaments.get("net")
        assert progress is not None and progress[1] == 5
        assert {r.bot for r in store.ratings.leaderboard("avalon", "elo")} == set(NICKS)
        schedule = Schedule(settings, store.tournaments.key("net"))
        for i in range(5):
            game = store.games.load(f"net-{i + 1}")
            assert game is not None
            assert game.summary.nicks == schedule.table(i).seats
            assert game.seed == schedule.table(i).seed and game.deal is None
            assert game.replay().events == list(game.events)
            assert parse(game.transcript[-1][1]).verb == "END"
            assert game.changes["elo"]
