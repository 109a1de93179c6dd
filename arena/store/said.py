"""Reading and writing what players said (``Talk``, ``Answer``): one code for the finished
games' tables (``talk``, ``answers``, keyed by ``game_seq``) and the live ones
(``live_talk``, ``live_answers``, keyed by ``gid``), so that a game carried from one to
the other keeps every field."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.said import Answer, Talk
from .database import Database

FINISHED = ("", "game_seq")
LIVE = ("live_", "gid")
"""(table prefix, key column) of the two pairs of tables."""


def insert(
    db: Database,
    tables: tuple[str, str],
    key: int | str,
    first_talk: int,
    talk: Sequence[Talk],
    first_answer: int,
    answers: Sequence[Answer],
) -> None:
    """Add ``talk`` and ``answers`` under ``key``, numbered on from ``first_*``."""
    prefix, column = tables
    if talk:
        db.executemany(
            f"INSERT INTO {prefix}talk ({column}, idx, seat, nick, text, at, after_lines) VALUES (?,?,?,?,?,?,?)",
            ((key, i, t.seat, t.nick, t.text, t.at, t.after) for i, t in enumerate(talk, first_talk)),
        )
    if answers:
        db.executemany(
            f"INSERT INTO {prefix}answers ({column}, idx, seat, rid, line, at, latency, error, fallback, after_lines)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                (key, i, a.seat, a.rid, a.line, a.at, a.latency, a.error, a.fallback, a.after)
                for i, a in enumerate(answers, first_answer)
            ),
        )


def load(db: Database, tables: tuple[str, str], key: int | str) -> tuple[tuple[Talk, ...], tuple[Answer, ...]]:
    """The talk and answers stored under ``key``, in the order they came."""
    prefix, column = tables
    talk = tuple(
        Talk(*row)
        for row in db.execute(
            f"SELECT seat, nick, text, at, after_lines FROM {prefix}talk WHERE {column} = ? ORDER BY idx", (key,)
        )
    )
    answers = tuple(
        Answer(*row)
        for row in db.execute(
            f"SELECT seat, rid, line, at, latency, error, fallback, after_lines FROM {prefix}answers WHERE {column} = ?"
            " ORDER BY idx",
            (key,),
        )
    )
    return talk, answers
