"""The registrations of a shared lobby as one referee (``Shared``) reads them from the store:
one it admitted a moment ago and has not yet written is its own until it is, and a bot a
netsplit put out of its reach is awaited only until the store says more of that bot."""

from __future__ import annotations

import select
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from arena.config import LobbyConfig, TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.lobby import Lobby
from arena.referee.referee import Referee
from arena.referee.shared import Shared
from arena.store import Store
from arena.store.lobbies import Registration
from arena.store.pgserver import LocalPostgres
from arena.store.postgres import PgConnection

PLACE = "net/#arena"


@dataclass
class Sent:
    """What the referee's link holds back until its lines went out (``after_sent``)."""

    waiting: list[Callable[[], None]] = field(default_factory=list)

    def after_sent(self, callback: Callable[[], None]) -> None:
        self.waiting.append(callback)

    def went_out(self) -> None:
        waiting, self.waiting = self.waiting, []
        for callback in waiting:
            callback()


@contextmanager
def referee(postgres: LocalPostgres) -> Iterator[tuple[Shared, Referee, Sent, Store]]:
    """The lobby's only referee, ``A``, started (it deals), and the store as another
    referee, ``B``, writes to it."""
    url = str(postgres.new_database())
    with Store(url) as store, Store(url) as other:
        assert store.referees.hold("A", PLACE, "arena", "h", 1, 30.0, shared=True) is None
        ref = Referee("arena", TimeoutConfig(escalation=("default",)), lambda to, text: None)
        lobby = Lobby(LobbyConfig(min_players=5, max_players=5), AvalonOptions(), 16, b"k" * 32, nonce="n")
        sent = Sent()
        shared = Shared(
            store,
            PLACE,
            "A",
            ref.registry,
            ref.new_game_id,
            lambda nick, msg: None,
            lambda: 0.0,
            0.0,
            sent.after_sent,
            lobby,
        )
        shared.start(0.0)
        hear(shared, 0.0)  # (its own news: it has joined the lobby)
        yield shared, ref, sent, other


def hear(shared: Shared, now: float) -> None:
    """Act on the lobby's next notices, waiting for one if none came yet (a notice travels on
    its own: it may be on its way still)."""
    while not shared.heard(now):
        fileno = shared.fileno()
        assert fileno is not None and select.select([fileno], [], [], 30.0)[0]


def reconnected(shared: Shared) -> None:
    """The connection to the store is lost, and made again at the next statement: notices
    may have been missed meanwhile."""
    assert isinstance(shared.store.conn, PgConnection)
    shared.store.conn.close()


def registration(name: str, token: str) -> Registration:
    return Registration(token, name, name, "me", "1", None, 2, "B")


def test_a_bot_admitted_here_and_not_yet_written_is_not_gone_when_the_store_is_read_again(
    postgres: LocalPostgres,
) -> None:
    with referee(postgres) as (shared, ref, sent, other):
        ref.on_message("alice", "arena", "REGISTER 2 name=alice", 0.0, None)
        other.lobbies.admitted(PLACE, registration("bob", "t-bob"))  # an older registration of bob's
        ref.on_message("bob", "arena", "REGISTER 2 name=bob", 0.0, None)  # bob's new connection, here
        reconnected(shared)
        shared.renew(1.0)  # (its WELCOME is still queued: neither is in the store)
        alice, bob = ref.bot_named("alice"), ref.bot_named("bob")
        assert alice is not None and bob is not None and bob.token != "t-bob"
        sent.went_out()
        assert [(r.name, r.token) for r in shared.store.lobbies.registrations(PLACE)] == [
            ("alice", alice.token),
            ("bob", bob.token),
        ]
        reconnected(shared)
        other.lobbies.gone(PLACE, str(alice.token))  # over elsewhere (an UNREGISTER to another referee)
        shared.renew(2.0)  # (written: the store's word again)
        assert ref.bot_named("alice") is None and ref.bot_named("bob") is bob


def test_a_bot_lost_to_a_netsplit_is_awaited_only_until_it_registers_again_or_is_gone(
    postgres: LocalPostgres,
) -> None:
    with referee(postgres) as (shared, ref, _, other):
        lobbies = other.lobbies
        for name in ("alice", "bob", "carol", "dave"):
            lobbies.admitted(PLACE, registration(name, f"t-{name}"))
            hear(shared, 0.0)
            ref.on_leave(name, split=True)  # its connection went with the other side of a split
        assert ref.bot_named("alice") is None
        lobbies.gone(PLACE, "t-alice")  # it quit for good over there
        hear(shared, 1.0)
        lobbies.admitted(PLACE, registration("bob", "t-bob-2"))  # it registered anew
        hear(shared, 1.0)
        bob = ref.bot_named("bob")
        assert bob is not None and bob.token == "t-bob-2" and set(shared._lost) == {"carol", "dave"}
        reconnected(shared)
        lobbies.gone(PLACE, "t-carol")  # (unheard: it is gone from the store when the store is read again)
        shared.renew(2.0)
        assert set(shared._lost) == {"dave"} and ref.bot_named("dave") is None  # (not vouched for yet)
        lobbies.vouch(PLACE, ["t-dave"])
        hear(shared, 3.0)
        assert ref.bot_named("dave") is not None and not shared._lost


def test_the_registrations_a_referee_admitted_are_kept_no_longer_than_they_last(postgres: LocalPostgres) -> None:
    """What it keeps to tell its bots of the lobby's referees holds one registration a bot
    at most, and none once it is over, replaced elsewhere, or gone unheard; one lost to a
    netsplit stays, to be told again once it is vouched for."""
    with referee(postgres) as (shared, ref, sent, other):
        for _ in range(3):  # a bot that registers here again and again, one connection after another
            ref.on_message("alice", "arena", "REGISTER 2 name=alice", 0.0, None)
            sent.went_out()
            assert len(shared._mine) == 1
            ref.on_leave("alice")
        assert len(shared._mine) == 0
        ref.on_message("alice", "arena", "REGISTER 2 name=alice", 0.0, None)
        ref.on_message("bob", "arena", "REGISTER 2 name=bob", 0.0, None)
        ref.on_message("carol", "arena", "REGISTER 2 name=carol", 0.0, None)
        sent.went_out()
        assert len(shared._mine) == 3
        other.lobbies.admitted(PLACE, registration("alice", "t-alice"))  # alice registered anew elsewhere
        hear(shared, 1.0)
        assert len(shared._mine) == 2
        bob = ref.bot_named("bob")
        assert bob is not None and bob.token is not None
        reconnected(shared)
        other.lobbies.gone(PLACE, bob.token)  # (unheard: the store is read again)
        shared.renew(2.0)
        assert len(shared._mine) == 1 and ref.bot_named("bob") is None
        carol = ref.bot_named("carol")
        assert carol is not None and carol.token is not None
        ref.on_leave("carol", split=True)  # out of reach on the far side of a netsplit
        assert len(shared._mine) == 1
        other.lobbies.vouch(PLACE, [carol.token])
        hear(shared, 3.0)
        back = ref.bot_named("carol")
        assert back is not None and back.token == carol.token and len(shared._mine) == 1
