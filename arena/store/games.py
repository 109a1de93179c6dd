"""Finished games: recorded whole (with their rating changes) in one transaction, listed, loaded.

Why one transaction: a game, its events, its players' outcomes, its rating changes, the
updated current ratings and its tournament's standings are written in one write
transaction, and the new ratings are computed *inside* it from the ratings it reads
(``Ratings.rate``, ``Ratings.write_standings``). So a crash at any
moment leaves either all of it or none of it, and two referees writing to one file cannot
both rate a game from the same stale ratings.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from ..ratings.model import RANKED, Change, Match, Rating
from . import logs
from .codec import encode
from .database import Database
from .live import LiveGames
from .ratings import Ratings
from .records import GameRecord, GameSummary, PlayerOutcome, StoredGame
from .tournaments import Tournaments


class Games:
    """The finished (and aborted) games of a store."""

    def __init__(self, db: Database, ratings: Ratings, live: LiveGames, tournaments: Tournaments) -> None:
        self.db = db
        self.ratings = ratings
        self.live = live
        self.tournaments = tournaments

    def record(self, record: GameRecord) -> dict[str, tuple[Change, ...]]:
        """Store a finished game and rate it, all in one transaction; returns the changes per system.

        Raises the dialect's integrity error (and stores nothing) if the game id is already stored.
        """
        with self.db.transaction():
            self.ratings.check_in_transaction()
            return self._write(record)

    def record_all(self, records: Sequence[GameRecord]) -> list[dict[str, tuple[Change, ...]]]:
        """Store and rate several finished games, in their order, in one transaction (a
        group commit: a tournament's games cost one commit per batch, not one each); each
        game is rated from the ratings the ones before it left. All of them are stored, or
        none: a game is never half written."""
        with self.db.transaction():
            self.ratings.check_in_transaction()
            return [self._write(record) for record in records]

    def _write(self, record: GameRecord) -> dict[str, tuple[Change, ...]]:
        match = record.match()
        rated = self.ratings.rate(record.game, match)
        changes = rated.changes
        seq = self._insert_game(record, match)
        logs.write(self.db, seq, record.game, record.tournament, record.log())
        self._insert_outcomes(seq, record, match)
        self.ratings.write(seq, record.game, match, changes)
        self.live.claim(record.id, record.started)
        if record.tournament is not None:
            self.ratings.write_standings(seq, record.tournament, record.game, match, rated)
            self.tournaments.count_game(record.tournament, record.finished)
        return changes

    def has(self, game_id: str) -> bool:
        return self.db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    def _insert_game(self, r: GameRecord, match: Match) -> int:
        res = r.result
        rows = self.db.execute(
            "INSERT INTO games (id, game, options, seed, deal, players, nicks, roles, sides, kind, winner, winners,"
            " reason, forfeited, tournament, started, finished, bots) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " RETURNING seq",
            (
                r.id,
                r.game,
                encode(dict(r.options)),
                r.seed,
                None if r.deal is None else encode(list(r.deal)),
                r.players,
                encode(list(r.nicks)),
                encode(list(r.roles)),
                encode(list(r.sides)),
                match.kind,
                res.winner if res else None,
                encode(sorted(res.winners) if res else []),
                res.reason if res else r.abort_reason,
                res.forfeited if res else None,
                r.tournament,
                r.started,
                r.finished,
                encode(list(r.identities)),
            ),
        ).fetchall()
        return int(rows[0][0])

    def _insert_outcomes(self, seq: int, r: GameRecord, match: Match) -> None:
        where = {p: (i, g) for i, g in enumerate(match.groups) for p in g.players}
        rows = []
        for seat, bot in enumerate(r.identities):
            i, g = where[bot]
            rows.append(
                (
                    seq,
                    seat,
                    bot,
                    r.roles[seat],
                    r.sides[seat],
                    i,
                    g.rank,
                    g.side if match.kind == RANKED else None,
                    match.result_of(bot),
                )
            )
        self.db.executemany(
            "INSERT INTO outcomes (game_seq, seat, bot, role, side, grp, rank, adv, result) VALUES (?,?,?,?,?,?,?,?,?)",
            rows,
        )
        reason = r.result.reason if r.result else r.abort_reason
        self.db.executemany(
            self.db.dialect.upsert(
                "INSERT INTO role_results (game, tournament, bot, role, result, reason, seats) VALUES (?,?,?,?,?,?,1)",
                "game, tournament, bot, role, result, reason",
                "seats = role_results.seats + 1",
            ),
            (
                (r.game, r.tournament or "", bot, role or "", result, reason)
                for _, _, bot, role, _, _, _, _, result in rows
            ),
        )

    def find(
        self,
        game: str | None = None,
        bot: str | None = None,
        limit: int | None = 50,
        before_seq: int | None = None,
        tournament: str | None = None,
    ) -> list[GameSummary]:
        """Newest first; ``before_seq`` pages backwards; ``limit`` None: all of them."""
        return list(self.each(game, bot, limit, before_seq, tournament))

    def each(
        self,
        game: str | None = None,
        bot: str | None = None,
        limit: int | None = 50,
        before_seq: int | None = None,
        tournament: str | None = None,
    ) -> Iterator[GameSummary]:
        """``find``, one game at a time as it is read (a page of every stored game holds
        one summary, not all of them)."""
        sql = (
            "SELECT seq, id, game, players, kind, winner, reason, nicks, started, finished, tournament, bots"
            " FROM games WHERE 1=1"
        )
        args: list[Any] = []
        if game is not None:
            sql += " AND game = ?"
            args.append(game)
        if bot is not None:
            sql += " AND seq IN (SELECT game_seq FROM outcomes WHERE bot = ?)"
            args.append(bot)
        if before_seq is not None:
            sql += " AND seq < ?"
            args.append(before_seq)
        if tournament is not None:
            sql += " AND tournament = ?"
            args.append(tournament)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(self.db.dialect.unlimited if limit is None else limit)
        for row in self.db.execute(sql, args):
            yield _summary(row)

    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute(
            "SELECT seq, id, game, players, kind, winner, reason, nicks, started, finished, tournament, bots,"
            " options, seed, roles, sides, winners, forfeited, deal FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seq = row[0]
        (data,) = self.db.execute("SELECT data FROM logs WHERE game_seq = ?", (seq,)).fetchone()
        events, history, transcript, talk, answers = logs.unpack(data)
        outcomes = tuple(
            PlayerOutcome(*r)
            for r in self.db.execute(
                "SELECT seat, bot, role, side, result FROM outcomes WHERE game_seq = ? ORDER BY seat", (seq,)
            )
        )
        changes: dict[str, list[Change]] = defaultdict(list)
        for system, kind, entity, mb, sb, ma, sa in self.db.execute(
            "SELECT system, kind, entity, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes"
            " WHERE game_seq = ? ORDER BY system, kind, entity",
            (seq,),
        ):
            changes[system].append(Change((kind, entity), Rating(mb, sb), Rating(ma, sa)))
        return StoredGame(
            summary=_summary(row[:12]),
            options=json.loads(row[12]),
            seed=row[13],
            roles=tuple(json.loads(row[14])),
            sides=tuple(json.loads(row[15])),
            winners=frozenset(json.loads(row[16])),
            forfeited=row[17],
            events=events,
            history=history,
            outcomes=outcomes,
            changes={k: tuple(v) for k, v in changes.items()},
            deal=None if row[18] is None else tuple(json.loads(row[18])),
            transcript=transcript,
            talk=talk,
            answers=answers,
        )


def _summary(row: Sequence[Any]) -> GameSummary:
    seq, gid, game, players, kind, winner, reason, nicks, started, finished, tournament, bots = row
    return GameSummary(
        seq,
        gid,
        game,
        players,
        kind,
        winner,
        reason,
        tuple(json.loads(nicks)),
        started,
        finished,
        tournament,
        tuple(json.loads(bots or nicks)),
    )
