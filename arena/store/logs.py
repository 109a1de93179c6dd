"""A finished game's log as the store keeps it: one compressed JSON document a game.

The log of a game (its events, the answers its engine applied, every line the referee
sent, the players' talk and answer lines) is read back whole or not at all: to replay the
game, show it, export it. Kept as rows (one per event, line or answer, ~180 for a
five-player Avalon game) it cost most of the time a game took to store and most of the
file; as one document, compressed, it costs one row and a fifth of the bytes. What is
counted across games, a bot's conduct, is taken out of the log as it is packed
(``Conduct``) and kept as totals (table ``conduct``), so that nothing reads every log.

The document: ``{"v": 1, "events": [[kind, data, audience]], "actions": [[seat, kind,
value]], "lines": [[target, line]], "talk": [[seat, nick, text, at, after]], "answers":
[[seat, rid, line, at, latency, error, fallback, after]]}``, zlib-compressed; ``audience``
is a sorted list of seats or null (everyone), ``target`` a nick or null (the channel).
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..core.events import Event
from ..core.said import Answer, Talk
from ..protocol import ERROR, TIMEOUT, WARN, parse
from ..ratings import RatingSystem
from .codec import encode, tuples
from .database import Database

VERSION = 1

LEVEL = 1
"""zlib's fastest level: a document shrinks to about a fifth, in a tenth of the time
level 6 takes for a few percent less."""

REFUSED, WARNED, TIMED_OUT, FELL_BACK = "refused", "warn", "timeout", "fallback"
"""The kinds of conduct counted: an answer refused (by error code), a warning that a
deadline is near, a deadline missed (by what the referee did: ``default``, ``forfeit``),
an answer the bot's SDK gave for it (by ``fallback=`` marker)."""

_CONDUCT_LINES = ("ERROR", "WARN ", "TIMEO")
"""How the lines a bot's conduct is counted from begin (one test, before any parsing)."""

Conduct = tuple[tuple[str, str, str, int], ...]
"""(bot, kind, what, count) for one game: see the kinds above."""


class Log(NamedTuple):
    """A game's log, unpacked."""

    events: tuple[Event, ...]
    history: tuple[tuple[int, str, Any], ...]
    transcript: tuple[tuple[str | None, str], ...]
    talk: tuple[Talk, ...]
    answers: tuple[Answer, ...]


@dataclass(frozen=True)
class PackedLog:
    """A game's log as the store writes it, and the conduct counted from it."""

    data: bytes
    conduct: Conduct


def pack(
    identities: Sequence[str],
    nicks: Sequence[str],
    events: Iterable[Event],
    history: Iterable[tuple[int, str, Any]],
    transcript: Sequence[tuple[str | None, str]],
    talk: Iterable[Talk],
    answers: Sequence[Answer],
) -> PackedLog:
    """The log of a game whose seats were played by ``identities`` under ``nicks``."""
    document = {
        "v": VERSION,
        "events": [[e.kind, e.data, None if e.audience is None else sorted(e.audience)] for e in events],
        "actions": list(history),
        "lines": transcript,
        "talk": list(talk),
        "answers": answers,
    }
    data = zlib.compress(encode(document).encode(), LEVEL)
    return PackedLog(data, conduct(identities, nicks, transcript, answers))


def write(db: Database, seq: int, game: str, tournament: str | None, log: PackedLog) -> None:
    """Keep game ``seq``'s log and add its conduct to the totals of its game type and
    tournament (inside the transaction that records the game)."""
    db.execute("INSERT INTO logs (game_seq, data) VALUES (?, ?)", (seq, log.data))
    if log.conduct:
        db.executemany(
            db.dialect.upsert(
                "INSERT INTO conduct (game, tournament, bot, kind, what, n) VALUES (?,?,?,?,?,?)",
                "game, tournament, bot, kind, what",
                "n = conduct.n + excluded.n",
            ),
            ((game, tournament or "", *row) for row in log.conduct),
        )


