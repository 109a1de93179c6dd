"""Every kept rating recomputed from the stored games, in recording order, and compared
exactly (float equality) with what is stored: the changes each game made, the current
ratings, and each tournament's standings (its games rated afresh, every rating new).

The standings are also what the schema migration that added them fills in for the
tournaments already stored (``fill_standings``): the numbers their leaderboards showed when
they were rated afresh at every read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from ..ratings import RatingSystem
from ..ratings.model import Entity
from .database import Database
from .records import Mismatch, RebuildReport
from .replay import TALLY_COLUMNS, Book, OutcomeRow, Tally, match_from_rows, outcome_rows, wins

StoredGame = tuple[int, str, str, int | None, str | None]
"""A stored game as a replay needs it: seq, game type, kind, forfeited seat, tournament."""

Key = tuple[str, ...]
"""A kept row's key: its scope's values (game, system; or tournament, game, system), kind, entity."""

_GAMES = "SELECT seq, game, kind, forfeited, tournament FROM games"


def standings_books(
    systems: Sequence[RatingSystem], games: Sequence[StoredGame], rows: dict[int, list[OutcomeRow]]
) -> dict[tuple[str, str, str], Book]:
    """Each tournament's games (of ``games``, in their order) rated afresh: a Book per
    tournament, game type and system."""
    books: dict[tuple[str, str, str], Book] = defaultdict(Book)
    for seq, game, kind, forfeited, tournament in games:
        if tournament is None:
            continue
        match = match_from_rows(kind, rows[seq], forfeited)
        won = wins(match)
        for system in systems:
            book = books[(tournament, game, system.name)]
            book.apply(seq, system.rate(match, book.ratings), won)
    return books


def _rows(systems: Sequence[RatingSystem], books: dict[Any, Book]) -> dict[Key, Tally]:
    """The books' rows by their whole key (the book's key, kind, entity); the system is the
    book key's last part."""
    scores = {s.name: s.score for s in systems}
    return {
        (*scope, kind, entity): tally
        for scope, book in books.items()
        for (kind, entity), tally in book.rows(scores[scope[-1]]).items()
    }


def _insert_standings(db: Database, rows: dict[Key, Tally]) -> None:
    db.executemany(
        f"INSERT INTO standings (tournament, game, system, kind, entity, {TALLY_COLUMNS})"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (k + v for k, v in rows.items()),
    )


def fill_standings(db: Database, systems: Sequence[RatingSystem]) -> None:
    """The migration step that keeps the standings of the tournaments stored before they were
    kept: rated afresh, in order, as their leaderboards were."""
    games = db.execute(f"{_GAMES} WHERE tournament IS NOT NULL ORDER BY seq").fetchall()
    rows = outcome_rows(db, "WHERE g.tournament IS NOT NULL")
    _insert_standings(db, _rows(systems, standings_books(systems, games, rows)))


def _compare(label: str, stored: dict[Key, Tally], computed: dict[Key, Tally]) -> list[Mismatch]:
    return [
        Mismatch(f"{label} " + " ".join(key), stored.get(key), computed.get(key))
        for key in sorted(set(computed) | set(stored))
        if computed.get(key) != stored.get(key)
    ]


def rebuild(db: Database, systems: Sequence[RatingSystem], params: Any, write: bool) -> RebuildReport:
    """See ``Ratings.rebuild`` (which runs this in one transaction); ``params`` are the
    systems' parameters as ``rating_systems`` records them, by name."""
    stored_changes: dict[tuple[int, str], dict[Entity, tuple[float, float, float, float]]] = defaultdict(dict)
    for seq, system, kind, entity, mb, sb, ma, sa in db.execute(
        "SELECT game_seq, system, kind, entity, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes"
    ):
        stored_changes[(seq, system)][(kind, entity)] = (mb, sb, ma, sa)
    games: list[StoredGame] = db.execute(f"{_GAMES} ORDER BY seq").fetchall()
    rows = outcome_rows(db)
    books: dict[tuple[str, str], Book] = defaultdict(Book)
    mismatches: list[Mismatch] = []
    new_changes: list[tuple[Any, ...]] = []
    checked = 0
    for seq, game, kind, forfeited, _ in games:
        match = match_from_rows(kind, rows[seq], forfeited)
        won = wins(match)
        for system in systems:
            book = books[(game, system.name)]
            changes = system.rate(match, book.ratings)
            stored = stored_changes.get((seq, system.name), {})
            computed = {c.entity: (c.before.mu, c.before.sigma, c.after.mu, c.after.sigma) for c in changes}
            checked += len(computed)
            if computed != stored:
                for entity in sorted(set(computed) | set(stored)):
                    if computed.get(entity) != stored.get(entity):
                        mismatches.append(
                            Mismatch(
                                f"game {seq} {system.name} {entity[0]} {entity[1]}",
                                stored.get(entity),
                                computed.get(entity),
                            )
                        )
            book.apply(seq, changes, won)
            new_changes += ((seq, system.name, *c.entity, *computed[c.entity]) for c in changes)
    ratings = _rows(systems, books)
    mismatches += _compare("rating", _stored(db, "game, system"), ratings)
    standings = _rows(systems, standings_books(systems, games, rows))
    mismatches += _compare("standing", _stored(db, "tournament, game, system", "standings"), standings)
    if write:
        for table in ("rating_changes", "ratings", "standings", "rating_systems"):
            db.execute(f"DELETE FROM {table}")
        db.executemany("INSERT INTO rating_systems (system, params) VALUES (?, ?)", params)
        db.executemany("INSERT INTO rating_changes VALUES (?,?,?,?,?,?,?,?)", new_changes)
        db.executemany(
            f"INSERT INTO ratings (game, system, kind, entity, {TALLY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (k + v for k, v in ratings.items()),
        )
        _insert_standings(db, standings)
    return RebuildReport(len(games), checked, len(ratings), tuple(mismatches), write, len(standings))


def _stored(db: Database, scope: str, table: str = "ratings") -> dict[Key, Tally]:
    """The kept rows of ``table`` by their whole key (``scope``'s columns, kind, entity)."""
    width = scope.count(",") + 3
    return {
        tuple(row[:width]): tuple(row[width:])
        for row in db.execute(f"SELECT {scope}, kind, entity, {TALLY_COLUMNS} FROM {table}")
    }
