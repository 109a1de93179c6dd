"""Ratings: the current ones, the changes each game made, each tournament's standings,
leaderboards, and their rebuild.

A game is rated inside the transaction that records it (``Games.record``), from the
ratings that transaction reads: two referees writing one file cannot both rate a game from
the same stale ratings.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ..ratings import RatingSystem
from ..ratings.model import BOT, Change, Entity, Match, Rating
from . import replay
from .codec import encode
from .database import Database
from .rebuild import rebuild
from .records import LeaderRow, RebuildReport


class ParametersChanged(Exception):
    """The stored ratings were computed with other rating parameters than this Store's.

    Mixing them would make ratings depend on when a game was played; after a deliberate
    change (say ``ratings.elo_k``), ``rebuild(write=True)`` recomputes everything with the
    new parameters and records them.
    """


def system_params(system: RatingSystem) -> dict[str, Any]:
    """A rating system's parameters as plain data (its dataclass init fields)."""
    if dataclasses.is_dataclass(system):
        return {f.name: getattr(system, f.name) for f in dataclasses.fields(system) if f.init}
    return {"repr": repr(system)}


@dataclasses.dataclass
class Rated:
    """A game's rating: each system's changes, and the ratings they started from."""

    changes: dict[str, tuple[Change, ...]] = dataclasses.field(default_factory=dict)
    inputs: dict[str, dict[Entity, Rating]] = dataclasses.field(default_factory=dict)


