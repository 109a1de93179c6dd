"""The database schema as a list of migrations, versioned (SQLite: ``PRAGMA user_version``).

Migration i (0-based) takes a database at version i to version i + 1. A new schema
change is a new entry appended to ``MIGRATIONS``; entries already released are never
edited, because databases in the field have already run them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..ratings import RatingSystem, default_systems
from .database import Database
from .logs import from_rows
from .rebuild import fill_standings

Step = Callable[[Database, Sequence[RatingSystem]], None]
"""A step of a migration that SQL cannot say (rating stored games), given the store's rating systems."""

Migration = tuple[str | Step, ...]
"""The statements (and steps) of one migration, run in one transaction with the version bump."""

V1: Migration = (
    """CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        settings TEXT NOT NULL,              -- JSON, as the organiser gave it
        games_done INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        updated REAL NOT NULL
    )""",
    """CREATE TABLE games (
        seq INTEGER PRIMARY KEY AUTOINCREMENT, -- recording order: rebuild replays in this order
        id TEXT NOT NULL UNIQUE,
        game TEXT NOT NULL,                    -- game type, e.g. avalon
        options TEXT NOT NULL,                 -- JSON
        seed INTEGER NOT NULL,
        deal TEXT,                             -- JSON list (Seating.deal), NULL = dealt by the seed
        players INTEGER NOT NULL,
        nicks TEXT NOT NULL,                   -- JSON list, seat order
        roles TEXT NOT NULL,                   -- JSON list, seat order
        sides TEXT NOT NULL,                   -- JSON list, final side per seat
        kind TEXT NOT NULL CHECK (kind IN ('ranked', 'forfeit', 'aborted')),
        winner TEXT,
        winners TEXT NOT NULL,                 -- JSON list of seats
        reason TEXT NOT NULL,
        forfeited INTEGER,
        tournament TEXT REFERENCES tournaments(id),
        started REAL NOT NULL,
        finished REAL NOT NULL
    )""",
    "CREATE INDEX games_by_type ON games(game, seq)",
    """CREATE TABLE events (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        idx INTEGER NOT NULL,
        kind TEXT NOT NULL,
        data TEXT NOT NULL,                    -- JSON
        audience TEXT,                         -- JSON list of seats, NULL = everyone
        PRIMARY KEY (game_seq, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE actions (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,                   -- JSON
        PRIMARY KEY (game_seq, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE lines (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        idx INTEGER NOT NULL,
        target TEXT,                           -- the nick a direct message went to, NULL = the channel
        line TEXT NOT NULL,                    -- as the referee sent it
        PRIMARY KEY (game_seq, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE outcomes (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        seat INTEGER NOT NULL,
        bot TEXT NOT NULL,
        role TEXT,
        side TEXT,
        grp INTEGER NOT NULL,                  -- index of the player's group in the rated match
        rank INTEGER NOT NULL,                 -- the group's rank, 0 best
        adv TEXT,                              -- the group's side-advantage key, NULL if none
        result TEXT NOT NULL CHECK (result IN ('win', 'loss', 'draw', 'forfeit', 'aborted')),
        PRIMARY KEY (game_seq, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX outcomes_by_bot ON outcomes(bot, game_seq)",
    """CREATE TABLE rating_changes (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        system TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'side')),
        entity TEXT NOT NULL,
        mu_before REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu_after REAL NOT NULL,
        sigma_after REAL NOT NULL,
        PRIMARY KEY (game_seq, system, kind, entity)
    ) WITHOUT ROWID""",
    """CREATE TABLE ratings (
        game TEXT NOT NULL,
        system TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'side')),
        entity TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        score REAL NOT NULL,                   -- what the leaderboard sorts by
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        PRIMARY KEY (game, system, kind, entity)
    ) WITHOUT ROWID""",
    "CREATE INDEX ratings_board ON ratings(game, system, kind, score DESC)",
    """CREATE TABLE rating_systems (
        system TEXT PRIMARY KEY,
        params TEXT NOT NULL                   -- JSON: the parameters every stored value was computed with
    )""",
)

V2: Migration = (
    # Bots are identities: a rating, a seat and a history belong to a bot, never to a nick.
    """CREATE TABLE bots (
        name TEXT PRIMARY KEY COLLATE NOCASE,  -- the identity REGISTER names (name=...)
        owner TEXT NOT NULL DEFAULT 'unknown',
        version TEXT NOT NULL DEFAULT 'unknown',
        key_hash TEXT,                         -- slow hash of the bot's key (arena bots add), NULL = none
        account TEXT COLLATE NOCASE,           -- the services account it is bound to, NULL = none
        created REAL NOT NULL,
        seen REAL                              -- when it last registered
    )""",
    # Games stored before bots were identities were rated under their nicks: each becomes a bot.
    "INSERT OR IGNORE INTO bots (name, created) SELECT DISTINCT bot, 0 FROM outcomes",
    # The identity that played each seat; NULL for older games, whose nicks were the identities.
    "ALTER TABLE games ADD COLUMN bots TEXT",
    # A tournament's secret master key (every game's seed and deal derive from it); NULL for
    # tournaments created before secret deals, which draw one when they resume.
    "ALTER TABLE tournaments ADD COLUMN secret BLOB",
    # Other secrets the arena keeps, by name (the master key of `arena serve`'s games).
    """CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value BLOB NOT NULL
    )""",
)

V3_ROSTERS: Migration = (
    # The lobby's seat orders: a roster keeps its order for a block of games across restarts.
    """CREATE TABLE rosters (
        game TEXT NOT NULL,                    -- game type, e.g. avalon
        roster TEXT NOT NULL,                  -- the bots' names, folded, sorted, joined by commas
        block INTEGER NOT NULL,                -- which of the roster's seat orders it plays now
        games INTEGER NOT NULL,                -- games seated in that order so far
        PRIMARY KEY (game, roster)
    ) WITHOUT ROWID""",
)

V4_LIVE: Migration = (
    # Every game id ever handed out, finished or not: an id is never given twice, across
    # restarts and across referees sharing the file.
    """CREATE TABLE game_ids (
        id TEXT PRIMARY KEY,
        reserved REAL NOT NULL
    ) WITHOUT ROWID""",
    "INSERT INTO game_ids (id, reserved) SELECT id, started FROM games",
    # Named counters; 'game' numbers the lobby's games (g1, g2, ...).
    """CREATE TABLE counters (
        name TEXT PRIMARY KEY,
        value INTEGER NOT NULL
    ) WITHOUT ROWID""",
    """INSERT INTO counters (name, value) SELECT 'game', COALESCE(MAX(CAST(SUBSTR(id, 2) AS INTEGER)), 0)
        FROM games WHERE id GLOB 'g[0-9]*' AND SUBSTR(id, 2) NOT GLOB '*[^0-9]*'""",
    # Games in progress on IRC, written ahead of every line the referee sends, so that a
    # restarted referee rebuilds them; a game leaves these tables when it is recorded.
    """CREATE TABLE live_games (
        id TEXT PRIMARY KEY REFERENCES game_ids(id),
        game TEXT NOT NULL,
        options TEXT NOT NULL,                 -- JSON
        seed INTEGER NOT NULL,
        deal TEXT,                             -- JSON list, NULL = dealt by the seed
        names TEXT NOT NULL,                   -- JSON list: the seats' names in START
        bots TEXT NOT NULL,                    -- JSON list: the bot playing each seat
        place TEXT NOT NULL,                   -- the referee's server and lobby, host:port/#channel
        tournament TEXT REFERENCES tournaments(id),
        started REAL NOT NULL,
        resumes INTEGER NOT NULL DEFAULT 0,    -- how many times a restarted referee took it up
        state TEXT NOT NULL DEFAULT '{}'       -- JSON: the referee's bookkeeping (Match.state)
    )""",
    """CREATE TABLE live_actions (
        gid TEXT NOT NULL REFERENCES live_games(id),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,                   -- JSON
        PRIMARY KEY (gid, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE live_lines (
        gid TEXT NOT NULL REFERENCES live_games(id),
        idx INTEGER NOT NULL,
        target TEXT,                           -- the nick of a direct message, NULL = the channel
        seat INTEGER,                          -- the seat a direct message told, NULL = none
        line TEXT NOT NULL,
        PRIMARY KEY (gid, idx)
    ) WITHOUT ROWID""",
)

V5_SAID: Migration = (
    # What the players said (arena.core.said): their talk in the game's channel and their
    # answer lines. ``after_lines`` places a line among the referee's (table ``lines``): it
    # came after that many of them. Games stored before simply have none.
    """CREATE TABLE talk (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        nick TEXT NOT NULL,                    -- the nick it came from
        text TEXT NOT NULL,
        at REAL NOT NULL,                      -- seconds since the game began
        after_lines INTEGER NOT NULL,
        PRIMARY KEY (game_seq, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE answers (
        game_seq INTEGER NOT NULL REFERENCES games(seq),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        rid TEXT NOT NULL,                     -- the request id as the line gave it
        line TEXT NOT NULL,                    -- as it arrived
        at REAL NOT NULL,                      -- seconds since the game began
        latency REAL,                          -- seconds since its request went out; NULL: no open request
        error TEXT,                            -- the code it was refused with; NULL: accepted
        fallback TEXT,                         -- the SDK's fallback= marker; NULL: the bot chose
        after_lines INTEGER NOT NULL,
        PRIMARY KEY (game_seq, idx)
    ) WITHOUT ROWID""",
    "CREATE INDEX answers_fallbacks ON answers(game_seq) WHERE fallback IS NOT NULL",
    """CREATE TABLE live_talk (
        gid TEXT NOT NULL REFERENCES live_games(id),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        nick TEXT NOT NULL,
        text TEXT NOT NULL,
        at REAL NOT NULL,
        after_lines INTEGER NOT NULL,
        PRIMARY KEY (gid, idx)
    ) WITHOUT ROWID""",
    """CREATE TABLE live_answers (
        gid TEXT NOT NULL REFERENCES live_games(id),
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        rid TEXT NOT NULL,
        line TEXT NOT NULL,
        at REAL NOT NULL,
        latency REAL,
        error TEXT,
        fallback TEXT,
        after_lines INTEGER NOT NULL,
        PRIMARY KEY (gid, idx)
    ) WITHOUT ROWID""",
)

V6_SCRAM: Migration = (
    # Bots prove their key by SCRAM-SHA-256 (protocol.md, section 3) and never send it: the
    # store keeps what checks a proof. A scrypt hash in key_hash (the key as bots sent it
    # before) cannot become these, since SCRAM needs the key itself: such a bot keeps its
    # key_hash only to be told, when it registers, that its operator must run
    # `arena bots rekey NAME`, which sets these and clears key_hash.
    "ALTER TABLE bots ADD COLUMN scram_salt BLOB",
    "ALTER TABLE bots ADD COLUMN scram_iterations INTEGER",
    "ALTER TABLE bots ADD COLUMN scram_stored_key BLOB",
    "ALTER TABLE bots ADD COLUMN scram_server_key BLOB",
)

V7_STANDINGS: Migration = (
    # Each tournament's standings: its games alone rated in order, every rating new at its
    # first game (what its leaderboard shows), kept game by game in the transaction that
    # records the game, so a leaderboard reads its bots' rows instead of rating every game
    # again. The tournaments stored before are rated afresh here, as their leaderboards were.
    """CREATE TABLE standings (
        tournament TEXT NOT NULL REFERENCES tournaments(id),
        game TEXT NOT NULL,
        system TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'side')),
        entity TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        score REAL NOT NULL,                   -- what the leaderboard sorts by
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        PRIMARY KEY (tournament, game, system, kind, entity)
    ) WITHOUT ROWID""",
    "CREATE INDEX standings_board ON standings(tournament, game, system, kind, score DESC)",
    fill_standings,
)

V8_FLAT: Migration = (
    # Reads over the whole store cost their answer, not the number of games stored.
    # A tournament's games, in order (its page, its stats, a rebuild's standings).
    "CREATE INDEX games_by_tournament ON games(tournament, seq)",
    # The lines a bot's conduct is counted from (``Stats``): a few among millions.
    "CREATE INDEX lines_conduct ON lines(game_seq) WHERE substr(line, 1, 5) IN ('ERROR', 'WARN ', 'TIMEO')",
    # How many seats each bot played in each role, with each result and end reason, per
    # game type and tournament: kept in the transaction that records a game, so `arena
    # stats` reads a row per bot, role and outcome instead of every seat of every game.
    """CREATE TABLE role_results (
        game TEXT NOT NULL,
        tournament TEXT NOT NULL,              -- '' = none
        bot TEXT NOT NULL,
        role TEXT NOT NULL,                    -- '' = none (a game stopped before its roles were dealt)
        result TEXT NOT NULL,
        reason TEXT NOT NULL,                  -- the game's end reason
        seats INTEGER NOT NULL,
        PRIMARY KEY (game, tournament, bot, role, result, reason)
    ) WITHOUT ROWID""",
    """INSERT INTO role_results (game, tournament, bot, role, result, reason, seats)
        SELECT g.game, COALESCE(g.tournament, ''), o.bot, COALESCE(o.role, ''), o.result, g.reason, COUNT(*)
        FROM outcomes o JOIN games g ON g.seq = o.game_seq
        GROUP BY g.game, COALESCE(g.tournament, ''), o.bot, COALESCE(o.role, ''), o.result, g.reason""",
)

V9_LOGS: Migration = (
    # A finished game's log (events, actions, lines, talk, answers) is one compressed
    # document (``logs``): one row to write and to read rather than one per item, and a
    # fifth of the bytes. A bot's conduct, which was counted from the lines and answers of
    # every game, is kept as totals instead, written with each game. (The file keeps its
    # size until it is vacuumed.)
    """CREATE TABLE logs (
        game_seq INTEGER PRIMARY KEY REFERENCES games(seq),
        data BLOB NOT NULL                     -- zlib-compressed JSON (arena.store.logs)
    )""",
    """CREATE TABLE conduct (
        game TEXT NOT NULL,
        tournament TEXT NOT NULL,              -- '' = none
        bot TEXT NOT NULL,
        kind TEXT NOT NULL,                    -- refused, warn, timeout, fallback
        what TEXT NOT NULL,                    -- the error code, the deadline's action, the fallback marker
        n INTEGER NOT NULL,
        PRIMARY KEY (game, tournament, bot, kind, what)
    ) WITHOUT ROWID""",
    from_rows,
    "DROP TABLE events",
    "DROP TABLE actions",
    "DROP TABLE lines",
    "DROP TABLE talk",
    "DROP TABLE answers",
)

V10_REFEREES: Migration = (
    # The referees running from this store, each under a lease it renews (the database's
    # clock, not the hosts'): a referee that stops renewing it (killed, its host gone,
    # cut off) loses its place, and with it its games in progress, to a standby.
    """CREATE TABLE referees (
        id TEXT PRIMARY KEY,                   -- drawn by each run of a referee
        place TEXT NOT NULL,                   -- its server and lobby, host:port/#channel
        nick TEXT NOT NULL,
        host TEXT NOT NULL,                    -- the machine it runs on
        pid INTEGER NOT NULL,                  -- its process there (one found dead need not be waited for)
        started REAL NOT NULL,
        lease REAL NOT NULL                    -- the database's clock until which it holds its place
    )""",
    "CREATE INDEX referees_by_place ON referees(place, lease)",
    # The run of a referee that writes a game in progress: a write of any other is refused
    # (fencing), so a referee that lost its place never writes for its games again.
    "ALTER TABLE live_games ADD COLUMN owner TEXT",
)

V11_SHARED_LOBBY: Migration = (
    # A lobby that several referees share (``server.network``): the bots registered there,
    # whichever referee they registered with, so that any of them may seat and play them ...
    """CREATE TABLE lobby_bots (
        token TEXT PRIMARY KEY,                -- this registration (a new connection: a new token)
        place TEXT NOT NULL,                   -- network/#channel
        name TEXT NOT NULL,
        folded TEXT NOT NULL,                  -- its name in lower case: one registration per bot
        nick TEXT NOT NULL,                    -- where its connection is now
        owner TEXT NOT NULL,
        version TEXT NOT NULL,
        account TEXT,                          -- the services account that proved it, if one did
        protocol INTEGER NOT NULL,
        referee TEXT NOT NULL                  -- the run of the referee that admitted it
    )""",
    "CREATE UNIQUE INDEX lobby_bots_by_name ON lobby_bots(place, folded)",
    # ... and the tables its dealer drew, each run by the one referee that claimed it, until its game ends.
    """CREATE TABLE lobby_tables (
        gid TEXT PRIMARY KEY,
        place TEXT NOT NULL,
        game TEXT NOT NULL,
        seats TEXT NOT NULL,                   -- JSON list of bot names, in seat order
        referee TEXT,                          -- the run that claimed it; NULL: not claimed yet
        dealt REAL NOT NULL
    )""",
    "CREATE INDEX lobby_tables_by_place ON lobby_tables(place, referee, dealt)",
)

MIGRATIONS: tuple[Migration, ...] = (
    V1,
    V2,
    V3_ROSTERS,
    V4_LIVE,
    V5_SAID,
    V6_SCRAM,
    V7_STANDINGS,
    V8_FLAT,
    V9_LOGS,
    V10_REFEREES,
    V11_SHARED_LOBBY,
)


class SchemaError(Exception):
    """The database cannot be used by this version of the arena."""


def migrate(
    db: Database, migrations: Sequence[Migration] = MIGRATIONS, systems: Sequence[RatingSystem] | None = None
) -> int:
    """Bring the database to the latest version; returns the version it had before.
    ``systems``: the rating systems a step rates with (``default_systems()`` unless given).

    Each migration runs in its own write transaction together with the version bump (which
    rolls back with the transaction), so a crash mid-migration leaves the previous version
    intact. A new database runs only the statements that shape the schema (each in its
    dialect's words): the ones that move rows have none to move, and may be SQLite's alone.
    """
    dialect = db.dialect
    systems = default_systems() if systems is None else systems
    with dialect.exclusive(db.conn):
        return _migrate(db, migrations, systems)


def _migrate(db: Database, migrations: Sequence[Migration], systems: Sequence[RatingSystem]) -> int:
    dialect = db.dialect
    start = dialect.schema_version(db.conn)
    if start > len(migrations):
        raise SchemaError(
            f"the database has schema version {start}, newer than this arena knows "
            f"({len(migrations)}); upgrade the arena"
        )
    for version in range(start, len(migrations)):
        with db.transaction():
            if dialect.schema_version(db.conn) != version:
                continue  # another process migrated meanwhile
            for statement in migrations[version]:
                if not isinstance(statement, str):
                    if start:  # a database made new has no rows to move
                        statement(db, systems)
                elif _shapes(statement):
                    for own in dialect.ddl(statement):
                        db.execute(own)
                elif start:
                    db.execute(statement)
            db.execute(dialect.set_schema_version(version + 1))
    return start


def _shapes(statement: str) -> bool:
    """Whether a migration's statement shapes the schema, rather than moving rows into it."""
    return statement.lstrip().upper().startswith(("CREATE ", "ALTER ", "DROP "))
