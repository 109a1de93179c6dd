"""A registration storm waits behind the games' lines: ``REGISTER`` and ``PROOF`` are handled
a turn's budget at a time, after the turn's other lines, each connection's lines in order."""

from __future__ import annotations

from typing import Any

from arena.config import parse_config
from arena.referee.deferred import Deferred
from arena.referee.service import RefereeService

KEY = b"k" * 32


def test_registrations_wait_and_each_connection_keeps_its_order() -> None:
    handled: list[tuple[str, str]] = []
    now = [0.0]

    def handle(sender: str, target: str, text: str, account: str | None) -> None:
        handled.append((sender, text))
        now[0] += 0.004  # each line costs 4 ms

    deferred = Deferred(handle, str.lower, budget=0.010, clock=lambda: now[0])
    assert not deferred.keep("Ann", "arena", "ANSWER g1 3 approve", None)  # a game's line: now
    for nick in ("Ann", "bob", "cy"):
        assert deferred.keep(nick, "arena", f"REGISTER 2 name={nick.lower()}", None)
    assert deferred.keep("ANN", "arena", "ANSWER g1 4 approve", None), "behind its own registration"
    assert deferred and not deferred.keep("dee", "arena", "WHO", None)
    deferred.run()  # 10 ms: three lines of 4 ms (the budget is checked after each)
    assert handled == [("Ann", "REGISTER 2 name=ann"), ("ANN", "ANSWER g1 4 approve"), ("bob", "REGISTER 2 name=bob")]
    deferred.flush("CY")  # it changes nick: what it said first is handled first
    assert handled[-1] == ("cy", "REGISTER 2 name=cy") and not deferred
    deferred.flush("nobody")
    assert len(handled) == 4


def test_the_service_answers_a_game_line_before_a_storm_of_registrations() -> None:
    service = RefereeService(parse_config({"identity": {"require_key": False}}), clock=lambda: 0.0, key=KEY)
    order: list[str] = []
    original = service.referee.on_message

    def on_message(sender: str, target: str, text: str, *args: Any, **kwargs: Any) -> None:
        order.append(text.split()[0])
        original(sender, target, text, *args, **kwargs)

    service.referee.on_message = on_message  # type: ignore[method-assign]
    referee = service.config.server.nick
    for i in range(200):
        service._on_message(f"bot{i}", referee, f"REGISTER 1 name=bot{i} owner=o version=1")
    service._on_message("player", referee, "ANSWER g1 7 approve")
    assert order == ["ANSWER"], "the game's line is handled as it comes; the registrations wait"
    while service.deferred:
        service.deferred.run()
    assert order.count("REGISTER") == 200 and sorted(service.referee.bots) == sorted(f"bot{i}" for i in range(200))
