"""The lobby without a server: every table filled, a countdown nobody can hold back, a
table kept for a block of games and then tables drawn anew so that every pair of bots
meets, seat orders kept per roster (across restarts) and fair rotation when more bots wait
than sit."""

from __future__ import annotations

import heapq
import random
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from arena.config import Config, FloodConfig, LobbyConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.lobby import Lobby, RosterBook, Table
from arena.referee.service import RefereeService
from arena.store import Store

KEY = b"k" * 32


def lobby(book: RosterBook | None = None, keep: int = 16, nonce: str = "n", **settings: Any) -> Lobby:
    return Lobby(LobbyConfig(**settings), AvalonOptions(), keep, KEY, book, nonce=nonce)


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
        service.room.lobby.add(name, 0.0)
    service.room.after(0.0)
    assert len(service.room._tables) == 3 and service.room.lobby.waiting == []


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


def play(room: Lobby, names: list[str], games: int, seed: int) -> list[list[str]]:
    """Run the lobby as the service does, for ``games`` games: whenever something happens
    every table that is due opens; a game lasts 1 to 3 s (drawn from ``seed``), then its
    bots come back in seat order. The seat orders, in the order the tables were seated."""
    length = random.Random(seed)
    for name in names:
        room.add(name, 0.0)
    seated: list[list[str]] = []
    running: list[tuple[float, int, list[str]]] = []
    now = 0.0
    while len(seated) < games:
        for table in open_all(room, now):
            seated.append(table.seats)
            heapq.heappush(running, (now + length.uniform(1.0, 3.0), len(seated), table.seats))
        assert running or room.deadline is not None, "nothing runs and nothing is due"
        if running:
            now, _, seats = heapq.heappop(running)
            for name in seats:
                room.add(name, now)
        else:
            now = room.deadline  # type: ignore[assignment]
    return seated[:games]


def all_met(seated: list[list[str]], names: list[str]) -> int | None:
    """How many games it took until every pair of ``names`` had sat at one table (None: never)."""
    unmet = {frozenset(pair) for pair in combinations(names, 2)}
    for number, seats in enumerate(seated, 1):
        unmet -= {frozenset(pair) for pair in combinations(seats, 2)}
        if not unmet:
            return number
    return None


def shares(seated: list[list[str]], names: list[str]) -> float:
    """The largest gap between a bot's games and its fair share, as a fraction of that share."""
    played = Counter(name for seats in seated for name in seats)
    fair = sum(len(seats) for seats in seated) / len(names)
    return max(abs(played[name] - fair) / fair for name in names)


SIZES = [(10, 5), (14, 7), (15, 5), (20, 10)]
"""Numbers of bots that are multiples of the seats: the first tables' pools never met."""


@pytest.mark.parametrize("bots_, seats", SIZES)
@pytest.mark.parametrize("run", range(3))
def test_every_pair_meets_within_sixty_games_and_every_bot_plays_its_share(bots_: int, seats: int, run: int) -> None:
    """With a new seat order every game, every pair of bots has met within 60 games, and
    each bot played its share to within 10%, however long the games take."""
    names = bots("b", bots_)
    seated = play(lobby(keep=1, nonce=str(run), min_players=5, max_players=seats), names, 60, run)
    assert (all_met(seated, names) or 61) <= 60
    assert shares(seated, names) <= 0.1


@pytest.mark.parametrize("bots_, seats", SIZES)
def test_tables_kept_for_a_block_mix_at_every_block_end(bots_: int, seats: int) -> None:
    """A table keeps its roster and seat order for 16 games; then new tables are drawn from
    everyone, so that every pair has met within five blocks of every table (four for most:
    a pair only meets at a new draw), and each bot plays its share to within 10%."""
    names = bots("b", bots_)
    tables = bots_ // seats
    seated = play(lobby(min_players=5, max_players=seats), names, 5 * 16 * tables, 7)
    assert (all_met(seated, names) or len(seated) + 1) <= len(seated)
    assert shares(seated, names) <= 0.1
    first = seated[: 16 * tables]
    assert len({tuple(seats_) for seats_ in first}) == tables, "each table kept its seat order for its block"
    rosters = {frozenset(seats_) for seats_ in first}
    assert not rosters & {frozenset(seats_) for seats_ in seated[16 * tables : 32 * tables]}, "and then was mixed"


def test_bots_whose_block_ended_wait_for_every_other_table_then_all_are_drawn() -> None:
    """Back from the last game of their block, a table's bots are not seated together
    again while another table is in its block: with everyone back they are mixed."""
    room = lobby(keep=2, min_players=5, max_players=5)
    for name in bots("b", 10):
        room.add(name, 0.0)
    first, second = open_all(room, 0.0)
    for name in first.seats:
        room.add(name, 1.0)
    assert open_all(room, 1.0) == [first], "kept: the same roster, the same order"
    for name in first.seats:
        room.add(name, 2.0)
    assert open_all(room, 100.0) == [] and room.deadline is None, "its block is over: it waits for the other table"
    for name in second.seats:
        room.add(name, 3.0)
    assert open_all(room, 3.0) == [second]
    for name in second.seats:
        room.add(name, 4.0)
    tables = open_all(room, 4.0)
    assert len(tables) == 2 and all(
        set(t.seats) & set(first.seats) and set(t.seats) & set(second.seats) for t in tables
    )


