"""A referee's place under a lease: a standby takes it, with its games, only once the lease
has lapsed, and the referee that lost it can write nothing more for those games."""

from __future__ import annotations

import random
from contextlib import AbstractContextManager

import pytest

from arena.store import Store
from arena.store.live import LiveGame
from arena.store.pgserver import LocalPostgres
from arena.store.referees import Fenced

from .helpers import avalon_record

PLACE = "irc.example:6667/#arena"


def live(gid: str, place: str = PLACE) -> LiveGame:
    return LiveGame(gid, "avalon", {}, 7, None, tuple("abcde"), tuple("abcde"), place, None, 1.0)


def lapse(store: Store, rid: str) -> None:
    """As if ``rid`` had stopped renewing long enough ago (the lease is the database's clock)."""
    store.db.execute(f"UPDATE referees SET lease = {store.db.dialect.clock} - 1 WHERE id = ?", (rid,))


def step(store: Store, gid: str, n: int, owner: str) -> None:
    store.live.append(gid, n, [(0, "team", (0, 1))], n, [(None, None, f"LINE {n}")], {"n": n}, owner=owner)


def test_a_standby_waits_while_the_lease_runs_then_takes_the_place_and_its_games(where: str) -> None:
    with Store(where) as a, Store(where) as b:
        assert a.referees.hold("A", PLACE, "arena", "host-a", 11, 30.0) is None
        a.live.open(live("g1"), owner="A")
        a.live.open(live("g2", "elsewhere:6667/#arena"), owner="A")
        step(a, "g1", 0, "A")
        held = b.referees.hold("B", PLACE, "arena", "host-b", 12, 30.0)
        assert held is not None and (held.id, held.nick, held.host, held.pid) == ("A", "arena", "host-a", 11)
        assert 0 < held.left <= 30.0
        a.referees.renew("A", 30.0)
        assert b.referees.hold("B", PLACE, "arena", "host-b", 12, 30.0) is not None
        lapse(a, "A")
        assert b.referees.hold("B", PLACE, "arena", "host-b", 12, 30.0) is None
        owners = dict(b.db.execute("SELECT id, owner FROM live_games").fetchall())
        assert owners == {"g1": "B", "g2": "A"}  # a game of another place stays its referee's
        step(b, "g1", 1, "B")
        with pytest.raises(Fenced):  # A comes back: nothing it writes for g1 is stored
            step(a, "g1", 1, "A")
        with pytest.raises(Fenced):
            a.live.close("g1", owner="A")
        with pytest.raises(Fenced):
            a.referees.renew("A", 30.0)
        [game] = b.live.all("g1")
        assert [line for _, _, line in game.lines] == ["LINE 0", "LINE 1"] and game.state == {"n": 1}
        b.live.close("g1", owner="B")
        assert b.live.all("g1") == []


def test_a_referee_that_leaves_hands_its_place_over_at_once(where: str) -> None:
    with Store(where) as a, Store(where) as b:
        assert a.referees.hold("A", PLACE, "arena", "host-a", 11, 30.0) is None
        assert b.referees.hold("B", PLACE, "arena", "host-b", 12, 30.0) is not None
        a.referees.leave("A")
        assert b.referees.hold("B", PLACE, "arena", "host-b", 12, 30.0) is None
        assert a.referees.hold("A", PLACE, "arena", "host-a", 11, 30.0) is not None  # now B's


def test_games_from_before_owners_are_taken_by_the_first_holder(where: str) -> None:
    with Store(where) as s:
        s.live.open(live("g1"))  # an older referee's: no owner
        assert s.referees.hold("A", PLACE, "arena", "host", 13, 30.0) is None
        assert s.db.execute("SELECT owner FROM live_games WHERE id = 'g1'").fetchone()[0] == "A"


def test_a_write_of_no_owner_is_not_fenced(where: str) -> None:
    """Local tournaments and tests write without an owner, as before leases."""
    with Store(where) as s:
        s.live.open(live("g1"), owner="A")
        step(s, "g1", 0, "A")
        s.live.append("g1", 1, [], 1, [(None, None, "LINE 1")], {"n": 1})
        s.games.record(avalon_record(5, random.Random(5)))
        s.live.close("g1")
        assert s.live.all("g1") == []


def test_a_referee_of_a_shared_lobby_writes_to_inherit_only_when_a_peer_has_lapsed(
    postgres: LocalPostgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dealer looks at each renewal of its lease: a write transaction (and the write lock)
    each time would keep its peers' writes waiting for nothing."""
    with Store(str(postgres.new_database())) as s:
        for rid, nick in (("A", "arena"), ("B", "arena2"), ("C", "arena3")):
            assert s.referees.hold(rid, PLACE, nick, "host", 1, 30.0, shared=True) is None
        s.live.open(live("g1"), owner="A")
        assert s.lobbies.deal(PLACE, "A", "g2", "avalon", list("abcde")) and s.lobbies.claim(PLACE, "A", 0) is not None
        transaction = s.db.transaction
        written: list[bool] = []

        def counted(write: bool = True, alone: bool = True) -> AbstractContextManager[None]:
            written.append(write)
            return transaction(write, alone)

        monkeypatch.setattr(s.db, "transaction", counted)
        assert not s.referees.inherit("B", PLACE) and written == []  # every peer renews
        lapse(s, "A")
        assert s.referees.inherit("B", PLACE) and len(written) == 1
        assert s.db.execute("SELECT owner FROM live_games WHERE id = 'g1'").fetchone()[0] == "B"
        assert [t.referee for t in s.lobbies.tables(PLACE)] == ["B"]
        assert not s.referees.inherit("B", PLACE) and len(written) == 1  # (nothing left)
        lapse(s, "C")  # a peer gone with nothing to leave is forgotten all the same
        assert not s.referees.inherit("B", PLACE) and len(written) == 2
        assert [rid for (rid,) in s.db.execute("SELECT id FROM referees ORDER BY id").fetchall()] == ["B"]
