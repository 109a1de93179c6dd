"""A referee whose results store fills a real, small filesystem (a tmpfs), on a real server.

An IRC tournament (``arena tournament --transport irc``, a process of its own, with the
sample bots as processes of their own, as in ``bench/kill_irc.py``) keeps its store on a
1 MiB tmpfs, which its games fill. The game whose step could not be stored stops at once:
its channel says ``PAUSE`` and nothing more until it goes on, no new game starts, and the
log keeps saying why. The pause outlasts every deadline. Then the filesystem is grown, and
the same referee goes on by itself; or it is killed (SIGKILL) while paused and run again,
after the filesystem is grown or before (it then takes the game up paused). Either way every
game is stored once, none is forfeited and no deadline ran out,
every replay and the ratings are exact, and every line the channels heard is in the store.

Mounting a tmpfs needs root and a machine (or container) that allows it: otherwise the
test is skipped, saying why; ``tests/test_full_store.py`` injects the same fault anywhere.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path
from collections.abc import Iterator

import pytest

from arena.irc.link import IrcLink, LinkSettings, ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import END, PAUSE, RESUME, TABLE, ProtocolError, parse
from arena.referee.pause import STORE_DOWN
from arena.store import Store
from bench.kill_irc import (
    BOT_EXIT,
    check_store,
    rebuild_exact,
    referee_process,
    start_bots,
    stop,
    tournament_command,
    tracebacks,
    wait_bots,
    write_config,
)

from .conftest import require_ngircd

GAMES = 12
SMALL, LARGE = "1m", "64m"
"""The store's filesystem: small enough for the first few games to fill it; then grown."""
DB = "store/results.db"
RETRIES = 4
"""Failed tries the pause lasts at least: 1 + 2 + 4 + 8 s, longer than a decision and its
grace (``bench.kill_irc``: 8 + 2 s), so a deadline that ran during it would show."""
GUARD = 240.0
"""Seconds after which a wait is a hang: never reached on a working referee."""


@pytest.fixture(autouse=True)
def _ngircd() -> None:
    require_ngircd()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs for the store, or a skip saying why none can be mounted here."""
    folder = tmp_path / "store"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SMALL}", "tmpfs", str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"this machine does not allow mounting a tmpfs: {done.stderr.strip() or done.returncode}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def grow(folder: Path) -> None:
    """The operator frees room: the filesystem grows."""
    subprocess.run(["mount", "-o", f"remount,size={LARGE}", str(folder)], check=True)


class Watcher:
    """A spectator: follows every game the referee announces into its channel, and keeps
    the referee's lines there, per game, with the wall-clock time each came."""

    def __init__(self, host: str, port: int, referee: str = "arena", lobby: str = "#arena") -> None:
        self.referee, self.lobby = referee, lobby
        self.heard: dict[str, list[tuple[float, str]]] = {}
        self.lobby_lines: list[tuple[float, str]] = []
        self._channels: dict[str, str] = {}
        self._lock = threading.Lock()
        self.thread = ReactorThread(tick=0.02).start()
        self.link = IrcLink(
            host,
            port,
            "watcher",
            LinkSettings(lines_per_second=0),
            channels=[lobby],
            reactor=self.thread.reactor,
            on_message=self._heard,
        )
        self.link.connect()
        assert self.link.wait_ready(10)

    def _heard(self, sender: str, target: str, text: str) -> None:
        if sender.lower() != self.referee:
            return
        try:
            msg = parse(text)
        except ProtocolError:
            return
        now = time.monotonic()
        with self._lock:
            if target.lower() == self.lobby:
                self.lobby_lines.append((now, text))
                channel = msg.get("channel")
                if msg.verb in (TABLE, RESUME) and channel:
                    self._channels[channel.lower()] = msg.args[0]
                    self.link.join(channel)
                return
            gid = self._channels.get(target.lower())
            if gid is not None:
                self.heard.setdefault(gid, []).append((now, text))
                if msg.verb == END:
                    self.link.part(target)

    def lines(self, gid: str) -> list[tuple[float, str]]:
        with self._lock:
            return list(self.heard.get(gid, []))

    def close(self) -> None:
        self.link.close()
        self.thread.stop()


def wait_for(what: str, predicate, proc: subprocess.Popen[bytes], log: Path) -> None:  # type: ignore[no-untyped-def]
    guard = time.monotonic() + GUARD
    while not predicate():
        if proc.poll() is not None:
            pytest.fail(f"the referee exited ({proc.returncode}) before {what}:\n{log.read_text()[-3000:]}")
        assert time.monotonic() < guard, f"no {what} within {GUARD:.0f} s:\n{log.read_text()[-3000:]}"
        time.sleep(0.05)


