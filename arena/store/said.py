"""What the players of a game in progress said (``Talk``, ``Answer``), kept as it comes
(tables ``live_talk``, ``live_answers``, keyed by the game id) so that a referee that
restarts takes the game up with every field; a finished game keeps them in its log
(``logs``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.said import Answer, Talk
from .database import Database


TALK = ("gid", "idx", "seat", "nick", "text", "at", "after_lines")
ANSWERS = ("gid", "idx", "seat", "rid", "line", "at", "latency", "error", "fallback", "after_lines")
"""The columns of ``live_talk`` and ``live_answers`` that ``rows`` gives."""


def rows(
    gid: str, first_talk: int, talk: Sequence[Talk], first_answer: int, answers: Sequence[Answer]
) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows adding ``talk`` and ``answers`` to game ``gid``'s (``live_talk``,
    ``live_answers``, in the columns ``TALK`` and ``ANSWERS``), numbered on from ``first_*``."""
    return (
        [(gid, i, t.seat, t.nick, t.text, t.at, t.after) for i, t in enumerate(talk, first_talk)],
        [
            (gid, i, a.seat, a.rid, a.line, a.at, a.latency, a.error, a.fallback, a.after)
            for i, a in enumerate(answers, first_answer)
        ],
    )


def load(db: Database, gid: str) -> tuple[tuple[Talk, ...], tuple[Answer, ...]]:
    """Game ``gid``'s talk and answers, in the order they came."""
    talk = tuple(
        Talk(*row)
        for row in db.execute(
            "SELECT seat, nick, text, at, after_lines FROM live_talk WHERE gid = ? ORDER BY idx", (gid,)
        )
    )
    answers = tuple(
        Answer(*row)
        for row in db.execute(
            "SELECT seat, rid, line, at, latency, error, fallback, after_lines FROM live_answers WHERE gid = ?"
            " ORDER BY idx",
            (gid,),
        )
    )
    return talk, answers
