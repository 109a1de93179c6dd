"""Kill -9 soak of an IRC tournament: the referee is killed (SIGKILL) at random points,
restarted each time, and every game must still be played and stored exactly once.

Usage: python bench/kill_irc.py [--game avalon|werewolf] [--games N] [--kills K] [--seed S]
                                [--rate R] [--preset classic|advanced|chaos] [--keep DIR]

It starts ngircd on 127.0.0.1, the SDK sample bots as separate processes (each told to
leave once it has seen ``N`` games end: ``--games N``), and ``arena tournament --transport
irc --games N``. That command is killed ``K`` times at random points, most of them inside
a game (once the store holds some number of games and a game in progress, plus a random
delay), a few while it starts up or takes up its games, and run again after each kill
until it exits by itself. Then:

* every scheduled game (``t1-1`` .. ``t1-N``) is stored exactly once, and no game is left
  in progress (``live_games`` empty);
* each game ended normally (ranked) or was aborted because a bot did not come back after
  a restart ("the referee restarted and ..."); a forfeit fails the run, and so does any
  missed deadline (``WARN``, ``TIMEOUT``): the bots are honest and answer in
  milliseconds, so either would be innocent (a request lost in a restart);
* each game's replay (its seed and stored answers) gives exactly its stored events;
* ``arena ratings rebuild`` matches every stored value exactly;
* no run of the referee logged a traceback, nor did any bot;
* every bot process leaves by itself (having seen all ``N`` games end) within
  ``BOT_EXIT`` seconds of the tournament's end: none is stranded.

It prints the figures: games, kills, kills inside a game (a game was in progress in the
store at the kill), aborted games, forfeits, wall time, and how long after a restart the
games in progress went on (the restart-to-resume time). Exit status 1 on any failure.

The referee and the bots send at most ``--rate`` lines a second (default 0: unlimited;
the local ngircd runs without flood penalties), so a game takes some 40 ms and 30 games
with 10 kills some 10 s. ``--rate 2``, the rate a public server needs, makes a game take
some 25 s. ``--seed`` replays the same choices of kill points (which game, how far into
it); where exactly a kill lands still depends on timing.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.store.dialect import POSTGRES
from arena.store.logs import unpack

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"

ROSTERS = {
    "avalon": (
        ("rule1", "avalon_rules_bot"),
        ("rule2", "avalon_rules_bot"),
        ("rule3", "avalon_rules_bot"),
        ("rand1", "random_bot"),
        ("rand2", "random_bot"),
    ),
    "werewolf": (
        ("wolf1", "werewolf_rules_bot"),
        ("wolf2", "werewolf_rules_bot"),
        ("wolf3", "werewolf_rules_bot"),
        ("wolf4", "werewolf_rules_bot"),
        ("rand1", "random_bot"),
        ("rand2", "random_bot"),
        ("rand3", "random_bot"),
        ("rand4", "random_bot"),
    ),
}
"""Each game's bots (every bot plays every game): nick and launcher in ``bots/``."""

DB = "results.db"
TOURNAMENT = "t1"
RESUME_WAIT = 20.0
"""``timeouts.resume``: seconds a game taken up waits for its bots."""
DECISION = 8.0
"""``timeouts.decision``, and the Werewolf options' time limits: short, yet far beyond what
the sample bots need, so that a missed deadline (hence a forfeit) is a failure."""
BOT_EXIT = 20.0
"""Seconds every bot has, once the tournament has ended, to leave by itself."""
ABORT_PREFIX = "the referee restarted and "


@dataclass
class Kill:
    """One SIGKILL of the referee."""

    after: float
    """Seconds the killed process had run."""
    stored: int
    """Games stored at the kill."""
    live: dict[str, int]
    """Games in progress in the store at the kill (none: the kill fell between games), with
    how many lines each had said."""
    taking_up: bool = False
    """Whether it fell before the games the kill before left had gone on again."""
    resumed: float | None = None
    """Seconds from the restart that followed until every one of them went on again (or
    ended); None if there were none, or the next kill came first."""