def referee(where: Path, n: int) -> tuple[subprocess.Popen[bytes], Path]:
    return referee_process(where, str(n), tournament_command(GAMES))


PAUSED = re.compile(rf"game (\S+) paused: {STORE_DOWN}")


@pytest.mark.parametrize(
    "game, then",
    [("avalon", "grown"), ("avalon", "killed"), ("avalon", "killed, restarted full"), ("werewolf", "grown")],
)
def test_a_full_filesystem_pauses_the_game_and_no_game_or_deadline_is_lost(
    tmp_path: Path, small_disk: Path, game: str, then: str
) -> None:
    """Werewolf too: nights, a moderated channel and its floor, paused and gone on."""
    where = tmp_path
    with LocalServer("ngircd") as server:
        host, port = server.address
        write_config(where, game, host, port, db=DB)
        watcher = Watcher(host, port)
        bots = start_bots(where, game, host, port, GAMES)
        logs: list[Path] = []
        try:
            proc, log = referee(where, 1)
            logs.append(log)
            wait_for("pause", lambda: PAUSED.search(log.read_text(errors="replace")), proc, log)
            found = PAUSED.search(log.read_text(errors="replace"))
            assert found is not None
            gid = found.group(1)
            wait_for(
                f"{RETRIES} failed tries",
                lambda: log.read_text().count(f"game {gid} still paused") >= RETRIES,
                proc,
                log,
            )
            paused_at = time.monotonic()
            heard = watcher.lines(gid)
            if any(line.startswith(f"START {gid} ") for _, line in heard):  # (unless it paused as the watcher joined)
                pauses = [i for i, (_, line) in enumerate(heard) if line.startswith(f"{PAUSE} {gid} ")]
                assert pauses, f"the channel of {gid} was not told why it stopped: {heard[-5:]}"
                assert heard[pauses[0]][1] == f"{PAUSE} {gid} :{STORE_DOWN}"
                assert pauses[0] == len(heard) - 1, f"lines went out after the pause: {heard[pauses[0] :]}"
                paused_at = heard[pauses[0]][0]
            assert not [line for at, line in watcher.lobby_lines if at > paused_at and line.startswith(TABLE)], (
                "a new game started while the store could not be written"
            )
            assert "no game starts until it can" in log.read_text(), "the log does not say why nothing happens"
            deaf = [
                path.name
                for path in where.glob("bot-*.log")
                if f"game {gid} paused by the referee" not in path.read_text(errors="replace")
            ]
            assert not deaf, f"bots that did not read the PAUSE: {deaf}"
            if then == "grown":
                grow(small_disk)
            else:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                if then == "killed":
                    grow(small_disk)
                proc, log = referee(where, 2)
                logs.append(log)
                if then == "killed, restarted full":  # it takes the game up, paused, until the disk grows
                    wait_for("pause", lambda: f"game {gid} still paused" in log.read_text(errors="replace"), proc, log)
                    grow(small_disk)
            proc.wait(GUARD)
            assert proc.returncode == 0, log.read_text()[-3000:]
            if then == "grown":
                assert f"game {gid} goes on after" in log.read_text()
            left, stranded = wait_bots(where, bots, GAMES, BOT_EXIT)
            assert not stranded, stranded
        finally:
            stop(bots)
            watcher.close()
    kinds, failures = check_store(where, game, GAMES, db=DB)
    assert not failures, "\n".join(failures)
    assert kinds == {"ranked": GAMES}, kinds
    assert rebuild_exact(where)
    assert not tracebacks(logs + sorted(where.glob("bot-*.log")))
    followed = [game for game, heard in watcher.heard.items() if any(line.startswith("START ") for _, line in heard)]
    assert len(followed) >= GAMES - 1, f"the watcher followed {len(followed)} games from their start"
    with Store(where / DB) as store:  # every line the channels heard is in the store, in order
        for game, heard in watcher.heard.items():
            stored = store.games.load(game)
            assert stored is not None
            channel = [line for to, line in stored.transcript if to is None]
            said = [line for _, line in heard if not line.startswith((f"{PAUSE} ", "RATINGS "))]
            # A game recorded before the referee was killed (its end maybe not yet sent) is
            # told again by a restarted one: its RESUME, which its finished record does not keep.
            said = [line for line in said if not (line.startswith(f"{RESUME} {game} ") and line not in channel)]
            at = 0
            for line in said:
                assert line in channel[at:], f"{game}: a line went out that the store lacks: {line}"
                at = channel.index(line, at) + 1
