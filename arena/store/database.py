"""The one connection and transaction the store's repositories share, and their dialect."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .dialect import Connection, Cursor, Dialect


class TransactionLost(Exception):
    """A write nested in a transaction that the engine has already rolled back: it must not
    go on outside it (it would be stored alone), and nothing of the transaction is stored."""


class Unavailable(Exception):
    """The database server cannot be reached or cannot write now (it went away, its disk
    is full): trying again later may cure it (``referee.pause``), as with a full disk
    under SQLite, whose own error says so."""


class Database:
    """A connection with its dialect: every statement of the repositories goes through
    ``execute``, so it is written once, in portable SQL, whatever the engine."""

    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self.conn = conn
        """Replaceable: a test may wrap it (to fail writes, as a full disk does)."""
        self.dialect = dialect
        self._savepoints = 0
        """1 inside a transaction, plus the savepoints open in it (``transaction`` nested)."""
        self._alone = False
        """The transaction open holds the write lock."""
        self._flat = False
        """The transaction open takes the transactions nested in it as parts of it, not savepoints."""

    def execute(self, sql: str, args: Sequence[Any] = ()) -> Cursor:
        return self.conn.execute(self.dialect.sql(sql), args)

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> Cursor:
        return self.conn.executemany(self.dialect.sql(sql), rows)

    @contextmanager
    def transaction(self, write: bool = True, alone: bool = True, flat: bool = False) -> Iterator[None]:
        """All or nothing. A Ctrl-C can land anywhere, even just after COMMIT returned: roll
        back only a transaction that is still open, so the interrupt (not a rollback error)
        is what the caller sees, and a committed game stays committed. Not ``alone``: it
        writes only rows of its own, and needs no write lock (``Dialect.begin``).

        Inside another transaction it is a savepoint of it: all or nothing within it, and
        durable with it. Inside a ``flat`` one it is merely part of it: no savepoint (two
        round trips each, on a server), so a part that fails leaves the whole to be rolled
        back (its caller tries again without that part: several games' steps in one commit,
        each of them whole or absent, ``Journal.save``)."""
        conn = self.conn
        if self._savepoints:
            if not conn.in_transaction:  # the engine rolled the outer one back (SQLite may, on a full disk)
                raise TransactionLost("the transaction this write belonged to was rolled back: nothing is stored")
            if write and alone and not self._alone:
                raise RuntimeError("a write that needs the write lock, inside a transaction that did not take it")
            if self._flat:
                yield
                return
            self._savepoints += 1
            name = f"step{self._savepoints}"
            conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                if conn.in_transaction:
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
                raise
            finally:
                self._savepoints -= 1
            conn.execute(f"RELEASE {name}")
            return
        conn.execute(self.dialect.begin(write, alone))
        self._savepoints, self._alone, self._flat = 1, write and alone, flat
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            self._savepoints = 0
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # (a commit that failed leaves it open: nothing of it is stored)
                conn.execute("ROLLBACK")
            raise