def unpack(data: bytes) -> Log:
    """``pack``'s document, back as the values it was packed from."""
    doc = json.loads(zlib.decompress(data))
    if doc.get("v") != VERSION:
        raise ValueError(f"a game log of version {doc.get('v')!r}; this arena reads version {VERSION}")
    return Log(
        tuple(Event(kind, d, None if aud is None else frozenset(aud)) for kind, d, aud in doc["events"]),
        tuple((seat, kind, tuples(value)) for seat, kind, value in doc["actions"]),
        tuple((target, line) for target, line in doc["lines"]),
        tuple(Talk(*t) for t in doc["talk"]),
        tuple(Answer(*a) for a in doc["answers"]),
    )


def conduct(
    identities: Sequence[str],
    nicks: Sequence[str],
    transcript: Iterable[tuple[str | None, str]],
    answers: Iterable[Answer],
) -> Conduct:
    """How each seat's bot kept to the protocol in one game, from the lines the referee sent
    it and its answer lines: ``ERROR`` and ``WARN`` lines sent to its seat's nick (an
    ``ERROR`` with ``count=N`` stands for N refusals), ``TIMEOUT`` lines naming the nick
    (one naming no seat counts for the name it gives), and answers its SDK marked with
    ``fallback=``. Nicks compare without case."""
    seated = {n.lower(): b for n, b in zip(nicks, identities)}
    counts: Counter[tuple[str, str, str]] = Counter()
    for target, line in transcript:
        if not line.startswith(_CONDUCT_LINES):
            continue
        msg = parse(line)
        if msg.verb == TIMEOUT:
            player = msg.get("player", "")
            counts[seated.get(player.lower(), player), TIMED_OUT, msg.get("action", "")] += 1
            continue
        name = seated.get((target or "").lower())
        if name is None:
            continue  # said to someone else (a renamed nick, a bystander)
        if msg.verb == ERROR:
            counts[name, REFUSED, msg.args[0]] += msg.int("count", 1)
        elif msg.verb == WARN:
            counts[name, WARNED, ""] += 1
    for a in answers:
        if a.fallback is not None:
            counts[identities[a.seat], FELL_BACK, a.fallback] += 1
    return tuple((name, kind, what, n) for (name, kind, what), n in counts.items())


_ROWS = (
    ("events", "kind, data, audience"),
    ("actions", "seat, kind, value"),
    ("lines", "target, line"),
    ("talk", "seat, nick, text, at, after_lines"),
    ("answers", "seat, rid, line, at, latency, error, fallback, after_lines"),
)
"""The tables a game's log was kept in, one row an item, before the documents (schema 9)."""


def from_rows(db: Database, systems: Sequence[RatingSystem]) -> None:
    """Schema 9's step: each stored game's log rows packed into its document and its
    conduct counted, in one pass over each table in key order (memory: one game's log)."""
    streams = [_Rows(db.execute(f"SELECT game_seq, {c} FROM {table} ORDER BY game_seq, idx")) for table, c in _ROWS]
    games = db.execute("SELECT seq, game, tournament, nicks, COALESCE(bots, nicks) FROM games ORDER BY seq")
    for seq, game, tournament, nicks, bots in games:
        events, actions, lines, talk, answers = (rows.take(seq) for rows in streams)
        packed = pack(
            json.loads(bots),
            json.loads(nicks),
            (Event(kind, json.loads(d), None if a is None else frozenset(json.loads(a))) for kind, d, a in events),
            ((seat, kind, json.loads(value)) for seat, kind, value in actions),
            [(target, line) for target, line in lines],
            (Talk(*row) for row in talk),
            [Answer(*row) for row in answers],
        )
        write(db, seq, game, tournament, packed)


class _Rows:
    """A table's log rows in key order, taken a game at a time."""

    def __init__(self, rows: Iterable[Sequence[Any]]) -> None:
        self._rows = iter(rows)
        self._next: Sequence[Any] | None = next(self._rows, None)

    def take(self, seq: int) -> list[Sequence[Any]]:
        """Game ``seq``'s rows (without their key); rows of earlier games, which no stored game
        owns, are passed over."""
        out = []
        while self._next is not None and self._next[0] <= seq:
            if self._next[0] == seq:
                out.append(self._next[1:])
            self._next = next(self._rows, None)
        return out
