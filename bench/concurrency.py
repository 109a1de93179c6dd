"""Many tables at once: one ``arena serve`` and N concurrent five-player Avalon games.

For each N of ``--games``, a fresh local IRC server (ngircd by default), one referee process
(``arena serve`` with a config file written to a scratch folder: a five-seat lobby that starts
tables by itself, no outgoing rate, no reply rationing, no keys) and 5·N players of
``bench/crowd.py`` in this process, on plain sockets, answering every request after a random
0 to ``--delay-max`` ms. The players connect in batches, register, and only then join the lobby,
so the games run without a registration storm beside them; each plays ``--rounds`` games in a
row at the same table (so N games run at once, ``--rounds`` times), then unregisters.

Printed for each N: games finished; the median and 95th percentile of a game's latency (from
the first of its players reading ``START`` to the last reading ``END``); the median's ratio to
that of one game alone (N = 1 is measured first, ``--single`` games in a row); the referee's
CPU seconds per game (user + system from /proc, from the last registration to the last
``END``: the seating and the games; a warm-up game of five other players goes first, so the
referee's one-off costs are out) and per registration; its peak resident memory (VmHWM);
the ``WARN`` and ``TIMEOUT`` lines and forfeits the players heard, and how many of those hit
a player that had answered in time (innocent: the players answer in milliseconds, so every
one is); other faults (``ERROR`` lines, lost connections); the wall time of the wave and the
CPU seconds of this process (the players) and of the server, which share the machine with
the referee.

With ``--narrator``, the referee runs the narrator as ``arena serve`` does with
``narrator.channel`` set (``#arena-live``, at ``--narrator-rate`` lines a second), and a
person in that channel (``bench/watchers.py``) notes each line until the narrator has been
silent for ten seconds after the last game; printed besides: the lines
the narrator said against those it would have said had it dropped nothing (each stored
game's table and ``arena replay --pretty`` story), the games whose end it told, the median
and largest delay from a game's end to the line telling it, and the narrator process's CPU
seconds and peak memory. With ``--web RATE``, ``arena web`` serves the store while a reader
fetches the index and every live game page it links, ``RATE`` rounds a second; printed: the
median and largest time an index and a game page took, the largest index, and the web
process's CPU seconds and peak memory. Either way the table wait (from a table's ``TABLE``
to its ``START``, as the players heard them: the room waits for the narrator to join a new
game's channel) is printed, and the ratio is to the single game measured the same way.

With ``--storm K``, each wave (not the one game alone) also has K bots with keys: the store
is given their SCRAM verifiers before the referee starts (as ``arena bots add`` would), they
dial ten at a time before the tables are seated (idle connections, which the referee never
sees), and once every table has read its ``START`` all K send ``REGISTER ... scram=`` at
once, then their ``PROOF`` as each ``CHALLENGE`` comes (protocol.md, section 3, from the
standard library's hashlib and hmac). They stay out of the lobby: 1,500 more bots in it
would be seated at 300 more tables, and every lobby ``JOIN`` goes to every member (some two
million lines for the server and for this process's players), so the games would slow for
reasons other than the registrations. ``--storm-lobby`` lets them join it and play a game
each all the same. Printed below the wave: the keyed bots welcomed, the seconds from the
first ``REGISTER`` to the last ``WELCOME``, the referee's CPU meanwhile, and the latency of
the games that ran during the storm beside that of the wave's other games.

Usage (from the checkout's root): python -m bench.concurrency [--games 1,50,150,300] [--rounds R]
    [--single G] [--delay-max MS] [--seed S] [--server ngircd|embedded] [--batch B] [--timeout S]
    [--storm K [--storm-lobby]]
    [--narrator] [--narrator-rate L] [--web RATE]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arena.irc.servers import MAX_TARGETS, LocalServer, terminate
from arena.store import Store
from arena.store.records import Verifier
from bench.crowd import Crowd, Key
from bench.kill_irc import environment
from bench.watchers import Audience, WebReader, would_say

SEATS = 5
REFEREE_UP = 30.0
"""Seconds the referee has to come up and answer the first registration."""
LIVE = "#arena-live"
"""The narrated channel (``--narrator``)."""
SETTLE = 10.0
"""Seconds of silence after the last game that say the narrator has told what it had to."""


@dataclass
class Watched:
    """What the spectators' side measured in one wave (``--narrator``, ``--web``)."""

    said: int = 0
    """Lines the narrator said in its channel."""
    would_say: int = 0
    ends_told: int = 0
    ends_counted: int = 0
    """Ends a tally of results counted without naming the games."""
    lags: list[float] = field(default_factory=list)
    """Seconds from each game's end to the narrated line telling it."""
    narrator_cpu: float = math.nan
    narrator_rss: int = 0
    index: list[float] = field(default_factory=list)
    pages: list[float] = field(default_factory=list)
    largest_index: int = 0
    web_cpu: float = math.nan
    web_rss: int = 0
    web_errors: int = 0


