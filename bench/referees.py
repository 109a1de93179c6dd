"""Several referees, one lobby: ``bench/concurrency.py``'s tables with 1 and with 2 referees.

For each N of ``--games`` and each count of ``--referees``: a fresh database on one local
PostgreSQL server (started once for the whole run, every commit flushed to disk as
PostgreSQL's defaults have it), a fresh ngircd, and that many
``arena serve`` processes sharing the lobby (the same ``server.network`` and channel, the
same ``store.url``, nicks ``arena``, ``arena2``...), each with the config file of
``bench/concurrency.py``; then 5·N players of ``bench/crowd.py``, each given the referees in
turn to register with, answering every request after a random 0 to ``--delay-max`` ms. They
follow the protocol for several referees (protocol.md, section 4): a ``TABLE`` from the
referee it names, that game's lines from it alone, the game's ``ANSWER`` lines to it. One
warm-up table a referee goes first, once every referee has been in the lobby for
``timeouts.failover`` (a referee new to a shared lobby claims no table before that): the
referees' one-off costs stay out of the figures. With ``--linked``, the second referee sits
on a second ngircd linked to the first (``arena.irc.network.LinkedNetwork``); the players
all sit on the first, so every line of the second referee's games crosses the link.

Printed for each (referees, N): the games finished; the median and 95th percentile of a
game's latency (its first player's ``START`` to its last player's ``END``); the median and
95th percentile of a table's wait (its first player's ``TABLE`` to its ``START``); games a second
over the wave (the games that ended, from the first ``TABLE`` a player read to the last
``END``); for each referee, the games it ran and its CPU milliseconds a game (user + system,
from the last registration to the last ``END``); the CPU seconds of PostgreSQL (its server
and every process it started, warm-up included), of ngircd and of the players over the
wave; the ``WARN``
and ``TIMEOUT`` lines heard, forfeits, innocent misses and other faults, as
``bench/concurrency.py`` counts them; and, below each N, the speed-up of each count of
referees over the first count, in games a second.

Usage (from the checkout's root): python -m bench.referees [--games 50,150] [--referees 1,2]
    [--rounds R] [--delay-max MS] [--seed S] [--batch B] [--timeout S] [--linked] [--referee-cpu SHARE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.irc.network import LinkedNetwork
from arena.irc.servers import LocalServer, terminate
from arena.store import Store
from arena.store.pgserver import LocalPostgres
from bench.concurrency import (
    SEATS,
    Wave,
    children,
    cpu_of,
    p95,
    cpu_seconds,
    peak_rss,
    play,
    raise_file_limit,
    start_referee,
)
from bench.concurrency import tally, write_config
from bench.cpucap import capped
from bench.crowd import Crowd

NETWORK = "benchnet"
SETTLE = 10.5
"""Seconds every referee must have been in the lobby before it claims tables: the default
``timeouts.failover`` (10 s), and a margin."""


@dataclass
class Run:
    """What one (referees, N) measured."""

    referees: tuple[str, ...]
    wave: Wave
    """The players' side; its ``referee_cpu`` and ``peak_rss`` are every referee's together."""
    cpu: list[float]
    """Each referee's CPU seconds from the last registration to the last ``END``."""
    ran: list[int]
    """The games each referee ran (as its ``TABLE``'s sender)."""
    span: float
    """Seconds from the first ``TABLE`` a player read to the last ``END``."""
    database_cpu: float

    @property
    def rate(self) -> float:
        return self.wave.finished / self.span if self.span > 0 else 0.0


def tree_cpu(pid: int) -> float:
    """CPU seconds of a live process, of its children it waited for and of those alive:
    a PostgreSQL server's work, whichever of its processes did it."""
    with open(f"/proc/{pid}/stat") as stat:
        after_name = stat.read().rpartition(")")[2].split()
    total = sum(int(tick) for tick in after_name[11:15]) / os.sysconf("SC_CLK_TCK")
    for child in children(pid):
        with contextlib.suppress(OSError):  # it ended meanwhile (its time is its parent's now)
            total += cpu_seconds(child)
    return total