@dataclass
class Soak:
    """What a soak did and found."""

    game: str
    games: int
    kills: list[Kill] = field(default_factory=list)
    processes: int = 0
    seconds: float = 0.0
    kinds: dict[str, int] = field(default_factory=dict)
    """Stored games by kind (ranked, aborted, forfeit)."""
    failures: list[str] = field(default_factory=list)
    bots_left: float | None = None
    """Seconds from the tournament's end until the last bot left (None: some did not, or
    the tournament did not end)."""
    missed: str | None = None
    """Why the last run ended with a kill still planned (None: none was left)."""

    @property
    def inside(self) -> int:
        """Kills that landed inside a game."""
        return sum(1 for k in self.kills if k.live)

    @property
    def taking_up(self) -> int:
        """Kills that landed before the games the kill before left had gone on."""
        return sum(1 for k in self.kills if k.taking_up)

    @property
    def resume_times(self) -> list[float]:
        return [k.resumed for k in self.kills if k.resumed is not None]

    def summary(self) -> str:
        times = self.resume_times
        resumed = (
            f"restart to resume {sum(times) / len(times):.2f} s mean, {max(times):.2f} s max ({len(times)} restarts)"
            if times
            else "no resume measured"
        )
        left = "BOTS STRANDED" if self.bots_left is None else f"bots left {self.bots_left:.1f} s after the end"
        missed = "" if self.missed is None else f"; the last run ended before its kill: {self.missed}"
        return (
            f"{self.game}: {self.games} games ({self.kinds.get('ranked', 0)} ranked, "
            f"{self.kinds.get('aborted', 0)} aborted, {self.kinds.get('forfeit', 0)} forfeits), "
            f"{len(self.kills)} kills ({self.inside} inside a game, {self.taking_up} while taking games up), "
            f"{self.processes} processes; "
            f"{resumed}; {left}; {self.seconds:.1f} s{missed}"
        )


# -- set-up ---------------------------------------------------------------------------------


def environment() -> dict[str, str]:
    """This environment, with this checkout first on the import path of every child (the
    referee and the bots run this code, not some installed copy)."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def write_config(
    where: Path, game: str, host: str, port: int, rate: float = 0.0, preset: str | None = None, db: str = DB
) -> Path:
    """The referee's config: the local server, no keys (a private server), short deadlines,
    the store at ``db`` in ``where`` (a relative path: the config's folder), or the
    PostgreSQL database ``db`` names."""
    where.mkdir(parents=True, exist_ok=True)
    bots = ", ".join(nick for nick, _ in ROSTERS[game])
    limit = int(DECISION)
    text = f"""\
server:
  host: {host}
  port: {port}
  lines_per_second: {rate}
  max_targets: 25
identity:
  require_key: false
timeouts:
  decision: {DECISION}
  grace: 2.0
  resume: {RESUME_WAIT}
lobby:
  countdown: 0.2
  join_timeout: 10.0
store:
  {"url" if db.startswith(POSTGRES) else "path"}: {db}
tournament:
  id: {TOURNAMENT}
  game: {game}
  bots: [{bots}]
  transport: irc
games:
  werewolf:
    players: 8
    options:
      nightActionTime: {limit}
      voteTime: {limit}
      lastWordsTime: {limit}
      discussionTime: {limit * 8}
"""
    if preset is not None:
        text += f"      preset: {preset}\n"
    path = where / "config.yaml"
    path.write_text(text)
    return path


def tournament_command(games: int) -> list[str]:
    return [sys.executable, "-m", "arena", "--config", "config.yaml", "tournament", "--games", str(games)]


def referee_process(where: Path, name: str, command: list[str]) -> tuple[subprocess.Popen[bytes], Path]:
    """A referee (``command``: an ``arena`` command line) run in ``where``, its output in
    ``where``/referee-NAME.log."""
    log = where / f"referee-{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            command, cwd=where, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=environment()
        )
    return proc, log


def start_bots(
    where: Path, game: str, host: str, port: int, games: int, rate: float = 0.0
) -> dict[str, subprocess.Popen[bytes]]:
    """The game's bots, each a process of its own with its log in ``where``; each leaves
    once it has seen ``games`` games end."""
    procs = {}
    for i, (nick, launcher) in enumerate(ROSTERS[game]):
        with open(where / f"bot-{nick}.log", "wb") as log:
            procs[nick] = subprocess.Popen(
                [
                    sys.executable,
                    str(BOTS / f"{launcher}.py"),
                    "--server",
                    f"{host}:{port}",
                    "--nick",
                    nick,
                    "--rate",
                    str(rate),
                    "--games",
                    str(games),
                    "--seed",
                    str(i),
                    "--verbose",
                ],
                cwd=where,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=environment(),
            )
    return procs


# -- watching the store ---------------------------------------------------------------------


class Watch:
    """Reads the store while the referee writes it (read-only; WAL mode lets both go on)."""

    def __init__(self, where: Path, db: str = DB) -> None:
        self.path = where / db
        self.conn: sqlite3.Connection | None = None
        self._lengths: dict[int, float | None] = {}
        """Each stored game's length, by its number; None for one a restart interrupted."""

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        if self.conn is None:
            if not self.path.exists():
                return []
            self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=2.0)
        try:
            return self.conn.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            return []  # the first run has not created its tables yet

    def stored(self) -> int:
        rows = self._query("SELECT count(*) FROM games WHERE tournament = ?", (TOURNAMENT,))
        return int(rows[0][0]) if rows else 0

    def live(self) -> tuple[str, ...]:
        return tuple(r[0] for r in self._query("SELECT id FROM live_games ORDER BY id"))

    def lines(self) -> dict[str, int]:
        """How many lines each game in progress has said (written ahead)."""
        return {
            gid: int(n)
            for gid, n in self._query(
                "SELECT g.id, (SELECT count(*) FROM live_lines l WHERE l.gid = g.id) FROM live_games g"
            )
        }

    def game_length(self) -> float:
        """Mean seconds from a stored game's start to its end, over the games no restart
        interrupted (0.1 before any is stored). A game taken up again keeps the start of
        its first run, so its length holds the kills, the restarts and the waits for its
        bots: seconds, where a game takes milliseconds. Counted in, the first games (often
        one killed several times) would put the next kill a dozen games or more late,
        past the tournament's end."""
        last = max(self._lengths, default=0)
        for seq, length, data in self._query(
            "SELECT g.seq, g.finished - g.started, l.data FROM games g JOIN logs l ON l.game_seq = g.seq"
            " WHERE g.tournament = ? AND g.seq > ? ORDER BY g.seq",
            (TOURNAMENT, last),
        ):
            resumed = any(line.startswith("RESUME ") for _, line in unpack(data).transcript)
            self._lengths[seq] = None if resumed else float(length)
        whole = [length for length in self._lengths.values() if length is not None]
        return sum(whole) / len(whole) if whole else 0.1

    def going_on(self, gid: str, said: int) -> bool:
        """Whether ``gid``, which had said ``said`` lines when the referee was killed, went
        on: stored, or a line said after a ``RESUME`` said since (the pending decisions
        asked again)."""
        if self._query("SELECT 1 FROM games WHERE id = ?", (gid,)):
            return True
        rows = self._query(
            "SELECT max(idx) FROM live_lines WHERE gid = ? AND idx >= ? AND line LIKE 'RESUME %'", (gid, said)
        )
        last = rows[0][0] if rows else None
        return last is not None and bool(
            self._query("SELECT 1 FROM live_lines WHERE gid = ? AND idx > ? LIMIT 1", (gid, last))
        )

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