@dataclass
class Storm:
    """What a registration storm measured: ``len(crowd.players)`` keyed bots registering at
    once while the wave's games run."""

    crowd: Crowd
    welcomed: int
    began: float
    """When the first ``REGISTER`` went out (``time.monotonic``)."""
    ended: float
    """When the last ``WELCOME`` came in."""
    referee_cpu: float
    """Referee CPU seconds from the first ``REGISTER`` to the last ``WELCOME`` (the games'
    lines meanwhile included)."""
    referee_waited: float
    """Seconds the referee was ready to run and waited for a core meanwhile (a shared machine's
    other work)."""
    server_cpu: float
    players_cpu: float
    """CPU seconds of this process (the players and the storm's bots) meanwhile."""

    @property
    def seconds(self) -> float:
        return self.ended - self.began


@dataclass
class Wave:
    """What one N measured."""

    games: int
    """Tables at once."""
    rounds: int
    finished: int
    latencies: list[float]
    referee_cpu: float
    """Referee CPU seconds from the last registration to the last ``END``."""
    registration_cpu: float
    """Referee CPU seconds over the registrations."""
    peak_rss: int
    """The referee's VmHWM, kB."""
    warns: int
    timeouts: int
    forfeits: int
    innocent: int
    faults: list[str]
    seconds: float
    players_cpu: float
    server_cpu: float
    crowd: Crowd
    table_waits: list[float] = field(default_factory=list)
    """Seconds from each game's ``TABLE`` to its ``START``, as its players heard them."""
    watched: Watched = field(default_factory=Watched)
    storm: Storm | None = None

    @property
    def median(self) -> float:
        return statistics.median(self.latencies) if self.latencies else math.nan

    @property
    def p95(self) -> float:
        return p95(self.latencies)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1] if ordered else math.nan


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (/proc/PID/stat, fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as stat:
        after_name = stat.read().rpartition(")")[2].split()
    return (int(after_name[11]) + int(after_name[12])) / os.sysconf("SC_CLK_TCK")


def runqueue_wait(pid: int) -> float:
    """Seconds a live process has waited, ready to run, for a core (/proc/PID/schedstat)."""
    with open(f"/proc/{pid}/schedstat") as stat:
        return int(stat.read().split()[1]) / 1e9


def peak_rss(pid: int) -> int:
    """VmHWM of a live process, kB."""
    with open(f"/proc/{pid}/status") as status:
        for row in status:
            if row.startswith("VmHWM:"):
                return int(row.split()[1])
    return 0


def children(pid: int) -> list[int]:
    """The child processes of a live process (the narrator is the referee's)."""
    with open(f"/proc/{pid}/task/{pid}/children") as found:
        return [int(child) for child in found.read().split()]


def write_config(
    where: Path,
    host: str,
    port: int,
    server: str,
    players: int,
    rounds: int,
    narrator: float | None = None,
    *,
    shared: tuple[str, str] | None = None,
    store: str = "path: results.db",
) -> Path:
    """The referee's config: five-seat Avalon tables started by themselves as soon as five
    bots wait, kept for ``rounds`` games; nothing paced or rationed (no outgoing rate, every
    reply sent, the WELCOMEs of all the ``players`` queued at once); names alone for bots
    the store has no key of (a bot it has one of must prove it all the same: ``add_keys``).
    ``narrator``: the narrated channel's line rate, None = no narrator. ``shared``: the
    referee's nick and the network's name, for a lobby that several referees share (with
    ``store`` a PostgreSQL ``url:``)."""
    path = where / "config.yaml"
    told = "" if narrator is None else f'narrator:\n  channel: "{LIVE}"\n  lines_per_second: {narrator}\n'
    named = "" if shared is None else f"  nick: {shared[0]}\n  network: {shared[1]}\n"
    path.write_text(
        told
        + f"""\
server:
{named}  host: {host}
  port: {port}
  lines_per_second: 0
  max_targets: {MAX_TARGETS[server]}
flood:
  reply_interval: 0
  reply_queue: {2 * players + 100}
identity:
  require_key: false
seating:
  games_per_order: {rounds}
lobby:
  game: avalon
  auto_start: true
  min_players: {SEATS}
  max_players: {SEATS}
  countdown: 0
store:
  {store}
games:
  avalon:
    players: {SEATS}
"""
    )
    return path


def add_keys(db: Path, keys: dict[str, Key]) -> None:
    """What ``arena bots add`` does for each keyed bot, in one transaction: the store keeps
    its SCRAM verifier, so its ``REGISTER`` with ``scram=`` gets a ``CHALLENGE`` (a key the
    store does not know is refused, never stored by a registration)."""
    now = time.time()
    with Store(str(db)) as store, store.db.transaction():
        for nick, key in keys.items():
            store.bots.add(nick, "crowd", Verifier(key.salt, key.iterations, key.stored_key, key.server_key), None, now)


def raise_file_limit(needed: int) -> None:
    """Lift this process's soft limit on open files to its hard one (the server started
    from here inherits it) when ``needed`` descriptors would not fit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if needed <= soft:
        return
    if hard != resource.RLIM_INFINITY and needed > hard:
        raise SystemExit(f"{needed} open files are needed, the hard limit is {hard} (ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def warm_up(crowd: Crowd, timeout: float, settle: float = 0.0) -> None:
    """One game a referee of ``crowd``'s, of other players, before anything is measured: a
    referee's first game pays for what it does once (imports, the store's first writes).
    ``settle``: seconds to wait once every referee welcomed a player, before they enter the
    lobby (a referee new to a shared lobby claims no table for ``timeouts.failover``)."""
    warm = Crowd(crowd.host, crowd.port, referees=crowd.referees, prefix="w")
    await warm.connect(SEATS * len(crowd.referees))
    await warm.register(timeout=REFEREE_UP)
    await asyncio.sleep(settle)
    await warm.enter_lobby()
    await asyncio.wait_for(warm.done.wait(), timeout)
    await warm.close()


def cpu_of(pids: Sequence[int]) -> list[float]:
    return [cpu_seconds(pid) for pid in pids]


async def play(
    crowd: Crowd,
    players: int,
    pids: Sequence[int],
    batch: int,
    timeout: float,
    storm: Crowd | None = None,
    lobby: bool = False,
    audience: Audience | None = None,
    settle: float = 0.0,
) -> tuple[list[float], list[float], list[float], Storm | None]:
    """After a warm-up game (``warm_up``, ``settle``), the players connected, registered and
    in the lobby, until each has played its games (or ``timeout`` seconds after the last one
    joined the lobby). Returns the CPU seconds of each of ``pids`` before the registrations,
    after them, and once every game ended, and what the ``storm`` measured: its bots (keys
    issued) dial before the games are seated, ten at a time, and register all at once when
    every table has read its ``START``; with ``lobby``, they then join the lobby and play a
    game each. ``pids``: the referee's and the server's first. The ``audience`` joins its
    channel before the players enter the lobby, and hears the narrator out after the last
    game."""
    await warm_up(crowd, timeout, settle)
    await crowd.connect(players)
    if storm is not None:
        await storm.connect(len(storm.keys))
    before = cpu_of(pids)
    await crowd.register(batch, REFEREE_UP)
    registered = cpu_of(pids)
    if audience is not None:
        await audience.join()
    await crowd.enter_lobby(batch)
    measured = None
    try:
        async with asyncio.timeout(timeout):
            if storm is not None:
                measured = await registration_storm(crowd, players // SEATS, storm, pids, timeout)
                if lobby:
                    await storm.enter_lobby(batch)
                    await storm.done.wait()
            await crowd.done.wait()
    except TimeoutError:
        crowd.faults.append(f"not every player had played its games after {timeout} s")
    after = cpu_of(pids)
    if audience is not None:
        await audience.settle(SETTLE, timeout)
    return before, registered, after, measured


async def registration_storm(crowd: Crowd, tables: int, storm: Crowd, pids: Sequence[int], timeout: float) -> Storm:
    """``storm``'s bots register at once, as soon as ``tables`` games of ``crowd`` have started."""
    while sum(1 for g in crowd.games.values() if g.starts) < tables:
        await asyncio.sleep(0.005)

    def now() -> list[float]:
        return [cpu_seconds(pids[0]), runqueue_wait(pids[0]), cpu_seconds(pids[1]), time.process_time()]

    before = now()
    began = time.monotonic()
    welcomed = await storm.storm(timeout)
    ended = max(p.welcomed for p in storm.players)
    referee, waited, server, players = (b - a for a, b in zip(before, now(), strict=True))
    return Storm(storm, welcomed, began, ended, referee, waited, server, players)


