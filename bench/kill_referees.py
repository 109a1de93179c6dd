"""Kill -9 soak of two referees sharing one lobby: in each round one of them is killed
(SIGKILL) while some twenty games are in flight, and the other must take its games over.

Usage: python bench/kill_referees.py [--game avalon|werewolf] [--rounds N] [--games G] [--failover S]
                                     [--bots B] [--after-end P] [--at-night P] [--seed S] [--keep DIR]

Each round starts a fresh arena (``bench/referees_irc.py``): two ngircd servers linked to
each other on 127.0.0.1, a PostgreSQL server of its own, two ``arena serve`` referees
(``arena`` on server a, the dealer; ``arena2`` on server b), and ``B`` bots on each server,
that play ``G`` games each and then leave: Avalon tables of five (50 a server: twenty games
at once) of the Avalon rules bots and random bots, or Werewolf tables of eight (48 a server:
twelve at once) of the Werewolf rules bots; the referees' ``timeouts.failover`` is
``S`` seconds (10, as by default). Once the round's victim (``arena`` and ``arena2`` in
turn) runs a game that has begun, it is killed:

* with probability ``--after-end`` right after one of its games ends (its ``END`` line
  heard in the game's channel);
* Werewolf, with probability ``--at-night``, during a night of one of its games (between its
  ``NIGHT`` and ``DAWN``, after a random part of a second);
* otherwise after a random delay of up to two seconds.

Once every game it held is taken over (``RESUME``), it is started again, while they go on
under the other referee. When the bots have all left, the round is checked:

* no game lost or stored twice: every game begun (its ``START`` heard in its channel, or
  held by the victim at the kill) is stored, once, and every game stored was announced
  (``TABLE ... seats=...``); every other table was withdrawn (``TABLE ... seats=``) once
  its bots left, or, for the victim's tables that never began, by the heir (in its own
  name; one withdrawn in the store with no word in the lobby is counted, "withdrawn
  unsaid");
* no forfeit, no aborted game: the bots are honest and answer in milliseconds, so any
  would be innocent (caused by the kill);
* every game the victim held at the kill was taken over (``RESUME``) once, by the other
  referee, within ``timeouts.failover`` + 5 s of the kill;
* the victim, started again, said nothing in the channels of those games (fencing);
* each game's replay gives its stored events, nothing is left in progress, ``arena ratings
  rebuild`` matches exactly, no process logged a traceback, no bot was stranded.

It prints a line per round and a summary; exit status 1 on any violation.
"""

from __future__ import annotations

import argparse
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from arena.irc.servers import ngircd_available
from arena.store.pgserver import LocalPostgres, postgres_available
from bench.referees_irc import REFEREES, Announced, Arena, arena, check_store, owned, running

BOTS = {"avalon": 50, "werewolf": 48}
"""Bots on each server, unless told (``--bots``): twice as many fill whole tables."""
SLACK = 5.0
"""Seconds past ``timeouts.failover`` by which each game of the victim must be taken over."""
WAIT = 120.0
"""Seconds to wait for the moment of a kill (an END, a night) before killing anyway."""


@dataclass
class Round:
    """One round: whom it killed, where the kill landed, and what the checks found."""

    number: int
    victim: str
    aim: str
    """``end``, ``night`` or ``random``: the moment the kill was aimed at."""
    landed: str = ""
    """Where it landed: how long after an END, in which game's night."""
    in_flight: int = 0
    """Games in progress (both referees) at the kill."""
    orphans: set[str] = field(default_factory=set)
    takeover: list[float] = field(default_factory=list)
    """Seconds from the kill to each orphan's ``RESUME``."""
    unsaid: set[str] = field(default_factory=set)
    """Tables the victim announced that never began: the heir withdraws them in the store,
    but says nothing of it in the lobby (their bots are seated again all the same)."""
    stored: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    def line(self) -> str:
        slowest = f"{max(self.takeover):.2f} s" if self.takeover else "-"
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.kinds.items()))
        return (
            f"round {self.number}: killed {self.victim} ({self.aim}: {self.landed}), {self.in_flight} games in flight,"
            f" {len(self.orphans)} taken over (slowest {slowest}), {len(self.unsaid)} of its tables withdrawn"
            f" unsaid; {self.stored} games stored ({kinds or 'none'});"
            f" {self.seconds:.0f} s: {'FAILED' if self.failures else 'ok'}"
        )


