"""Two referees sharing one lobby, for real: two linked ngircd servers, one PostgreSQL store,
each referee an ``arena serve`` process on its own server, the bots processes of their own.

``tests/irc/test_referees_irc.py`` runs its short checks on it, and ``bench/kill_referees.py``
its long kill -9 soak. A spectator in the lobby (``LobbyWatcher``) hears every ``TABLE`` and
``RESUME`` and joins each game's channel, where it hears every line a referee says: who
said what, and when, is what the checks need (which referee ran a game, when it was taken
over, whether a fenced referee still spoke for it).
"""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from arena.irc.network import LinkedNetwork
from arena.protocol import unbundle
from arena.store import Store
from arena.store.pgserver import LocalPostgres
from bench.kill_irc import BOTS, rebuild_exact, referee_process, stop, tracebacks, wait_bots, write_config

BOTS_PER_SERVER = 5
FAILOVER = 2.0
GUARD = 240.0
"""Seconds after which a wait is a hang: never reached on a working system."""
CHANNEL_LINE = re.compile(r":(\S+?)!\S* PRIVMSG (#\S+) :(.*)")
LOBBY = "#arena"
REFEREES = ("arena", "arena2")
SERVE = [sys.executable, "-m", "arena", "--config", "config.yaml", "serve", "-v"]
LAUNCHERS = {"avalon": ("random_bot", "avalon_rules_bot"), "werewolf": ("werewolf_rules_bot",)}
"""The bots of each game, in turn by seed (``bots/``)."""
TABLE = {"avalon": 5, "werewolf": 8}
"""Seats at a table of each game."""


@dataclass
class Announced:
    """A referee's line (a ``TABLE`` or ``RESUME`` in the lobby, any line in a game's
    channel), when the watcher read it."""

    at: float
    sender: str
    verb: str
    gid: str
    fields: dict[str, str] = field(default_factory=dict)


