"""The results store: SQLite in WAL mode, one transaction per finished game.

Why one transaction: a game, its events, its players' outcomes, its rating changes and
the updated current ratings are written between ``BEGIN IMMEDIATE`` and ``COMMIT``, and
the new ratings are computed *inside* that transaction from the ratings it reads. So a
crash at any moment leaves either all of it or none of it, and two referees writing to
one file cannot both rate a game from the same stale ratings. WAL lets readers
(leaderboards, ``arena games``) run while a game is written. ``synchronous=NORMAL``: in WAL
mode a power loss may drop the last committed games, never half of one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..core.events import Event
from ..core.keys import new_key
from ..core.said import Answer, Talk
from ..protocol import ERROR, TIMEOUT, WARN, parse
from ..ratings import RatingSystem, default_systems
from ..ratings.model import ABORTED, BOT, FORFEIT, RANKED, SIDE, WIN, Change, Entity, Group, Match, Rating
from ..ratings.stats import wilson
from .codec import encode, tuples
from .figures import FIGURES
from . import live, said
from .live import Line, LiveGame
from .records import (UNKNOWN_OWNER, BotRecord, Verifier, BotStats, Conduct, GameRecord, GameSummary, LeaderRow, Mismatch, PlayerOutcome, RateStat,
                      RebuildReport, RoleStats, StoredGame)
from .schema import MIGRATIONS, Migration, migrate




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


@contextmanager
def transaction(conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """All or nothing. A Ctrl-C can land anywhere, even just after COMMIT returned: roll
    back only a transaction that is still open, so the interrupt (not a rollback error)
    is what the caller sees, and a committed game stays committed."""
    conn.execute(begin)
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class Store:
    """A results database. Not shared between threads: open one Store per thread/process."""

    def __init__(self, path: str | os.PathLike[str], systems: Sequence[RatingSystem] | None = None,
                 migrations: Sequence[Migration] = MIGRATIONS) -> None:
        self.path = os.fspath(path)
        self.systems: tuple[RatingSystem, ...] = tuple(systems) if systems is not None else default_systems()
        names = [s.name for s in self.systems]
        if len(set(names)) != len(names):
            raise ValueError(f"two rating systems share a name: {names}")
        self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        try:
            mode = self.conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal" and self.path != ":memory:":
                raise sqlite3.OperationalError(f"cannot use WAL mode (journal_mode is {mode})")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.migrated_from = migrate(self.conn, migrations)
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    # -- writing ------------------------------------------------------------------------

    def record_game(self, record: GameRecord) -> dict[str, tuple[Change, ...]]:
        """Store a finished game and rate it, all in one transaction; returns the changes per system.

        Raises sqlite3.IntegrityError (and stores nothing) if the game id is already stored.
        """
        match = record.match()
        conn = self.conn
        with transaction(conn):
            self._check_params()
            changes: dict[str, tuple[Change, ...]] = {}
            for system in self.systems:
                current = self._current(record.game, system.name, match.entities())
                changes[system.name] = system.rate(match, current)
            seq = self._insert_game(record, match)
            self._insert_log(seq, record)
            self._insert_outcomes(seq, record, match)
            self._write_ratings(seq, record.game, match, changes)
            live.reserve_game_id(conn, record.id, record.started)
            if record.tournament is not None:
                cur = conn.execute("UPDATE tournaments SET games_done = games_done + 1, updated = ? WHERE id = ?",
                                   (record.finished, record.tournament))
                if cur.rowcount != 1:
                    raise KeyError(f"unknown tournament {record.tournament!r}")
        return changes

    def has_game(self, game_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None

    # -- games in progress ------------------------------------------------------------------

    def new_game_id(self, now: float) -> str:
        """A lobby game id (``g1``, ``g2``, ...) never handed out before by this file."""
        with transaction(self.conn):
            return live.new_game_id(self.conn, now)

    def reserve_game_id(self, game_id: str, now: float) -> bool:
        """Claim a planned id (a tournament's); False if a game already had it."""
        with transaction(self.conn):
            return live.reserve_game_id(self.conn, game_id, now)

    def open_live(self, game: LiveGame) -> None:
        """Start writing ahead a game in progress (its id claimed or claimed now)."""
        with transaction(self.conn):
            live.reserve_game_id(self.conn, game.id, game.started)
            live.open_live(self.conn, game)

    def append_live(self, game_id: str, first_action: int, actions: Sequence[tuple[int, str, Any]],
                    first_line: int, lines: Sequence[Line], state: dict[str, Any], first_talk: int = 0,
                    talk: Sequence[Talk] = (), first_answer: int = 0, answers: Sequence[Answer] = ()) -> None:
        """One step of a game in progress, durable when this returns (see ``live.append``)."""
        with transaction(self.conn):
            live.append(self.conn, game_id, first_action, actions, first_line, lines, state, first_talk, talk,
                        first_answer, answers)

    def close_live(self, game_id: str) -> None:
        """Forget a game in progress: its end has reached the server (``Journal.forget``)."""
        with transaction(self.conn):
            live.close_live(self.conn, game_id)

    def resumed_live(self, game_id: str, place: str) -> None:
        with transaction(self.conn):
            live.resumed(self.conn, game_id, place)

    def live_games(self, *, place: str | None = None, tournament: str | None = None) -> list[LiveGame]:
        """Games in progress left by an earlier run (see ``live.load_live``)."""
        with transaction(self.conn, "BEGIN"):
            return live.load_live(self.conn, place=place, tournament=tournament)

    def all_live_games(self, game_id: str | None = None) -> list[LiveGame]:
        """Every game in progress in this file (or only ``game_id``), for spectators."""
        with transaction(self.conn, "BEGIN"):
            return live.load_all(self.conn, game_id)

    def check_parameters(self) -> None:
        """Raise ParametersChanged now, before any game is played, if the configured rating
        parameters differ from those the stored ratings were computed with."""
        with transaction(self.conn):
            self._check_params()

    def _check_params(self) -> None:
        """Record each system's parameters on first use; refuse to mix in other ones."""
        stored = dict(self.conn.execute("SELECT system, params FROM rating_systems"))
        for system in self.systems:
            mine = encode(system_params(system))
            if system.name not in stored:
                self.conn.execute("INSERT INTO rating_systems (system, params) VALUES (?, ?)", (system.name, mine))
            elif json.loads(stored[system.name]) != json.loads(mine):
                raise ParametersChanged(
                    f"{system.name} ratings were computed with {stored[system.name]}, this arena uses {mine}; "
                    "run `arena ratings rebuild --write` to recompute them with the new parameters")

    def _current(self, game: str, system: str, entities: Sequence[Entity]) -> dict[Entity, Rating]:
        if not entities:
            return {}
        marks = ",".join("(?,?)" for _ in entities)
        args: list[Any] = [game, system]
        for kind, name in entities:
            args += [kind, name]
        rows = self.conn.execute(
            f"SELECT kind, entity, mu, sigma FROM ratings WHERE game = ? AND system = ? AND (kind, entity) IN ({marks})",
            args,
        )
        return {(k, e): Rating(mu, sigma) for k, e, mu, sigma in rows}

    def _insert_game(self, r: GameRecord, match: Match) -> int:
        res = r.result
        cur = self.conn.execute(
            "INSERT INTO games (id, game, options, seed, deal, players, nicks, roles, sides, kind, winner, winners,"
            " reason, forfeited, tournament, started, finished, bots) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (r.id, r.game, encode(dict(r.options)), r.seed, None if r.deal is None else encode(list(r.deal)),
             r.players, encode(list(r.nicks)), encode(list(r.roles)), encode(list(r.sides)), match.kind, res.winner if res else None,
             encode(sorted(res.winners) if res else []), res.reason if res else r.abort_reason,
             res.forfeited if res else None, r.tournament, r.started, r.finished, encode(list(r.identities))),
        )
        assert cur.lastrowid is not None  # an INSERT always has one
        return cur.lastrowid

    def _insert_log(self, seq: int, r: GameRecord) -> None:
        self.conn.executemany(
            "INSERT INTO events (game_seq, idx, kind, data, audience) VALUES (?,?,?,?,?)",
            ((seq, i, e.kind, encode(e.data), None if e.audience is None else encode(sorted(e.audience)))
             for i, e in enumerate(r.events)),
        )
        self.conn.executemany(
            "INSERT INTO actions (game_seq, idx, seat, kind, value) VALUES (?,?,?,?,?)",
            ((seq, i, seat, kind, encode(value)) for i, (seat, kind, value) in enumerate(r.history)),
        )
        self.conn.executemany(
            "INSERT INTO lines (game_seq, idx, target, line) VALUES (?,?,?,?)",
            ((seq, i, target, line) for i, (target, line) in enumerate(r.transcript)),
        )
        said.insert(self.conn, said.FINISHED, seq, 0, r.talk, 0, r.answers)

    def _insert_outcomes(self, seq: int, r: GameRecord, match: Match) -> None:
        where = {p: (i, g) for i, g in enumerate(match.groups) for p in g.players}
        rows = []
        for seat, bot in enumerate(r.identities):
            i, g = where[bot]
            rows.append((seq, seat, bot, r.roles[seat], r.sides[seat], i, g.rank,
                         g.side if match.kind == RANKED else None, match.result_of(bot)))
        self.conn.executemany(
            "INSERT INTO outcomes (game_seq, seat, bot, role, side, grp, rank, adv, result) VALUES (?,?,?,?,?,?,?,?,?)",
            rows,
        )

    def _write_ratings(self, seq: int, game: str, match: Match, changes: Mapping[str, Sequence[Change]]) -> None:
        wins = _wins(match)
        by_system = {s.name: s for s in self.systems}
        for name, items in changes.items():
            score = by_system[name].score
            self.conn.executemany(
                "INSERT INTO rating_changes (game_seq, system, kind, entity, mu_before, sigma_before, mu_after,"
                " sigma_after) VALUES (?,?,?,?,?,?,?,?)",
                ((seq, name, c.entity[0], c.entity[1], c.before.mu, c.before.sigma, c.after.mu, c.after.sigma)
                 for c in items),
            )
            self.conn.executemany(
                "INSERT INTO ratings (game, system, kind, entity, mu, sigma, score, games, wins, last_seq)"
                " VALUES (?,?,?,?,?,?,?,1,?,?) ON CONFLICT (game, system, kind, entity) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, score = excluded.score, games = games + 1,"
                " wins = wins + excluded.wins, last_seq = excluded.last_seq",
                ((game, name, c.entity[0], c.entity[1], c.after.mu, c.after.sigma, score(c.after),
                  int(c.entity in wins), seq) for c in items),
            )

    # -- bots ---------------------------------------------------------------------------------

    _BOT_COLUMNS = ("name, owner, version, scram_salt, scram_iterations, scram_stored_key, scram_server_key,"
                    " key_hash IS NOT NULL, account, created, seen")

    @staticmethod
    def _bot_record(row: Sequence[Any]) -> BotRecord:
        name, owner, version, salt, iterations, stored_key, server_key, old_key, account, created, seen = row
        verifier = None if salt is None else Verifier(salt, iterations, stored_key, server_key)
        return BotRecord(name, owner, version, verifier, bool(old_key), account, created, seen)

    def bot(self, name: str) -> BotRecord | None:
        row = self.conn.execute(f"SELECT {self._BOT_COLUMNS} FROM bots WHERE name = ?", (name,)).fetchone()
        return None if row is None else self._bot_record(row)

    def bots(self) -> list[BotRecord]:
        return [self._bot_record(row) for row in self.conn.execute(
            f"SELECT {self._BOT_COLUMNS} FROM bots ORDER BY name")]

    def add_bot(self, name: str, owner: str, verifier: Verifier | None, account: str | None, now: float) -> None:
        """A new bot, with what checks its key and/or its account; raises KeyError if the
        name is taken (names are compared without case)."""
        v = verifier
        try:
            self.conn.execute(
                "INSERT INTO bots (name, owner, account, created, scram_salt, scram_iterations, scram_stored_key,"
                " scram_server_key) VALUES (?,?,?,?,?,?,?,?)",
                (name, owner, account, now, *((v.salt, v.iterations, v.stored_key, v.server_key) if v else (None,) * 4)))
        except sqlite3.IntegrityError:
            raise KeyError(name) from None

    def set_bot_key(self, name: str, verifier: Verifier) -> None:
        """Replace a bot's key (the old one, SCRAM or from before, stops working); raises
        KeyError if unknown."""
        v = verifier
        if self.conn.execute(
                "UPDATE bots SET key_hash = NULL, scram_salt = ?, scram_iterations = ?, scram_stored_key = ?,"
                " scram_server_key = ? WHERE name = ?",
                (v.salt, v.iterations, v.stored_key, v.server_key, name)).rowcount != 1:
            raise KeyError(name)

    def save_bot(self, name: str, owner: str, version: str, account: str | None, now: float) -> None:
        """What a bot said of itself when it registered; an account binds it for good. Its
        ``owner`` fills in only an unknown one: the operator's (``arena bots add --owner``),
        or the first a bot declared, is not for a registration to change."""
        self.conn.execute(
            "INSERT INTO bots (name, owner, version, account, created, seen) VALUES (?,?,?,?,?,?)"
            " ON CONFLICT(name) DO UPDATE SET"
            " owner = CASE WHEN bots.owner = ? THEN excluded.owner ELSE bots.owner END, version = excluded.version,"
            " account = COALESCE(bots.account, excluded.account), seen = excluded.seen",
            (name, owner, version, account, now, now, UNKNOWN_OWNER))

    # -- tournaments ----------------------------------------------------------------------

    def start_tournament(self, tournament_id: str, settings: Mapping[str, Any], now: float) -> None:
        """Register a tournament with a fresh secret master key (``tournament_key``); games
        recorded with its id count towards ``games_done``."""
        self.conn.execute(
            "INSERT INTO tournaments (id, settings, games_done, created, updated, secret) VALUES (?,?,0,?,?,?)",
            (tournament_id, encode(dict(settings)), now, now, new_key()))

    def tournament_key(self, tournament_id: str) -> bytes:
        """The master key every seed and deal of the tournament derives from: stored, never
        shown, so a resumed tournament plays the games an uninterrupted one would while no
        one can compute them. A tournament from before secret deals draws its key here."""
        self.conn.execute("UPDATE tournaments SET secret = ? WHERE id = ? AND secret IS NULL",
                          (new_key(), tournament_id))
        row = self.conn.execute("SELECT secret FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        if row is None:
            raise KeyError(f"unknown tournament {tournament_id!r}")
        return bytes(row[0])

    def secret(self, name: str) -> bytes:
        """The master key stored under ``name`` (``serve``: the lobby's games), drawn on
        first use; ``INSERT OR IGNORE`` lets two processes race and agree on one key."""
        self.conn.execute("INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)", (name, new_key()))
        return bytes(self.conn.execute("SELECT value FROM secrets WHERE name = ?", (name,)).fetchone()[0])

    # -- the lobby's seat orders ------------------------------------------------------------

    def roster(self, game: str, roster: str) -> tuple[int, int] | None:
        """(block, games seated in it) of a lobby roster's seat order, or None if never seated."""
        row = self.conn.execute("SELECT block, games FROM rosters WHERE game = ? AND roster = ?",
                                (game, roster)).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def save_roster(self, game: str, roster: str, block: int, games: int) -> None:
        self.conn.execute("INSERT INTO rosters (game, roster, block, games) VALUES (?,?,?,?)"
                          " ON CONFLICT(game, roster) DO UPDATE SET block = excluded.block, games = excluded.games",
                          (game, roster, block, games))

    def tournament(self, tournament_id: str) -> tuple[dict[str, Any], int] | None:
        """(settings, games done) to resume a tournament, or None if unknown."""
        row = self.conn.execute("SELECT settings, games_done FROM tournaments WHERE id = ?",
                                (tournament_id,)).fetchone()
        return None if row is None else (json.loads(row[0]), int(row[1]))

    # -- reading --------------------------------------------------------------------------

    def list_games(self, game: str | None = None, bot: str | None = None, limit: int | None = 50,
                   before_seq: int | None = None, tournament: str | None = None) -> list[GameSummary]:
        """Newest first; ``before_seq`` pages backwards; ``limit`` None: all of them."""
        sql = ("SELECT seq, id, game, players, kind, winner, reason, nicks, started, finished, tournament, bots"
               " FROM games WHERE 1=1")
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
        args.append(-1 if limit is None else limit)
        return [_summary(row) for row in self.conn.execute(sql, args)]

    def load_game(self, game_id: str) -> StoredGame | None:
        row = self.conn.execute(
            "SELECT seq, id, game, players, kind, winner, reason, nicks, started, finished, tournament, bots,"
            " options, seed, roles, sides, winners, forfeited, deal FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        seq = row[0]
        events = tuple(
            Event(kind, json.loads(data), None if aud is None else frozenset(json.loads(aud)))
            for kind, data, aud in self.conn.execute(
                "SELECT kind, data, audience FROM events WHERE game_seq = ? ORDER BY idx", (seq,))
        )
        transcript = tuple(
            (target, line) for target, line in self.conn.execute(
                "SELECT target, line FROM lines WHERE game_seq = ? ORDER BY idx", (seq,))
        )
        history = tuple(
            (seat, kind, tuples(json.loads(value)))
            for seat, kind, value in self.conn.execute(
                "SELECT seat, kind, value FROM actions WHERE game_seq = ? ORDER BY idx", (seq,))
        )
        talk, answers = said.load(self.conn, said.FINISHED, seq)
        outcomes = tuple(
            PlayerOutcome(*r) for r in self.conn.execute(
                "SELECT seat, bot, role, side, result FROM outcomes WHERE game_seq = ? ORDER BY seat", (seq,))
        )
        changes: dict[str, list[Change]] = defaultdict(list)
        for system, kind, entity, mb, sb, ma, sa in self.conn.execute(
                "SELECT system, kind, entity, mu_before, sigma_before, mu_after, sigma_after FROM rating_changes"
                " WHERE game_seq = ?", (seq,)):
            changes[system].append(Change((kind, entity), Rating(mb, sb), Rating(ma, sa)))
        return StoredGame(
            summary=_summary(row[:12]), options=json.loads(row[12]), seed=row[13],
            roles=tuple(json.loads(row[14])), sides=tuple(json.loads(row[15])),
            winners=frozenset(json.loads(row[16])), forfeited=row[17], events=events, history=history,
            outcomes=outcomes, changes={k: tuple(v) for k, v in changes.items()},
            deal=None if row[18] is None else tuple(json.loads(row[18])), transcript=transcript,
            talk=talk, answers=answers,
        )

    def leaderboard(self, game: str, system: str, limit: int | None = None, min_games: int = 0,
                    tournament: str | None = None) -> list[LeaderRow]:
        """Bots by the system's score (Elo: rating; TrueSkill: mu - 3 sigma), with their
        owner and version: from the current ratings, or, for ``tournament``, rated afresh
        over that tournament's games alone (its standings, whatever else the bots played)."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament, limit, min_games)[0]
        sql = ("SELECT r.entity, r.mu, r.sigma, r.score, r.games, r.wins, COALESCE(b.owner, 'unknown'),"
               " COALESCE(b.version, 'unknown') FROM ratings r LEFT JOIN bots b ON b.name = r.entity"
               " WHERE r.game = ? AND r.system = ? AND r.kind = 'bot' AND r.games >= ?"
               " ORDER BY r.score DESC, r.entity")
        args: list[Any] = [game, system, min_games]
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        return [LeaderRow(i + 1, *row) for i, row in enumerate(self.conn.execute(sql, args))]

    def _outcome_rows(self, where: str = "",
                      args: Sequence[Any] = ()) -> dict[int, list[tuple[int, str, int, int, str | None]]]:
        """Each game's outcome rows (seat, bot, group, rank, side key), by game seq, as
        ``_match_from_rows`` rebuilds a rated match from them; ``where`` filters on ``g``."""
        rows: dict[int, list[tuple[int, str, int, int, str | None]]] = defaultdict(list)
        for seq, seat, bot, grp, rank, adv in self.conn.execute(
                "SELECT o.game_seq, o.seat, o.bot, o.grp, o.rank, o.adv FROM outcomes o JOIN games g"
                f" ON g.seq = o.game_seq {where} ORDER BY o.game_seq, o.seat", args):
            rows[seq].append((seat, bot, grp, rank, adv))
        return rows

    def _tournament_rated(self, game: str, system_name: str, tournament: str, limit: int | None = None,
                          min_games: int = 0) -> tuple[list[LeaderRow], dict[str, list[tuple[int, Rating]]]]:
        """``tournament``'s games, in order, rated afresh (every rating starts new): its
        leaderboard, and each bot's rating after each game it played (the game's number in
        the tournament, rating)."""
        system = next((s for s in self.systems if s.name == system_name), None)
        if system is None:
            raise KeyError(system_name)
        with transaction(self.conn, "BEGIN"):
            games = self.conn.execute("SELECT seq, kind, forfeited FROM games WHERE game = ? AND tournament = ?"
                                      " ORDER BY seq", (game, tournament)).fetchall()
            rows = self._outcome_rows("WHERE g.game = ? AND g.tournament = ?", (game, tournament))
            about = {name: (owner, version) for name, owner, version in
                     self.conn.execute("SELECT name, owner, version FROM bots")}
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
        board = sorted(((system.score(r), bot) for (kind, bot), r in state.items()
                        if kind == BOT and played[bot][0] >= min_games), key=lambda x: (-x[0], x[1]))
        leaders = []
        for i, (value, bot) in enumerate(board[:limit]):
            owner, version = about.get(bot, ("unknown", "unknown"))
            rating = state[(BOT, bot)]
            leaders.append(LeaderRow(i + 1, bot, rating.mu, rating.sigma, value, played[bot][0], played[bot][1],
                                     owner, version))
        return leaders, dict(history)

    def rating_history(self, game: str, system: str,
                       tournament: str | None = None) -> dict[str, list[tuple[int, Rating]]]:
        """Each bot's rating after each game it played, as (the game's number among the
        games of this type, 1 for the first, rating): over every stored game as stored, or
        over ``tournament``'s games rated afresh, as its leaderboard."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament)[1]
        history: dict[str, list[tuple[int, Rating]]] = defaultdict(list)
        numbers: dict[int, int] = {}
        for seq, entity, mu, sigma in self.conn.execute(
                "SELECT c.game_seq, c.entity, c.mu_after, c.sigma_after FROM rating_changes c"
                " JOIN games g ON g.seq = c.game_seq WHERE g.game = ? AND c.system = ? AND c.kind = 'bot'"
                " ORDER BY c.game_seq", (game, system)):
            number = numbers.setdefault(seq, len(numbers) + 1)
            history[entity].append((number, Rating(mu, sigma)))
        return dict(history)

    def standings(self, game: str, system: str,
                  tournament: str | None = None) -> tuple[list[LeaderRow], dict[str, list[tuple[int, Rating]]]]:
        """``leaderboard`` and ``rating_history`` together; a tournament's games are rated
        afresh once for both."""
        if tournament is not None:
            return self._tournament_rated(game, system, tournament)
        return self.leaderboard(game, system), self.rating_history(game, system)

    def tournaments(self) -> list[tuple[str, str, int, float]]:
        """Every tournament: id, game type, games stored, last update; newest first."""
        return [(tid, json.loads(settings).get("game", ""), done, updated) for tid, settings, done, updated in
                self.conn.execute("SELECT id, settings, games_done, updated FROM tournaments ORDER BY updated DESC, id")]

    def ratings(self, game: str, system: str, kind: str = BOT) -> dict[str, Rating]:
        return {e: Rating(mu, s) for e, mu, s in self.conn.execute(
            "SELECT entity, mu, sigma FROM ratings WHERE game = ? AND system = ? AND kind = ?", (game, system, kind))}

    def bot_stats(self, game: str, bot: str | None = None, tournament: str | None = None) -> dict[str, BotStats]:
        """Per bot: games, wins, win rate with a Wilson 95% interval, overall and per role,
        plus the game's role figures (``figures.FIGURES``); only ``tournament``'s games if given."""
        sql = ("SELECT o.bot, o.role, o.result, g.reason, COUNT(*) FROM outcomes o JOIN games g ON g.seq = o.game_seq"
               " WHERE g.game = ?")
        args: list[Any] = [game]
        if bot is not None:
            sql += " AND o.bot = ?"
            args.append(bot)
        if tournament is not None:
            sql += " AND g.tournament = ?"
            args.append(tournament)
        sql += " GROUP BY o.bot, o.role, o.result, g.reason"
        counts: dict[str, list[tuple[str | None, str, str, int]]] = defaultdict(list)
        for b, role, result, reason, n in self.conn.execute(sql, args):
            counts[b].append((role, result, reason, n))
        figures = FIGURES.get(game, ())
        conduct = self._conduct(game, tournament)
        out: dict[str, BotStats] = {}
        for b in sorted(counts):
            rows = counts[b]
            roles = sorted({r for r, _, _, _ in rows if r is not None})
            out[b] = BotStats(
                b, game, _role_stats(None, rows, figures),
                {r: _role_stats(r, [x for x in rows if x[0] == r], figures) for r in roles},
                conduct.get(b, Conduct({}, 0, 0, 0)),
            )
        return out

    def _conduct(self, game: str, tournament: str | None = None) -> dict[str, Conduct]:
        """Per bot, from the stored transcripts: ``ERROR`` and ``WARN`` lines sent to it
        (under its seat's nick; an ``ERROR`` with ``count=N`` stands for N refusals) and
        ``TIMEOUT`` lines naming it (by its seat's nick); from its stored answer lines, those
        marked ``fallback=``, by marker."""
        sql = ("SELECT g.nicks, COALESCE(g.bots, g.nicks), l.target, l.line FROM lines l"
               " JOIN games g ON g.seq = l.game_seq"
               " WHERE g.game = ? AND substr(l.line, 1, 5) IN ('ERROR', 'WARN ', 'TIMEO')"
               + (" AND g.tournament = ?" if tournament is not None else ""))
        refused: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        late: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        args = (game,) if tournament is None else (game, tournament)
        for nicks, bots, target, line in self.conn.execute(sql, args):
            msg = parse(line)
            seated = {n.lower(): b for n, b in zip(json.loads(nicks), json.loads(bots))}
            if msg.verb == TIMEOUT:
                late[seated.get(msg.get("player", "").lower(), msg.get("player", ""))][msg.get("action", "")] += 1
                continue
            name = seated.get((target or "").lower())
            if name is None:
                continue  # said to someone else (a renamed nick, a bystander)
            if msg.verb == ERROR:  # ``count=N``: a match's tally of refusals not kept one by one
                refused[name][msg.args[0]] += msg.int("count", 1)
            elif msg.verb == WARN:
                late[name]["warn"] += 1
        fallbacks: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for bots, seat, marker, n in self.conn.execute(
                "SELECT COALESCE(g.bots, g.nicks), a.seat, a.fallback, COUNT(*) FROM answers a"
                " JOIN games g ON g.seq = a.game_seq WHERE g.game = ? AND a.fallback IS NOT NULL"
                " GROUP BY a.game_seq, a.seat, a.fallback", (game,)):
            fallbacks[json.loads(bots)[seat]][marker] += n
        return {
            name: Conduct(dict(sorted(refused[name].items())), late[name]["warn"], late[name]["default"],
                          late[name]["forfeit"], dict(sorted(fallbacks[name].items())))
            for name in {*refused, *late, *fallbacks}
        }

    # -- rebuild --------------------------------------------------------------------------

    def rebuild(self, write: bool = False) -> RebuildReport:
        """Recompute every rating from the stored games, in recording order, and compare
        exactly (float equality) with the stored changes and current ratings.

        ``write=True`` replaces the stored values (and the recorded parameters) by the
        recomputed ones, in one transaction (after a change of rating parameters). The read runs in one
        transaction too, so games recorded meanwhile are not half-seen.
        """
        with transaction(self.conn, "BEGIN IMMEDIATE" if write else "BEGIN"):
            return self._rebuild(write)

    def _rebuild(self, write: bool) -> RebuildReport:
        conn = self.conn
        stored_changes: dict[tuple[int, str], dict[Entity, tuple[float, float, float, float]]] = defaultdict(dict)
        for seq, system, kind, entity, mb, sb, ma, sa in conn.execute(
                "SELECT game_seq, system, kind, entity, mu_before, sigma_before, mu_after, sigma_after"
                " FROM rating_changes"):
            stored_changes[(seq, system)][(kind, entity)] = (mb, sb, ma, sa)
        games = conn.execute("SELECT seq, game, kind, forfeited FROM games ORDER BY seq").fetchall()
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
                            mismatches.append(Mismatch(f"game {seq} {system.name} {entity[0]} {entity[1]}",
                                                       stored.get(entity), computed.get(entity)))
                for c in changes:
                    state[c.entity] = c.after
                    t = tally.setdefault((game, system.name, c.entity), [0, 0, 0])
                    t[0] += 1
                    t[1] += int(c.entity in wins)
                    t[2] = seq
                    new_changes.append((seq, system.name, c.entity[0], c.entity[1], c.before.mu, c.before.sigma,
                                        c.after.mu, c.after.sigma))
        scores = {s.name: s.score for s in self.systems}
        computed_ratings = {
            (game, system, kind, entity): (r.mu, r.sigma, scores[system](r), *tally[(game, system, (kind, entity))])
            for (game, system), state in current.items() for (kind, entity), r in state.items()
        }
        stored_ratings = {
            (g, s, k, e): (mu, sigma, score, n, w, last)
            for g, s, k, e, mu, sigma, score, n, w, last in conn.execute(
                "SELECT game, system, kind, entity, mu, sigma, score, games, wins, last_seq FROM ratings")
        }
        for key in sorted(set(computed_ratings) | set(stored_ratings)):
            if computed_ratings.get(key) != stored_ratings.get(key):
                mismatches.append(Mismatch("rating " + " ".join(key), stored_ratings.get(key), computed_ratings.get(key)))
        if write:
            conn.execute("DELETE FROM rating_changes")
            conn.execute("DELETE FROM ratings")
            conn.execute("DELETE FROM rating_systems")
            conn.executemany("INSERT INTO rating_systems (system, params) VALUES (?, ?)",
                             ((s.name, encode(system_params(s))) for s in self.systems))
            conn.executemany("INSERT INTO rating_changes VALUES (?,?,?,?,?,?,?,?)", new_changes)
            conn.executemany("INSERT INTO ratings (game, system, kind, entity, mu, sigma, score, games, wins, last_seq)"
                             " VALUES (?,?,?,?,?,?,?,?,?,?)", (k + v for k, v in computed_ratings.items()))
        return RebuildReport(len(games), checked, len(computed_ratings), tuple(mismatches), write)


