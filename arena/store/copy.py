"""A whole store copied into another, of either engine (``arena store copy``): every row of
every table as it is, so the copy's games, ratings, keys and games in progress are the
original's, and a rebuild of the copy finds every stored value exact.

The copy is one transaction on the target (all of it or nothing), into a store that holds
nothing yet; rows go over a batch at a time, so memory does not grow with the store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any

from .db import Store

TABLES: tuple[tuple[str, str], ...] = (
    ("tournaments", "id"),
    ("games", "seq"),
    ("logs", "game_seq"),
    ("outcomes", "game_seq, seat"),
    ("rating_changes", "game_seq, system, kind, entity"),
    ("ratings", "game, system, kind, entity"),
    ("standings", "tournament, game, system, kind, entity"),
    ("rating_systems", "system"),
    ("role_results", "game, tournament, bot, role, result, reason"),
    ("conduct", "game, tournament, bot, kind, what"),
    ("bots", "name"),
    ("secrets", "name"),
    ("rosters", "game, roster"),
    ("game_ids", "id"),
    ("counters", "name"),
    ("live_games", "id"),
    ("live_actions", "gid, idx"),
    ("live_lines", "gid, idx"),
    ("live_talk", "gid, idx"),
    ("live_answers", "gid, idx"),
    ("referees", "id"),
    ("lobby_bots", "token"),
    ("lobby_tables", "gid"),
)
"""Every table of the schema with its key (the order rows are read in), the tables a row
refers to before it."""

BATCH = 500
"""Rows written at a time."""


class CannotCopy(Exception):
    """The target store holds something already (a copy into it would not be a copy), or
    the two stores are at different schema versions."""


def _rows(store: Store, table: str, key: str, columns: Sequence[str]) -> Iterator[tuple[Any, ...]]:
    """The table's rows in key order, read a batch at a time (by key, so neither engine
    holds a cursor open across the target's writes)."""
    names = ", ".join(columns)
    last: tuple[Any, ...] | None = None
    keys = [k.strip() for k in key.split(",")]
    at = [columns.index(k) for k in keys]
    while True:
        if last is None:
            where, args = "", []
        else:
            where, args = f" WHERE ({key}) > ({', '.join('?' for _ in keys)})", list(last)
        batch = store.db.execute(f"SELECT {names} FROM {table}{where} ORDER BY {key} LIMIT {BATCH}", args).fetchall()
        yield from (tuple(row) for row in batch)
        if len(batch) < BATCH:
            return
        last = tuple(batch[-1][i] for i in at)


def columns(store: Store, table: str) -> list[str]:
    return [d[0] for d in store.db.execute(f"SELECT * FROM {table} LIMIT 0").description]


def copy_store(source: Store, target: Store, progress: Callable[[str, int], None] | None = None) -> dict[str, int]:
    """Copy every row of ``source`` into the empty ``target``; the rows copied per table."""
    if source.version != target.version:
        raise CannotCopy(f"the stores have schema versions {source.version} and {target.version}")
    held = [t for t, _ in TABLES if target.db.execute(f"SELECT 1 FROM {t} LIMIT 1").fetchone() is not None]
    if held:
        raise CannotCopy(f"the target store already holds rows ({', '.join(held)}): copy into an empty one")
    copied: dict[str, int] = {}
    with target.db.transaction():
        for table, key in TABLES:
            names = columns(source, table)
            insert = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
            rows = _rows(source, table, key, names)
            copied[table] = 0
            while batch := list(islice(rows, BATCH)):
                target.db.executemany(insert, batch)
                copied[table] += len(batch)
                if progress is not None:
                    progress(table, copied[table])
        for statement in target.db.dialect.follow_identity("games", "seq"):
            target.db.execute(statement)
    return copied