# -- the kills ------------------------------------------------------------------------------


@dataclass
class Runs:
    """The referee's runs: their logs, and the kills between them."""

    where: Path
    kills: list[Kill] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)
    missed: str | None = None
    """What the kill planned for the run that ended by itself was waiting for (None: no
    kill was left to plan)."""

    def start(self, games: int) -> subprocess.Popen[bytes]:
        proc, log = referee_process(self.where, str(len(self.logs) + 1), tournament_command(games))
        self.logs.append(log)
        return proc


def run_with_kills(where: Path, games: int, kills: int, rng: random.Random, timeout: float) -> Runs:
    """Run the tournament, SIGKILL it ``kills`` times, re-running it after each kill, until
    a run ends by itself; raises RuntimeError if that takes more than ``timeout`` seconds or
    a run fails."""
    runs = Runs(where)
    watch = Watch(where)
    deadline = time.monotonic() + timeout
    try:
        while True:
            proc = runs.start(games)
            began = time.monotonic()
            last = runs.kills[-1] if runs.kills else None
            pending = dict(last.live) if last is not None else {}
            """The games in progress at the last kill, until they go on again: until then
            a game in progress in the store is one this run has not taken up yet."""
            plan = _plan(rng, watch.stored(), games, kills - len(runs.kills))
            while proc.poll() is None:
                now = time.monotonic()
                if now > deadline:
                    proc.kill()
                    proc.wait()
                    raise RuntimeError(
                        f"the tournament did not end within {timeout:.0f} s "
                        f"({watch.stored()} of {games} games stored, in progress: "
                        f"{', '.join(watch.live()) or 'none'})"
                    )
                if pending:
                    pending = {gid: n for gid, n in pending.items() if not watch.going_on(gid, n)}
                    if not pending and last is not None:
                        last.resumed = now - began
                if plan is not None and plan.due(watch, now - began, settled=not pending):
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    # What the store holds now is what it held at the kill.
                    runs.kills.append(Kill(time.monotonic() - began, watch.stored(), watch.lines(), bool(pending)))
                    break
                time.sleep(0.002)
            else:
                if proc.returncode != 0:
                    raise RuntimeError(
                        f"the tournament failed (exit status {proc.returncode}):\n"
                        f"{runs.logs[-1].read_text(errors='replace')[-3000:]}"
                    )
                if plan is not None:
                    runs.missed = plan.waiting(pending, time.monotonic() - began)
                return runs
            time.sleep(rng.uniform(0.0, 0.3))  # an operator (or a supervisor) restarts it
    finally:
        watch.close()