def in_flight(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM live_games").fetchone()
    return int(row[0]) if row else 0


def tables_left(url: str) -> int:
    """Tables dealt and not over: once the bots have left (each after its last game, maybe
    just seated again), their referees withdraw them, by ``lobby.join_timeout`` at the latest."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT COUNT(*) FROM lobby_tables").fetchone()
    return int(row[0]) if row else 0


def last_end(heard: list[Announced], victim: str) -> Announced | None:
    return next((a for a in reversed(heard) if a.verb == "END" and a.sender == victim), None)


def nights(heard: list[Announced], victim: str) -> dict[str, float]:
    """The games of ``victim`` in a night now (their ``NIGHT`` not yet followed by ``DAWN``
    or ``END``), with when it fell."""
    night: dict[str, float] = {}
    for a in list(heard):
        if a.sender != victim:
            continue
        if a.verb == "NIGHT":
            night[a.gid] = a.at
        elif a.verb in ("DAWN", "END"):
            night.pop(a.gid, None)
    return night


def aim_and_kill(lobby: Arena, result: Round, rng: random.Random) -> float:
    """Wait for the round's moment, kill its victim there; when it died."""
    watcher, victim = lobby.watcher, result.victim
    lobby.wait_for(f"a game of {victim} under way", lambda: running(lobby.url, victim))
    give_up = time.monotonic() + WAIT
    if result.aim == "end":
        before = last_end(watcher.heard, victim)
        while last_end(watcher.heard, victim) is before and time.monotonic() < give_up:
            time.sleep(0.001)
    elif result.aim == "night":
        while not nights(watcher.heard, victim) and time.monotonic() < give_up:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.5))
    else:
        delay = rng.uniform(0.0, 2.0)
        time.sleep(delay)
        result.landed = f"{delay:.2f} s into a game"
    lobby.referees[victim].send_signal(signal.SIGKILL)
    lobby.referees[victim].wait()
    killed_at = time.monotonic()
    end = last_end(watcher.heard, victim)
    dark = nights(watcher.heard, victim)
    if result.aim == "end":
        result.landed = f"{(killed_at - end.at) * 1000:.0f} ms after END {end.gid}" if end else "no END heard"
    elif result.aim == "night":
        result.landed = f"night of {', '.join(sorted(dark))}" if dark else "no game at night"
    elif dark:
        result.landed += f", {len(dark)} of its games at night"
    return killed_at


def play_round(
    where: Path,
    postgres: LocalPostgres,
    game: str,
    games: int,
    bots: int,
    failover: float,
    result: Round,
    rng: random.Random,
) -> None:
    began = time.monotonic()
    heir = REFEREES[1 - REFEREES.index(result.victim)]
    restarted = float("inf")
    try:
        with arena(where, postgres, games, per_server=bots, game=game, failover=failover) as lobby:
            killed_at = aim_and_kill(lobby, result, rng)
            result.orphans = owned(lobby.url, result.victim)
            result.in_flight = in_flight(lobby.url)
            lobby.wait_for(
                "the games taken over",
                lambda: result.orphans <= {a.gid for a in lobby.watcher.said if a.verb == "RESUME"},
            )
            restarted = time.monotonic()
            lobby.start_referee(result.victim, f"{result.victim}-again")  # while its games go on under the heir
            lobby.wait_for("the bots to leave", lambda: all(bot.poll() is not None for bot in lobby.bots.values()))
            lobby.wait_for("the tables of bots that left withdrawn", lambda: not tables_left(lobby.url))
    except AssertionError as exc:
        result.failures.append(f"{type(exc).__name__}: {str(exc)[:2000]}")
        return
    finally:
        result.seconds = time.monotonic() - began
    resumed = [a for a in lobby.watcher.said if a.verb == "RESUME"]
    result.takeover = [a.at - killed_at for a in resumed]
    if sorted(a.gid for a in resumed) != sorted(result.orphans):
        result.failures.append(f"taken over: {sorted(a.gid for a in resumed)}, not each of {sorted(result.orphans)}")
    if late := [f"{a.gid} {a.at - killed_at:.2f} s" for a in resumed if a.at - killed_at > failover + SLACK]:
        result.failures.append(f"taken over later than {failover + SLACK:g} s after the kill: {', '.join(late)}")
    if other := [f"{a.gid} by {a.sender}" for a in resumed if a.sender != heir or a.fields.get("referee") != heir]:
        result.failures.append(f"taken over by another than {heir}: {', '.join(other)}")
    if fenced := [
        f"{a.verb} {a.gid}"
        for a in lobby.watcher.heard
        if a.gid in result.orphans and a.sender == result.victim and a.at > restarted
    ]:
        result.failures.append(f"{result.victim}, started again, spoke for games it had lost: {', '.join(fenced[:10])}")
    tabled = {t.gid for t in lobby.watcher.tables()}
    started = {a.gid for a in lobby.watcher.heard if a.verb == "START"} | result.orphans
    with psycopg.connect(lobby.url) as conn:
        rows = conn.execute("SELECT id, kind FROM games").fetchall()
    ids = [gid for gid, _ in rows]
    result.stored = len(ids)
    for _, kind in rows:
        result.kinds[kind] = result.kinds.get(kind, 0) + 1
    pending = tabled - started - lobby.watcher.withdrawn() - set(ids)
    result.unsaid = {t.gid for t in lobby.watcher.tables() if t.sender == result.victim} & pending
    if pending - result.unsaid:
        result.failures.append(f"tables neither begun nor withdrawn: {', '.join(sorted(pending - result.unsaid))}")
    if len(ids) != len(set(ids)):
        result.failures.append(f"games stored twice: {sorted({g for g in ids if ids.count(g) > 1})}")
    if lost := sorted(started - set(ids)):
        result.failures.append(f"games begun and never stored: {', '.join(lost)}")
    if unknown := sorted(set(ids) - tabled):
        result.failures.append(f"games stored that no TABLE announced: {', '.join(unknown)}")
    if spoilt := [f"{gid} {kind}" for gid, kind in rows if kind != "ranked"]:
        result.failures.append(f"games not ranked (innocent forfeits or aborts): {', '.join(spoilt)}")
    try:
        check_store(lobby, games)  # replays, nothing left in progress, rebuild exact, no traceback
    except AssertionError as exc:
        result.failures.append(f"store: {str(exc)[:2000]}")


