"""Fuzzed lines against a live referee on a local IRC server: exceptions, crashes, games, memory.

Raw connections send mutations of valid lines (over-long tokens, Unicode digits and letters,
control characters, empty and many fields) by DM to a referee service whose lobby keeps
rule bots playing Avalon; afterwards the game in progress must end. The goal: 0 exceptions
in the log, 0 crashes, every game finished, memory growth under 5 MB.

Usage: python bench/fuzz.py [--server ngircd|embedded] [--lines N] [--seed S] [--clients C]
"""

from __future__ import annotations

import argparse
import sys

from arena.irc.servers import start_server
from arena.referee.fuzz import fuzz_over_irc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("ngircd", "embedded"), default="ngircd")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with start_server(args.server) as (host, port):
        report = fuzz_over_irc(host, port, args.lines, seed=args.seed, clients=args.clients)
    print(f"{args.server}: {report.lines} fuzzed lines in {report.seconds:.1f} s, {report.handled} handled by the referee, "
          f"{report.replies} replies (each sender gets a few, then the referee falls silent for it)")
    print(f"  exceptions in the log: {len(report.exceptions)}; crashes: {0 if report.crashed is None else 1}")
    print(f"  games finished: {report.games}, unfinished: {report.unfinished}")
    print(f"  memory growth (RSS, after the first tenth): {report.rss_growth / 2**20:.2f} MB")
    for record in report.exceptions[:5]:
        print(record)
    if report.exceptions or report.crashed or report.unfinished:
        sys.exit(1)


if __name__ == "__main__":
    main()
