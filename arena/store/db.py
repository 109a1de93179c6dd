"""The results store: one database, its repositories, one transaction at a time.

``Store(path)`` opens the database (a SQLite file in WAL mode, see ``dialect.SQLite``, or
PostgreSQL, ``postgres.PostgreSQL``), brings its
schema up to date, and hands out one repository per kind of thing it keeps, all sharing its
connection (and so each other's transactions): ``games`` (finished games, recorded with
their rating changes in one transaction), ``live`` (games in progress), ``bots``,
``ratings``, ``stats``, ``tournaments``, ``secrets``, the lobby's ``rosters`` and the
``referees`` that hold their places under leases, and the ``lobbies`` several referees share.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ..ratings import RatingSystem, default_systems
from .bots import Bots
from .database import Database
from .dialect import Connection, Dialect, dialect_for
from .games import Games
from .live import LiveGames
from .lobbies import Lobbies
from .ratings import Ratings
from .referees import Referees
from .rosters import Rosters
from .schema import MIGRATIONS, Migration, migrate
from .secrets import Secrets
from .stats import Stats
from .tournaments import Tournaments


class Store:
    """A results database. Not shared between threads: open one Store per thread/process.

    ``path``: a SQLite file, or a PostgreSQL database's ``postgresql://`` URL.
    ``dialect``: the database engine's own SQL (the one ``path`` names unless given).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        systems: Sequence[RatingSystem] | None = None,
        migrations: Sequence[Migration] = MIGRATIONS,
        dialect: Dialect | None = None,
        connection: Connection | None = None,
    ) -> None:
        """``connection``: one to ``path`` already open and its schema up to date (a
        borrowed one: ``postgres.PgPool``), used as it is; by default the store connects
        and migrates."""
        self.path = os.fspath(path)
        self.systems: tuple[RatingSystem, ...] = tuple(systems) if systems is not None else default_systems()
        names = [s.name for s in self.systems]
        if len(set(names)) != len(names):
            raise ValueError(f"two rating systems share a name: {names}")
        dialect = dialect_for(self.path) if dialect is None else dialect
        self.db = Database(dialect.connect(self.path) if connection is None else connection, dialect)
        try:
            self.migrated_from = migrate(self.db, migrations, self.systems) if connection is None else len(migrations)
        except BaseException:
            self.close()
            raise
        self.live = LiveGames(self.db)
        self.tournaments = Tournaments(self.db)
        self.ratings = Ratings(self.db, self.systems)
        self.games = Games(self.db, self.ratings, self.live, self.tournaments)
        self.stats = Stats(self.db)
        self.bots = Bots(self.db)
        self.secrets = Secrets(self.db)
        self.rosters = Rosters(self.db)
        self.referees = Referees(self.db)
        self.lobbies = Lobbies(self.db)

    @property
    def conn(self) -> Connection:
        """The connection every repository uses (a test may wrap it, to fail writes)."""
        return self.db.conn

    @conn.setter
    def conn(self, conn: Connection) -> None:
        self.db.conn = conn

    @property
    def version(self) -> int:
        return self.db.dialect.schema_version(self.db.conn)

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
