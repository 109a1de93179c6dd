"""Two referees share one lobby on two linked IRC servers, with one PostgreSQL store.

Each referee (its own process and nick) sits on its own server of the network; the bots,
processes of their own, sit on either server and all register with the first referee. The
dealer draws the tables; each is claimed by one referee, which announces it with
``referee=`` its own nick and runs its game. Both referees run games, no table is run
twice, no game id is used twice, every game is ranked (no bot missed a line from the
referee that did not register it), the leaderboard equals a rebuild, and a narrator tells
the games of both. When a referee
is killed (``kill -9``) in the middle of a game, the other takes its games over from the
store within ``timeouts.failover`` and a few seconds, and the killed one, started again
while they go on, writes nothing for them.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import psycopg
import pytest

from arena.config import ServerConfig
from arena.irc.link import ReactorThread
from arena.narrate.sentence import Sentence
from arena.spectate.spectator import Spectator
from arena.store.pgserver import LocalPostgres
from bench.referees_irc import FAILOVER, LOBBY, REFEREES, arena, check_store, owned, playing

SPLIT = 30.0
"""Seconds server b is cut off from the network."""


def test_two_referees_on_two_linked_servers_share_one_lobby(tmp_path: Path, own_postgres: LocalPostgres) -> None:
    """A spectator's narrator on server a, which knows the first referee's nick alone
    until the lobby's topic names both, tells the games of both referees to their end."""
    games = 3
    told: list[Sentence] = []
    thread = ReactorThread(name="narrator")
    with arena(tmp_path, own_postgres, games, per_server=20) as lobby:  # forty bots, eight tables at once
        host, port = lobby.network.address("a")
        narrator = Spectator(
            ServerConfig(host=host, port=port, nick=REFEREES[0], channel=LOBBY),
            "teller",
            told.append,
            lines_per_second=100.0,
            reactor=thread.reactor,
        )
        narrator.start()
        thread.start()
        assert narrator.link.wait_ready(30)
        ready = time.monotonic()
    narrator.close()
    thread.stop()
    tables = lobby.watcher.tables()
    assert {t.sender for t in tables} == set(REFEREES), tables  # both referees ran tables
    assert all(t.sender == t.fields["referee"] for t in tables), tables
    gids = [t.gid for t in tables]
    assert len(gids) == len(set(gids)), tables  # no table announced twice
    stored = set(check_store(lobby, games))
    assert stored <= set(gids)
    ended = {s.gid for s in told if any(fact[0] == "winner" for fact in s.facts)}
    later = [t for t in tables if t.at > ready + 1.0 and t.gid in stored]  # (announced once it listened)
    assert {t.sender for t in later} == set(REFEREES), tables
    assert {t.gid for t in later} <= ended, sorted(g for g in ended if g is not None)


@pytest.mark.parametrize("killed", REFEREES)
def test_a_referee_killed_mid_game_leaves_its_games_to_the_other(
    tmp_path: Path, own_postgres: LocalPostgres, killed: str
) -> None:
    games = 4
    with arena(tmp_path, own_postgres, games) as lobby:
        lobby.wait_for(f"a game of {killed} under way", lambda: playing(lobby.url, killed))
        lobby.referees[killed].send_signal(signal.SIGKILL)
        lobby.referees[killed].wait()
        killed_at = time.monotonic()
        orphans = owned(lobby.url, killed)
        heir = REFEREES[1 - REFEREES.index(killed)]
        lobby.wait_for(
            "the games taken over",
            lambda: orphans <= {a.gid for a in lobby.watcher.said if a.verb == "RESUME"},
        )
        lobby.start_referee(killed, f"{killed}-again")  # while its games go on under the heir
    resumed = [a for a in lobby.watcher.said if a.verb == "RESUME"]
    assert {a.gid for a in resumed} == orphans, resumed  # each taken over once, by the heir
    assert len(resumed) == len(orphans) and all(a.sender == a.fields["referee"] == heir for a in resumed), resumed
    assert all(a.at - killed_at < FAILOVER + 5 for a in resumed), resumed
    check_store(lobby, games)


def test_a_netsplit_leaves_every_game_with_its_referee(tmp_path: Path, own_postgres: LocalPostgres) -> None:
    """Server b (the second referee's, and half the bots') is cut off for a while in the
    middle of the games, then linked again: no game is taken over or run twice, those that
    lost players to the split end by their deadlines, and the games after it run as before."""
    with arena(tmp_path, own_postgres, 1, leave=False) as lobby:
        lobby.wait_for("games under way on both referees", lambda: all(playing(lobby.url, n) for n in REFEREES))
        lobby.network.unlink("b")
        time.sleep(SPLIT)
        lobby.network.relink("b")
        whole = time.monotonic()

        def after() -> list[str]:
            """The games seated once the network was whole again, and recorded ranked."""
            seated = [t.gid for t in lobby.watcher.tables() if t.at > whole + FAILOVER]
            with psycopg.connect(lobby.url) as conn:
                rows = conn.execute("SELECT id, kind FROM games").fetchall()
            return [gid for gid, kind in rows if gid in seated and kind == "ranked"]

        lobby.wait_for("two games after the split, by each referee", lambda: len(after()) >= 4)
    assert not [a for a in lobby.watcher.said if a.verb == "RESUME"]  # nobody took a game over
    tables = lobby.watcher.tables()
    assert len({t.gid for t in tables}) == len(tables), tables  # (the watcher is on b: it heard b's side)
    assert {t.sender for t in tables if t.gid in after()} == set(REFEREES), tables
    check_store(lobby, 1, ranked=False)
