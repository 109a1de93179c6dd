"""Ready-made decks by table size (option ``preset``), so an operator need not write
``roleCounts`` for every table size.

- ``classic``: the specification's recommended table, exactly (rules/werewolf.md §1.1).
- ``advanced``: the classic frame (the classic table's wolves, a seer, a witch from 8 players) with
  P1 and P2 roles in place of the doctor, the thief and some villagers.
- ``chaos``: drawn for each game by its seeded RNG from every registered role (P0 to P3),
  by the recipe in ``chaos``. It reads the registry, so a role added later joins the draw
  by itself; a role opts out, or comes in a group, through ``Role.chaos_copies``.

Every deck leaves villagers to fill the seats it does not name, and each is still checked
by ``WerewolfOptions.deal`` like a hand-written one.
"""

from __future__ import annotations

import random
from typing import TypeVar

from .roles import REGISTRY, Team

PRESETS = ("none", "classic", "advanced", "chaos")
FILLER = "villager"
PLAIN_WOLF = "werewolf"

T = TypeVar("T")
Bands = tuple[tuple[int, T], ...]
"""Values by the smallest table size they serve, rising."""

CLASSIC: Bands[dict[str, int]] = (
    (6, {"werewolf": 2, "seer": 1, "doctor": 1}),
    (8, {"werewolf": 2, "seer": 1, "doctor": 1, "witch": 1}),
    (10, {"werewolf": 3, "seer": 1, "doctor": 1, "witch": 1, "thief": 1}),
    (12, {"werewolf": 3, "seer": 1, "doctor": 1, "witch": 1, "hunter": 1, "thief": 1, "piper": 1}),
    (
        15,
        {
            "werewolf": 4,
            "seer": 1,
            "doctor": 1,
            "witch": 1,
            "hunter": 1,
            "bodyguard": 1,
            "thief": 1,
            "cupid": 1,
            "piper": 1,
        },
    ),
)
"""The classic table's (§1.1) wolves, power and neutral roles as written; villagers fill the deck. The
table's villager column cannot be kept as a count: with the thief's two extra cards its
rows add up to the players at 10, one more at 12 and two more at 15; the filler deals at
least as many villagers as it says."""

ADVANCED: Bands[dict[str, int]] = (
    (6, {"werewolf": 2, "seer": 1, "guardian_angel": 1, "idiot": 1}),
    (8, {"werewolf": 2, "seer": 1, "witch": 1, "bodyguard": 1, "tracker": 1, "jester": 1}),
    (10, {"werewolf": 3, "seer": 1, "witch": 1, "bodyguard": 1, "hunter": 1, "watcher": 1, "cupid": 1}),
    (
        12,
        {
            "werewolf": 3,
            "seer": 1,
            "witch": 1,
            "bodyguard": 1,
            "hunter": 1,
            "detective": 1,
            "watcher": 1,
            "jester": 1,
            "cupid": 1,
        },
    ),
    (
        15,
        {
            "werewolf": 4,
            "seer": 1,
            "witch": 1,
            "bodyguard": 1,
            "hunter": 1,
            "mason": 2,
            "tracker": 1,
            "cupid": 1,
            "jester": 1,
            "piper": 1,
        },
    ),
)

WOLVES: Bands[int] = ((6, 2), (10, 3), (15, 4))
"""Chaos's wolf seats: the classic table's wolf column (§1.1)."""
NEUTRALS: Bands[int] = ((6, 1), (12, 2), (15, 3))
"""Chaos's neutral seats: the classic table's neutral column (§1.1), with at least one."""


def _by_size(bands: Bands[T], players: int) -> T:
    return next(value for least, value in reversed(bands) if players >= least)


def preset_counts(preset: str, players: int, rng: random.Random) -> dict[str, int]:
    """The deck ``preset`` deals at ``players`` seats (``rng`` draws chaos's), villagers
    left to fill."""
    if preset == "classic":
        return dict(_by_size(CLASSIC, players))
    if preset == "advanced":
        return dict(_by_size(ADVANCED, players))
    return chaos(players, rng)


def chaos(players: int, rng: random.Random) -> dict[str, int]:
    """Chaos's recipe (rules/werewolf.md §1.1): the classic wolf seats, half of them (rounded
    down) wolf-side power roles; the classic neutral seats (at least one), all neutral roles; of the village's
    seats two thirds (rounded up) are power roles, the rest villagers. Each power role is
    drawn at most once (``chaos_copies`` cards of it), uniformly among the registry's roles
    of its side; a side with too few roles leaves its seats to plain wolves or villagers.
    Every deck has fewer wolves than village-side seats, so every draw can be dealt."""
    wolves = _by_size(WOLVES, players)
    neutrals = _by_size(NEUTRALS, players)
    village = players - wolves - neutrals
    counts = _draw(Team.WEREWOLF, wolves // 2, rng)
    counts[PLAIN_WOLF] = wolves - sum(counts.values())
    counts.update(_draw(Team.NEUTRAL, neutrals, rng))
    counts.update(_draw(Team.VILLAGE, village - village // 3, rng))
    return counts


def _draw(team: Team, seats: int, rng: random.Random) -> dict[str, int]:
    """Power roles of ``team`` for up to ``seats`` seats, in a random order, each once."""
    pool = [r for r in REGISTRY.values() if r.team is team and r.chaos_copies and r.id not in (FILLER, PLAIN_WOLF)]
    drawn: dict[str, int] = {}
    for role in rng.sample(pool, len(pool)):
        if role.chaos_copies <= seats:
            drawn[role.id] = role.chaos_copies
            seats -= role.chaos_copies
    return drawn
