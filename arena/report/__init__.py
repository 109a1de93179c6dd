"""Reports: a game, a tournament or the whole store as self-contained HTML (``arena
report``), the same pages the web view serves (``arena web``)."""

from __future__ import annotations

from .pages import FILE, Links, Pages, game_body, game_page, index_page, standings_page
from .standings import Standings, standings

__all__ = ["FILE", "Links", "Pages", "Standings", "game_body", "game_page", "index_page", "standings", "standings_page"]
