"""What a command loads: each imports what it uses and no more, so that reading the store
starts at once (``arena stats`` and ``arena leaderboard`` under 1 s at 100,000 games,
bench/README.md) and a local tournament's worker processes start without the IRC client.

Counted, not timed: every process of a command (its workers too, forked or spawned) writes
down, as it exits, the modules it holds (a ``sitecustomize`` that every process runs),
and a module the command must not need is in none of them. The IRC client (``irc``) is the
first of them: its import alone costs a quarter of a second (it walks the interpreter's
stack).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

NOT_FOR_READING = ("irc", "arena.irc", "scramp", "jinja2", "arena.sdk", "arena.referee.local", "arena.tournament")
"""What a command that reads the store does without: the IRC client and link, the key
checks, the HTML report, the SDK and the bots, the in-memory referee, tournaments."""

NOT_FOR_LOCAL_PLAY = ("irc", "arena.irc", "scramp", "jinja2")
"""What a local tournament does without, in its own process and in each of its workers."""

RECORDER = """\
import atexit, os, sys

def _record():
    with open(os.path.join(os.environ["MODULES_RECORDED_IN"], str(os.getpid())), "w") as out:
        out.write("\\n".join(sorted(sys.modules)))

def _exit(code, _exit=os._exit):
    _record()
    _exit(code)

atexit.register(_record)
os._exit = _exit
"""
"""The ``sitecustomize`` of the commands run here: each process writes its modules down
in a file of its own as it exits, whether it ends as a program does or as a forked worker
does (``os._exit``, which skips ``atexit``)."""


def loaded(folder: Path, *args: str) -> tuple[list[set[str]], str]:
    """What ``arena ARGS`` (run in ``folder``) printed, and the modules each of its Python
    processes held at its end."""
    recorder, records = folder / "recorder", folder / "records"
    recorder.mkdir(exist_ok=True)
    (recorder / "sitecustomize.py").write_text(RECORDER)
    records.mkdir(exist_ok=True)
    for old in records.iterdir():
        old.unlink()
    path = os.pathsep.join(p for p in (str(recorder), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "MODULES_RECORDED_IN": str(records)}
    done = subprocess.run(
        [sys.executable, "-m", "arena", *args], cwd=folder, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [set(record.read_text().split()) for record in records.iterdir()], done.stdout


def held(processes: list[set[str]], names: tuple[str, ...]) -> list[str]:
    """The modules of ``names`` (or in their packages) that some process held."""
    return sorted({m for p in processes for m in p if any(m == n or m.startswith(f"{n}.") for n in names)})


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[set[str]], str]:
    """A folder with a store of one local tournament played by two workers, and what that
    tournament's processes loaded and printed."""
    folder = tmp_path_factory.mktemp("store")
    bots = [f"--bot=p{i}={bot}" for i, bot in enumerate(["random", "avalon_rule"] * 3)]
    local = ("--transport", "local", "--games", "24", "--players", "5", "--jobs", "2")
    processes, said = loaded(folder, "tournament", *local, *bots)
    return folder, processes, said


def test_a_local_tournament_and_its_workers_load_no_irc(store: tuple[Path, list[set[str]], str]) -> None:
    _, processes, said = store
    assert "(2 worker processes)" in said and "played 24 games now" in said
    workers = [p for p in processes if "arena.bots.avalon_rules_bot" in p]  # the bots play in the workers alone
    assert len(workers) == 2
    assert [p for p in processes if "arena.cli" in p and p not in workers], "the tournament's own process"
    assert held(processes, NOT_FOR_LOCAL_PLAY) == []


@pytest.mark.parametrize("args", [["leaderboard"], ["leaderboard", "--system", "trueskill"], ["stats"], ["games"]])
def test_reading_the_store_loads_only_the_store(store: tuple[Path, list[set[str]], str], args: list[str]) -> None:
    folder, _, _ = store
    processes, said = loaded(folder, *args)
    assert "p1" in said, "the tournament's bots are shown"
    assert len(processes) == 1 and "arena.store" in processes[0]
    assert held(processes, NOT_FOR_READING) == []


def test_help_loads_no_command(tmp_path: Path) -> None:
    processes, said = loaded(tmp_path, "--help")
    assert "leaderboard" in said and "arena.cli" in processes[0]
    assert held(processes, (*NOT_FOR_READING, "arena.config")) == []
