"""The two-team TrueSkill fast path against the ``trueskill`` package, and what it saves.

Usage: python bench/twoteam.py [--matches N] [--seed S] [--calls N]

Rates N random matches with ``TrueSkill.rate`` (teams of 1 to 10 players a side, uneven
sizes included, random ratings and side terms; one match in five a forfeit), records every
call it makes to the fast path (``arena.ratings.twoteam``: the players' call and the side
terms' call, with the weights ``skill`` gives them), has the package rate the same teams,
and prints how many results are bit-identical and the largest difference. Then the CPU
time per ``TrueSkill.rate`` call, with the fast path and with the package alone: a
5-player Avalon game (3 vs 2, side terms), a 10-player one (6 vs 4) and a 10-player forfeit.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from collections.abc import Sequence
from typing import TypeVar

import trueskill

from arena.ratings import BOT, SIDE, TrueSkill, forfeit, ranked
from arena.ratings.model import Entity, Match, Rating
from arena.ratings.twoteam import Pair, TwoTeams

Call = tuple[list[list[Pair]], list[list[float]], list[int], list[list[Pair]] | None]
"""A call to ``TwoTeams.rate``: teams, weights, ranks, and what it returned."""


class Recording(TwoTeams):
    """The fast path, keeping every call made to it."""

    def __init__(self, env: object) -> None:
        super().__init__(env)
        self.calls: list[Call] = []

    def rate(
        self, teams: Sequence[Sequence[Pair]], weights: Sequence[Sequence[float]], ranks: Sequence[int]
    ) -> list[list[Pair]] | None:
        result = super().rate(teams, weights, ranks)
        self.calls.append(([list(t) for t in teams], [list(w) for w in weights], list(ranks), result))
        return result


class Declining(TwoTeams):
    """A fast path that covers nothing: every match goes to the package, as before it."""

    def rate(
        self, teams: Sequence[Sequence[Pair]], weights: Sequence[Sequence[float]], ranks: Sequence[int]
    ) -> list[list[Pair]] | None:
        return None


Path = TypeVar("Path", bound=TwoTeams)


def with_path(system: TrueSkill, path: type[Path]) -> tuple[TrueSkill, Path]:
    """A copy of ``system`` whose fast path is ``path``'s (the copy and that path)."""
    copy = dataclasses.replace(system)
    fast = path(copy.env)
    object.__setattr__(copy, "two_teams", fast)
    return copy, fast


def random_match(rng: random.Random) -> tuple[Match, dict[Entity, Rating]]:
    """A two-team match as the store rates it, and random current ratings of its entities."""
    good, evil = rng.randint(1, 10), rng.randint(1, 10)
    names = [f"p{i}" for i in range(good + evil)]
    if rng.random() < 0.2:
        match = forfeit(names, rng.choice(names))
    else:
        sides = {p: "good" if i < good else "evil" for i, p in enumerate(names)}
        winner = rng.choice(("good", "evil"))
        match = ranked(sides, {winner: 0, "evil" if winner == "good" else "good": 1})
    current: dict[Entity, Rating] = {}
    for entity in match.entities():
        if entity[0] == BOT:
            current[entity] = Rating(rng.uniform(-10.0, 60.0), rng.uniform(0.3, 9.0))
        else:
            current[entity] = Rating(rng.uniform(-6.0, 6.0), rng.uniform(0.2, 25.0 / 6))
    return match, current


@dataclasses.dataclass(frozen=True)
class Comparison:
    """The fast path's calls over some matches against the package's answers."""

    calls: int
    identical: int
    declined: int
    max_diff: float
    """The largest absolute difference in a mean or deviation (0.0 when all are identical)."""


def compare(matches: int, seed: int, system: TrueSkill | None = None) -> Comparison:
    """Rate ``matches`` random matches (``random_match``) with ``system`` (default: the
    defaults) and compare each call to the fast path with the package's ``rate`` of the
    same teams, ranks and weights."""
    rng = random.Random(seed)
    system, recording = with_path(system or TrueSkill(), Recording)
    identical = declined = 0
    max_diff = 0.0
    for _ in range(matches):
        match, current = random_match(rng)
        system.rate(match, current)
    for teams, weights, ranks, got in recording.calls:
        rated = system.env.rate([[trueskill.Rating(*p) for p in t] for t in teams], ranks, weights)
        want = [[(float(r.mu), float(r.sigma)) for r in t] for t in rated]
        if got is None:
            declined += 1
        elif got == want:
            identical += 1
        else:
            diffs = (abs(x - y) for gt, wt in zip(got, want) for gp, wp in zip(gt, wt) for x, y in zip(gp, wp))
            max_diff = max(max_diff, *diffs)
    return Comparison(len(recording.calls), identical, declined, max_diff)


def cpu_per_call(system: TrueSkill, match: Match, calls: int) -> float:
    """CPU seconds per ``system.rate(match, ...)``, from fixed ratings, best of three."""
    rng = random.Random(1)
    current = {e: Rating(rng.uniform(20.0, 30.0), rng.uniform(1.0, 8.0)) for e in match.entities() if e[0] == BOT}
    current |= {e: Rating(rng.uniform(-2.0, 2.0), 2.0) for e in match.entities() if e[0] == SIDE}
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(calls):
            system.rate(match, current)
        best = min(best, (time.process_time() - start) / calls)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--calls", type=int, default=2_000, help="rate calls per timing")
    args = parser.parse_args()
    result = compare(args.matches, args.seed)
    print(
        f"{args.matches} matches, {result.calls} calls to the fast path: {result.identical} bit-identical,"
        f" {result.declined} left to the package, max abs difference {result.max_diff:g}"
    )
    fast = TrueSkill()
    package, _ = with_path(fast, Declining)
    ten = [f"p{i}" for i in range(10)]
    cases = {
        "5 players, 3 vs 2, sides": ranked(
            {p: "good" if i < 3 else "evil" for i, p in enumerate(ten[:5])}, {"good": 0, "evil": 1}
        ),
        "10 players, 6 vs 4, sides": ranked(
            {p: "good" if i < 6 else "evil" for i, p in enumerate(ten)}, {"evil": 0, "good": 1}
        ),
        "10 players, forfeit": forfeit(ten, "p3"),
    }
    for label, match in cases.items():
        before = cpu_per_call(package, match, args.calls) * 1e6
        after = cpu_per_call(fast, match, args.calls) * 1e6
        print(f"TrueSkill.rate, {label}: package {before:.0f} µs, fast path {after:.0f} µs ({before / after:.1f} ×)")


if __name__ == "__main__":
    main()
