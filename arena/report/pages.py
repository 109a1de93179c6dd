"""HTML pages: a game (from its export document), a tournament, the whole store, and the
web view's list of games. ``arena report`` writes them to files and ``arena web`` serves
them; both call these functions, so a file and a page never differ.

Every page is self-contained: its CSS is inline and its charts are SVG drawn here, so a
report opens without a network. Only a live game's page in the web view carries a script,
a few lines that fetch its body again as the game goes on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PackageLoader,
    StrictUndefined,
    TemplateNotFound,
    select_autoescape,
)

from ..core import kit as kits
from ..core.words import counted
from ..store import GameSummary, LiveGame
from ..store.export import LIVE
from . import charts, views
from .standings import Standings


@dataclass(frozen=True)
class Links:
    """Where a page links to. A report file links nowhere (every ``None``); the web view
    gives its routes, so game ids and tournaments become links."""

    home: str | None = None
    everything: str | None = None
    """The whole store's standings."""
    game: Callable[[str], str] | None = None
    tournament: Callable[[str], str] | None = None
    body: Callable[[str], str] | None = None
    """A game's body alone, which a live page fetches to update itself."""


FILE = Links()
"""The links of a report written to a file: none."""


class _KitTemplates(BaseLoader):
    """The templates of games that keep theirs outside the report (``Kit.template_dir``)."""

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Any]:
        for kit in kits.kits():
            if kit.template_dir is not None and template in kit.templates:
                return FileSystemLoader(kit.template_dir).get_source(environment, template)
        raise TemplateNotFound(template)


_env = Environment(
    loader=ChoiceLoader([PackageLoader("arena.report", "templates"), _KitTemplates()]),
    autoescape=select_autoescape(["html"]),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["when"] = lambda t: time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t)) if t else ""
_env.filters["word"] = views.word
_env.filters["counted"] = counted
_env.filters["pct"] = lambda r: "–" if r is None else f"{r * 100:.0f}%"
_env.globals["side_class"] = views.side_class
_env.globals["tuvalon_map"] = charts.tuvalon_map
_env.globals["seat_colour"] = charts.seat_colour


def _game_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What a game's page shows: what every game has, then its own part, as its kit gives it
    (``talk_shown``: its part shows what was said, so the page does not list it apart)."""
    names = views.Names(tuple(p["nick"] for p in doc["players"]))
    kit = kits.get(doc["game"])
    own = kit.page()(doc, names) if kit is not None and kit.page is not None else {}
    return {
        "doc": doc,
        "live": doc["status"] == LIVE,
        "players": views.players(doc),
        "names": names,
        "log": views.event_lines(doc, names),
        "talk": views.talk_by_proposal(doc),
        "sections": kit.templates if kit is not None and kit.page is not None else (),
        "talk_shown": False,
        **own,
    }


def game_body(doc: Mapping[str, Any], links: Links = FILE) -> str:
    """The part of a game's page that changes while it is played."""
    return _env.get_template("game_body.html").render(links=links, **_game_context(doc))


def game_page(doc: Mapping[str, Any], links: Links = FILE) -> str:
    """A game's page: who was who, then the game's own part (the Avalon grid and Tuvalon's map,
    the Werewolf timeline: its kit's), the events and what was said; a live
    game's page (with ``links.body``) updates itself until the game ends."""
    title = f"{doc['game']} {doc['id']}"
    return _env.get_template("game.html").render(title=title, links=links, **_game_context(doc))


def standings_page(
    title: str,
    sections: Sequence[Standings],
    games: Iterable[GameSummary],
    tournaments: Sequence[tuple[str, str, int, float]] = (),
    links: Links = FILE,
) -> str:
    """A tournament's page (one section) or the whole store's (one per game type)."""
    return _env.get_template("standings.html").render(
        title=title, sections=sections, games=games, tournaments=tournaments, links=links
    )


@dataclass(frozen=True)
class Pages:
    """Where a page of the games being played stands among them all."""

    first: int
    """The number (from 1) of the first game listed."""
    total: int
    """Games being played."""
    previous: str | None = None
    next: str | None = None
    """The addresses of the pages before and after, if any."""


def index_page(
    games: Sequence[GameSummary],
    live: Sequence[LiveGame],
    tournaments: Sequence[tuple[str, str, int, float]],
    links: Links,
    pages: Pages | None = None,
) -> str:
    """The web view's home: games being played (one page of them), tournaments, the stored games."""
    return _env.get_template("index.html").render(
        title="arena",
        games=games,
        live=live,
        pages=pages or Pages(1, len(live)),
        tournaments=tournaments,
        links=links,
    )
