"""A lobby shared by several referees, as PostgreSQL keeps it: one registration per bot,
each table claimed by one referee (the least busy), and every change heard by the others."""

from __future__ import annotations

import select
import threading

from arena.store import Store
from arena.store.lobbies import Registration
from arena.store.pgserver import LocalPostgres
from arena.store.postgres import PgConnection

PLACE = "net/#arena"


def reg(name: str, nick: str, token: str, referee: str = "A") -> Registration:
    return Registration(token, name, nick, "me", "1", None, 2, referee)


def heard(store: Store, count: int = 0) -> list[str]:
    """The notices ``store`` heard: once ``count`` have come (a notice travels on its own:
    it may be on its way still), or those that came by now."""
    conn = store.conn
    assert isinstance(conn, PgConnection)
    notices = conn.heard()
    while len(notices) < count:
        fileno = conn.fileno()
        assert fileno is not None and select.select([fileno], [], [], 30.0)[0], notices
        notices += conn.heard()
    return notices


def test_a_registration_is_one_per_bot_and_every_referee_hears_of_it(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as a, Store(url) as b:
        assert isinstance(b.conn, PgConnection)
        b.conn.listen("arena_lobby")
        a.lobbies.admitted(PLACE, reg("alice", "alice", "t1"))
        a.lobbies.admitted(PLACE, reg("Alice", "alice2", "t2"))  # a new connection replaces the first
        assert heard(b, 2) == [f"{PLACE}\tbot\talice", f"{PLACE}\tbot\tAlice"]
        got = b.lobbies.registration(PLACE, "ALICE")
        assert got is not None and (got.token, got.nick) == ("t2", "alice2")
        a.lobbies.gone(PLACE, "t1")  # the old connection's end is not the new one's
        a.lobbies.renamed(PLACE, "t2", "alice2")  # no change, no news
        assert heard(b) == [] and b.lobbies.registration(PLACE, "alice") is not None
        a.lobbies.renamed(PLACE, "t2", "al")
        a.lobbies.gone(PLACE, "t2")
        assert heard(b, 2) == [f"{PLACE}\tbot\tAlice"] * 2 and b.lobbies.registrations(PLACE) == []


def test_a_table_goes_to_one_referee_the_least_busy(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as a, Store(url) as b:
        assert a.referees.hold("A", PLACE, "arena", "h", 1, 30.0, shared=True) is None
        assert b.referees.hold("B", PLACE, "arena2", "h", 2, 30.0, shared=True) is None
        assert [nick for _, nick in a.referees.live(PLACE)] == ["arena", "arena2"]
        assert not a.lobbies.deal(PLACE, "C", "g0", "avalon", list("abcde"))  # not a referee here
        for gid in ("g1", "g2", "g3"):
            assert a.lobbies.deal(PLACE, "A", gid, "avalon", list("abcde"))
        first = a.lobbies.claim(PLACE, "A", 0)
        assert first is not None and (first.gid, first.seats) == ("g1", tuple("abcde"))
        assert a.lobbies.claim(PLACE, "A", 0) is None  # A runs one, B none: B's turn
        second = b.lobbies.claim(PLACE, "B", 0)
        assert second is not None and second.gid == "g2"
        b.lobbies.done(PLACE, "g2", "ended")
        b.lobbies.done(PLACE, "g2", "ended")  # told once
        third = b.lobbies.claim(PLACE, "B", 0)
        assert third is not None and third.gid == "g3" and not a.lobbies.unclaimed(PLACE)
        assert [t.gid for t in a.lobbies.tables(PLACE)] == ["g1", "g3"]


def test_two_referees_claiming_at_once_never_get_one_table(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as a:
        a.referees.hold("A", PLACE, "arena", "h", 1, 30.0, shared=True)
        a.referees.hold("B", PLACE, "arena2", "h", 2, 30.0, shared=True)
        for n in range(40):
            a.lobbies.deal(PLACE, "A", f"g{n}", "avalon", list("abcde"))
    got: dict[str, list[str]] = {"A": [], "B": []}

    def run(rid: str) -> None:
        with Store(url) as store:
            while store.lobbies.unclaimed(PLACE):
                table = store.lobbies.claim(PLACE, rid, 0)
                if table is not None:
                    got[rid].append(table.gid)
                    store.lobbies.done(PLACE, table.gid, "ended")

    threads = [threading.Thread(target=run, args=(rid,)) for rid in got]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(got["A"] + got["B"], key=lambda g: int(g[1:])) == [f"g{n}" for n in range(40)]


def test_a_referee_gone_leaves_its_tables_and_games_to_the_one_that_inherits(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as a:
        a.referees.hold("A", PLACE, "arena", "h", 1, 30.0, shared=True)
        a.referees.hold("B", PLACE, "arena2", "h", 2, 30.0, shared=True)
        a.lobbies.deal(PLACE, "A", "g1", "avalon", list("abcde"))
        assert a.lobbies.claim(PLACE, "A", 0) is not None
        assert not a.referees.inherit("B", PLACE)  # A is alive
        a.db.execute(f"UPDATE referees SET lease = {a.db.dialect.clock} - 1 WHERE id = 'A'")
        assert a.referees.inherit("B", PLACE)
        assert [t.referee for t in a.lobbies.tables(PLACE)] == ["B"]
        assert [rid for rid, _ in a.referees.live(PLACE)] == ["B"]


def test_a_referee_new_to_the_lobby_claims_nothing_until_it_has_settled(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as a:
        a.referees.hold("A", PLACE, "arena", "h", 1, 30.0, shared=True)
        a.referees.hold("B", PLACE, "arena2", "h", 2, 30.0, shared=True)
        for gid in ("g1", "g2"):
            a.lobbies.deal(PLACE, "A", gid, "avalon", list("abcde"))
        assert a.lobbies.claim(PLACE, "B", 30.0) is None  # its peers' bots may not know it yet
        assert a.lobbies.claim(PLACE, "A", 30.0) is not None  # the first is never new
        assert a.lobbies.claim(PLACE, "A", 30.0) is not None  # busier, but the only one settled
        a.lobbies.deal(PLACE, "A", "g3", "avalon", list("abcde"))
        assert a.lobbies.claim(PLACE, "B", 0.0) is not None