def _summary(row: Sequence[Any]) -> GameSummary:
    seq, gid, game, players, kind, winner, reason, nicks, started, finished, tournament, bots = row
    return GameSummary(seq, gid, game, players, kind, winner, reason, tuple(json.loads(nicks)), started, finished,
                       tournament, tuple(json.loads(bots or nicks)))


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
    """The Match ``record_game`` rated, rebuilt from outcome rows (groups by index, seats in order)."""
    groups: dict[int, tuple[list[str], int, str | None]] = {}
    offender = None
    for seat, bot, grp, rank, adv in rows:
        groups.setdefault(grp, ([], rank, adv))[0].append(bot)
        if seat == forfeited:
            offender = bot
    built = tuple(Group(tuple(ps), rank, adv) for _, (ps, rank, adv) in sorted(groups.items()))
    return Match(kind, built, offender if kind == FORFEIT else None)  # type: ignore[arg-type]


def _rate(successes: int, trials: int) -> RateStat:
    low, high = wilson(successes, trials)
    return RateStat(successes, trials, successes / trials if trials else None, low, high)


def _role_stats(role: str | None, rows: Sequence[tuple[str | None, str, str, int]], figures: Sequence[Any]) -> RoleStats:
    by_result: dict[str, int] = defaultdict(int)
    for _, result, _, n in rows:
        by_result[result] += n
    played = sum(by_result.values()) - by_result[ABORTED]
    figs: dict[str, RateStat] = {}
    for f in figures:
        if role is not None and f.role != role:
            continue
        mine = [(reason, n) for r, _, reason, n in rows if r == f.role]
        if role is None and not mine:
            continue
        counted = sum(n for reason, n in mine if reason in f.counted)
        hits = sum(n for reason, n in mine if reason in f.success)
        figs[f.name] = _rate(hits, counted)
    return RoleStats(role, played, by_result[WIN], by_result["loss"], by_result["draw"], by_result[FORFEIT],
                     by_result[ABORTED], _rate(by_result[WIN], played), figs)