class LobbyWatcher(threading.Thread):
    """A spectator on one server: every ``TABLE`` and ``RESUME`` of the lobby and its sender
    (``said``), and every line the referees say in the games' channels (``heard``)."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(daemon=True)
        self.sock = socket.create_connection((host, port))
        self.sock.sendall(b"NICK watcher\r\nUSER watcher 0 * :watcher\r\n")
        self.said: list[Announced] = []
        self.heard: list[Announced] = []
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

    def _send(self, line: str) -> None:
        try:
            self.sock.sendall((line + "\r\n").encode())
        except OSError:
            pass  # closed: the run is over

    def _handle(self, line: str) -> None:
        if line.startswith("PING"):
            self._send("PONG" + line[4:])
        elif " 001 " in line:
            self._send(f"JOIN {LOBBY}")
        elif " 366 " in line and f" {LOBBY} " in line:
            self.joined.set()
        elif (found := CHANNEL_LINE.match(line)) is not None and found[1] in REFEREES:
            sender, channel = found[1], found[2]
            for said in unbundle(found[3]):
                words = said.split()
                verb, gid = (words + ["", ""])[:2]
                fields = dict(word.split("=", 1) for word in words[2:] if "=" in word)
                heard = Announced(time.monotonic(), sender, verb, gid, fields)
                if channel != LOBBY:
                    self.heard.append(heard)
                    if verb == "END":
                        self._send(f"PART {channel}")
                elif verb in ("TABLE", "RESUME"):
                    self.said.append(heard)
                    if fields.get("seats"):
                        self._send(f"JOIN {fields['channel']}")

    def tables(self) -> list[Announced]:
        """The tables that seated bots (not their withdrawals)."""
        return [a for a in self.said if a.verb == "TABLE" and a.fields.get("seats")]

    def withdrawn(self) -> set[str]:
        """The tables withdrawn before their game began (``TABLE GID ... seats=``)."""
        return {a.gid for a in self.said if a.verb == "TABLE" and not a.fields.get("seats")}

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

    def started(self, run: str, within: float = 30.0) -> None:
        """Wait until referee ``run`` says it runs (Ctrl-C stops it cleanly from then on),
        or has ended, or ``within`` seconds."""
        until = time.monotonic() + within
        while "(Ctrl-C stops)" not in self.logs[run].read_text(errors="replace"):
            if time.monotonic() > until or self.referees[run].poll() is not None:
                return
            time.sleep(0.05)

    def said(self) -> str:
        return "\n".join(f"--- {run}\n{log.read_text(errors='replace')[-3000:]}" for run, log in self.logs.items())

    def wait_for(self, what: str, predicate: Callable[[], object]) -> None:
        guard = time.monotonic() + GUARD
        while not predicate():
            assert time.monotonic() < guard, f"no {what} within {GUARD:.0f} s\n{self.said()}"
            time.sleep(0.05)


def start_bot(
    where: Path, nick: str, host: str, port: int, seed: int, games: int, game: str = "avalon"
) -> subprocess.Popen[bytes]:
    launchers = LAUNCHERS[game]
    launcher = launchers[seed % len(launchers)]
    with open(where / f"bot-{nick}.log", "wb") as log:
        return subprocess.Popen(
            [sys.executable, str(BOTS / f"{launcher}.py"), "--server", f"{host}:{port}", "--nick", nick]
            + ["--games", str(games), "--seed", str(seed), "--verbose"],
            cwd=where,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def referee_config(
    where: Path, nick: str, host: str, port: int, url: str, game: str = "avalon", failover: float = FAILOVER
) -> None:
    config = write_config(where, game, host, port, db=url)
    text = config.read_text().replace("server:\n", f"server:\n  nick: {nick}\n  network: testnet\n", 1)
    seats = TABLE[game]
    text = text.replace("lobby:\n", f"lobby:\n  game: {game}\n  min_players: {seats}\n  max_players: {seats}\n", 1)
    config.write_text(text.replace("timeouts:\n", f"timeouts:\n  failover: {failover}\n", 1))


@contextmanager
def arena(
    where: Path,
    postgres: LocalPostgres,
    games: int,
    leave: bool = True,
    per_server: int = BOTS_PER_SERVER,
    game: str = "avalon",
    failover: float = FAILOVER,
) -> Iterator[Arena]:
    """Two referees on two linked servers (``timeouts.failover`` ``failover``), and
    ``per_server`` bots on each that play ``games`` games each (and then leave, waited for;
    unless not ``leave``: they play on until stopped)."""
    url = postgres.new_database()
    Store(url).close()
    with LinkedNetwork(("a", "b")) as network:
        servers = [network.address("a"), network.address("b")]
        for nick, (host, port) in zip(REFEREES, servers):
            referee_config(where / nick, nick, host, port, url, game, failover)
        watcher = LobbyWatcher(*servers[1])
        watcher.start()
        assert watcher.joined.wait(30)
        lobby = Arena(network, where, url, watcher, {}, {}, {})
        try:
            for nick in REFEREES:
                lobby.start_referee(nick, nick)
            for i in range(2 * per_server):
                host, port = servers[i // per_server]
                lobby.bots[f"bot{i}"] = start_bot(where, f"bot{i}", host, port, i, games if leave else 10_000, game)
            yield lobby
            if leave:
                _, stranded = wait_bots(where, lobby.bots, games, GUARD)
                assert not stranded, f"{stranded}\n{lobby.said()}"
        finally:
            stop(lobby.bots)
            watcher.close()
            for run, proc in lobby.referees.items():
                if proc.poll() is None:
                    lobby.started(run)  # (a Ctrl-C while Python starts up is a traceback of its own)
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
        assert len(ids) == len(set(ids)) >= games * 2, f"games stored: {sorted(ids)}"
        for gid in ids:
            game = store.games.load(gid)
            assert game is not None, gid
            assert game.summary.kind == "ranked" or not ranked, (gid, game.summary.reason)
            assert list(game.replay().events) == list(game.events), gid
        if ranked:
            live = [gid for (gid,) in store.db.execute("SELECT id FROM live_games").fetchall()]
            assert not live, f"games left in progress: {live}"
            tables = [gid for (gid,) in store.db.execute("SELECT gid FROM lobby_tables").fetchall()]
            assert not tables, f"tables left in the lobby: {tables}"
    assert rebuild_exact(lobby.where / REFEREES[0]), "ratings rebuild differs from the stored ratings"
    found = tracebacks([*lobby.logs.values(), *sorted(lobby.where.glob("bot-*.log"))])
    assert not found, "\n".join(found)
    return ids


def playing(url: str, nick: str) -> bool:
    """Referee ``nick`` runs a game that has begun (its steps written ahead)."""
    return bool(running(url, nick))


def running(url: str, nick: str) -> set[str]:
    """The games referee ``nick`` runs that have begun (their steps written ahead)."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT l.id FROM live_games l JOIN referees r ON r.id = l.owner WHERE r.nick = %s"
            " AND EXISTS (SELECT 1 FROM live_actions a WHERE a.gid = l.id)",
            (nick,),
        ).fetchall()
    return {gid for (gid,) in rows}


def owned(url: str, nick: str) -> set[str]:
    """The games in progress whose lease referee ``nick`` holds, begun or not."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT l.id FROM live_games l JOIN referees r ON r.id = l.owner WHERE r.nick = %s", (nick,)
        ).fetchall()
    return {gid for (gid,) in rows}