def run_wave(
    games: int,
    rounds: int,
    *,
    delay_max: float = 20.0,
    seed: int = 1,
    server: str = "ngircd",
    batch: int = 100,
    timeout: float = 600.0,
    storm: int = 0,
    storm_lobby: bool = False,
    narrator: float | None = None,
    web: float = 0.0,
) -> Wave:
    """``games`` tables at once, ``rounds`` times, on a fresh server and referee; with
    ``storm``, that many keyed bots register at once once every table has started (and,
    with ``storm_lobby``, join the lobby and play a game each); with the narrator at
    ``narrator`` lines a second (None: none) and a web reader at ``web`` rounds a second
    (0: none)."""
    players = SEATS * games
    raise_file_limit(players + storm + 100)
    began = time.monotonic()
    with LocalServer(server) as irc, tempfile.TemporaryDirectory(prefix="arena-concurrency-") as scratch:
        host, port = irc.address
        config = write_config(Path(scratch), host, port, server, players + storm, rounds, narrator)
        stormers = None
        if storm:
            stormers = Crowd(host, port, seed=seed + 1, delay_max=delay_max / 1000, prefix="k")
            add_keys(Path(scratch) / "results.db", stormers.issue_keys(storm))
        referee = start_referee(config)
        crowd = Crowd(host, port, rounds=rounds, delay_max=delay_max / 1000, seed=seed)
        audience = None if narrator is None else Audience(host, port, LIVE, "arena-tv")
        watched = Watched()
        viewer = reader = None
        if web:
            viewer, reader = start_web(config, scratch, web)
        players_cpu = time.process_time()
        irc_pid = irc.pid
        assert irc_pid is not None
        try:
            before, registered, after, measured = asyncio.run(
                play(crowd, players, (referee.pid, irc_pid), batch, timeout, stormers, storm_lobby, audience)
            )
            rss = peak_rss(referee.pid)
            if narrator is not None:
                narrating = children(referee.pid)[0]
                watched.narrator_cpu, watched.narrator_rss = cpu_seconds(narrating), peak_rss(narrating)
            if viewer is not None and reader is not None:
                reader.stop()
                watched.web_cpu, watched.web_rss = cpu_seconds(viewer.pid), peak_rss(viewer.pid)
                watched.index, watched.pages = reader.index, reader.pages
                watched.largest_index, watched.web_errors = reader.largest, len(reader.errors)
        finally:
            if reader is not None:
                reader.stop()
            if viewer is not None:
                terminate(viewer, 5.0)
            terminate(referee, 5.0)
        if audience is not None:
            watched.said = len(audience.heard)
            watched.lags = audience.end_lags(crowd)
            watched.ends_told, watched.ends_counted = len(watched.lags), audience.counted()
            watched.would_say = would_say(Path(scratch) / "results.db", crowd.games)
        assert irc.pid is not None
        wave = tally(
            crowd,
            games,
            rounds,
            (after[0] - registered[0], registered[0] - before[0]),
            rss,
            time.monotonic() - began,
            time.process_time() - players_cpu,
            cpu_seconds(irc.pid),
        )
        wave.watched, wave.storm = watched, measured
        tracebacks = (Path(scratch) / "referee.log").read_text(errors="replace").count("Traceback")
        if tracebacks:
            wave.faults.append(f"the referee logged {tracebacks} tracebacks")
    return wave


