"""Deterministic resume: a local tournament killed (SIGKILL) and resumed plays exactly the
games an uninterrupted run of the same command plays.

Usage: python bench/kill_resume.py [--game avalon|werewolf|both] [--games N] [--kills K] [--seed S] [--jobs J]

For each game type: ``arena tournament --games 1`` creates the tournament (and its secret
key) in a scratch store, which is then copied twice. Copy A runs ``--games N`` to the end
in one process; copy B runs the same command and is killed with SIGKILL ``K`` times, at
random points (once its store holds a random number of games, plus a random delay so the
kill often lands inside a game), re-running the command after each kill until it ends. Copy
A plays in one process (``--jobs 1``), copy B with ``--jobs J`` worker processes (default
2), whose workers must end with their killed parent.
Then both stores must agree on every game (seed, seats, roles, winner, reason, every
answer, every line the referee sent) and on the final Elo and TrueSkill tables, exactly,
and ``arena ratings rebuild`` must match exactly on both. Any difference means some
random stream (a bot's, the SDK's, the referee's) was per process, not per game.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROSTERS = {
    "avalon": ("rule1=avalon_rule", "rule2=avalon_rule", "rule3=avalon_rule", "rand1=random", "rand2=random"),
    "werewolf": (
        "w1=werewolf_rule",
        "w2=werewolf_rule",
        "w3=werewolf_rule",
        "w4=werewolf_rule",
        "r1=random",
        "r2=random",
        "r3=random",
        "r4=random",
    ),
}
"""Rule bots and random bots: both kinds draw from their random streams every game."""

DB = "results.db"
TOURNAMENT = "t1"


@dataclass
class Run:
    """What happened to the killed copy: the games stored at each kill, and how many
    processes it took to finish."""

    killed_at: list[int] = field(default_factory=list)
    processes: int = 0
    workers_seen: int = 0
    """Worker processes of the killed runs, each seen to end after its parent."""


def write_config(where: Path, game: str, extra: tuple[str, ...] = ()) -> Path:
    """A config whose store path is relative, so the same command works in every copy;
    ``extra`` bots join the game's roster."""
    where.mkdir(parents=True, exist_ok=True)
    bots = ", ".join(ROSTERS[game] + extra)
    path = where / "config.yaml"
    path.write_text(f"store:\n  path: {DB}\ntournament:\n  id: {TOURNAMENT}\n  game: {game}\n  bots: [{bots}]\n")
    return path


def command(games: int, jobs: int = 1) -> list[str]:
    return [
        sys.executable,
        "-m",
        "arena",
        "--config",
        "config.yaml",
        "tournament",
        "--games",
        str(games),
        "--jobs",
        str(jobs),
    ]


def children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc; none known elsewhere)."""
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def alive(pid: int) -> bool:
    """Running, not a zombie waiting for a parent that is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def environment(rng: random.Random) -> dict[str, str]:
    """This environment with a hash seed of its own: every process orders sets of strings
    its own way, so a game that depended on that order would show up as a difference."""
    return {**os.environ, "PYTHONHASHSEED": str(rng.randrange(1, 2**32))}


def games_done(where: Path) -> int:
    """The tournament's progress, read without writing (the tournament may be running)."""
    db = where / DB
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1.0)
        try:
            row = conn.execute("SELECT games_done FROM tournaments WHERE id = ?", (TOURNAMENT,)).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # the first run has not created its tables yet
    return 0 if row is None else int(row[0])


