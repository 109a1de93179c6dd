"""The one connection and transaction the store's repositories share, and their dialect."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .dialect import Connection, Cursor, Dialect


class Database:
    """A connection with its dialect: every statement of the repositories goes through
    ``execute``, so it is written once, in portable SQL, whatever the engine."""

    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self.conn = conn
        """Replaceable: a test may wrap it (to fail writes, as a full disk does)."""
        self.dialect = dialect

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        return self.conn.execute(self.dialect.sql(sql), args)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        return self.conn.executemany(self.dialect.sql(sql), rows)

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[None]:
        """All or nothing. A Ctrl-C can land anywhere, even just after COMMIT returned: roll
        back only a transaction that is still open, so the interrupt (not a rollback error)
        is what the caller sees, and a committed game stays committed."""
        conn = self.conn
        conn.execute(self.dialect.begin(write))
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
