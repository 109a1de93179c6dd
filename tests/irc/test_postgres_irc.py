"""A referee whose results store is a PostgreSQL server, on a real IRC server: the server
goes down in the middle of a tournament and comes back.

An IRC tournament (``arena tournament --transport irc``, a process of its own, its bots
processes of their own, as in ``tests/irc/test_full_disk_irc.py``) keeps its store in a
PostgreSQL database. Once some games are over the database server stops. The game whose
step could not be stored stops at once (``PAUSE``), no new game starts, and the referee
tries again and again; when the server is back the same referee goes on by itself. Or the
referee is killed while the server is down and started again once it is back: it takes the
game up where it was stored. Either way every game is stored once, none is forfeited, no
deadline ran out, every replay and the ratings are exact.
"""

from __future__ import annotations

import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from arena.irc.servers import LocalServer
from arena.referee.pause import STORE_DOWN
from arena.store import Store
from arena.store.pgserver import LocalPostgres
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


GAMES = 10
GUARD = 240.0
"""Seconds after which a wait is a hang: never reached on a working referee."""
PAUSED = re.compile(rf"game (\S+) paused: {STORE_DOWN}")


def stored(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM games").fetchone()[0])  # type: ignore[index]


def referee(where: Path, n: int) -> tuple[subprocess.Popen[bytes], Path]:
    return referee_process(where, str(n), tournament_command(GAMES))


def wait_for(what: str, predicate: Callable[[str], object], proc: subprocess.Popen[bytes], log: Path) -> None:
    guard = time.monotonic() + GUARD
    while not predicate(log.read_text(errors="replace")):
        if proc.poll() is not None:
            pytest.fail(f"the referee exited ({proc.returncode}) before {what}:\n{log.read_text()[-3000:]}")
        assert time.monotonic() < guard, f"no {what} within {GUARD:.0f} s:\n{log.read_text()[-3000:]}"
        time.sleep(0.05)


@pytest.mark.parametrize("then", ["back", "killed while down"])
def test_a_database_server_that_goes_down_pauses_the_game_and_loses_nothing(
    tmp_path: Path, own_postgres: LocalPostgres, then: str
) -> None:
    database = own_postgres
    where, url = tmp_path, database.new_database()
    Store(url).close()  # its schema, for the test to count its games
    with LocalServer("ngircd") as server:
        host, port = server.address
        write_config(where, "avalon", host, port, db=url)
        bots = start_bots(where, "avalon", host, port, GAMES)
        logs: list[Path] = []
        try:
            proc, log = referee(where, 1)
            logs.append(log)
            wait_for("two games stored", lambda _: stored(url) >= 2, proc, log)
            database.down()
            wait_for("a pause", PAUSED.search, proc, log)
            found = PAUSED.search(log.read_text())
            assert found is not None
            gid = found.group(1)
            wait_for("two failed tries", lambda text: text.count(f"game {gid} still paused") >= 2, proc, log)
            wait_for("the lobby's wait", lambda text: "no game starts until it can" in text, proc, log)
            if then == "killed while down":
                proc.send_signal(signal.SIGKILL)
                proc.wait()
            database.up()
            if then == "killed while down":
                proc, log = referee(where, 2)
                logs.append(log)
            proc.wait(GUARD)
            assert proc.returncode == 0, log.read_text()[-3000:]
            if then == "back":
                assert f"game {gid} goes on after" in log.read_text()
            else:
                assert f"game {gid} taken up after a restart" in log.read_text()
            left, stranded = wait_bots(where, bots, GAMES, BOT_EXIT)
            assert not stranded, stranded
        finally:
            stop(bots)
    kinds, failures = check_store(where, "avalon", GAMES, db=url)
    assert not failures, "\n".join(failures)
    assert kinds == {"ranked": GAMES}, kinds
    assert rebuild_exact(where)
    assert not tracebacks(logs + sorted(where.glob("bot-*.log")))
