"""Pure helpers of the day (rules/werewolf.md §4): speaking order (§4, step 5), vote counting
(§4, step 6), last words (§4.1)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .choice import CLOCKWISE

STEP = {CLOCKWISE: 1}
"""Clockwise is rising seat numbers; counterclockwise falling (any other direction word)."""


def speaking_order(alive: Sequence[bool], start: int, direction: str) -> list[int]:
    """Living seats from ``start`` round the table in ``direction``.

    ``start`` itself speaks first when alive; a dead start (last night's victim) only marks
    where the round begins, so the next living seat in the direction speaks first.
    """
    n = len(alive)
    step = STEP.get(direction, -1)
    return [s for s in ((start + step * k) % n for k in range(n)) if alive[s]]


def tally(votes: Mapping[int, int | str], majority: bool) -> tuple[dict[int, int], int, list[int]]:
    """Counts per target, abstentions, and the seats with the most votes that may be executed.

    With ``majority`` (dayVoteMajority) only a target with strictly more votes than there are
    abstentions counts; an empty list means nobody, one seat an execution, several a tie.
    """
    counts: dict[int, int] = {}
    abstentions = 0
    for target in votes.values():
        if isinstance(target, int):
            counts[target] = counts.get(target, 0) + 1
        else:  # ABSTAIN, the only word a vote may hold
            abstentions += 1
    if not counts:
        return counts, abstentions, []
    top = max(counts.values())
    if majority and top <= abstentions:
        return counts, abstentions, []
    return counts, abstentions, sorted(s for s, c in counts.items() if c == top)


def last_words_order(
    eligible: Sequence[int], quota: int | None, order: str, players: int, rng: random.Random
) -> list[int]:
    """Who speaks last words and in which order (rules/werewolf.md §4.1).

    ``eligible`` is in death-resolution order; ``quota`` the names left (None: no limit).
    When there are fewer places than players, a random subset gets them. ``seating_order``
    starts at a random one of them and goes clockwise by seat; ``death_resolution`` keeps
    the order of death.
    """
    chosen = list(eligible)
    if quota is not None and len(chosen) > quota:
        keep = set(rng.sample(chosen, quota))
        chosen = [s for s in chosen if s in keep]
    if order == "seating_order" and len(chosen) > 1:
        first = chosen[rng.randrange(len(chosen))]
        chosen.sort(key=lambda s: (s - first) % players)
    return chosen