@dataclass
class _Plan:
    """When to kill one run: once ``stored`` games are stored and (``inside``) a game is in
    progress, ``share`` of a mean game's length later (games take milliseconds at an
    unlimited rate, seconds at a server's flood limit); or (``early``) that many seconds
    after it started, whatever it is doing then (starting up, taking up its games, waiting
    for its bots)."""

    stored: int
    inside: bool
    share: float
    early: float | None
    _at: float | None = None

    def due(self, watch: Watch, running: float, settled: bool) -> bool:
        """``settled``: the games the last kill left have gone on (or ended)."""
        if self.early is not None:  # (or as soon as the run stores a game: it is up by then)
            return running >= self.early or watch.stored() > self.stored
        if self._at is None:
            if settled and watch.stored() >= self.stored and (not self.inside or watch.live()):
                self._at = running + self.share * watch.game_length()
            return False
        return running >= self._at

    def waiting(self, pending: dict[str, int], running: float) -> str:
        """What this plan was still waiting for when its run ended, ``running`` seconds in,
        with ``pending`` the games the last kill left that had not gone on again."""
        if self.early is not None:
            return f"it was due {self.early:.2f} s into the run, which lasted {running:.2f} s"
        if self._at is not None:
            return f"it was due {self._at:.2f} s into the run, which lasted {running:.2f} s"
        if pending:
            return f"{', '.join(pending)}, in progress at the kill before, never went on again"
        return f"{self.stored} games stored{' and a game in progress' if self.inside else ''}, never seen"


