"""Whole-store commands on a large store: the wall time, CPU time and peak resident memory
of each, run as an operator runs it (``python -m arena ...``, one process per command).

Usage: python bench/wholestore.py PATH [--repeat N] [--skip-write | --reads] [--only PREFIX]
PATH is a store such as ``bench/bigstore.py`` writes. The first command opens it, which
migrates an older store: that open is timed apart. Then, each ``--repeat`` times:
``arena stats``, ``arena leaderboard`` (Elo and TrueSkill), ``arena games``, ``arena report
--all`` (to a temporary file), ``arena ratings rebuild`` (on two cores, its tournaments'
standings in a worker process), the same in one process (``--jobs 1``) and ``arena ratings
rebuild --write`` (which rewrites the same values into an exact store; ``--skip-write``
leaves it out; ``--reads`` keeps the four commands that read a few rows, whose time is
mostly the start-up of a command); ``--only`` runs those whose arguments start with PREFIX
(say ``ratings``). Each figure is the child's own (``os.wait4``): CPU is user + system
time, its worker's included; memory, the peak resident set of the child or of its worker,
whichever is larger. The best of the runs is printed, as a shared machine only ever slows a run.
Last, what the commands ask of the store, timed in this process (CPU time, best of the
runs), apart from the start-up of a command (Python and the arena's imports).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any


def run(args: list[str], env: dict[str, str], cwd: str) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak resident MB of ``python -m arena ARGS``, run in
    ``cwd`` (not here: ``-m`` imports from its working directory before ``PYTHONPATH``)."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "arena", *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if child.returncode != 0:
        raise SystemExit(f"arena {' '.join(args)} failed ({child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-write", action="store_true")
    parser.add_argument("--reads", action="store_true")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    env = {**os.environ, "ARENA_STORE_PATH": os.path.abspath(args.path)}
    with tempfile.TemporaryDirectory() as tmp:
        commands = [
            ["stats"],
            ["leaderboard"],
            ["leaderboard", "--system", "trueskill"],
            ["games"],
            ["report", "--all", "-o", os.path.join(tmp, "all.html")],
            ["ratings", "rebuild"],
            ["ratings", "rebuild", "--jobs", "1"],
        ]
        if args.reads:
            del commands[4:]
        elif not args.skip_write:
            commands.append(["ratings", "rebuild", "--write"])
        commands = [command for command in commands if " ".join(command).startswith(args.only)]
        wall, cpu, rss = run(["leaderboard"], env, tmp)
        print(f"first open (migrates an older store) + leaderboard: {wall:.2f} s wall, {cpu:.2f} s CPU, {rss:.0f} MB")
        best: dict[str, tuple[float, float, float]] = {}
        for _ in range(args.repeat):
            for command in commands:
                name = " ".join(command[:3] if command[0] == "report" else command)
                figures = run(command, env, tmp)
                best[name] = tuple(map(min, zip(best.get(name, figures), figures)))  # type: ignore[assignment]
        for name, (wall, cpu, rss) in best.items():
            print(f"arena {name:34s} {wall:7.2f} s wall {cpu:7.2f} s CPU {rss:7.0f} MB peak RSS")
    calls(args.path, args.repeat)


def calls(path: str, repeat: int) -> None:
    """The store's calls behind ``stats``, ``leaderboard`` and ``games``, in this process."""
    from arena.store import Store

    with Store(path) as store:
        asked: dict[str, Callable[[], Any]] = {
            "store.stats.bots (every bot)": lambda: store.stats.bots("avalon"),
            "store.ratings.leaderboard": lambda: store.ratings.leaderboard("avalon", "elo"),
            "store.games.find (20 newest)": lambda: store.games.find(limit=20),
        }
        for name, call in asked.items():
            times = []
            for _ in range(repeat):
                start = time.process_time()
                call()
                times.append(time.process_time() - start)
            print(f"{name:40s} {min(times) * 1000:9.1f} ms CPU")


if __name__ == "__main__":
    main()