class Ratings:
    """The ratings of every configured rating system."""

    def __init__(self, db: Database, systems: Sequence[RatingSystem]) -> None:
        self.db = db
        self.systems = tuple(systems)

    def check_parameters(self) -> None:
        """Raise ParametersChanged now, before any game is played, if the configured rating
        parameters differ from those the stored ratings were computed with."""
        with self.db.transaction():
            self.check_in_transaction()

    def check_in_transaction(self) -> None:
        """Record each system's parameters on first use; refuse to mix in other ones. Once
        in each transaction that rates (``rate``): the transaction holds the parameters
        it read until it ends."""
        stored = dict(self.db.execute("SELECT system, params FROM rating_systems"))
        for system in self.systems:
            mine = encode(system_params(system))
            if system.name not in stored:
                self.db.execute("INSERT INTO rating_systems (system, params) VALUES (?, ?)", (system.name, mine))
            elif json.loads(stored[system.name]) != json.loads(mine):
                raise ParametersChanged(
                    f"{system.name} ratings were computed with {stored[system.name]}, this arena uses {mine}; "
                    "run `arena ratings rebuild --write` to recompute them with the new parameters"
                )

    def rate(self, game: str, match: Match) -> Rated:
        """Each system's changes for a game being recorded, from the current ratings, inside
        the recording's write transaction, once it has checked the parameters
        (``check_in_transaction``)."""
        rated = Rated()
        for system in self.systems:
            current = replay.read(self.db, "ratings", _scope(game, system), match.entities())
            rated.inputs[system.name] = current
            rated.changes[system.name] = system.rate(match, current)
        return rated

    def write(self, seq: int, game: str, match: Match, changes: Mapping[str, Sequence[Change]]) -> None:
        """Store game ``seq``'s changes (``rate``) and the ratings after them, inside the recording's transaction."""
        won = replay.wins(match)
        for system in self.systems:
            items = changes[system.name]
            self.db.executemany(
                "INSERT INTO rating_changes (game_seq, system, kind, entity, mu_before, sigma_before, mu_after,"
                " sigma_after) VALUES (?,?,?,?,?,?,?,?)",
                ((seq, system.name, *c.entity, c.before.mu, c.before.sigma, c.after.mu, c.after.sigma) for c in items),
            )
            replay.write(self.db, "ratings", _scope(game, system), seq, items, won, system.score)

    def write_standings(self, seq: int, tournament: str, game: str, match: Match, rated: Rated) -> None:
        """Rate game ``seq`` of ``tournament`` within its standings (its ratings over its own
        games, every rating new at its first game) and keep them, inside the recording's
        transaction: the leaderboard of a tournament then reads its bots' rows, whatever
        its size, and the rows equal its games rated afresh in order (``rebuild`` checks).

        A rating system is a function of the match and the ratings it starts from: where a
        tournament's standings of the game's players are their current ratings (bots that
        play nothing else), its changes are those of ``rated``, not computed twice."""
        won = replay.wins(match)
        for system in self.systems:
            scope = {"tournament": tournament, **_scope(game, system)}
            current = replay.read(self.db, "standings", scope, match.entities())
            same = current == rated.inputs[system.name]
            changes = rated.changes[system.name] if same else system.rate(match, current)
            replay.write(self.db, "standings", scope, seq, changes, won, system.score)

    def leaderboard(
        self, game: str, system: str, limit: int | None = None, min_games: int = 0, tournament: str | None = None
    ) -> list[LeaderRow]:
        """Bots by the system's score (Elo: rating; TrueSkill: mu - 3 sigma), with their
        owner and version: from the current ratings, or, for ``tournament``, from its
        standings (its games alone rated afresh, whatever else the bots played)."""
        table, where, args = "ratings", "", [game, system, min_games]
        if tournament is not None:
            table, where, args = "standings", " AND r.tournament = ?", [*args, tournament]
        sql = (
            "SELECT r.entity, r.mu, r.sigma, r.score, r.games, r.wins, COALESCE(b.owner, 'unknown'),"
            f" COALESCE(b.version, 'unknown') FROM {table} r LEFT JOIN bots b ON b.name = r.entity COLLATE NOCASE"
            f" WHERE r.game = ? AND r.system = ? AND r.kind = 'bot' AND r.games >= ?{where}"
            " ORDER BY r.score DESC, r.entity"
        )
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [LeaderRow(i + 1, *row) for i, row in enumerate(self.db.execute(sql, args))]

    def _tournament_history(self, game: str, system_name: str, tournament: str) -> dict[str, list[tuple[int, Rating]]]:
        """``tournament``'s games, in order, rated afresh (every rating starts new): each
        bot's rating after each game it played (the game's number in the tournament,
        rating). Its last values are the kept standings; the ones before are not kept,
        since only a report, once, asks for them."""
        system = next((s for s in self.systems if s.name == system_name), None)
        if system is None:
            raise KeyError(system_name)
        state: dict[Entity, Rating] = {}
        history: dict[str, list[tuple[int, Rating]]] = defaultdict(list)
        number = 0
        for batch in replay.replayed(self.db, "AND g.game = ? AND g.tournament = ?", (game, tournament)):
            for played in batch:
                number += 1
                for c in system.rate(played.match, state):
                    state[c.entity] = c.after
                    if c.entity[0] == BOT:
                        history[c.entity[1]].append((number, c.after))
        return dict(history)

    def history(
        self, game: str, system: str, tournament: str | None = None, most: int | None = None
    ) -> dict[str, list[tuple[int, Rating]]]:
        """Each bot's rating after each game it played, as (the game's number among the
        games of this type, 1 for the first, rating): over every stored game as stored, or
        over ``tournament``'s games rated afresh, as its leaderboard. ``most``: at most that
        many points a bot, evenly spaced (``spaced``), its last kept, as a chart draws them;
        the stored changes are then read one at a time, not held."""
        with self.db.transaction(write=False):  # the games and what was kept of them, as of one moment
            return self._history(game, system, tournament, most)

    def _history(
        self, game: str, system: str, tournament: str | None, most: int | None
    ) -> dict[str, list[tuple[int, Rating]]]:
        if tournament is not None:
            whole = self._tournament_history(game, system, tournament)
            return whole if most is None else {bot: [ps[i] for i in spaced(len(ps), most)] for bot, ps in whole.items()}
        kept: dict[str, set[int]] = {}
        if most is not None:
            kept = {
                bot: set(spaced(n, most))
                for bot, n in self.db.execute(
                    "SELECT entity, games FROM ratings WHERE game = ? AND system = ? AND kind = 'bot'", (game, system)
                )
            }
        history: dict[str, list[tuple[int, Rating]]] = defaultdict(list)
        seen: dict[str, int] = defaultdict(int)
        last: dict[str, tuple[int, float, float]] = {}
        number, previous = 0, None
        for seq, entity, mu, sigma in self.db.execute(
            "SELECT c.game_seq, c.entity, c.mu_after, c.sigma_after FROM rating_changes c"
            " JOIN games g ON g.seq = c.game_seq WHERE g.game = ? AND c.system = ? AND c.kind = 'bot'"
            " ORDER BY c.game_seq",
            (game, system),
        ):
            if seq != previous:
                number, previous = number + 1, seq
            last[entity] = (number, mu, sigma)
            if most is None or seen[entity] in kept.get(entity, ()):
                history[entity].append((number, Rating(mu, sigma)))
            seen[entity] += 1
        for entity, (number, mu, sigma) in last.items():  # the last is kept even where the count kept was off
            if history[entity][-1:] != [(number, Rating(mu, sigma))]:
                history[entity].append((number, Rating(mu, sigma)))
        return dict(history)

    def standings(
        self, game: str, system: str, tournament: str | None = None, most: int | None = None
    ) -> tuple[list[LeaderRow], dict[str, list[tuple[int, Rating]]]]:
        """``leaderboard`` and ``history`` together, as of one moment (a game recorded
        meanwhile is in both or in neither)."""
        with self.db.transaction(write=False):
            return self.leaderboard(game, system, tournament=tournament), self._history(game, system, tournament, most)

    def current(self, game: str, system: str, kind: str = BOT) -> dict[str, Rating]:
        """The current ratings of one kind of entity (bots, sides), by name."""
        return {
            e: Rating(mu, s)
            for e, mu, s in self.db.execute(
                "SELECT entity, mu, sigma FROM ratings WHERE game = ? AND system = ? AND kind = ?", (game, system, kind)
            )
        }

    # -- rebuild --------------------------------------------------------------------------

    def rebuild(self, write: bool = False, jobs: int | None = 1) -> RebuildReport:
        """Recompute every rating from the stored games, in recording order, and compare
        exactly (float equality) with the stored changes, current ratings and tournament
        standings (``arena.store.rebuild``). ``jobs``: 1, in this process; 2 (or more), the
        tournaments' standings in a worker process meanwhile; None, a worker where the
        machine has two cores and the store enough tournament games to pay for starting it
        (``rebuild.WORKER_GAMES``). The report is the same either way.

        ``write=True`` replaces the stored values (and the recorded parameters) by the
        recomputed ones, in one transaction (after a change of rating parameters). The read runs in one
        transaction too, so games recorded meanwhile are not half-seen.
        """
        params = [(s.name, encode(system_params(s))) for s in self.systems]
        with self.db.transaction(write):
            return rebuild(self.db, self.systems, params, write, jobs)


def spaced(n: int, most: int) -> Sequence[int]:
    """Which of ``n`` points a chart of at most ``most`` points a line draws: all of them,
    or ``most`` evenly spaced ones, the last among them (a chart a few hundred pixels wide
    cannot tell them from the whole)."""
    if n <= most:
        return range(n)
    step = n / (most - 1)
    return [round(i * step) for i in range(most - 1)] + [n - 1]


def _scope(game: str, system: RatingSystem) -> dict[str, str]:
    """The key columns, but kind and entity, of a system's rows in ``ratings``."""
    return {"game": game, "system": system.name}
