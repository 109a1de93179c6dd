"""Every kept rating recomputed from the stored games, in recording order, and compared
exactly (float equality) with what is stored: the changes each game made, the current
ratings, and each tournament's standings (its games rated afresh, every rating new).

The games are streamed (``replay.replayed``, a batch at a time, with the changes stored
for that batch), and a tournament's standings are compared (and rewritten) as soon as its
last game has been replayed: what a rebuild holds is the ratings of the bots, the open
tournaments' standings and one batch of games, however many games are stored. The
standings depend on nothing else, so a worker process may rate them (``jobs``) while this
one rates the current ratings: each batch's tournament games go to it, its complete
tournaments come back in the order of the games, and the report is the same.

The standings are also what the schema migration that added them fills in for the
tournaments already stored (``fill_standings``): the numbers their leaderboards showed when
they were rated afresh at every read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..ratings import RatingSystem
from ..ratings.model import Entity
from .database import Database
from .records import Mismatch, RebuildReport
from .replay import TALLY_COLUMNS, Book, Replayed, Tally, replayed, wins

Key = tuple[str, ...]
"""A kept row's key: its scope's values (game, system; or tournament, game, system), kind, entity."""

Values = tuple[float, float, float, float]
"""A stored rating change: mu and sigma before, mu and sigma after."""

ChangeRow = tuple[Any, ...]
"""A row of ``rating_changes``: game seq, system, kind, entity and the ``Values``."""

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

    def __init__(
        self, last: Mapping[str, int], systems: Sequence[RatingSystem], done: Callable[[str, dict[Key, Tally]], None]
    ) -> None:
        """``last``: each tournament's last game (``last_games``)."""
        self.systems = systems
        self.done = done
        self.last = last
        self.books: dict[str, dict[tuple[str, str], Book]] = {}

    def play(self, games: Iterable[Replayed], seq: int) -> None:
        """Rate ``games`` (the tournaments' games of a batch ending at game ``seq``), then
        hand over the tournaments complete by then."""
        for game in games:
            if game.tournament is None:
                continue
            won = wins(game.match)
            books = self.books.setdefault(game.tournament, {})
            for system in self.systems:
                book = books.setdefault((game.game, system.name), Book())
                book.apply(game.seq, system.rate(game.match, book.ratings), won)
        for tournament in [t for t in self.books if self.last[t] <= seq]:
            books = self.books.pop(tournament)
            self.done(tournament, _rows(self.systems, (((tournament, *scope), book) for scope, book in books.items())))


def last_games(db: Database) -> dict[str, int]:
    """Each tournament's last game: an int per tournament, not a row per game."""
    return dict(db.execute("SELECT tournament, MAX(seq) FROM games WHERE tournament IS NOT NULL GROUP BY tournament"))


def fill_standings(db: Database, systems: Sequence[RatingSystem]) -> None:
    """The migration step that keeps the standings of the tournaments stored before they were
    kept: rated afresh, in order, as their leaderboards were."""
    standings = Standings(last_games(db), systems, lambda _, rows: _insert_standings(db, rows))
    for batch in replayed(db, "AND g.tournament IS NOT NULL"):
        standings.play(batch, batch[-1].seq)