def _plan(rng: random.Random, stored: int, games: int, left: int) -> _Plan | None:
    """A random kill point for the next run; None when no kill is left. The kills are
    spread over the first 60% of the games, so that every one of them lands before the
    tournament ends (a kill may let a game or two go by before it lands)."""
    if left <= 0 or stored >= games:
        return None
    last = max(stored, int(games * 0.6) - 1)
    if rng.random() < 0.15 and games - stored > 3:
        return _Plan(stored, False, 0.0, rng.uniform(0.05, 0.9))
    target = min(last, stored + rng.randrange(max(1, (last + 1 - stored) // left)))
    return _Plan(target, rng.random() < 0.85, rng.uniform(0.0, 0.6), None)


# -- the checks -----------------------------------------------------------------------------


def check_store(where: Path, game: str, games: int, db: str = DB) -> tuple[dict[str, int], list[str]]:
    """(games by kind, failures): every scheduled game stored once (in ``where``/``db``, or
    the PostgreSQL database ``db`` names), none
    in progress, no forfeit, no abort but for a bot that did not come back, every replay
    exact, the tournament's count right."""
    from arena.config import parse_config
    from arena.store import Store

    failures = []
    config = parse_config({"store": {"url": db} if db.startswith(POSTGRES) else {"path": str(where / db)}})
    kinds: dict[str, int] = {}
    with Store(config.store.location, config.ratings.systems()) as store:
        conn = store.conn
        ids = [r[0] for r in conn.execute("SELECT id FROM games")]
        wanted = {f"{TOURNAMENT}-{i}" for i in range(1, games + 1)}
        doubles = sorted({gid for gid in ids if ids.count(gid) > 1})
        if doubles:
            failures.append(f"games stored more than once: {', '.join(doubles)}")
        if set(ids) - wanted:
            failures.append(f"games stored that were not scheduled: {', '.join(sorted(set(ids) - wanted))}")
        missing = sorted(wanted - set(ids), key=lambda g: int(g.rsplit("-", 1)[1]))
        if missing:
            failures.append(f"{len(missing)} games never stored: {', '.join(missing[:20])}")
        for table in ("live_games", "live_actions", "live_lines"):
            n = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            if n:
                failures.append(f"{table} still holds {n} rows after the tournament's end")
        done = store.tournaments.get(TOURNAMENT)
        if done is None or done[1] != games:
            failures.append(f"the tournament counts {None if done is None else done[1]} games done, not {games}")
        for gid in sorted(set(ids) & wanted, key=lambda g: int(g.rsplit("-", 1)[1])):
            stored = store.games.load(gid)
            assert stored is not None
            kind, reason = stored.summary.kind, stored.summary.reason
            kinds[kind] = kinds.get(kind, 0) + 1
            if stored.summary.game != game:
                failures.append(f"{gid}: a {stored.summary.game} game")
            if kind == "forfeit":
                bot = stored.summary.bots[stored.forfeited] if stored.forfeited is not None else "?"
                failures.append(
                    f"{gid}: forfeited by {bot} ({reason}); the bots are honest and fast: an innocent forfeit"
                )
            elif kind == "aborted" and not reason.startswith(ABORT_PREFIX):
                failures.append(f"{gid}: aborted for another reason than a restart: {reason}")
            elif kind not in ("ranked", "aborted"):
                failures.append(f"{gid}: stored as {kind}")
            late = [line for _, line in stored.transcript if line.startswith(("WARN ", "TIMEOUT "))]
            if late:
                failures.append(
                    f"{gid}: a deadline passed, yet the bots answer in milliseconds: a request that "
                    f"never reached its bot? ({'; '.join(late[:4])})"
                )
            engine = stored.replay()
            if kind == "aborted" and engine.result is None:
                engine.abort(reason)  # the stop is no answer: applied after them, as it happened
            if list(engine.events) != list(stored.events):
                at = next(
                    (i for i, (a, b) in enumerate(zip(engine.events, stored.events)) if a != b),
                    min(len(engine.events), len(stored.events)),
                )
                failures.append(
                    f"{gid}: its replay differs from its stored events from event {at} on "
                    f"({len(engine.events)} replayed, {len(stored.events)} stored)"
                )
    return kinds, failures


def rebuild_exact(where: Path) -> bool:
    """``arena ratings rebuild``, as an operator runs it."""
    out = subprocess.run(
        [sys.executable, "-m", "arena", "--config", "config.yaml", "ratings", "rebuild"],
        cwd=where,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment(),
    )
    return out.returncode == 0 and "matches exactly" in out.stdout


def tracebacks(logs: list[Path]) -> list[str]:
    """The first lines of every traceback in ``logs``, one entry per log that has any."""
    found = []
    for path in logs:
        text = path.read_text(errors="replace") if path.exists() else ""
        if "Traceback" in text:
            start = text.index("Traceback")
            head = text.rfind("\n", 0, start)
            found.append(f"{path.name}: {text[head + 1 : start + 2500]}")
    return found


ENDED = re.compile(r"^\S+: game (\S+) ended ", re.M)
LEAVING = re.compile(r"^\S+: leaving after \d+ games ended; still open: (.*)$", re.M)
"""How a bot run with ``--verbose`` logs each end it saw and, as it leaves, the games it
still holds open (``arena.sdk``)."""


def wait_bots(
    where: Path, procs: dict[str, subprocess.Popen[bytes]], games: int, timeout: float
) -> tuple[float | None, list[str]]:
    """(seconds until the last bot left, what went wrong): the bots that did not leave in
    time (stopped then, by SIGINT, so that they log what they hold open), with the games
    whose end their log does not show; the bots that failed."""
    began = time.monotonic()
    end = began + timeout
    stranded = []
    for nick, proc in procs.items():
        try:
            proc.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            stranded.append(nick)
    left = time.monotonic() - began
    failed = [
        f"bot {nick} failed (exit status {p.returncode})"
        for nick, p in procs.items()
        if nick not in stranded and p.returncode != 0
    ]
    for nick in stranded:
        procs[nick].send_signal(signal.SIGINT)
        try:
            procs[nick].wait(5)
        except subprocess.TimeoutExpired:
            pass
    stop(procs)
    found = []
    for nick in stranded:
        log = (where / f"bot-{nick}.log").read_text(errors="replace")
        seen = set(ENDED.findall(log))
        unseen = [f"{TOURNAMENT}-{i}" for i in range(1, games + 1) if f"{TOURNAMENT}-{i}" not in seen]
        leaving = LEAVING.findall(log)
        found.append(
            f"bot {nick} still running {timeout:.0f} s after the tournament's end: it saw {len(seen)} of "
            f"{games} games end, not {', '.join(unseen) or '-'}"
            + (f" (on SIGINT it still held open: {leaving[-1]})" if leaving else "")
        )
    return (None if stranded else left), found + failed


def _lost_ends(where: Path, games: int, kills: list[Kill]) -> list[str]:
    """For each game some bot never saw end, the kill that came right after it was stored
    (if one did: the referee stores a game before it says its END)."""
    found = []
    seen = [set(ENDED.findall(log.read_text(errors="replace"))) for log in sorted(where.glob("bot-*.log"))]
    for i in range(1, games + 1):
        gid = f"{TOURNAMENT}-{i}"
        if all(gid in ends for ends in seen):
            continue
        after = [k for k in kills if k.stored == i and not k.live]
        found.append(
            f"{gid} is stored but its END never reached some bots: "
            + (
                f"the referee was killed {after[0].after:.2f} s into a run, after storing it and before "
                f"the next game began"
                if after
                else "no kill fell right after it was stored"
            )
        )
    return found


def stop(procs: dict[str, subprocess.Popen[bytes]]) -> None:
    for proc in procs.values():
        if proc.poll() is None:
            proc.terminate()
    for proc in procs.values():
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# -- the whole soak -------------------------------------------------------------------------


def soak(
    where: Path,
    game: str,
    games: int,
    kills: int,
    rng: random.Random,
    *,
    rate: float = 0.0,
    timeout: float | None = None,
    preset: str | None = None,
) -> Soak:
    """Run the soak in ``where`` (a scratch folder, kept: the logs are in it) and check it."""
    from arena.irc.servers import LocalServer

    result = Soak(game, games)
    timeout = timeout if timeout is not None else 60.0 + games * 20.0 + kills * (RESUME_WAIT + 10.0)
    began = time.monotonic()
    with LocalServer("ngircd") as server:
        host, port = server.address
        write_config(where, game, host, port, rate, preset)
        bots = start_bots(where, game, host, port, games, rate)
        try:
            runs = run_with_kills(where, games, kills, rng, timeout)
        except RuntimeError as exc:
            stop(bots)
            result.failures.append(str(exc))
            result.failures += [f"traceback in {t}" for t in tracebacks(sorted(where.glob("*.log")))]
            result.seconds = time.monotonic() - began
            return result
        result.seconds = time.monotonic() - began
        result.kills, result.processes, result.missed = runs.kills, len(runs.logs), runs.missed
        result.bots_left, stranded = wait_bots(where, bots, games, BOT_EXIT)
        result.failures += stranded
        if stranded:
            result.failures += _lost_ends(where, games, runs.kills)
    result.kinds, found = check_store(where, game, games)
    result.failures += found
    if not rebuild_exact(where):
        result.failures.append("arena ratings rebuild does not match the stored ratings exactly")
    result.failures += [f"traceback in {t}" for t in tracebacks(runs.logs + sorted(where.glob("bot-*.log")))]
    return result


def main() -> int:
    from arena.irc.servers import ngircd_available

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("avalon", "werewolf"), default="avalon")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--kills", type=int, default=10)
    parser.add_argument("--seed", type=int, default=None, help="the kill points' seed (default: random)")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="lines per second of the referee and the bots (default 0: unlimited; ngircd runs without flood penalties)",
    )
    parser.add_argument(
        "--preset",
        choices=("classic", "advanced", "chaos"),
        default=None,
        help="Werewolf: deal this preset's deck (chaos: drawn per game from every role)",
    )
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it (logs, store)")
    args = parser.parse_args()
    if not ngircd_available():
        print("ngircd is not installed (Debian: apt-get install ngircd)", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="kill-irc-") as tmp:
        where = args.keep if args.keep is not None else Path(tmp)
        result = soak(
            where,
            args.game,
            args.games,
            args.kills,
            rng,
            rate=args.rate,
            preset=args.preset if args.game == "werewolf" else None,
        )
        print(f"{result.summary()} (seed {seed})")
        for k in result.kills:
            resumed = f", went on {k.resumed:.2f} s after the restart" if k.resumed is not None else ""
            print(
                f"  kill after {k.after:5.2f} s: {k.stored:3d} stored, in progress: {', '.join(k.live) or '-'}"
                f"{' (not yet taken up again)' if k.taking_up else ''}{resumed}"
            )
        for line in result.failures:
            print("FAILED: " + line)
        if result.failures and args.keep is None:
            print("(run again with --keep DIR and the same --seed to keep the logs and the store)")
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