def nicks(count: int) -> tuple[str, ...]:
    return tuple("arena" if i == 0 else f"arena{i + 1}" for i in range(count))


@contextlib.contextmanager
def irc_servers(count: int, linked: bool) -> Iterator[tuple[list[tuple[str, int]], list[int]]]:
    """Where each of ``count`` referees connects, and the servers' pids: one ngircd, or
    with ``linked`` one a referee, linked to each other."""
    if linked and count > 1:
        labels = [chr(ord("a") + i) for i in range(count)]
        with LinkedNetwork(labels) as network:
            pids = [network.servers[label].pid for label in labels]
            yield [network.address(label) for label in labels], [pid for pid in pids if pid is not None]
    else:
        with LocalServer("ngircd") as irc:
            assert irc.pid is not None
            yield [irc.address] * count, [irc.pid]


def run_wave(
    games: int,
    count: int,
    postgres: LocalPostgres,
    *,
    rounds: int = 2,
    delay_max: float = 20.0,
    seed: int = 1,
    batch: int = 100,
    timeout: float = 600.0,
    linked: bool = False,
    referee_cpu: float | None = None,
) -> Run:
    """``games`` tables at once, ``rounds`` times, run by ``count`` referees sharing one
    lobby, on a fresh IRC server (servers, ``linked``) and a fresh database of ``postgres``;
    each referee held to ``referee_cpu`` of a core, if given (``bench.cpucap``)."""
    players = SEATS * games
    raise_file_limit(players + 100)
    url = postgres.new_database()
    Store(url).close()  # the schema made once, before the referees race to it
    referees = nicks(count)
    postmaster = postgres.pids()[0]
    database_cpu = tree_cpu(postmaster)
    began = time.monotonic()
    with (
        irc_servers(count, linked) as (addresses, servers),
        tempfile.TemporaryDirectory(prefix="arena-referees-") as scratch,
        contextlib.ExitStack() as caps,
    ):
        procs = []
        try:
            for nick, (host, port) in zip(referees, addresses, strict=True):
                (Path(scratch) / nick).mkdir()
                config = write_config(
                    Path(scratch) / nick,
                    host,
                    port,
                    "ngircd",
                    players + SEATS * count,
                    rounds,
                    shared=(nick, NETWORK),
                    store=f"url: {url}",
                )
                procs.append(start_referee(config))
                if referee_cpu is not None:
                    caps.enter_context(capped(procs[-1].pid, referee_cpu, f"arena-bench-{nick}-{procs[-1].pid}"))
            crowd = Crowd(*addresses[0], referees=referees, rounds=rounds, delay_max=delay_max / 1000, seed=seed)
            players_cpu = time.process_time()
            pids = [p.pid for p in procs]
            before, registered, after, _ = asyncio.run(
                play(crowd, players, pids, batch, timeout, settle=SETTLE if count > 1 else 0.0)
            )
            rss = sum(peak_rss(pid) for pid in pids)
            database_cpu = tree_cpu(postmaster) - database_cpu
            players_cpu = time.process_time() - players_cpu
        finally:
            for proc in procs:
                terminate(proc, 5.0)
        over = [b - a for a, b in zip(registered, after, strict=True)]
        wave = tally(
            crowd,
            games,
            rounds,
            (sum(over), sum(registered) - sum(before)),
            rss,
            time.monotonic() - began,
            players_cpu,
            sum(cpu_of(servers)),
        )
        for nick in referees:
            tracebacks = (Path(scratch) / nick / "referee.log").read_text(errors="replace").count("Traceback")
            if tracebacks:
                wave.faults.append(f"the referee {nick} logged {tracebacks} tracebacks")
    finished = crowd.finished()
    ran = [sum(1 for g in finished if g.referee == nick) for nick in referees]
    span = max((g.end for g in finished), default=0.0) - min((g.table for g in finished), default=0.0)
    return Run(referees, wave, over, ran, span, database_cpu)


