"""Every kept rating recomputed from the stored games, in recording order, and compared
exactly (float equality) with what is stored: the changes each game made, the current
ratings, and each tournament's standings (its games rated afresh, every rating new).

The games are streamed (``replay.replayed``, a batch at a time, with the changes stored
for that batch), and a tournament's standings are compared (and rewritten) as soon as its
last game has been replayed: what a rebuild holds is the ratings of the bots, the open
tournaments' standings and one batch of games, however many games are stored.

The standings are also what the schema migration that added them fills in for the
tournaments already stored (``fill_standings``): the numbers their leaderboards showed when
they were rated afresh at every read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..ratings import RatingSystem
from ..ratings.model import Entity, Match
from .database import Database
from .records import Mismatch, RebuildReport
from .replay import TALLY_COLUMNS, Book, Replayed, Tally, replayed, wins

Key = tuple[str, ...]
"""A kept row's key: its scope's values (game, system; or tournament, game, system), kind, entity."""

Values = tuple[float, float, float, float]
"""A stored rating change: mu and sigma before, mu and sigma after."""

KEPT = 1000
"""Differences a report names (``RebuildReport.mismatches``; every one is counted): a
rebuild after a change of parameters differs at every stored value, which a report need not
hold to say so."""


class Differences:
    """Mismatches as they are found: every one counted, the first ``KEPT`` kept."""

    def __init__(self) -> None:
        self.count = 0
        self.kept: list[tuple[Key, Mismatch]] = []

    def add(self, key: Key, label: str, stored: Any, computed: Any) -> None:
        self.count += 1
        if len(self.kept) < KEPT:
            self.kept.append((key, Mismatch(f"{label} " + " ".join(key), stored, computed)))

    def compare(self, label: str, stored: dict[Key, Tally], computed: dict[Key, Tally]) -> None:
        for key in sorted(set(computed) | set(stored)):
            if computed.get(key) != stored.get(key):
                self.add(key, label, stored.get(key), computed.get(key))


def _rows(systems: Sequence[RatingSystem], books: Iterable[tuple[Key, Book]]) -> dict[Key, Tally]:
    """The books' rows by their whole key (the book's key, kind, entity); the system is the
    book key's last part."""
    scores = {s.name: s.score for s in systems}
    return {
        (*scope, kind, entity): tally
        for scope, book in books
        for (kind, entity), tally in book.rows(scores[scope[-1]]).items()
    }


def _insert_standings(db: Database, rows: dict[Key, Tally]) -> None:
    db.executemany(
        f"INSERT INTO standings (tournament, game, system, kind, entity, {TALLY_COLUMNS})"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (k + v for k, v in rows.items()),
    )


class Standings:
    """Each tournament's games rated afresh as the replay passes them; when its last game
    has passed, its rows go to ``done`` (and its book is dropped)."""

    def __init__(self, db: Database, systems: Sequence[RatingSystem], done: Callable[[str, dict[Key, Tally]], None]):
        self.systems = systems
        self.done = done
        self.last: dict[str, int] = dict(
            db.execute("SELECT tournament, MAX(seq) FROM games WHERE tournament IS NOT NULL GROUP BY tournament")
        )
        """Each tournament's last game: an int per tournament, not a row per game."""
        self.books: dict[str, dict[tuple[str, str], Book]] = {}
        self.rows = 0

    def play(self, game: Replayed, won: set[Entity]) -> None:
        if game.tournament is None:
            return
        books = self.books.setdefault(game.tournament, {})
        for system in self.systems:
            book = books.setdefault((game.game, system.name), Book())
            book.apply(game.seq, system.rate(game.match, book.ratings), won)

    def close(self, seq: int) -> None:
        """The tournaments whose last game is at or before ``seq`` are complete."""
        for tournament in [t for t in self.books if self.last[t] <= seq]:
            books = self.books.pop(tournament)
            rows = _rows(self.systems, (((tournament, *scope), book) for scope, book in books.items()))
            self.rows += len(rows)
            self.done(tournament, rows)


def fill_standings(db: Database, systems: Sequence[RatingSystem]) -> None:
    """The migration step that keeps the standings of the tournaments stored before they were
    kept: rated afresh, in order, as their leaderboards were."""
    standings = Standings(db, systems, lambda _, rows: _insert_standings(db, rows))
    for batch in replayed(db, "AND g.tournament IS NOT NULL"):
        for game in batch:
            standings.play(game, wins(game.match))
        standings.close(batch[-1].seq)


def _stored(db: Database, scope: str, table: str, where: str = "", args: Sequence[Any] = ()) -> dict[Key, Tally]:
    """The kept rows of ``table`` by their whole key (``scope``'s columns, kind, entity)."""
    width = scope.count(",") + 3
    return {
        tuple(row[:width]): tuple(row[width:])
        for row in db.execute(f"SELECT {scope}, kind, entity, {TALLY_COLUMNS} FROM {table} {where}", args)
    }


