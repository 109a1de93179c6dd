"""The web view's home under many games at once: it lists one page of the games being
played, read from their setups alone, and says how many there are and where the rest are."""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from arena.store import LiveGame, Store
from arena.store.pgserver import LocalPostgres
from arena.web import create_app
from arena.web.app import LIVE_LIMIT

LINK = re.compile(r'<span class="dot"></span> <a href="/games/(g\d+)"')


def live(gid: str, started: float) -> LiveGame:
    names = tuple(f"{gid}p{i}" for i in range(5))
    return LiveGame(gid, "avalon", {}, 7, None, names, names, "local/#arena", None, started)


def test_the_home_lists_a_page_of_the_games_being_played(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    count = LIVE_LIMIT + 3
    with Store(path) as s:
        for i in range(count):
            s.live.open(live(f"g{i}", 1000.0 + i))
        s.live.append("g0", 0, [(0, "team", [0, 1])], 0, [(None, None, "ASK g0 1 to=g0p0")], {"step": 1})
        listed, total = s.live.listing(2)
        assert total == count and [g.id for g in listed] == ["g0", "g1"], "oldest first"
        assert listed[0].history == () and listed[0].lines == (), "the setup alone"
        assert s.live.all("g0")[0].history, "(what a game's own page reads)"
    client = create_app(str(path)).test_client()
    first = client.get("/").get_data(as_text=True)
    assert LINK.findall(first) == [f"g{i}" for i in range(LIVE_LIMIT)]
    assert f"games 1–{LIVE_LIMIT} of the {count} being played" in first and 'href="/?page=2"' in first
    second = client.get("/?page=2").get_data(as_text=True)
    assert LINK.findall(second) == [f"g{i}" for i in range(LIVE_LIMIT, count)]
    assert f"games {LIVE_LIMIT + 1}–{count} of the {count}" in second and 'href="/?page=1"' in second
    assert 'href="/?page=3"' not in second


def test_a_home_with_few_games_says_nothing_of_pages(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store(path) as s:
        s.live.open(live("g1", 1000.0))
    home = create_app(str(path)).test_client().get("/").get_data(as_text=True)
    assert LINK.findall(home) == ["g1"] and "being played, oldest first" not in home


def test_on_postgresql_the_pages_read_through_a_pool_of_connections(postgres: LocalPostgres) -> None:
    url = str(postgres.new_database())
    with Store(url) as s:
        s.live.open(live("g1", 1000.0))
    client = create_app(url).test_client()

    def backends() -> int:
        with psycopg.connect(url) as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchone()
        return int(row[0]) if row else 0

    assert LINK.findall(client.get("/").get_data(as_text=True)) == ["g1"]
    kept = backends()
    for _ in range(5):
        assert LINK.findall(client.get("/").get_data(as_text=True)) == ["g1"]
    assert 1 <= backends() == kept <= 2  # kept open and lent to each request in turn, not one a request
    with Store(url) as s:
        s.live.open(live("g2", 1001.0))  # (a referee writes meanwhile)
    assert LINK.findall(client.get("/").get_data(as_text=True)) == ["g1", "g2"]