def test_an_operator_seats_the_bots_that_wait_for_the_other_tables() -> None:
    room = lobby(keep=1, min_players=5, max_players=5)
    for name in bots("b", 10):
        room.add(name, 0.0)
    first, _ = open_all(room, 0.0)
    for name in first.seats:
        room.add(name, 1.0)
    assert room.take(5) is None
    table = room.take(5, by_hand=True)
    assert table is not None and set(table.seats) == set(first.seats)


def test_a_table_whose_bot_left_is_broken_up() -> None:
    """Without all its bots a table is not kept: the others are drawn with whoever waits."""
    room = lobby(min_players=5, max_players=5)
    for name in bots("b", 5):
        room.add(name, 0.0)
    (table,) = open_all(room, 0.0)
    room.remove(table.seats[0])
    for name in table.seats[1:] + ["late"]:
        room.add(name, 1.0)
    (again,) = open_all(room, 1.0)
    assert set(again.seats) == set(table.seats[1:]) | {"late"}


def test_a_withdrawn_table_is_neither_kept_nor_counted() -> None:
    """A table withdrawn before its start (one of its bots left) is as if never seated:
    its other bots wait free, and who played with whom is as before."""
    room = lobby(keep=4, min_players=5, max_players=5)
    for name in bots("b", 10):
        room.add(name, 0.0)
    first, second = open_all(room, 0.0)
    room.withdraw(first)
    for name in first.seats[1:]:
        room.add(name, 1.0)
    for name in second.seats:
        room.add(name, 1.0)
    assert open_all(room, 1.0) == [second]
    assert all(room._played[n.lower()] == 0 for n in first.seats)
    assert not any(room._met[(a, b)] for a, b in combinations(sorted(n.lower() for n in first.seats), 2))
    room.add(first.seats[0], 2.0)
    (again,) = open_all(room, 2.0)
    assert set(again.seats) == set(first.seats)


def test_two_rosters_alternating_each_reshuffle_after_sixteen_games() -> None:
    """Seated by hand, each roster keeps its seat order for 16 games whenever it sits again."""
    room = lobby(min_players=5, max_players=5, auto_start=False)
    orders: dict[str, list[tuple[str, ...]]] = {"a": [], "b": []}
    for _ in range(40):
        for prefix in ("a", "b"):
            for name in bots(prefix, 5):
                room.add(name, 0.0)
            table = room.take(5, by_hand=True)
            assert table is not None
            orders[prefix].append(tuple(table.seats))
    for series in orders.values():
        blocks = [set(series[i : i + 16]) for i in range(0, 40, 16)]
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
        first = play(lobby(store.rosters, min_players=5, max_players=5, keep=4), 6)
    with Store(tmp_path / "a.db") as store:
        assert store.rosters.get("avalon", "b0,b1,b2,b3,b4") == (1, 2)
        rest = play(lobby(store.rosters, min_players=5, max_players=5, keep=4), 4)
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
        service.room.lobby.add(name, 0.0)
    assert service.room._status(0.0) == ["waiting (3): b0, b1, b2"]
    for name in bots("x", 200):
        service.room.lobby.add(name, 0.0)
    status = service.room._status(0.0)  # a few lines, however many wait
    assert status[0].startswith("waiting (203): b0, b1, b2, x0,") and status[-1].endswith("and 153 more")
    assert len(status) <= 3
    for name in bots("x", 200):
        service.room.lobby.remove(name)
    before = service.link.queued
    service.room.command("stranger", "!help", 0.0)
    assert service.link.queued == before + 1
    service.room.command("stranger", "!status", 1.0)  # too soon: a stranger cannot flood the lobby
    service.room.command("stranger", "!start", 1.0)  # not an operator
    assert service.link.queued == before + 1 and not service.room._tables
    service.room.command("boss", "!status", 1.0)  # operators are always answered
    service.room.command("other", "!status", config.flood.command_interval + 0.5)
    assert service.link.queued == before + 3


def test_the_interval_between_answers_to_strangers_is_configured() -> None:
    for interval, answered in ((60.0, 1), (0.0, 3)):
        service = RefereeService(Config(flood=FloodConfig(command_interval=interval)), clock=lambda: 0.0, key=KEY)
        before = service.link.queued
        for now in (0.0, 1.0, 30.0):
            service.room.command("stranger", "!help", now)
        assert service.link.queued == before + answered, interval


class FailingBook:
    """A roster book on a store that cannot be written, until it can."""

    def __init__(self) -> None:
        self.full = True

    def get(self, game: str, roster: str) -> tuple[int, int] | None:
        return None

    def save(self, game: str, roster: str, block: int, games: int) -> None:
        if self.full:
            raise OSError(28, "No space left on device")


def test_a_store_that_cannot_be_written_while_seating_changes_nothing() -> None:
    """Seating writes the roster's series: when that fails, nobody is seated, counted or
    held, and the same table is seated once the store can be written."""
    book = FailingBook()
    room = lobby(book, min_players=5, max_players=5)
    for name in bots("b", 10):
        room.add(name, 0.0)
    with pytest.raises(OSError):
        room.take(5)
    assert room.waiting == bots("b", 10) and not room._played and not room._met and not room._away
    book.full = False
    assert len(open_all(room, 0.0)) == 2