def main() -> int:
    # A TERM unwinds like Ctrl-C: the servers, referees and bots this run started are stopped.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("avalon", "werewolf"), default="avalon")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--games", type=int, default=None, help="games each bot plays a round (default: 3 Avalon, 2 Werewolf)"
    )
    parser.add_argument(
        "--failover",
        type=float,
        default=10.0,
        help="the referees' timeouts.failover (default 10, the default of arena serve)",
    )
    parser.add_argument(
        "--bots", type=int, default=None, help="bots on each server (default: 50 Avalon, 48 Werewolf: whole tables)"
    )
    parser.add_argument("--after-end", type=float, default=0.3, help="share of the kills aimed right after an END")
    parser.add_argument("--at-night", type=float, default=0.4, help="Werewolf: share of the kills aimed at a night")
    parser.add_argument("--seed", type=int, default=None, help="the kills' seed (default: random)")
    parser.add_argument("--keep", type=Path, default=None, help="work in this folder and keep it (logs)")
    args = parser.parse_args()
    if not ngircd_available() or not postgres_available():
        print("ngircd and PostgreSQL are needed (Debian: apt-get install ngircd postgresql)", file=sys.stderr)
        return 2
    games = args.games if args.games is not None else 3 if args.game == "avalon" else 2
    bots = args.bots if args.bots is not None else BOTS[args.game]
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    rounds = []
    with tempfile.TemporaryDirectory(prefix="kill-referees-") as tmp, LocalPostgres() as postgres:
        where = args.keep if args.keep is not None else Path(tmp)
        for number in range(1, args.rounds + 1):
            draw = rng.random()
            aim = (
                "end"
                if draw < args.after_end
                else "night"
                if args.game == "werewolf" and draw < args.after_end + args.at_night
                else "random"
            )
            result = Round(number, REFEREES[(number - 1) % 2], aim)
            play_round(where / f"round{number}", postgres, args.game, games, bots, args.failover, result, rng)
            rounds.append(result)
            print(result.line(), flush=True)
            for failure in result.failures:
                print("  FAILED: " + failure, flush=True)
    takeovers = [t for r in rounds for t in r.takeover]
    failed = [r for r in rounds if r.failures]
    print(
        f"{args.game}: {len(rounds)} kills, {sum(r.stored for r in rounds)} games stored,"
        f" {sum(r.in_flight for r in rounds)} in flight at the kills, {len(takeovers)} taken over"
        f" (slowest {max(takeovers, default=0.0):.2f} s, limit {args.failover + SLACK:g} s),"
        f" {sum(n for r in rounds for k, n in r.kinds.items() if k != 'ranked')} not ranked;"
        f" {len(failed)} rounds failed (seed {seed})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
