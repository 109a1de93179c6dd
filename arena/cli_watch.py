"""The ``arena`` commands for spectators: ``export`` (a game as one JSON document),
``report`` (self-contained HTML) and ``web`` (the same pages served, games in progress
included). Registered on the main group by ``arena.cli``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .cli_results import open_store


def _write(text: str, output: str) -> None:
    """To ``output``, or standard output for ``-``."""
    if output == "-":
        click.echo(text, nl=False)
    else:
        Path(output).write_text(text, encoding="utf-8")


def register(main: click.Group) -> None:
    """Add the spectators' commands to ``main``."""

    @main.command("export")
    @click.argument("game_id")
    @click.option("--format", "fmt", type=click.Choice(["json"]), default="json", show_default=True)
    @click.option("-o", "--output", default="-", show_default=True, help="File to write (- = standard output).")
    @click.pass_obj
    def export_(obj: Any, game_id: str, fmt: str, output: str) -> None:
        """One game as one JSON document (README: The export format). A game still being
        played gives only what its channel has shown: no roles, no secrets."""
        from .store.export import export

        with open_store(obj.config, check=False, create=False) as store:
            doc = export(store, game_id)
        if doc is None:
            raise click.ClickException(f"no game {game_id!r} is stored or in progress (see `arena games`)")
        _write(json.dumps(doc, indent=1) + "\n", output)

    @main.command()
    @click.argument("game_id", required=False)
    @click.option("--tournament", default=None, help="A tournament: standings, rating charts, role win rates, games.")
    @click.option("--all", "everything", is_flag=True, help="The whole store: every game type, tournament and game.")
    @click.option("-o", "--output", required=True, help="The HTML file to write (- = standard output).")
    @click.pass_obj
    def report(obj: Any, game_id: str | None, tournament: str | None, everything: bool, output: str) -> None:
        """Write a self-contained HTML report (opens without a network) of a game, a
        tournament or the whole store."""
        if sum((game_id is not None, tournament is not None, everything)) != 1:
            raise click.UsageError("name one of: GAME_ID, --tournament T, --all")
        from .report.build import game_html, store_html, tournament_html

        with open_store(obj.config, check=False, create=False) as store:
            if game_id is not None:
                html = game_html(store, game_id)
                missing = f"no game {game_id!r} is stored or in progress (see `arena games`)"
            elif tournament is not None:
                html = tournament_html(store, tournament)
                missing = f"no tournament {tournament!r} is stored"
            else:
                html, missing = store_html(store), ""
        if html is None:
            raise click.ClickException(missing)
        _write(html, output)
        if output != "-":
            click.echo(f"wrote {output}")

    @main.command()
    @click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
    @click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
    @click.pass_obj
    def web(obj: Any, host: str, port: int) -> None:
        """Serve the reports locally: the list of games, each game (those being played
        update as they go, showing only what their channel shows), tournaments, the store."""
        from werkzeug.serving import make_server

        from .web import create_app

        config = obj.config
        with open_store(config, check=False, create=False):
            pass  # says where it looked if there is no store, before anything listens
        server = make_server(host, port, create_app(config.store.location, config.ratings.systems()), threaded=True)
        click.echo(f"arena web on http://{host}:{server.server_port}/ (Ctrl-C stops)")
        server.serve_forever()
        # Werkzeug's loop ends only on Ctrl-C, which it swallows: end as every command does then.
        raise KeyboardInterrupt