def tally(
    crowd: Crowd,
    games: int,
    rounds: int,
    cpu: tuple[float, float],
    rss: int,
    seconds: float,
    players_cpu: float,
    server_cpu: float,
) -> Wave:
    """What ``crowd``'s players heard of a wave, beside what was measured of the processes:
    ``cpu`` is the referee's CPU seconds over the games and over the registrations."""
    return Wave(
        games=games,
        rounds=rounds,
        finished=len(crowd.finished()),
        latencies=[g.seconds for g in crowd.finished() if g.starts],
        referee_cpu=cpu[0],
        registration_cpu=cpu[1],
        peak_rss=rss,
        warns=sum(1 for m in crowd.misses if m.action == "warn"),
        timeouts=sum(1 for m in crowd.misses if m.action != "warn"),
        forfeits=crowd.forfeits(),
        innocent=len(crowd.innocent()),
        faults=list(crowd.faults),
        seconds=seconds,
        players_cpu=players_cpu,
        server_cpu=server_cpu,
        crowd=crowd,
        table_waits=[g.start - g.table for g in crowd.finished() if g.starts and g.table < g.start],
    )


def start_referee(config: Path) -> subprocess.Popen[bytes]:
    """``arena serve`` on ``config``, in its folder, its output in ``referee.log`` there."""
    with open(config.parent / "referee.log", "wb") as log:
        return subprocess.Popen(
            [sys.executable, "-m", "arena", "--config", str(config), "serve"],
            cwd=config.parent,
            env=environment(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def start_web(config: Path, scratch: str, rate: float) -> tuple[subprocess.Popen[str], WebReader]:
    """``arena web`` on the referee's store (once the referee has made it), and its reader."""
    store = Path(scratch) / "results.db"
    deadline = time.monotonic() + REFEREE_UP
    while not store.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    viewer = subprocess.Popen(
        [sys.executable, "-m", "arena", "--config", str(config), "web", "--port", "0"],
        cwd=scratch,
        env=environment(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    assert viewer.stdout is not None
    first = viewer.stdout.readline()  # arena web on http://127.0.0.1:PORT/ (Ctrl-C stops)
    reader = WebReader(first.split()[3], rate)
    reader.start()
    return viewer, reader


HEADER = (
    f"{'games':>6} {'finished':>8} {'median s':>9} {'p95 s':>7} {'ratio':>6} {'CPU ms/game':>11} "
    f"{'reg. ms/bot':>11} {'peak MB':>8} {'WARN':>5} {'TIMEOUT':>7} {'forfeit':>7} {'innocent':>8} "
    f"{'faults':>6} {'wall s':>7} {'players s':>9} {'server s':>8}"
)


def row(wave: Wave, single: float) -> str:
    finished = max(wave.finished, 1)
    return (
        f"{wave.games:>6} {f'{wave.finished}/{wave.games * wave.rounds}':>8} {wave.median:>9.3f} {wave.p95:>7.3f} "
        f"{wave.median / single:>6.2f} {1000 * wave.referee_cpu / finished:>11.1f} "
        f"{1000 * wave.registration_cpu / (SEATS * wave.games):>11.2f} {wave.peak_rss / 1024:>8.1f} "
        f"{wave.warns:>5} {wave.timeouts:>7} {wave.forfeits:>7} {wave.innocent:>8} {len(wave.faults):>6} "
        f"{wave.seconds:>7.1f} {wave.players_cpu:>9.1f} {wave.server_cpu:>8.1f}"
    )


def spread(values: list[float]) -> str:
    """``median/largest`` seconds, or a dash for none."""
    return f"{statistics.median(values):.3f}/{max(values):.3f}" if values else "-"


def watch_row(wave: Wave) -> str:
    """The table wait, and what the spectators' side measured (when it ran)."""
    waits = sorted(wave.table_waits)
    p95 = waits[math.ceil(0.95 * len(waits)) - 1] if waits else math.nan
    out = f"    table wait median/p95 s: {statistics.median(waits) if waits else math.nan:.3f}/{p95:.3f}"
    w = wave.watched
    if w.would_say:
        out += (
            f"; narrator lines said/would say: {w.said}/{w.would_say}, ends told: {w.ends_told}/{wave.finished}"
            f" (+{w.ends_counted} counted),"
            f" end lag median/max s: {spread(w.lags)}, CPU s: {w.narrator_cpu:.1f},"
            f" peak MB: {w.narrator_rss / 1024:.1f}"
        )
    if w.index:
        out += (
            f"; web index median/max s: {spread(w.index)} ({len(w.index)} reads, largest {w.largest_index // 1024} kB),"
            f" game page median/max s: {spread(w.pages)} ({len(w.pages)} reads), CPU s: {w.web_cpu:.1f},"
            f" peak MB: {w.web_rss / 1024:.1f}, errors: {w.web_errors}"
        )
    return out


def storm_rows(wave: Wave) -> list[str]:
    """What the storm did, and the games it ran beside against the wave's others."""
    storm = wave.storm
    if storm is None:
        return []
    during = [g.seconds for g in wave.crowd.finished() if g.starts and g.start < storm.ended and g.end > storm.began]
    others = [
        g.seconds for g in wave.crowd.finished() if g.starts and not (g.start < storm.ended and g.end > storm.began)
    ]
    keyed = len(storm.crowd.players)

    def latencies(games: list[float]) -> str:
        if not games:
            return "none"
        return f"{len(games)}, median {statistics.median(games):.3f} s, p95 {p95(games):.3f} s"

    return [
        f"    storm: {storm.welcomed}/{keyed} keyed bots welcomed in {storm.seconds:.2f} s (first REGISTER to last "
        f"WELCOME); referee CPU {storm.referee_cpu:.2f} s, {1000 * storm.referee_cpu / keyed:.2f} ms a registration "
        f"(the games' lines meanwhile included), {storm.referee_waited:.2f} s waiting for a core; "
        f"server CPU {storm.server_cpu:.2f} s, players {storm.players_cpu:.2f} s; {len(storm.crowd.faults)} faults",
        f"    games running during the storm: {latencies(during)}; the others: {latencies(others)}",
        *(
            [
                f"    the storm's bots' own games (--storm-lobby): {len(storm.crowd.finished())} ended, "
                f"{len(storm.crowd.misses)} WARN or TIMEOUT, {len(storm.crowd.innocent())} innocent"
            ]
            if storm.crowd.games
            else []
        ),
        *(f"    {fault}" for fault in storm.crowd.faults[:5]),
    ]


def main() -> None:
    # A TERM (a timeout, an operator) unwinds like Ctrl-C: the server and the referee this
    # run started are stopped on the way out, not left running.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="1,10,50", help="tables at once, comma-separated (default 1,10,50)")
    parser.add_argument("--rounds", type=int, default=2, help="games each table plays in a row (default 2)")
    parser.add_argument("--single", type=int, default=10, help="games in a row of the one table alone (default 10)")
    parser.add_argument("--delay-max", type=float, default=20.0, help="most ms a player waits to answer (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the players' choices and delays")
    parser.add_argument("--server", choices=("ngircd", "embedded"), default="ngircd")
    parser.add_argument(
        "--batch",
        type=int,
        default=100,
        help="players registering or joining the lobby at once (they connect ten at a time)",
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a wave may take once seated")
    parser.add_argument("--narrator", action="store_true", help="run the narrator (narrator.channel set)")
    parser.add_argument("--narrator-rate", type=float, default=1.0, help="its lines a second (default 1, 0 = no limit)")
    parser.add_argument("--web", type=float, default=0.0, help="read arena web, RATE rounds a second (default 0: no)")
    parser.add_argument(
        "--storm",
        type=int,
        default=0,
        help="keyed bots (SCRAM) that register all at once when every table of a wave has started (default 0)",
    )
    parser.add_argument(
        "--storm-lobby", action="store_true", help="the storm's bots then join the lobby and play a game each"
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.games.split(",") if int(n) != 1]

    def wave(games: int, rounds: int, storm: int) -> Wave:
        return run_wave(
            games,
            rounds,
            delay_max=args.delay_max,
            seed=args.seed,
            server=args.server,
            batch=args.batch,
            timeout=args.timeout,
            narrator=args.narrator_rate if args.narrator else None,
            web=args.web,
            storm=storm,
            storm_lobby=args.storm_lobby,
        )

    watching = (f", narrator at {args.narrator_rate:g} lines/s" if args.narrator else "") + (
        f", web read {args.web:g} rounds/s" if args.web else ""
    )
    print(
        f"{args.server}, referee rate 0, players answer in 0-{args.delay_max:g} ms, games per table: {args.rounds}"
        + watching
    )
    print(HEADER)
    single = 0.0
    for games, rounds, storm in [(1, args.single, 0), *((n, args.rounds, args.storm) for n in sizes)]:
        measured = wave(games, rounds, storm)
        single = single or measured.median
        print(row(measured, single))
        print(watch_row(measured), flush=True)
        for fault in measured.faults[:5]:
            print(f"    {fault}")
        for line in storm_rows(measured):
            print(line)


if __name__ == "__main__":
    main()