class StandingsWorker:
    """The tournaments' standings in a worker process (``arena.parallel``): each task is a
    batch's tournament games and the batch's last game; the answer, the tournaments
    complete by then, with their rows."""

    def __init__(self, last: Mapping[str, int], systems: Sequence[RatingSystem]) -> None:
        self.complete: list[tuple[str, dict[Key, Tally]]] = []
        self.standings = Standings(last, systems, lambda tournament, rows: self.complete.append((tournament, rows)))

    def __call__(self, task: tuple[list[Replayed], int]) -> list[tuple[str, dict[Key, Tally]]]:
        self.standings.play(*task)
        complete, self.complete = self.complete, []
        return complete

    def close(self) -> None:
        """Nothing is left: the last batch completed every tournament."""


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
        self.games = 0
        self.checked = 0
        self.standings = 0

    def standings_done(self, tournament: str, rows: dict[Key, Tally]) -> None:
        """A tournament's standings, computed: compared with the stored ones (and rewritten)."""
        self.standings += len(rows)
        stored = _stored(self.db, "tournament, game, system", "standings", "WHERE tournament = ?", (tournament,))
        self.standing.compare("standing", stored, rows)
        if self.write:
            self.db.execute("DELETE FROM standings WHERE tournament = ?", (tournament,))
            _insert_standings(self.db, rows)

    def batch(self, games: list[Replayed]) -> None:
        """Replay ``games`` (consecutive in recording order) against their stored changes:
        the current ratings' part (the standings' is ``Standings``)."""
        first, last = games[0].seq, games[-1].seq
        self.games += len(games)
        computed: list[ChangeRow] = []
        for game in games:
            won = wins(game.match)
            for system in self.systems:
                book = self.books[(game.game, system.name)]
                changes = system.rate(game.match, book.ratings)
                book.apply(game.seq, changes, won)
                computed += (
                    (game.seq, system.name, *c.entity, c.before.mu, c.before.sigma, c.after.mu, c.after.sigma)
                    for c in changes
                )
        self.checked += len(computed)
        stored = self.db.execute(
            "SELECT game_seq, system, kind, entity, mu_before, sigma_before, mu_after, sigma_after"
            " FROM rating_changes WHERE game_seq BETWEEN ? AND ? ORDER BY game_seq, system, kind, entity",
            (first, last),
        ).fetchall()
        computed.sort()  # in the key's order, as read: equal lists, the common case, say all is exact
        if computed != stored:
            self._differences(games, computed, stored)
        if self.write:
            self.db.execute("DELETE FROM rating_changes WHERE game_seq BETWEEN ? AND ?", (first, last))
            self.db.executemany("INSERT INTO rating_changes VALUES (?,?,?,?,?,?,?,?)", computed)

    def _differences(self, games: list[Replayed], computed: list[ChangeRow], stored: list[ChangeRow]) -> None:
        """The differences between a batch's computed and stored changes, in the order of
        its games and the systems, each game's by entity (a stored change of a system not
        configured is not compared)."""
        by_game: tuple[dict[tuple[int, str], dict[Entity, Values]], ...] = (defaultdict(dict), defaultdict(dict))
        for rows, found in zip((computed, stored), by_game):
            for seq, system, kind, entity, *values in rows:
                found[(seq, system)][(kind, entity)] = tuple(values)
        mine, kept = by_game
        for game in games:
            for system in self.systems:
                here, there = mine.get((game.seq, system.name), {}), kept.get((game.seq, system.name), {})
                for entity in sorted(set(here) | set(there)) if here != there else ():
                    if here.get(entity) != there.get(entity):
                        key = (str(game.seq), system.name, *entity)
                        self.changes.add(key, "game", there.get(entity), here.get(entity))

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


WORKER_GAMES = 5000
"""Tournament games from which a rebuild of unspecified ``jobs`` rates the standings in a
worker process: starting one holds this process about a second (a fresh interpreter imports
the arena), what rating the standings of some 3,000 games takes (~0.3 ms a game)."""


def _worker(db: Database, jobs: int | None) -> bool:
    """Whether the standings are rated in a worker: ``jobs`` 2 or more, where a tournament
    game is stored; None, where the machine has cores to spare and ``WORKER_GAMES`` of them."""
    from ..parallel import cores  # with multiprocessing: a command that rebuilds nothing does not load it

    if jobs == 1 or (jobs is None and cores() < 2):
        return False
    least = 1 if jobs is not None else WORKER_GAMES
    query = "SELECT COUNT(*) FROM (SELECT 1 FROM games WHERE tournament IS NOT NULL LIMIT ?) AS played"
    return bool(db.execute(query, (least,)).fetchone()[0] >= least)


def _tasks(db: Database, state: _Rebuild) -> Iterator[tuple[list[Replayed], int]]:
    """The standings worker's tasks, a batch's tournament games each: every batch is rated
    for the current ratings here before it is handed over, so this process does that while
    the worker rates the batches given before."""
    for batch in replayed(db):
        state.batch(batch)
        yield [game for game in batch if game.tournament is not None], batch[-1].seq


def rebuild(
    db: Database, systems: Sequence[RatingSystem], params: Any, write: bool, jobs: int | None = 1
) -> RebuildReport:
    """See ``Ratings.rebuild`` (which runs this in one transaction); ``params`` are the
    systems' parameters as ``rating_systems`` records them, by name. The tournaments'
    standings depend on nothing else: with ``jobs`` (``_worker``), a worker process rates
    them while this one rates the current ratings, and they are compared in the order of
    the games, as here."""
    state = _Rebuild(db, systems, write)
    last = last_games(db)
    if _worker(db, jobs):
        from ..parallel import Workers

        with Workers(StandingsWorker, (last, systems), 1) as workers:
            for complete in workers.ordered(_tasks(db, state)):
                for tournament, rows in complete:
                    state.standings_done(tournament, rows)
    else:
        standings = Standings(last, systems, state.standings_done)
        for batch in replayed(db):
            state.batch(batch)
            standings.play(batch, batch[-1].seq)
    ratings, mismatches, differences = state.finish(params)
    return RebuildReport(
        state.games, state.checked, len(ratings), tuple(mismatches), write, state.standings, differences
    )
