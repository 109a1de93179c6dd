"""The lobby over a real IRC server: bots that leave after a game's END are never seated
at a game, however their leaving races the next table, at any line rate of the referee."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, TimeoutConfig
from arena.irc.link import IrcLink, ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import TABLE, parse
from arena.referee.match import Match
from arena.referee.service import RefereeService
from arena.sdk import Bot
from arena.sdk.runner import BotRunner

from .conftest import RawClient, Recorder, until

SETTLE = 300.0
"""Seconds at most for every bot to play its games and leave: a guard against a hang,
far above what the games take even at 2 lines/s on a loaded machine."""


@pytest.mark.parametrize("rate", [0.0, 2.0])
def test_bots_that_leave_after_their_last_game_are_never_seated(
    irc_server: LocalServer,
    make_link: Callable[..., tuple[IrcLink, Recorder]],
    rate: float,
) -> None:
    """Ten bots at tables of five: five leave after one game, five after two, each sending
    UNREGISTER when it reads its last END. A table sits again the moment its game ends, so
    its TABLE goes out before the leavers' UNREGISTER comes in: that table is withdrawn
    (announced again with no seats), never started, and the bots that stay are seated
    together. Three games are played, none with a forfeit."""
    config = Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=irc_server.host,
            port=irc_server.address.port,
            lines_per_second=rate,
            max_targets=irc_server.max_targets,
        ),
        timeouts=TimeoutConfig(decision=5.0, grace=1.0),
        lobby=LobbyConfig(min_players=5, max_players=5, countdown=0.2, join_timeout=2.0),
    )
    finished: list[Match] = []
    service = RefereeService(config, key=b"k" * 32, on_game_end=finished.append)
    referee = threading.Thread(target=service.serve, daemon=True)
    referee.start()
    assert service.link.wait_ready(10)
    _, lobby = make_link("watcher", channels=[config.server.channel])
    bots = ReactorThread(tick=0.02).start()
    runners = [
        BotRunner(
            Bot(seed=i),
            irc_server.host,
            irc_server.address.port,
            f"b{i}",
            lines_per_second=0,
            max_games=1 + i % 2,
            reactor=bots.reactor,
        )
        for i in range(10)
    ]
    try:
        for runner in runners:
            runner.start()
        try:
            until(
                lambda: (
                    len(finished) >= 3
                    and not service.referee.bots
                    and not service.room._tables
                    and not service.referee.matches
                ),
                SETTLE,
            )
        except AssertionError:
            raise AssertionError(
                f"not settled: ended {[m.gid for m in finished]}, registered "
                f"{sorted(service.referee.bots)}, tables {list(service.room._tables)}, running "
                f"{list(service.referee.matches)}, waiting {service.room.lobby.waiting}"
            ) from None
    finally:
        service.room.max_games = 0
        for runner in runners:
            runner.link.close()
        referee.join(10)
        bots.stop()
    assert len(finished) == 3, [(m.gid, m.bots, m.game.result) for m in finished]
    assert all(m.game.result is not None and m.game.result.forfeited is None for m in finished)
    tables = [
        parse(text)
        for sender, target, text in lobby.messages
        if sender == config.server.nick and text.startswith(TABLE)
    ]
    withdrawn = [t.args[0] for t in tables if not t.list("seats")]
    assert len(withdrawn) >= 2, "a table sat again before its leavers' UNREGISTER came in"
    started = {m.gid for m in finished}
    assert not started & set(withdrawn)
    plays: dict[str, Any] = {}
    for match in finished:
        for bot in match.bots or ():
            plays[bot] = plays.get(bot, 0) + 1
    assert plays == {f"b{i}": 1 + i % 2 for i in range(10)}


def test_only_bots_in_the_lobby_channel_wait_to_be_seated(
    irc_server: LocalServer,
    raw_client: Callable[[str], RawClient],
) -> None:
    """A table is announced in the lobby channel: a registered bot that is not there would
    never hear it, so it does not wait (it would be seated, and forfeit). Leaving the lobby
    stops its wait; joining again starts it."""
    config = Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(
            host=irc_server.host, port=irc_server.address.port, lines_per_second=0, max_targets=irc_server.max_targets
        ),
    )
    service = RefereeService(config, key=b"k" * 32)
    referee = threading.Thread(target=service.serve, daemon=True)
    referee.start()
    try:
        assert service.link.wait_ready(10)
        until(lambda: service.link.members(config.server.channel))
        inside, outside = raw_client("inside"), raw_client("outside")
        inside.send(b"JOIN #arena\r\nPRIVMSG arena :REGISTER 1 owner=test version=0\r\n")
        outside.send(b"PRIVMSG arena :REGISTER 1 owner=test version=0\r\n")
        inside.expect(b"WELCOME")
        outside.expect(b"WELCOME")
        until(lambda: service.room.lobby.waiting == ["inside"])
        inside.send(b"PART #arena\r\n")
        until(lambda: service.room.lobby.waiting == [])
        outside.send(b"JOIN #arena\r\n")
        inside.send(b"JOIN #arena\r\n")
        until(lambda: sorted(service.room.lobby.waiting) == ["inside", "outside"])
    finally:
        service.room.max_games = 0
        referee.join(10)
