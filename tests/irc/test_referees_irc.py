"""Two referees share one lobby on two linked IRC servers, with one PostgreSQL store.

Each referee (its own process and nick) sits on its own server of the network; the bots,
processes of their own, sit on either server and all register with the first referee. The
dealer draws the tables; each is claimed by one referee, which announces it with
``referee=`` its own nick and runs its game. Both referees run games, no table is run
twice, no game id is used twice, every game is ranked (no bot missed a line from the
referee that did not register it), and the leaderboard equals a rebuild. When a referee
is killed (``kill -9``) in the middle of a game, the other takes its games over from the
store within ``timeouts.failover`` and a few seconds, and the killed one, started again
while they go on, writes nothing for them.
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest

from arena.irc.network import LinkedNetwork
from arena.protocol import unbundle
from arena.store import Store
from arena.store.pgserver import LocalPostgres
from bench.kill_irc import BOTS, rebuild_exact, referee_process, stop, tracebacks, wait_bots, write_config

from ..conftest import require_postgres
from .conftest import require_ngircd

BOTS_PER_SERVER = 5
FAILOVER = 2.0
GUARD = 240.0
"""Seconds after which a wait is a hang: never reached on a working system."""
LOBBY_LINE = re.compile(r":(\S+?)!\S* PRIVMSG #arena :(.*)")
REFEREES = ("arena", "arena2")
SPLIT = 15.0
"""Seconds server b is cut off from the network."""
SERVE = [sys.executable, "-m", "arena", "--config", "config.yaml", "serve", "-v"]


@dataclass
class Announced:
    """A ``TABLE`` or ``RESUME`` in the lobby, when the watcher read it."""

    at: float
    sender: str
    verb: str
    gid: str
    fields: dict[str, str] = field(default_factory=dict)


class LobbyWatcher(threading.Thread):
    """A spectator in the lobby, on one server: every ``TABLE`` and ``RESUME`` and its sender."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection((host, port))
        self.sock.sendall(b"NICK watcher\r\nUSER watcher 0 * :watcher\r\n")
        self.said: list[Announced] = []
        self.joined = threading.Event()

    def run(self) -> None:
        buffer = b""
        while data := self._read():
            buffer += data
            *lines, buffer = buffer.split(b"\r\n")
            for raw in lines:
                self._handle(raw.decode(errors="replace"))

    def _read(self) -> bytes:
        try:
            return self.sock.recv(65536)
        except OSError:
            return b""

    def _handle(self, line: str) -> None:
        if line.startswith("PING"):
            self.sock.sendall(("PONG" + line[4:] + "\r\n").encode())
        elif " 001 " in line:
            self.sock.sendall(b"JOIN #arena\r\n")
        elif " 366 " in line:
            self.joined.set()
        elif (found := LOBBY_LINE.match(line)) is not None:
            for said in unbundle(found[2]):
                verb, gid, *words = said.split()
                if verb in ("TABLE", "RESUME"):
                    fields = dict(word.split("=", 1) for word in words if "=" in word)
                    self.said.append(Announced(time.monotonic(), found[1], verb, gid, fields))

    def tables(self) -> list[Announced]:
        """The tables that seated bots (not their withdrawals)."""
        return [a for a in self.said if a.verb == "TABLE" and a.fields.get("seats")]

    def close(self) -> None:
        self.sock.close()


@dataclass
class Arena:
    network: LinkedNetwork
    where: Path
    url: str
    watcher: LobbyWatcher
    referees: dict[str, subprocess.Popen[bytes]]
    logs: dict[str, Path]
    bots: dict[str, subprocess.Popen[bytes]]

    def start_referee(self, nick: str, run: str) -> None:
        self.referees[run], self.logs[run] = referee_process(self.where / nick, run, SERVE)

    def said(self) -> str:
        return "\n".join(f"--- {run}\n{log.read_text(errors='replace')[-3000:]}" for run, log in self.logs.items())

    def wait_for(self, what: str, predicate: object) -> None:
        guard = time.monotonic() + GUARD
        assert callable(predicate)
        while not predicate():
            assert time.monotonic() < guard, f"no {what} within {GUARD:.0f} s\n{self.said()}"
            time.sleep(0.05)