HEADER = (
    f"{'refs':>4} {'games':>6} {'finished':>9} {'median s':>9} {'p95 s':>7} {'wait s':>11} {'games/s':>8} "
    f"{'games run, CPU ms/game, each referee':>38} {'db s':>6} {'irc s':>6} {'players s':>9} "
    f"{'WARN':>5} {'TIMEOUT':>7} {'forfeit':>7} {'innocent':>8} {'faults':>6}"
)


def row(run: Run) -> str:
    wave = run.wave
    waits = f"{statistics.median(wave.table_waits):.2f}/{p95(wave.table_waits):.2f}" if wave.table_waits else "-"
    each = ", ".join(
        f"{nick} {ran} {1000 * cpu / max(ran, 1):.1f}"
        for nick, ran, cpu in zip(run.referees, run.ran, run.cpu, strict=True)
    )
    return (
        f"{len(run.referees):>4} {wave.games:>6} {f'{wave.finished}/{wave.games * wave.rounds}':>9} "
        f"{wave.median:>9.3f} {wave.p95:>7.3f} {waits:>11} {run.rate:>8.2f} {each:>38} {run.database_cpu:>6.1f} "
        f"{wave.server_cpu:>6.1f} {wave.players_cpu:>9.1f} {wave.warns:>5} {wave.timeouts:>7} "
        f"{wave.forfeits:>7} {wave.innocent:>8} {len(wave.faults):>6}"
    )


def main() -> None:
    # A TERM unwinds like Ctrl-C: the servers and referees this run started are stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="50,150", help="tables at once, comma-separated (default 50,150)")
    parser.add_argument("--referees", default="1,2", help="referees sharing the lobby, comma-separated (default 1,2)")
    parser.add_argument("--rounds", type=int, default=2, help="games each table plays in a row (default 2)")
    parser.add_argument("--delay-max", type=float, default=20.0, help="most ms a player waits to answer (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the players' choices and delays")
    parser.add_argument("--batch", type=int, default=100, help="players registering or joining the lobby at once")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a wave may take once seated")
    parser.add_argument("--linked", action="store_true", help="each referee on its own ngircd, linked to the first")
    parser.add_argument(
        "--referee-cpu",
        type=float,
        default=None,
        metavar="SHARE",
        help="hold each referee to this share of one core (e.g. 0.25), as on a slower host of its own "
        "(a cgroup: Linux, root)",
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.referees.split(",")]
    print(
        f"ngircd{' (linked, players on the first)' if args.linked else ''}, PostgreSQL (every commit flushed), "
        f"referee rate 0, players answer in 0-{args.delay_max:g} ms, games per table: {args.rounds}"
        + ("" if args.referee_cpu is None else f", each referee held to {args.referee_cpu:g} of a core")
    )
    print(HEADER)
    with LocalPostgres(durable=True) as postgres:
        for games in (int(n) for n in args.games.split(",")):
            runs = []
            for count in counts:
                run = run_wave(
                    games,
                    count,
                    postgres,
                    rounds=args.rounds,
                    delay_max=args.delay_max,
                    seed=args.seed,
                    batch=args.batch,
                    timeout=args.timeout,
                    linked=args.linked,
                    referee_cpu=args.referee_cpu,
                )
                runs.append(run)
                print(row(run), flush=True)
                for fault in run.wave.faults[:5]:
                    print(f"    {fault}")
            print(
                "    speed-up, games/s: "
                + ", ".join(
                    f"{len(r.referees)} referees {r.rate / runs[0].rate:.2f} ×" for r in runs[1:] if runs[0].rate
                )
            )


if __name__ == "__main__":
    main()
