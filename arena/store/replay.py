"""Tallies of rated games: the ratings, games and wins kept per entity, and the replay of
stored games that recomputes them.

Two tables keep such a tally: ``ratings`` (per game type, over every game) and
``standings`` (per tournament, over its games alone). Both are updated the same way inside
the transaction that records a game (``read``, then ``write``), and recomputed the same way
by replaying the stored games in recording order into a ``Book``: so what is kept game by
game and what a replay computes are the same numbers, to the last bit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..ratings.model import BOT, FORFEIT, RANKED, SIDE, Change, Entity, Group, Match, Rating
from .database import Database

OutcomeRow = tuple[int, str, int, int, str | None]
"""One seat of a stored game as a rated match needs it: seat, bot, group, rank, side key."""

Tally = tuple[float, float, float, int, int, int]
"""A kept row's values: mu, sigma, score, games, wins, last game seq."""

TALLY_COLUMNS = "mu, sigma, score, games, wins, last_seq"


def wins(match: Match) -> set[Entity]:
    """The entities credited with a win: players (and side terms) of the best-ranked groups
    of a ranked match whose groups do not all tie."""
    if match.kind != RANKED:
        return set()
    ranks = {g.rank for g in match.groups}
    if len(ranks) < 2:
        return set()
    best = min(ranks)
    out: set[Entity] = set()
    for g in match.groups:
        if g.rank == best:
            out.update((BOT, p) for p in g.players)
            if g.side is not None:
                out.add((SIDE, g.side))
    return out


def match_from_rows(kind: str, rows: Iterable[OutcomeRow], forfeited: int | None) -> Match:
    """The Match ``Games.record`` rated, rebuilt from outcome rows (groups by index, seats in order)."""
    groups: dict[int, tuple[list[str], int, str | None]] = {}
    offender = None
    for seat, bot, grp, rank, adv in rows:
        groups.setdefault(grp, ([], rank, adv))[0].append(bot)
        if seat == forfeited:
            offender = bot
    built = tuple(Group(tuple(ps), rank, adv) for _, (ps, rank, adv) in sorted(groups.items()))
    return Match(kind, built, offender if kind == FORFEIT else None)  # type: ignore[arg-type]


BATCH = 500
"""Games a replay reads at a time, with their outcome rows: what it holds of the stored
history, however long that is."""


@dataclass(frozen=True)
class Replayed:
    """A stored game as a replay rates it: its seq, game type, tournament and rated match."""

    seq: int
    game: str
    tournament: str | None
    match: Match


def replayed(db: Database, where: str = "", args: Sequence[Any] = ()) -> Iterator[list[Replayed]]:
    """The stored games in recording order, ``BATCH`` at a time, each with the match
    ``Games.record`` rated (``match_from_rows``); ``where`` (``AND ...``) filters on ``g``
    (the games). Each batch is read by its own indexed range queries (after the last seq
    read), so nothing between them holds a cursor open: the caller may write meanwhile."""
    last = -1
    while True:
        games = db.execute(
            f"SELECT g.seq, g.game, g.kind, g.forfeited, g.tournament FROM games g WHERE g.seq > ? {where}"
            " ORDER BY g.seq LIMIT ?",
            (last, *args, BATCH),
        ).fetchall()
        if not games:
            return
        rows: dict[int, list[OutcomeRow]] = defaultdict(list)
        for seq, seat, bot, grp, rank, adv in db.execute(
            "SELECT o.game_seq, o.seat, o.bot, o.grp, o.rank, o.adv FROM outcomes o JOIN games g"
            f" ON g.seq = o.game_seq WHERE o.game_seq BETWEEN ? AND ? {where} ORDER BY o.game_seq, o.seat",
            (games[0][0], games[-1][0], *args),
        ):
            rows[seq].append((seat, bot, grp, rank, adv))
        yield [
            Replayed(seq, game, tournament, match_from_rows(kind, rows[seq], forfeited))
            for seq, game, kind, forfeited, tournament in games
        ]
        last = games[-1][0]


def read(db: Database, table: str, scope: Mapping[str, Any], entities: Sequence[Entity]) -> dict[Entity, Rating]:
    """The kept ratings of ``entities`` in ``table`` (``ratings`` or ``standings``) within
    ``scope`` (its key columns but kind and entity, with their values): those not kept yet
    are left out, as new. Asked kind by kind, so that each entity is one look-up of the
    primary key (a pair ``(kind, entity) IN (...)`` would read every entity of the scope:
    a cost that grows with every bot the arena ever rated)."""
    by_kind: dict[str, list[str]] = {}
    for kind, name in entities:
        by_kind.setdefault(kind, []).append(name)
    where = " AND ".join(f"{column} = ?" for column in scope)
    found: dict[Entity, Rating] = {}
    for kind, names in by_kind.items():
        marks = ",".join("?" * len(names))
        rows = db.execute(
            f"SELECT entity, mu, sigma FROM {table} WHERE {where} AND kind = ? AND entity IN ({marks})",
            [*scope.values(), kind, *names],
        )
        found.update(((kind, e), Rating(mu, sigma)) for e, mu, sigma in rows)
    return found


def write(
    db: Database,
    table: str,
    scope: Mapping[str, Any],
    seq: int,
    changes: Iterable[Change],
    won: set[Entity],
    score: Callable[[Rating], float],
) -> None:
    """Game ``seq``'s ``changes`` applied to ``table`` within ``scope`` (as ``read``): the
    ratings after them, one more game each, one more win for those in ``won``."""
    columns = ", ".join(scope)
    upsert = db.dialect.upsert(
        f"INSERT INTO {table} ({columns}, kind, entity, {TALLY_COLUMNS}) VALUES ({'?,' * len(scope)}?,?,?,?,?,1,?,?)",
        f"{columns}, kind, entity",
        f"mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, games = {table}.games + 1,"
        f" wins = {table}.wins + excluded.wins, last_seq = excluded.last_seq",
    )
    key = tuple(scope.values())
    db.executemany(
        upsert,
        ((*key, *c.entity, c.after.mu, c.after.sigma, score(c.after), int(c.entity in won), seq) for c in changes),
    )


class Book:
    """One scope's tally as its games are replayed in order: what ``write`` keeps, game by game."""

    def __init__(self) -> None:
        self.ratings: dict[Entity, Rating] = {}
        self._counts: dict[Entity, list[int]] = {}

    def apply(self, seq: int, changes: Iterable[Change], won: set[Entity]) -> None:
        for c in changes:
            self.ratings[c.entity] = c.after
            count = self._counts.setdefault(c.entity, [0, 0, 0])
            count[0] += 1
            count[1] += int(c.entity in won)
            count[2] = seq

    def rows(self, score: Callable[[Rating], float]) -> dict[Entity, Tally]:
        """Each entity's kept values, as ``write`` leaves them."""
        out: dict[Entity, Tally] = {}
        for entity, r in self.ratings.items():
            games, won, last = self._counts[entity]
            out[entity] = (r.mu, r.sigma, score(r), games, won, last)
        return out