def start_bot(where: Path, nick: str, host: str, port: int, seed: int, games: int) -> subprocess.Popen[bytes]:
    launcher = "avalon_rules_bot" if seed % 2 else "random_bot"
    with open(where / f"bot-{nick}.log", "wb") as log:
        return subprocess.Popen(
            [sys.executable, str(BOTS / f"{launcher}.py"), "--server", f"{host}:{port}", "--nick", nick]
            + ["--games", str(games), "--seed", str(seed), "--verbose"],
            cwd=where,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def referee_config(where: Path, nick: str, host: str, port: int, url: str) -> None:
    config = write_config(where, "avalon", host, port, db=url)
    text = config.read_text().replace("server:\n", f"server:\n  nick: {nick}\n  network: testnet\n", 1)
    text = text.replace("lobby:\n", "lobby:\n  max_players: 5\n", 1)
    config.write_text(text.replace("timeouts:\n", f"timeouts:\n  failover: {FAILOVER}\n", 1))


@contextmanager
def arena(
    where: Path, postgres: LocalPostgres, games: int, leave: bool = True, per_server: int = BOTS_PER_SERVER
) -> Iterator[Arena]:
    """Two referees on two linked servers, and ``per_server`` bots on each that play
    ``games`` games each (and then leave, waited for; unless not ``leave``: they play on
    until stopped)."""
    require_ngircd()
    require_postgres()
    url = postgres.new_database()
    Store(url).close()
    with LinkedNetwork(("a", "b")) as network:
        servers = [network.address("a"), network.address("b")]
        for nick, (host, port) in zip(REFEREES, servers):
            referee_config(where / nick, nick, host, port, url)
        watcher = LobbyWatcher(*servers[1])
        watcher.start()
        assert watcher.joined.wait(30)
        lobby = Arena(network, where, url, watcher, {}, {}, {})
        try:
            for nick in REFEREES:
                lobby.start_referee(nick, nick)
            for i in range(2 * per_server):
                host, port = servers[i // per_server]
                lobby.bots[f"bot{i}"] = start_bot(where, f"bot{i}", host, port, i, games if leave else 10_000)
            yield lobby
            if leave:
                _, stranded = wait_bots(where, lobby.bots, games, GUARD)
                assert not stranded, f"{stranded}\n{lobby.said()}"
        finally:
            stop(lobby.bots)
            watcher.close()
            for proc in lobby.referees.values():
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)
                    try:
                        proc.wait(30)
                    except subprocess.TimeoutExpired:
                        proc.kill()


def check_store(lobby: Arena, games: int, ranked: bool = True) -> list[str]:
    """Every game stored once, ranked (nobody forfeited), none left in progress (unless not
    ``ranked``: the bots were stopped, maybe in the middle of games), the ratings exact;
    the ids of the games."""
    with Store(lobby.url) as store:
        ids = [gid for (gid,) in store.db.execute("SELECT id FROM games").fetchall()]
        assert len(ids) == len(set(ids)) >= games * 2
        for gid in ids:
            game = store.games.load(gid)
            assert game is not None, gid
            assert game.summary.kind == "ranked" or not ranked, (gid, game.summary.reason)
            assert list(game.replay().events) == list(game.events), gid
        if ranked:
            assert store.db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0] == 0
            assert store.db.execute("SELECT COUNT(*) FROM lobby_tables").fetchone()[0] == 0
    assert rebuild_exact(lobby.where / REFEREES[0])
    assert not tracebacks([*lobby.logs.values(), *sorted(lobby.where.glob("bot-*.log"))])
    return ids


def test_two_referees_on_two_linked_servers_share_one_lobby(tmp_path: Path, own_postgres: LocalPostgres) -> None:
    games = 3
    with arena(tmp_path, own_postgres, games, per_server=20) as lobby:  # forty bots, eight tables at once
        pass
    tables = lobby.watcher.tables()
    assert {t.sender for t in tables} == set(REFEREES), tables  # both referees ran tables
    assert all(t.sender == t.fields["referee"] for t in tables), tables
    gids = [t.gid for t in tables]
    assert len(gids) == len(set(gids)), tables  # no table announced twice
    assert set(check_store(lobby, games)) <= set(gids)


def playing(url: str, nick: str) -> bool:
    """Referee ``nick`` runs a game that has begun (its steps written ahead)."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT COUNT(*) FROM live_games l JOIN referees r ON r.id = l.owner WHERE r.nick = %s"
            " AND EXISTS (SELECT 1 FROM live_actions a WHERE a.gid = l.id)",
            (nick,),
        ).fetchone()
    return bool(row and row[0])


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
        with psycopg.connect(lobby.url) as conn:
            orphans = {
                gid
                for (gid,) in conn.execute(
                    "SELECT l.id FROM live_games l JOIN referees r ON r.id = l.owner WHERE r.nick = %s", (killed,)
                )
            }
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
