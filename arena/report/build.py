"""The pages read from a store: what ``arena report`` writes and ``arena web`` serves, by
the same calls. Each returns None when the store has no such game or tournament."""

from __future__ import annotations

from ..games import GAMES
from ..store import Store
from ..store.export import export
from .pages import FILE, Links, game_page, standings_page
from .standings import standings


def game_html(store: Store, game_id: str, links: Links = FILE) -> str | None:
    """A stored game's page, or a game in progress as its channel has shown it."""
    doc = export(store, game_id)
    return None if doc is None else game_page(doc, links)


def tournament_html(store: Store, tournament: str, links: Links = FILE) -> str | None:
    """A tournament's standings (its games rated afresh), charts, role win rates and games."""
    found = store.tournaments.get(tournament)
    if found is None:
        return None
    game = str(found[0].get("game", ""))
    return standings_page(
        f"Tournament {tournament} ({game})",
        [standings(store, game, tournament)],
        store.games.find(tournament=tournament, limit=None),
        links=links,
    )


def store_html(store: Store, links: Links = FILE, games: int | None = None) -> str:
    """Every game type's standings over all stored games, the tournaments, and the games
    (the newest ``games`` of them; None: all)."""
    sections = [standings(store, game) for game in GAMES if store.games.find(game=game, limit=1)]
    return standings_page("All games", sections, store.games.each(limit=games), store.tournaments.all(), links)
