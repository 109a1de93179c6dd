"""The room without IRC: the in-memory hub drives the same seating, join waits, operators'
commands and taking up of games that the IRC service drives.

The bots are SDK sessions in this process: they read their ``TABLE`` in the lobby, follow
their game into its channel and play it there, as they would over a server.
"""

from __future__ import annotations

from arena.config import Config, LobbyConfig
from arena.protocol import END, START, TABLE, parse
from arena.referee.lobby import Lobby
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.room import Room
from arena.sdk.bot import Bot
from arena.sdk.view import GameView
from typing import Any

KEY = b"k" * 32


def room_of(hub: LocalHub, config: Config, games: int | None, ended: list[Match]) -> Room:
    lobby = Lobby(config.lobby, config.games[config.lobby.game].options, config.seating.games_per_order, KEY)
    return Room(config, hub.referee, hub, lobby, KEY, max_games=games, on_game_end=ended.append, clock=lambda: hub.now)


def test_the_lobby_seats_the_waiting_bots_at_tables_in_their_own_channels() -> None:
    config = Config(lobby=LobbyConfig(min_players=5, max_players=7, countdown=0.0))
    hub = LocalHub(config.timeouts, channel=config.server.channel)
    ended: list[Match] = []
    room = room_of(hub, config, 6, ended)
    for i in range(12):
        hub.connect(f"b{i}", Bot(seed=i))
    hub.serve(room)
    assert len(ended) >= 6 and all(m.over and m.game.result is not None for m in ended)
    tables = [parse(line) for line in hub.channel_log if line.startswith(f"{TABLE} ")]
    assert {t.args[0] for t in tables} >= {m.gid for m in ended}
    for match in ended:
        assert match.channel == f"{config.server.channel}-{match.gid}"
        assert 5 <= len(match.names) <= 7
        said = [line for to, line in match.transcript if to is None]
        assert said[0].startswith(f"{START} {match.gid} ") and any(line.startswith(f"{END} ") for line in said)
    # Seven seats at most: the five others got a table of their own, at once (no countdown).
    assert {n for t in tables for n in t.list("seats")} == {f"b{i}" for i in range(12)}
    assert not [line for line in hub.channel_log if line.startswith(f"{START} ")], "a game spoke in the lobby"


def test_an_operator_stops_a_game_and_asks_for_the_status_without_a_server() -> None:
    config = Config(lobby=LobbyConfig(min_players=5, max_players=5, operators=("boss",)))
    hub = LocalHub(config.timeouts, channel=config.server.channel)
    ended: list[Match] = []
    room = room_of(hub, config, 1, ended)

    class Operator(Bot):
        """A player whose operator, seeing its game start, asks what runs and stops it."""

        def on_start(self, game: GameView[Any]) -> None:
            room.command("boss", "!status", hub.now)
            room.command("stranger", f"!stop {game.gid}", hub.now)  # not an operator: nothing happens
            room.command("boss", f"!stop {game.gid}", hub.now)

    hub.connect("b0", Operator(seed=0))
    for i in range(1, 5):
        hub.connect(f"b{i}", Bot(seed=i))
    hub.serve(room)
    (match,) = ended
    assert match.game.result is not None and match.game.result.reason == "aborted", match.game.result
    assert any(line.startswith(f"{match.gid} avalon running") for line in hub.channel_log), hub.channel_log[-5:]
    ends = [line for to, line in match.transcript if to is None and line.startswith(f"{END} {match.gid} ")]
    assert len(ends) == 1 and "reason=aborted" in ends[0]