def copy_store(source: Path, target: Path) -> None:
    """Copy a closed store (its WAL files too, should any be left) and its config."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source / "config.yaml", target / "config.yaml")
    for suffix in ("", "-wal", "-shm"):
        if (source / (DB + suffix)).exists():
            shutil.copy2(source / (DB + suffix), target / (DB + suffix))


STALL = 120.0
"""Seconds without a new game stored before a run counts as hung. Progress, not a total
time, is bounded: on a busy machine a run is slow, not stuck."""


def run_to_end(where: Path, games: int, rng: random.Random) -> None:
    proc = subprocess.Popen(
        command(games), cwd=where, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(rng)
    )
    watch(proc, where, games + 1)
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"tournament failed in {where}:\n{out}{err}")


def watch(proc: subprocess.Popen[str], where: Path, target: int) -> None:
    """Wait until ``proc`` ends or the store holds ``target`` games; kill it and raise if
    no game is stored for ``STALL`` seconds."""
    seen, since = games_done(where), time.monotonic()
    while proc.poll() is None and seen < target:
        time.sleep(0.002)
        now_done = games_done(where)
        if now_done != seen:
            seen, since = now_done, time.monotonic()
        elif time.monotonic() - since > STALL:
            proc.kill()
            raise RuntimeError(f"no game stored in {STALL:.0f} s")


SPARE = 3
"""Games left to play after a kill's target: a run that finishes them all within the few
milliseconds before the kill would end unkilled."""


def run_with_kills(where: Path, games: int, kills: int, rng: random.Random, jobs: int = 2) -> Run:
    """Run the command, SIGKILL it ``kills`` times at random points, re-running it after
    each kill, until one run ends by itself. Raises if a killed run's worker processes
    outlive it."""
    run = Run()
    while True:
        run.processes += 1
        proc = subprocess.Popen(
            command(games, jobs),
            cwd=where,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=environment(rng),
        )
        start = games_done(where)
        if len(run.killed_at) < kills and start < games - SPARE:
            # A target spread over what is left, then a few ms more: the kill lands between
            # games or, more often, inside one (whose lines are then lost and replayed). At
            # least SPARE games stay to play after it, so a fast run cannot end before its kill.
            remaining = kills - len(run.killed_at)
            target = rng.randint(
                start + 1, max(start + 1, min(games - SPARE, start + (games - 1 - start) // remaining))
            )
            extra = rng.uniform(0.0, 0.01)
            watch(proc, where, target)
            time.sleep(extra)
            if proc.poll() is None:
                workers = children(proc.pid)
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                run.killed_at.append(games_done(where))
                ends = time.monotonic() + STALL
                while any(alive(pid) for pid in workers):  # each sees its task pipe close, and ends
                    if time.monotonic() > ends:
                        raise RuntimeError(f"worker processes {workers} outlived their killed parent")
                    time.sleep(0.01)
                run.workers_seen += len(workers)
                continue
        watch(proc, where, games + 1)
        _, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"tournament failed in {where}:\n{err}")
        return run


def snapshot(where: Path, game: str) -> dict[str, Any]:
    """Everything a resumed run must reproduce: each game as played, the final tables."""
    from arena.config import parse_config
    from arena.store import Store

    config = parse_config({"store": {"path": str(where / DB)}})
    with Store(config.store.path, config.ratings.systems()) as store:
        games = {}
        for summary in store.games.find(limit=10**6):
            stored = store.games.load(summary.id)
            assert stored is not None
            games[summary.id] = {
                "seed": stored.seed,
                "seats": summary.nicks,
                "roles": stored.roles,
                "winner": summary.winner,
                "reason": summary.reason,
                "kind": summary.kind,
                "history": stored.history,
                "lines": stored.transcript,
            }
        boards = {
            system: [(r.bot, r.mu, r.sigma, r.score, r.games, r.wins) for r in store.ratings.leaderboard(game, system)]
            for system in ("elo", "trueskill")
        }
        done = store.tournaments.get(TOURNAMENT)
    return {"games": games, "boards": boards, "done": None if done is None else done[1]}


def rebuild_exact(where: Path) -> bool:
    """``arena ratings rebuild`` on the copy, as an operator would run it."""
    out = subprocess.run(
        [sys.executable, "-m", "arena", "--config", "config.yaml", "ratings", "rebuild"],
        cwd=where,
        capture_output=True,
        text=True,
    )
    return out.returncode == 0 and "matches exactly" in out.stdout


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """What differs between the uninterrupted copy ``a`` and the killed one ``b``."""
    found = []
    if a["games"].keys() != b["games"].keys():
        found.append(f"game ids: {sorted(a['games'].keys() ^ b['games'].keys())} in one copy only")
    for gid in sorted(a["games"].keys() & b["games"].keys(), key=lambda g: int(g.rsplit("-", 1)[1])):
        ga, gb = a["games"][gid], b["games"][gid]
        fields = [k for k in ga if ga[k] != gb[k]]
        if fields:
            found.append(f"{gid}: {', '.join(fields)} differ")
    for system in a["boards"]:
        if a["boards"][system] != b["boards"][system]:
            found.append(f"final {system} ratings differ")
    if a["done"] != b["done"]:
        found.append(f"games done: {a['done']} vs {b['done']}")
    return found


def trial(
    root: Path, game: str, games: int, kills: int, rng: random.Random, extra: tuple[str, ...] = (), jobs: int = 2
) -> tuple[Run, list[str], dict[str, Any]]:
    """One comparison in ``root``: (the killed run, the differences, copy A's snapshot)."""
    base, a, b = root / "base", root / "a", root / "b"
    write_config(base, game, extra)
    run_to_end(base, 1, rng)  # the tournament and its key exist; its first game is stored
    copy_store(base, a)
    copy_store(base, b)
    run_to_end(a, games, rng)
    killed = run_with_kills(b, games, kills, rng, jobs)
    sa, sb = snapshot(a, game), snapshot(b, game)
    found = differences(sa, sb)
    for name, where in (("A", a), ("B", b)):
        if not rebuild_exact(where):
            found.append(f"ratings rebuild of copy {name} is not exact")
    return killed, found, sa


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("avalon", "werewolf", "both"), default="both")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None, help="the kill points' seed (default: random)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes of the killed copy")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    failed = False
    for game in ("avalon", "werewolf") if args.game == "both" else (args.game,):
        with tempfile.TemporaryDirectory() as tmp:
            begun = time.perf_counter()
            killed, found, sa = trial(Path(tmp), game, args.games, args.kills, rng, jobs=args.jobs)
            seconds = time.perf_counter() - begun
        same = len(sa["games"]) - sum(1 for d in found if d.startswith(f"{TOURNAMENT}-"))
        print(
            f"{game}: {args.games} games, {len(killed.killed_at)} kills (games stored then: "
            f"{', '.join(map(str, killed.killed_at))}), {killed.processes} processes "
            f"(--jobs {args.jobs}; {killed.workers_seen} workers ended with their killed parent); "
            f"{same} of {len(sa['games'])} games identical; "
            f"{'ratings identical, rebuilds exact' if not found else 'DIFFERENCES'} ({seconds:.1f} s, seed {seed})"
        )
        for line in found[:20]:
            print("  " + line)
        failed = failed or bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
