"""The SQL that differs from one database engine to another, in one place.

The repositories write portable SQL with ``?`` placeholders and plain ``INSERT``s; what an
engine says its own way (its placeholders, opening a connection and its durability
settings, the two kinds of transaction, an insert that ignores a duplicate, an upsert, "no
limit", where the schema version lives, which error a broken constraint raises, the
schema's column types) is asked of the store's dialect. So another engine is one more
dialect, not an edit of every repository: ``SQLite`` here, the embedded default, and
``postgres.PostgreSQL``, which several referees share (``dialect_for`` picks by location).
"""

from __future__ import annotations

import re
import sqlite3
from contextlib import AbstractContextManager, nullcontext
from collections.abc import Iterator, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    """What the repositories use of a statement's result."""

    @property
    def rowcount(self) -> int: ...

    @property
    def description(self) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the store uses of a database connection (DB-API 2.0, autocommit: the store
    opens and ends every transaction itself)."""

    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Sequence[Any] = ..., /) -> Cursor: ...

    def executemany(self, sql: str, parameters: Any, /) -> Cursor: ...

    def close(self) -> None: ...


class Dialect(Protocol):
    """An engine's own SQL. The statements it is given are the repositories' portable ones."""

    integrity_error: type[Exception]
    """What the engine raises when a statement breaks a uniqueness (or other) constraint."""

    unlimited: int | None
    """The ``LIMIT`` parameter that means no limit."""

    def connect(self, path: str) -> Connection:
        """A connection in autocommit mode, with the durability the store relies on."""

    def sql(self, statement: str) -> str:
        """``statement`` with its ``?`` placeholders in the engine's own style."""

    row_lock: str
    """What ends a ``SELECT`` whose rows stay locked against other writers to the end of
    the transaction (nothing, where a writer holds the whole store)."""

    clock: str
    """An expression for the database's clock, in seconds since 1970: one clock for every
    host whose referees share the database (leases are counted on it)."""

    def ddl(self, statement: str) -> list[str]:
        """A schema statement of the migrations (written in SQLite's words, as they were
        released) as the engine says it."""

    def follow_identity(self, table: str, column: str) -> list[str]:
        """The statements making ``table``'s ``column`` (numbered by the database) go on
        after the highest number that rows were inserted with (a copy of a store)."""

    def exclusive(self, conn: Connection) -> AbstractContextManager[None]:
        """Every other writer kept out, from before the schema's version is read to the
        end of the migrations (each of them a transaction of its own)."""

    def begin(self, write: bool, alone: bool = True) -> str:
        """The statement opening a transaction: one that will write takes the write lock at
        once (a game rated from ratings another writer is changing would be rated wrong),
        unless not ``alone``: it writes rows of its own (a game's steps, a lobby's table),
        which the engine's row locks keep apart, and other writers may commit meanwhile
        (an engine with one writer at a time takes its lock all the same)."""

    def insert_ignore(self, insert: str) -> str:
        """``insert`` (an ``INSERT INTO``) made to insert nothing where a row with its key exists."""

    def json_rows(self, table: str) -> str | None:
        """A ``FROM`` item giving rows of ``table``'s type (its columns by name) from one
        parameter, a JSON list of objects, for a statement that writes in its ``WITH``
        clauses; None where the engine cannot write there (each table is then written by a
        statement of its own: nothing to save where a statement costs no round trip)."""

    def upsert(self, insert: str, key: str, update: str, returning: str = "") -> str:
        """``insert`` made to run ``update`` (a ``SET`` list; ``excluded.x`` is the value
        it would have inserted) on the row whose ``key`` columns it would duplicate, and
        give back the ``returning`` columns of the row it wrote."""

    def schema_version(self, conn: Connection) -> int:
        """The schema version the database is at (0: empty)."""

    def set_schema_version(self, version: int) -> str:
        """The statement recording the schema version, inside the migration's transaction."""


class OnConflict:
    """The upsert both engines write alike (SQLite since 3.24, PostgreSQL since 9.5)."""

    def upsert(self, insert: str, key: str, update: str, returning: str = "") -> str:
        tail = f" RETURNING {returning}" if returning else ""
        return f"{insert} ON CONFLICT ({key}) DO UPDATE SET {update}{tail}"


class SQLite(OnConflict):
    """SQLite in WAL mode: readers (leaderboards, ``arena games``) go on while a game is
    written; ``synchronous=NORMAL``: in WAL mode a power loss may drop the last committed
    games, never half of one; the schema version lives in the file header
    (``user_version``), so it rolls back with a failed migration."""

    integrity_error: type[Exception] = sqlite3.IntegrityError
    unlimited: int | None = -1
    row_lock = ""
    clock = "((julianday('now') - 2440587.5) * 86400.0)"

    def connect(self, path: str) -> Connection:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30.0)
        try:
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal" and path != ":memory:":
                raise sqlite3.OperationalError(f"cannot use WAL mode (journal_mode is {mode})")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def sql(self, statement: str) -> str:
        return statement

    def ddl(self, statement: str) -> list[str]:
        return [statement]

    def follow_identity(self, table: str, column: str) -> list[str]:
        return []  # AUTOINCREMENT goes on after the highest number a row was given

    def exclusive(self, conn: Connection) -> AbstractContextManager[None]:
        return nullcontext()  # each migration's BEGIN IMMEDIATE reads the file as it is

    def begin(self, write: bool, alone: bool = True) -> str:
        return "BEGIN IMMEDIATE" if write else "BEGIN"

    def insert_ignore(self, insert: str) -> str:
        return "INSERT OR IGNORE" + insert.removeprefix("INSERT")

    def json_rows(self, table: str) -> str | None:
        return None

    def schema_version(self, conn: Connection) -> int:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])

    def set_schema_version(self, version: int) -> str:
        return f"PRAGMA user_version = {int(version)}"


POSTGRES = ("postgresql://", "postgres://")
"""How a store's location names a PostgreSQL database (libpq's connection URIs); any other
location is a SQLite file."""


def dialect_for(location: str) -> Dialect:
    """The engine a store's location names."""
    if location.startswith(POSTGRES):
        from .postgres import PostgreSQL  # psycopg is imported only by stores that use it

        return PostgreSQL()
    return SQLite()


def shown(location: str) -> str:
    """A store's location as messages and logs show it: a URL without its password."""
    return re.sub(r"^(\w+://[^/:@]*):[^/@]*@", r"\1:***@", location)
