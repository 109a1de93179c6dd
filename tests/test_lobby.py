"""The lobby without a server: every table filled, a countdown nobody can hold back, seat
orders kept per roster (across restarts) and fair rotation when more bots wait than sit."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from arena.config import Config, FloodConfig, LobbyConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.lobby import Lobby, RosterBook, Table
from arena.referee.service import RefereeService
from arena.store import Store

KEY = b"k" * 32


def lobby(book: RosterBook | None = None, keep: int = 16, **settings: Any) -> Lobby:
    return Lobby(LobbyConfig(**settings), AvalonOptions(), keep, KEY, book)


def bots(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def open_all(room: Lobby, now: float) -> list[Table]:
    """What the service does whenever something happened: open every table that is due."""
    tables = []
    while room.due(now) and (table := room.take(5)) is not None:
        tables.append(table)
    return tables


def test_thirty_bots_fill_three_tables_at_once() -> None:
    room = lobby(min_players=5, max_players=10, countdown=30.0)
    for name in bots("b", 30):
        room.add(name, 0.0)
    tables = open_all(room, 0.0)
    assert [len(t.seats) for t in tables] == [10, 10, 10]
    assert len({n for t in tables for n in t.seats}) == 30 and room.waiting == []


def test_a_remainder_of_at_least_min_players_gets_its_own_table_after_the_countdown() -> None:
    room = lobby(min_players=5, max_players=10, countdown=2.0)
    for name in bots("b", 26):
        room.add(name, 0.0)
    assert [len(t.seats) for t in open_all(room, 0.0)] == [10, 10]
    assert open_all(room, 1.9) == []
    assert [len(t.seats) for t in open_all(room, 2.0)] == [6]


def test_the_service_opens_every_table_that_is_due() -> None:
    service = RefereeService(Config(lobby=LobbyConfig(min_players=5, max_players=10)), clock=lambda: 0.0, key=KEY)
    for name in bots("b", 30):
        service.lobby.add(name, 0.0)
    service._after(0.0)
    assert len(service._tables) == 3 and service.lobby.waiting == []


def test_a_register_unregister_toggle_cannot_delay_a_start_past_the_ceiling() -> None:
    """Each arrival restarts the countdown (1 s), but a table opens at most ``max_wait``
    (3 s) after the longest-waiting bot began waiting, however often one client toggles.
    When the toggler is needed to fill the table, it is seated as it next registers."""
    for honest, ceiling in ((5, 3.0), (4, 3.1)):
        room = lobby(min_players=5, max_players=10, countdown=1.0, max_wait=3.0)
        for name in bots("h", honest):
            room.add(name, 0.0)
        started = None
        for step in range(1, 100):
            now = step / 10
            if step % 2:
                room.add("toggler", now)
            else:
                room.remove("toggler")
            if tables := open_all(room, now):
                started = now
                break
        assert started is not None and started <= ceiling + 1e-9, (honest, started)
        assert len(tables[0].seats) >= 5


def test_two_rosters_alternating_each_reshuffle_after_sixteen_games() -> None:
    room = lobby(min_players=5, max_players=5, auto_start=False)
    orders: dict[str, list[tuple[str, ...]]] = {"a": [], "b": []}
    for _ in range(40):
        for prefix in ("a", "b"):
            for name in bots(prefix, 5):
                room.add(name, 0.0)
            table = room.take(5)
            assert table is not None
            orders[prefix].append(tuple(table.seats))
    for series in orders.values():
        blocks = [set(series[i:i + 16]) for i in range(0, 40, 16)]
        assert all(len(block) == 1 for block in blocks)
        assert len({order for block in blocks for order in block}) == 3  # each block reshuffled


def test_a_restart_continues_each_rosters_series_from_the_store(tmp_path: Path) -> None:
    def play(room: Lobby, games: int) -> list[list[str]]:
        seated = []
        for _ in range(games):
            for name in bots("b", 5):
                room.add(name, 0.0)
            table = room.take(5)
            assert table is not None
            seated.append(table.seats)
        return seated

    uninterrupted = play(lobby(min_players=5, max_players=5, keep=4), 10)
    with Store(tmp_path / "a.db") as store:
        first = play(lobby(store, min_players=5, max_players=5, keep=4), 6)
    with Store(tmp_path / "a.db") as store:
        assert store.roster("avalon", "b0,b1,b2,b3,b4") == (1, 2)
        rest = play(lobby(store, min_players=5, max_players=5, keep=4), 4)
    assert first + rest == uninterrupted


def test_twelve_bots_at_ten_seats_play_their_fair_share() -> None:
    room = lobby(min_players=5, max_players=10)
    for name in bots("b", 12):
        room.add(name, 0.0)
    played: Counter[str] = Counter()
    for game in range(200):
        (table,) = open_all(room, float(game))
        played.update(table.seats)
        for name in table.seats:  # back in the lobby after the game, in seat order
            room.add(name, game + 0.5)
    fair = 200 * 10 / 12
    assert all(abs(played[name] - fair) <= fair / 10 for name in bots("b", 12)), played


def test_help_and_status_answer_anyone_but_not_faster_than_the_interval() -> None:
    config = Config(lobby=LobbyConfig(operators=("boss",)))
    service = RefereeService(config, clock=lambda: 0.0, key=KEY)
    for name in bots("b", 3):
        service.lobby.add(name, 0.0)
    assert service._status(0.0) == ["waiting (3): b0, b1, b2"]
    for name in bots("x", 200):
        service.lobby.add(name, 0.0)
    status = service._status(0.0)  # a few lines, however many wait
    assert status[0].startswith("waiting (203): b0, b1, b2, x0,") and status[-1].endswith("and 153 more")
    assert len(status) <= 3
    for name in bots("x", 200):
        service.lobby.remove(name)
    before = service.link.queued
    service._operator("stranger", "!help", 0.0)
    assert service.link.queued == before + 1
    service._operator("stranger", "!status", 1.0)  # too soon: a stranger cannot flood the lobby
    service._operator("stranger", "!start", 1.0)  # not an operator
    assert service.link.queued == before + 1 and service._tables == {}
    service._operator("boss", "!status", 1.0)  # operators are always answered
    service._operator("other", "!status", config.flood.command_interval + 0.5)
    assert service.link.queued == before + 3


def test_the_interval_between_answers_to_strangers_is_configured() -> None:
    for interval, answered in ((60.0, 1), (0.0, 3)):
        service = RefereeService(Config(flood=FloodConfig(command_interval=interval)), clock=lambda: 0.0, key=KEY)
        before = service.link.queued
        for now in (0.0, 1.0, 30.0):
            service._operator("stranger", "!help", now)
        assert service.link.queued == before + answered, interval
