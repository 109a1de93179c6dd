"""One JSON document per game: what ``arena export`` writes and what the report and the web
view render, so that a file, a page and a script reading the store cannot disagree.

A finished game's document holds everything: who was who, every event with its audience,
the answers, every line the referee sent, the players' talk and answer lines, the ratings
before and after. A game still in progress (journaled in ``live_games``) gets the same
shape holding only what its channel has shown: public events, channel lines and talk; no
roles, no seed (the deal follows from it), no answers, no direct messages. So a bot's author
watching a game their bot plays sees
what a spectator in the channel sees, and nothing more, until the game's ``END``.
The format is documented field by field in docs/operators.md ("The export format").
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import Any

from ..core.said import Answer, Talk
from ..games import rebuild
from ..ratings.model import Change
from .codec import lists
from .db import Store
from .live import LiveGame
from .records import StoredGame

FORMAT = "arena-game/1"
"""The document's ``format``: its name and version (a new version changes or drops a field)."""

LIVE = "live"
FINISHED = "finished"


def _changes(changes: Iterable[Change]) -> list[dict[str, Any]]:
    return [
        {
            "kind": c.entity[0],
            "entity": c.entity[1],
            "before": {"mu": c.before.mu, "sigma": c.before.sigma},
            "after": {"mu": c.after.mu, "sigma": c.after.sigma},
        }
        for c in changes
    ]


def _talk(talk: Iterable[Talk], after: Callable[[int], int] = int) -> list[dict[str, Any]]:
    """The talk, each line placed by ``after`` (how many of the document's ``lines`` came
    before it; ``after`` maps the transcript's count to that)."""
    return [{"seat": t.seat, "nick": t.nick, "text": t.text, "at": t.at, "after": after(t.after)} for t in talk]


def _answers(answers: Iterable[Answer]) -> list[dict[str, Any]]:
    return [
        {
            "seat": a.seat,
            "rid": a.rid,
            "line": a.line,
            "at": a.at,
            "latency": a.latency,
            "error": a.error,
            "fallback": a.fallback,
            "after": a.after,
        }
        for a in answers
    ]


def export_game(game: StoredGame) -> dict[str, Any]:
    """The whole of a finished (or aborted) game."""
    s = game.summary
    outcomes = {o.seat: o for o in game.outcomes}
    return {
        "format": FORMAT,
        "id": s.id,
        "game": s.game,
        "status": FINISHED,
        "tournament": s.tournament,
        "started": s.started,
        "finished": s.finished,
        "seed": game.seed,
        "options": game.options,
        "players": [
            {
                "seat": seat,
                "nick": nick,
                "bot": bot,
                "role": game.roles[seat],
                "side": game.sides[seat],
                "result": outcomes[seat].result if seat in outcomes else None,
            }
            for seat, (nick, bot) in enumerate(zip(s.nicks, s.bots))
        ],
        "result": {
            "kind": s.kind,
            "winner": s.winner,
            "reason": s.reason,
            "winners": sorted(game.winners),
            "forfeited": game.forfeited,
        },
        "events": [e.to_dict() for e in game.events],
        "actions": [{"seat": seat, "kind": kind, "value": lists(value)} for seat, kind, value in game.history],
        "lines": [{"to": to, "line": line} for to, line in game.transcript],
        "talk": _talk(game.talk),
        "answers": _answers(game.answers),
        "ratings": {system: _changes(changes) for system, changes in sorted(game.changes.items())},
    }


def export_live(live: LiveGame) -> dict[str, Any]:
    """A game in progress as its channel has shown it: its public events (its engine is
    rebuilt from the journaled answers, which never leave this function), its channel lines
    and the players' talk there (placed among the channel lines alone: how many direct
    messages came before a line of talk is not the channel's to know)."""
    engine = rebuild(live.game, len(live.names), live.options, live.seed, live.deal, live.history)
    direct = [i for i, (to, _seat, _line) in enumerate(live.lines) if to is not None]

    def channel_lines_before(after: int) -> int:
        return after - bisect_left(direct, after)

    return {
        "format": FORMAT,
        "id": live.id,
        "game": live.game,
        "status": LIVE,
        "tournament": live.tournament,
        "started": live.started,
        "finished": None,
        "seed": None,
        "options": live.options,
        "players": [
            {"seat": seat, "nick": nick, "bot": bot, "role": None, "side": None, "result": None}
            for seat, (nick, bot) in enumerate(zip(live.names, live.bots))
        ],
        "result": None,
        "events": [e.to_dict() for e in engine.events if e.public],
        "actions": [],
        "lines": [{"to": None, "line": line} for to, _seat, line in live.lines if to is None],
        "talk": _talk(live.talk, channel_lines_before),
        "answers": [],
        "ratings": {},
    }


def export(store: Store, game_id: str) -> dict[str, Any] | None:
    """The document of ``game_id``: finished if it is recorded (even while its end is on its
    way to the server), else live if it is in progress, else None."""
    stored = store.games.load(game_id)
    if stored is not None:
        return export_game(stored)
    live = store.live.all(game_id)
    return export_live(live[0]) if live else None
