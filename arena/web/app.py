"""The web view: a Flask application over a results store.

Every request opens the store afresh and reads it (SQLite in WAL mode lets it read while a
referee writes), so the view adds nothing to the referee's work and follows its games as
they are journaled. A game in progress is shown only as its channel has shown it
(``arena.store.export.export_live``), whatever URL asks for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from flask import Flask, Response, abort, g, jsonify, request, url_for

from ..ratings import RatingSystem
from ..report import Links, Pages, game_body, index_page
from ..report.build import game_html, store_html, tournament_html
from ..store import Store
from ..store.dialect import POSTGRES
from ..store.export import export
from ..store.postgres import PgPool

LIST_LIMIT = 200
"""Stored games listed on the home and store pages (the newest)."""
LIVE_LIMIT = 50
"""Games in progress listed on a home page (``?page=N`` for the next): a referee running
hundreds of tables gets a page that costs the same as one running fifty, read from the
games' setups alone (``LiveGames.listing``)."""


def create_app(path: str, systems: Sequence[RatingSystem] | None = None) -> Flask:
    """The web view of the store at ``path`` (which must exist). A PostgreSQL store is read
    through a pool of connections, its schema brought up to date once, here: a request
    then costs no new connection, and takes no lock a referee's writes would wait for."""
    app = Flask(__name__)
    app.json.sort_keys = False  # type: ignore[attr-defined]  # the export's documented field order
    pool = None
    if path.startswith(POSTGRES):
        Store(path, systems).close()
        pool = PgPool(path)

    def store() -> Store:
        if "store" not in g:
            g.store = Store(path, systems) if pool is None else Store(path, systems, connection=pool.borrow())
        return g.store  # type: ignore[no-any-return]

    @app.teardown_appcontext
    def close(_exc: BaseException | None) -> None:
        found = g.pop("store", None)
        if found is not None:
            found.close()

    def links() -> Links:
        return Links(
            home=url_for("index"),
            everything=url_for("everything"),
            game=lambda gid: url_for("game", game_id=gid),
            tournament=lambda tid: url_for("tournament", tournament=tid),
            body=lambda gid: url_for("body", game_id=gid),
        )

    @app.get("/")
    def index() -> str:
        s = store()
        page = max(1, request.args.get("page", 1, type=int) or 1)
        live, total = s.live.listing(LIVE_LIMIT, (page - 1) * LIVE_LIMIT)
        pages = Pages(
            first=(page - 1) * LIVE_LIMIT + 1,
            total=total,
            previous=url_for("index", page=page - 1) if page > 1 else None,
            next=url_for("index", page=page + 1) if page * LIVE_LIMIT < total else None,
        )
        return index_page(s.games.find(limit=LIST_LIMIT), live, s.tournaments.all(), links(), pages)

    @app.get("/all")
    def everything() -> str:
        return store_html(store(), links(), LIST_LIMIT)

    @app.get("/games/<game_id>")
    def game(game_id: str) -> str:
        return game_html(store(), game_id, links()) or abort(404)

    @app.get("/games/<game_id>/body")
    def body(game_id: str) -> Response:
        """A game page's changing part, for a live page to fetch; its status and number of
        events in headers, so the page knows when to stop."""
        doc = export(store(), game_id)
        if doc is None:
            abort(404)
        response = Response(game_body(doc, links()), mimetype="text/html")
        response.headers["X-Arena-Status"] = doc["status"]
        response.headers["X-Arena-Events"] = str(len(doc["events"]))
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/games/<game_id>.json")
    def game_json(game_id: str) -> Response:
        doc = export(store(), game_id)
        return jsonify(doc) if doc is not None else abort(404)

    @app.get("/tournaments/<tournament>")
    def tournament(tournament: str) -> str:
        return tournament_html(store(), tournament, links()) or abort(404)

    return app
