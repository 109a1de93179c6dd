"""One JSON document per game: what ``arena export`` writes and what the report and the web
view render, so that a file, a page and a script reading the store cannot disagree.

A finished game's document holds everything: who was who, every event with its audience,
the answers, every line the referee sent, the ratings before and after. A game still in
progress (journaled in ``live_games``) gets the same shape holding only what its channel
has shown: public events and channel lines; no roles, no seed (the deal follows from it),
no answers, no direct messages. So a bot's author watching a game their bot plays sees
what a spectator in the channel sees, and nothing more, until the game's ``END``.
The format is documented field by field in the README ("The export format").
"""

from __future__ import annotations

from typing import Any, Iterable

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
    return [{"kind": c.entity[0], "entity": c.entity[1],
             "before": {"mu": c.before.mu, "sigma": c.before.sigma},
             "after": {"mu": c.after.mu, "sigma": c.after.sigma}} for c in changes]


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
            {"seat": seat, "nick": nick, "bot": bot, "role": game.roles[seat], "side": game.sides[seat],
             "result": outcomes[seat].result if seat in outcomes else None}
            for seat, (nick, bot) in enumerate(zip(s.nicks, s.bots))],
        "result": {"kind": s.kind, "winner": s.winner, "reason": s.reason, "winners": sorted(game.winners),
                   "forfeited": game.forfeited},
        "events": [e.to_dict() for e in game.events],
        "actions": [{"seat": seat, "kind": kind, "value": lists(value)}
                    for seat, kind, value in game.history],
        "lines": [{"to": to, "line": line} for to, line in game.transcript],
        "ratings": {system: _changes(changes) for system, changes in sorted(game.changes.items())},
    }


def export_live(live: LiveGame) -> dict[str, Any]:
    """A game in progress as its channel has shown it: its public events (its engine is
    rebuilt from the journaled answers, which never leave this function) and channel lines."""
    engine = rebuild(live.game, len(live.names), live.options, live.seed, live.deal, live.history)
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
        "players": [{"seat": seat, "nick": nick, "bot": bot, "role": None, "side": None, "result": None}
                    for seat, (nick, bot) in enumerate(zip(live.names, live.bots))],
        "result": None,
        "events": [e.to_dict() for e in engine.events if e.public],
        "actions": [],
        "lines": [{"to": None, "line": line} for to, _seat, line in live.lines if to is None],
        "ratings": {},
    }


def export(store: Store, game_id: str) -> dict[str, Any] | None:
    """The document of ``game_id``: finished if it is recorded (even while its end is on its
    way to the server), else live if it is in progress, else None."""
    stored = store.load_game(game_id)
    if stored is not None:
        return export_game(stored)
    live = store.all_live_games(game_id)
    return export_live(live[0]) if live else None
