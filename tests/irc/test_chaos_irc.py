"""A short tournament of 16-player chaos Werewolf over a real IRC server: each game deals a
deck drawn from every role, is played to its end by SDK bots with nobody forfeiting, and
is stored so that it replays from its seed."""

from __future__ import annotations

import threading
from pathlib import Path

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, StoreConfig, TimeoutConfig
from arena.games.werewolf.options import WerewolfOptions
from arena.irc.link import ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import parse
from arena.sdk import Bot
from arena.sdk.runner import BotRunner
from arena.store import Store
from arena.tournament import Settings, play_irc

NICKS = tuple(f"rule{i}" for i in range(12)) + tuple(f"rand{i}" for i in range(4))
GAMES = 6
OPTIONS = WerewolfOptions(preset="chaos", nightActionTime=5, discussionTime=80, voteTime=5, lastWordsTime=5)


def run(settings: Settings, config: Config, results: list[int]) -> None:
    with Store(config.store.path, config.ratings.systems()) as store:  # SQLite: one thread per connection
        results.append(play_irc(settings, OPTIONS, store, config))


def test_chaos_games_play_out_over_irc(irc_server: LocalServer, tmp_path: Path) -> None:
    config = Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=irc_server.host, port=irc_server.address.port, lines_per_second=0, max_targets=irc_server.max_targets
        ),
        timeouts=TimeoutConfig(decision=5.0, grace=1.0, night_step=0.1),
        lobby=LobbyConfig(countdown=0.2, join_timeout=5.0, max_players=16),
        store=StoreConfig(str(tmp_path / "results.db")),
    )
    settings = Settings(
        id="chaos",
        game="werewolf",
        games=GAMES,
        players=16,
        bots=NICKS,
        options=OPTIONS.to_dict(),
        transport="irc",
        keep=16,
    )
    reactor = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            WerewolfRuleBot(seed=i) if nick.startswith("rule") else Bot(seed=i),
            irc_server.host,
            irc_server.address.port,
            nick,
            lines_per_second=0,
            reactor=reactor.reactor,
        )
        for i, nick in enumerate(NICKS)
    ]
    played: list[int] = []
    try:
        for runner in runners:
            runner.start()
        thread = threading.Thread(target=run, args=(settings, config, played))
        thread.start()
        thread.join(240)
        assert not thread.is_alive(), "the tournament did not finish"
    finally:
        for runner in runners:
            runner.link.close()
        reactor.stop()
    assert played == [GAMES]
    decks = set()
    with Store(config.store.path) as store:
        for i in range(GAMES):
            game = store.games.load(f"chaos-{i + 1}")
            assert game is not None
            end = parse(game.transcript[-1][1])
            assert end.verb == "END" and end.get("reason") not in ("forfeit", "aborted"), game.transcript[-1][1]
            assert game.replay().events == list(game.events)
            setup = game.events[0].data
            assert setup["options"]["preset"] == "chaos" and sum(setup["roles"].values()) >= 16
            decks.add(tuple(sorted(setup["roles"].items())))
    assert len(decks) == GAMES, "each game draws its own deck"