class _Rebuild:
    """One rebuild's state: the replayed ratings per game type and system, the differences
    found, and what ``write`` rewrites as it goes."""

    def __init__(self, db: Database, systems: Sequence[RatingSystem], write: bool) -> None:
        self.db = db
        self.systems = systems
        self.write = write
        self.books: dict[tuple[str, str], Book] = defaultdict(Book)
        self.changes = Differences()
        self.standing = Differences()
        self.checked = 0
        self.standings = Standings(db, systems, self._standings_done)

    def _standings_done(self, tournament: str, rows: dict[Key, Tally]) -> None:
        stored = _stored(self.db, "tournament, game, system", "standings", "WHERE tournament = ?", (tournament,))
        self.standing.compare("standing", stored, rows)
        if self.write:
            self.db.execute("DELETE FROM standings WHERE tournament = ?", (tournament,))
            _insert_standings(self.db, rows)

    def batch(self, games: list[Replayed]) -> None:
        """Replay ``games`` (consecutive in recording order) against their stored changes."""
        first, last = games[0].seq, games[-1].seq
        stored: dict[tuple[int, str], dict[Entity, Values]] = defaultdict(dict)
        for seq, system, kind, entity, mb, sb, ma, sa in self.db.execute(
            "SELECT game_seq, system, kind, entity, mu_before, sigma_before, mu_after, sigma_after"
            " FROM rating_changes WHERE game_seq BETWEEN ? AND ?",
            (first, last),
        ):
            stored[(seq, system)][(kind, entity)] = (mb, sb, ma, sa)
        new_changes: list[tuple[Any, ...]] = []
        for game in games:
            won = wins(game.match)
            for system in self.systems:
                computed = self._rate(
                    game.seq, game.game, system, game.match, won, stored.get((game.seq, system.name), {})
                )
                new_changes += ((game.seq, system.name, *entity, *values) for entity, values in computed.items())
            self.standings.play(game, won)
        if self.write:
            self.db.execute("DELETE FROM rating_changes WHERE game_seq BETWEEN ? AND ?", (first, last))
            self.db.executemany("INSERT INTO rating_changes VALUES (?,?,?,?,?,?,?,?)", new_changes)
        self.standings.close(last)

    def _rate(
        self, seq: int, game: str, system: RatingSystem, match: Match, won: set[Entity], stored: dict[Entity, Values]
    ) -> dict[Entity, Values]:
        """Game ``seq`` rated by ``system`` from the replayed ratings, compared with its stored changes."""
        book = self.books[(game, system.name)]
        changes = system.rate(match, book.ratings)
        computed = {c.entity: (c.before.mu, c.before.sigma, c.after.mu, c.after.sigma) for c in changes}
        self.checked += len(computed)
        if computed != stored:
            for entity in sorted(set(computed) | set(stored)):
                if computed.get(entity) != stored.get(entity):
                    key = (str(seq), system.name, *entity)
                    self.changes.add(key, "game", stored.get(entity), computed.get(entity))
        book.apply(seq, changes, won)
        return computed

    def finish(self, params: Any) -> tuple[dict[Key, Tally], list[Mismatch], int]:
        """The current ratings compared (and rewritten), and the standings of tournaments
        with no stored game (which no replay computes): the ratings, every mismatch kept
        (changes in order, then ratings and standings by key) and how many there are."""
        db = self.db
        ratings = _rows(self.systems, self.books.items())
        found = Differences()
        found.compare("rating", _stored(db, "game, system", "ratings"), ratings)
        gone = "WHERE tournament NOT IN (SELECT tournament FROM games WHERE tournament IS NOT NULL)"
        self.standing.compare("standing", _stored(db, "tournament, game, system", "standings", gone), {})
        if self.write:
            db.execute(f"DELETE FROM standings {gone}")
            for table in ("ratings", "rating_systems"):
                db.execute(f"DELETE FROM {table}")
            db.executemany("INSERT INTO rating_systems (system, params) VALUES (?, ?)", params)
            db.executemany(
                f"INSERT INTO ratings (game, system, kind, entity, {TALLY_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (k + v for k, v in ratings.items()),
            )
        kept = [m for _, m in self.changes.kept] + [m for _, m in found.kept]
        kept += [m for _, m in sorted(self.standing.kept, key=lambda item: item[0])]
        return ratings, kept[:KEPT], self.changes.count + found.count + self.standing.count


def rebuild(db: Database, systems: Sequence[RatingSystem], params: Any, write: bool) -> RebuildReport:
    """See ``Ratings.rebuild`` (which runs this in one transaction); ``params`` are the
    systems' parameters as ``rating_systems`` records them, by name."""
    state = _Rebuild(db, systems, write)
    games = 0
    for batch in replayed(db):
        state.batch(batch)
        games += len(batch)
    ratings, mismatches, differences = state.finish(params)
    return RebuildReport(
        games, state.checked, len(ratings), tuple(mismatches), write, state.standings.rows, differences
    )
