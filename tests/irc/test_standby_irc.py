"""A standby referee: a second ``arena serve`` with the same configuration and store takes the
lobby and its games over when the first stops, on a real IRC server with the sample bots.

Both referees are processes of their own, as are the five bots (``bench.kill_irc``); the
store is a PostgreSQL database, as referees on two hosts would share. The standby waits
while the first holds the lobby. Then the first is killed (``kill -9``: found dead on this
host, it is not waited for), or stopped (``SIGSTOP``: alive but silent, so its lease runs out
after ``timeouts.failover`` seconds) and continued once the standby has taken over, when it
must find its place taken and stop without writing or saying anything more. Either way the
standby takes up the game in progress, the bots play every game they came for, every game
is stored once, none is forfeited, every replay and the ratings are exact.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from arena.irc.servers import LocalServer
from arena.store import Store
from arena.store.pgserver import LocalPostgres
from bench.kill_irc import (
    BOT_EXIT,
    rebuild_exact,
    referee_process,
    start_bots,
    stop,
    tracebacks,
    wait_bots,
    write_config,
)


GAMES = 8
FAILOVER = 2.0
GUARD = 240.0
"""Seconds after which a wait is a hang: never reached on a working referee."""


def mid_game(url: str) -> bool:
    """Two games are over and another is being played (its steps written ahead)."""
    with psycopg.connect(url) as conn:
        over = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]  # type: ignore[index]
        playing = conn.execute(
            "SELECT COUNT(*) FROM live_games l WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = l.id)"
            " AND EXISTS (SELECT 1 FROM live_actions a WHERE a.gid = l.id)"
        ).fetchone()[0]  # type: ignore[index]
    return bool(over >= 2 and playing)


def referee(where: Path, name: str) -> tuple[subprocess.Popen[bytes], Path]:
    return referee_process(where, name, [sys.executable, "-m", "arena", "--config", "config.yaml", "serve"])


def logs(where: Path) -> str:
    """The referees' logs' ends, for a failure to show."""
    return "\n".join(
        f"--- {p.name}\n{p.read_text(errors='replace')[-1500:]}" for p in sorted(where.glob("referee-*.log"))
    )


def wait_for(what: str, predicate: Callable[[], object], where: Path, *procs: subprocess.Popen[bytes]) -> None:
    guard = time.monotonic() + GUARD
    while not predicate():
        for proc in procs:
            assert proc.poll() is None, f"a referee exited ({proc.returncode}) before {what}\n{logs(where)}"
        assert time.monotonic() < guard, f"no {what} within {GUARD:.0f} s\n{logs(where)}"
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["killed", "stopped"])
def test_a_standby_takes_the_lobby_and_its_games_over(tmp_path: Path, own_postgres: LocalPostgres, how: str) -> None:
    where, url = tmp_path, own_postgres.new_database()
    Store(url).close()
    with LocalServer("ngircd") as server:
        host, port = server.address
        config = write_config(where, "avalon", host, port, db=url)
        config.write_text(config.read_text().replace("timeouts:\n", f"timeouts:\n  failover: {FAILOVER}\n", 1))
        first, first_log = referee(where, "first")
        wait_for("the first referee's hold", lambda: "referee arena on" in first_log.read_text(), where, first)
        second, second_log = referee(where, "second")
        bots = start_bots(where, "avalon", host, port, GAMES)
        try:
            wait_for(
                "the standby", lambda: "standby: the referee arena on" in second_log.read_text(), where, first, second
            )
            wait_for("a game under way after two", lambda: mid_game(url), where, first, second)
            if how == "killed":
                first.send_signal(signal.SIGKILL)
                first.wait()
                wait_for("the takeover", lambda: "is gone: taking over" in second_log.read_text(), where, second)
            else:
                first.send_signal(signal.SIGSTOP)
                wait_for("the takeover", lambda: "took the place" in second_log.read_text(), where, second)
                first.send_signal(signal.SIGCONT)
                assert first.wait(GUARD) == 1, logs(where)
                said = first_log.read_text()  # (fenced at its renewal, or at a write for its game)
                assert "taken" in said and "over" in said and "this referee stops" in said, said[-2000:]
            wait_for("a game taken up", lambda: "taken up after a restart" in second_log.read_text(), where, second)
            _, stranded = wait_bots(where, bots, GAMES, BOT_EXIT + GUARD)
            assert not stranded, f"{stranded}\n{logs(where)}"
        finally:
            stop(bots)
            for proc in (first, second):
                if proc.poll() is None:
                    proc.send_signal(signal.SIGCONT)
                    proc.terminate()
                    proc.wait(30)
    with Store(url) as store:
        ids = [gid for (gid,) in store.db.execute("SELECT id FROM games").fetchall()]
        assert len(ids) == len(set(ids)) >= GAMES
        assert store.db.execute("SELECT COUNT(*) FROM live_games").fetchone()[0] == 0
        for gid in ids:
            game = store.games.load(gid)
            assert game is not None and game.summary.kind == "ranked", (gid, game and game.summary.reason)
            assert list(game.replay().events) == list(game.events), gid
            assert not [line for _, line in game.transcript if line.startswith(("WARN ", "TIMEOUT "))], gid
    assert rebuild_exact(where)
    assert not tracebacks([first_log, second_log, *sorted(where.glob("bot-*.log"))])
