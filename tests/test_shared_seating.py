"""A shared lobby's seating, as one referee sees it: while it deals, its ``Lobby``'s tables
go to the store (any referee may claim them) and their bots are away until the table is
over; whether it deals or not, it runs only what it claims."""

from __future__ import annotations

from arena.config import Config, LobbyConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.lobby import Lobby, Table
from arena.referee.local import LocalHub
from arena.referee.room import Room
from arena.referee.shared import FRESH, SharedSeater
from arena.sdk.bot import Bot
from arena.store.lobbies import Dealt


class Store:
    """The lobby's tables, as the store keeps them; ``mine``: whether this referee's claims win."""

    def __init__(self) -> None:
        self.dealt: list[Dealt] = []
        self.done_: list[tuple[str, str]] = []
        self.mine = True
        self.count = 0

    def new_game_id(self) -> str:
        self.count += 1
        return f"g{self.count}"

    def deal(self, gid: str, table: Table) -> bool:
        self.dealt.append(Dealt(gid, table.game, tuple(table.seats), None))
        return True

    def claim(self) -> Dealt | None:
        free = [d for d in self.dealt if d.referee is None]
        if not free or not self.mine:
            return None
        claimed = Dealt(free[0].gid, free[0].game, free[0].seats, "me")
        self.dealt[self.dealt.index(free[0])] = claimed
        return claimed

    def done(self, gid: str, kind: str) -> None:
        self.done_.append((gid, kind))


def seater() -> tuple[SharedSeater, Store]:
    store = Store()
    lobby = Lobby(LobbyConfig(min_players=5, max_players=5, countdown=0.0), AvalonOptions(), 16, b"k" * 32, nonce="n")
    return SharedSeater(lobby, store), store


def test_the_dealer_deals_what_is_due_and_runs_only_what_it_claims() -> None:
    seats, store = seater()
    seats.dealing = True
    for i in range(10):
        seats.add(f"bot{i}", 0.0)
    assert seats.due(1.0)
    first = seats.take(5)
    assert first is not None and first.gid == "g1" and len(store.dealt) == 2  # both tables dealt at once
    store.mine = False  # another referee is less busy now
    assert seats.due(1.0) and seats.take(5) is None and not seats.due(1.0)  # it claims g2, not this one
    assert seats.waiting == [] and set(seats.away()) == {"g1", "g2"}
    for name in first.seats:
        seats.add(name, 2.0)  # its game is not over to the dealer until the store says so
    assert seats.waiting == []
    assert seats.returned("g1", withdrawn=False) == first.seats
    for name in first.seats:
        seats.add(name, 3.0)
    assert sorted(seats.waiting) == sorted(first.seats) and set(seats.away()) == {"g2"}


def test_a_referee_that_does_not_deal_keeps_no_pool_and_tells_a_withdrawal() -> None:
    seats, store = seater()
    for i in range(5):
        seats.add(f"bot{i}", 0.0)
    assert not seats.due(1.0) and seats.waiting == [] and seats.deadline is None  # the dealer's to seat
    store.deal("g7", Table("avalon", AvalonOptions(), [f"bot{i}" for i in range(5)]))
    seats.claimable = True  # (a notice said so)
    table = seats.take(5)
    assert table is not None and table.gid == "g7" and store.dealt[0].referee == "me"
    seats.withdraw(table)  # one of its bots left before the start
    assert store.done_ == [("g7", "withdrawn")]


def test_a_withdrawn_table_the_dealer_drew_goes_back_to_its_draw() -> None:
    seats, store = seater()
    seats.dealing = True
    for i in range(5):
        seats.add(f"bot{i}", 0.0)
    table = seats.take(5)
    assert table is not None and table.gid is not None
    assert seats.returned(table.gid, withdrawn=True) == table.seats
    assert seats.returned(table.gid, withdrawn=True) == []  # (told once)
    for name in table.seats:
        seats.add(name, 1.0)
    again = seats.take(5)
    assert again is not None and sorted(again.seats) == sorted(table.seats) and again.gid == "g2"


def test_a_claimed_table_whose_bot_has_left_is_withdrawn_not_started() -> None:
    config = Config(lobby=LobbyConfig(min_players=5, max_players=5, countdown=0.0))
    hub = LocalHub(config.timeouts, channel=config.server.channel)
    seats, store = seater()
    room = Room(config, hub.referee, hub, seats, b"k" * 32, clock=lambda: hub.now)
    room.shared = True
    for i in range(4):
        hub.connect(f"b{i}", Bot(seed=i))
    store.deal("g1", Table("avalon", AvalonOptions(), ["b0", "b1", "b2", "b3", "gone"]))  # dealt before it left
    seats.claimable = True
    room.after(hub.now)
    assert store.done_ == [("g1", "withdrawn")] and store.dealt[0].referee == "me"
    assert not [line for line in hub.channel_log if line.startswith("TABLE g1 ")] and "g1" not in room.announced()


def test_a_bot_registered_a_moment_ago_is_seated_once_its_welcome_has_had_time_to_arrive() -> None:
    seats, store = seater()
    seats.dealing = True
    for i in range(5):
        seats.registered(f"bot{i}", 0.0)
        seats.add(f"bot{i}", 0.0)
    assert seats.waiting == [] and not seats.due(0.0) and seats.deadline == FRESH
    seats.remove("bot4")  # left meanwhile: never seated
    assert not seats.due(FRESH) and sorted(seats.waiting) == [f"bot{i}" for i in range(4)]
    seats.add("bot4", FRESH)  # (back, registered as before)
    assert seats.due(FRESH) and len(store.dealt) == 0
    table = seats.take(5)
    assert table is not None and sorted(table.seats) == [f"bot{i}" for i in range(5)]
