"""Ratings: the current ones, the changes each game made, leaderboards, and their rebuild.

A game is rated inside the transaction that records it (``Games.record``), from the
ratings that transaction reads: two referees writing one file cannot both rate a game from
the same stale ratings.
"""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..ratings import RatingSystem
from ..ratings.model import BOT, FORFEIT, RANKED, SIDE, Change, Entity, Group, Match, Rating
from .codec import encode
from .database import Database
from .records import LeaderRow, Mismatch, RebuildReport


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


class Ratings:
    """The ratings of every configured rating system."""

    def __init__(self, db: Database, systems: Sequence[RatingSystem]) -> None:
        self.db = db
        self.systems = tuple(systems)

    def check_parameters(self) -> None:
        """Raise ParametersChanged now, before any game is played, if the configured rating
        parameters differ from those the stored ratings were computed with."""
        with self.db.transaction():
            self._check_params()

    def _check_params(self) -> None:
        """Record each system's parameters on first use; refuse to mix in other ones."""
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

    def _current(self, game: str, system: str, entities: Sequence[Entity]) -> dict[Entity, Rating]:
        if not entities:
            return {}
        marks = ",".join("(?,?)" for _ in entities)
        args: list[Any] = [game, system]
        for kind, name in entities:
            args += [kind, name]
        rows = self.db.execute(
            f"SELECT kind, entity, mu, sigma FROM ratings WHERE game = ? AND system = ? AND "
            f"(kind, entity) IN ({marks})",
            args,
        )
        return {(k, e): Rating(mu, sigma) for k, e, mu, sigma in rows}

    def rate(self, game: str, match: Match) -> dict[str, tuple[Change, ...]]:
        """Each system's changes for a game being recorded, from the current ratings, inside
        the recording's write transaction; raises ParametersChanged (see ``check_parameters``)."""
        self._check_params()
        return {
            system.name: system.rate(match, self._current(game, system.name, match.entities()))
            for system in self.systems
        }

    def write(self, seq: int, game: str, match: Match, changes: Mapping[str, Sequence[Change]]) -> None:
        """Store game ``seq``'s changes (``rate``) and the ratings after them, inside the recording's transaction."""
        wins = _wins(match)
        by_system = {s.name: s for s in self.systems}
        upsert = self.db.dialect.upsert(
            "INSERT INTO ratings (game, system, kind, entity, mu, sigma, score, games, wins, last_seq)"
            " VALUES (?,?,?,?,?,?,?,1,?,?)",
            "game, system, kind, entity",
            "mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, games = ratings.games + 1,"
            " wins = ratings.wins + excluded.wins, last_seq = excluded.last_seq",
        )
        for name, items in changes.items():
            score = by_system[name].score
            self.db.executemany(
                "INSERT INTO rating_changes (game_seq, system, kind, entity, mu_before, sigma_before, mu_after,"
                " sigma_after) VALUES (?,?,?,?,?,?,?,?)",
                (
                    (seq, name, c.entity[0], c.entity[1], c.before.mu, c.before.sigma, c.after.mu, c.after.sigma)
                    for c in items
                ),
            )
            self.db.executemany(
                upsert,
                (
                    (
                        game,
                        name,
                        c.entity[0],
                        c.entity[1],
                        c.after.mu,
                        c.after.sigma,
                        score(c.after),
                        int(c.entity in wins),
                        seq,
                    )
                    for c in items
                ),
            )

    def leaderboard(
        self, game: str, system: str, limit: int | None = None, min_games: int = 0, tournament: str | None = None
    ) -> list[LeaderRow]:
        """Bots by the system's score (Elo: rating; TrueSkill: mu - 3 sigma), with their
        owner and version: from the current ratings, or, for ``tournament``, rated afresh
        over that tournament's games alone (its standings, whatever else the bots played)."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament, limit, min_games)[0]
        sql = (
            "SELECT r.entity, r.mu, r.sigma, r.score, r.games, r.wins, COALESCE(b.owner, 'unknown'),"
            " COALESCE(b.version, 'unknown') FROM ratings r LEFT JOIN bots b ON b.name = r.entity"
            " WHERE r.game = ? AND r.system = ? AND r.kind = 'bot' AND r.games >= ?"
            " ORDER BY r.score DESC, r.entity"
        )
        args: list[Any] = [game, system, min_games]
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [LeaderRow(i + 1, *row) for i, row in enumerate(self.db.execute(sql, args))]

    def _outcome_rows(
        self, where: str = "", args: Sequence[Any] = ()
    ) -> dict[int, list[tuple[int, str, int, int, str | None]]]:
        """Each game's outcome rows (seat, bot, group, rank, side key), by game seq, as
        ``_match_from_rows`` rebuilds a rated match from them; ``where`` filters on ``g``."""
        rows: dict[int, list[tuple[int, str, int, int, str | None]]] = defaultdict(list)
        for seq, seat, bot, grp, rank, adv in self.db.execute(
            "SELECT o.game_seq, o.seat, o.bot, o.grp, o.rank, o.adv FROM outcomes o JOIN games g"
            f" ON g.seq = o.game_seq {where} ORDER BY o.game_seq, o.seat",
            args,
        ):
            rows[seq].append((seat, bot, grp, rank, adv))
        return rows

    def _tournament_rated(
        self, game: str, system_name: str, tournament: str, limit: int | None = None, min_games: int = 0
    ) -> tuple[list[LeaderRow], dict[str, list[tuple[int, Rating]]]]:
        """``tournament``'s games, in order, rated afresh (every rating starts new): its
        leaderboard, and each bot's rating after each game it played (the game's number in
        the tournament, rating)."""
        system = next((s for s in self.systems if s.name == system_name), None)
        if system is None:
            raise KeyError(system_name)
        with self.db.transaction(write=False):
            games = self.db.execute(
                "SELECT seq, kind, forfeited FROM games WHERE game = ? AND tournament = ? ORDER BY seq",
                (game, tournament),
            ).fetchall()
            rows = self._outcome_rows("WHERE g.game = ? AND g.tournament = ?", (game, tournament))
            about = {
                name: (owner, version)
                for name, owner, version in self.db.execute("SELECT name, owner, version FROM bots")
            }
        state: dict[Entity, Rating] = {}
        played: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        history: dict[str, list[tuple[int, Rating]]] = defaultdict(list)
        for number, (seq, kind, forfeited) in enumerate(games, 1):
            match = _match_from_rows(kind, rows[seq], forfeited)
            wins = _wins(match)
            for c in system.rate(match, state):
                state[c.entity] = c.after
                if c.entity[0] == BOT:
                    played[c.entity[1]][0] += 1
                    played[c.entity[1]][1] += int(c.entity in wins)
                    history[c.entity[1]].append((number, c.after))
        board = sorted(
            ((system.score(r), bot) for (kind, bot), r in state.items() if kind == BOT and played[bot][0] >= min_games),
            key=lambda x: (-x[0], x[1]),
        )
        leaders = []
        for i, (value, bot) in enumerate(board[:limit]):
            owner, version = about.get(bot, ("unknown", "unknown"))
            rating = state[(BOT, bot)]
            leaders.append(
                LeaderRow(i + 1, bot, rating.mu, rating.sigma, value, played[bot][0], played[bot][1], owner, version)
            )
        return leaders, dict(history)

    def history(self, game: str, system: str, tournament: str | None = None) -> dict[str, list[tuple[int, Rating]]]:
        """Each bot's rating after each game it played, as (the game's number among the
        games of this type, 1 for the first, rating): over every stored game as stored, or
        over ``tournament``'s games rated afresh, as its leaderboard."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament)[1]
        history: dict[str, list[tuple[int, Rating]]] = defaultdict(list)
        numbers: dict[int, int] = {}
        for seq, entity, mu, sigma in self.db.execute(
            "SELECT c.game_seq, c.entity, c.mu_after, c.sigma_after FROM rating_changes c"
            " JOIN games g ON g.seq = c.game_seq WHERE g.game = ? AND c.system = ? AND c.kind = 'bot'"
            " ORDER BY c.game_seq",
            (game, system),
        ):
            number = numbers.setdefault(seq, len(numbers) + 1)
            history[entity].append((number, Rating(mu, sigma)))
        return dict(history)

    def standings(
        self, game: str, system: str, tournament: str | None = None
    ) -> tuple[list[LeaderRow], dict[str, list[tuple[int, Rating]]]]:
        """``leaderboard`` and ``history`` together; a tournament's games are rated
        afresh once for both."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament)
        return self.leaderboard(game, system), self.history(game, system)

    def current(self, game: str, system: str, kind: str = BOT) -> dict[str, Rating]:
        """The current ratings of one kind of entity (bots, sides), by name."""
        return {
            e: Rating(mu, s)
            for e, mu, s in self.db.execute(
                "SELECT entity, mu, sigma FROM ratings WHERE game = ? AND system = ? AND kind = ?", (game, system, kind)
            )
        }

    # -- rebuild --------------------------------------------------------------------------

    def rebuild(self, write: bool = False) -> RebuildReport:
        """Recompute every rating from the stored games, in recording order, and compare
        exactly (float equality) with the stored changes and current ratings.

        ``write=True`` replaces the stored values (and the recorded parameters) by the
        recomputed ones, in one transaction (after a change of rating parameters). The read runs in one
        transaction too, so games recorded meanwhile are not half-seen.
        """
        with self.db.transaction(write):
            return self._rebuild(write)

    def _rebuild(self, write: bool) -> RebuildReport:
        db = self.db
        stored_changes: dict[tuple[int, str], dict[Entity, tuple[float, float, float, float]]] = defaultdict(dict)
        for seq, system, kind, entity, mb, sb, ma, sa in db.execute(
            "SELECT game_seq, system, kind, entity, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes"
        ):
            stored_changes[(seq, system)][(kind, entity)] = (mb, sb, ma, sa)
        games = db.execute("SELECT seq, game, kind, forfeited FROM games ORDER BY seq").fetchall()
        rows = self._outcome_rows()
        current: dict[tuple[str, str], dict[Entity, Rating]] = defaultdict(dict)
        tally: dict[tuple[str, str, Entity], list[int]] = {}
        mismatches: list[Mismatch] = []
        new_changes: list[tuple[Any, ...]] = []
        checked = 0
        for seq, game, kind, forfeited in games:
            match = _match_from_rows(kind, rows[seq], forfeited)
            wins = _wins(match)
            for system in self.systems:
                state = current[(game, system.name)]
                changes = system.rate(match, state)
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
                for c in changes:
                    state[c.entity] = c.after
                    t = tally.setdefault((game, system.name, c.entity), [0, 0, 0])
                    t[0] += 1
                    t[1] += int(c.entity in wins)
                    t[2] = seq
                    new_changes.append(
                        (
                            seq,
                            system.name,
                            c.entity[0],
                            c.entity[1],
                            c.before.mu,
                            c.before.sigma,
                            c.after.mu,
                            c.after.sigma,
                        )
                    )
        scores = {s.name: s.score for s in self.systems}
        computed_ratings = {
            (game, system, kind, entity): (r.mu, r.sigma, scores[system](r), *tally[(game, system, (kind, entity))])
            for (game, system), state in current.items()
            for (kind, entity), r in state.items()
        }
        stored_ratings = {
            (g, s, k, e): (mu, sigma, score, n, w, last)
            for g, s, k, e, mu, sigma, score, n, w, last in db.execute(
                "SELECT game, system, kind, entity, mu, sigma, score, games, wins, last_seq FROM ratings"
            )
        }
        for key in sorted(set(computed_ratings) | set(stored_ratings)):
            if computed_ratings.get(key) != stored_ratings.get(key):
                mismatches.append(
                    Mismatch("rating " + " ".join(key), stored_ratings.get(key), computed_ratings.get(key))
                )
        if write:
            db.execute("DELETE FROM rating_changes")
            db.execute("DELETE FROM ratings")
            db.execute("DELETE FROM rating_systems")
            db.executemany(
                "INSERT INTO rating_systems (system, params) VALUES (?, ?)",
                ((s.name, encode(system_params(s))) for s in self.systems),
            )
            db.executemany("INSERT INTO rating_changes VALUES (?,?,?,?,?,?,?,?)", new_changes)
            db.executemany(
                "INSERT INTO ratings (game, system, kind, entity, mu, sigma, score, games, wins, last_seq)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                (k + v for k, v in computed_ratings.items()),
            )
        return RebuildReport(len(games), checked, len(computed_ratings), tuple(mismatches), write)


def _wins(match: Match) -> set[Entity]:
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


def _match_from_rows(kind: str, rows: Iterable[tuple[int, str, int, int, str | None]], forfeited: int | None) -> Match:
    """The Match ``Games.record`` rated, rebuilt from outcome rows (groups by index, seats in order)."""
    groups: dict[int, tuple[list[str], int, str | None]] = {}
    offender = None
    for seat, bot, grp, rank, adv in rows:
        groups.setdefault(grp, ([], rank, adv))[0].append(bot)
        if seat == forfeited:
            offender = bot
    built = tuple(Group(tuple(ps), rank, adv) for _, (ps, rank, adv) in sorted(groups.items()))
    return Match(kind, built, offender if kind == FORFEIT else None)  # type: ignore[arg-type]
