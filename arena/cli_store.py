"""``arena store``: the results store as a whole (a copy from one engine to the other)."""

from __future__ import annotations

import os
from typing import Any

import click

from .core.words import counted
from .store import Store
from .store.dialect import POSTGRES, shown


def register(main: click.Group) -> None:
    @main.group()
    def store() -> None:
        """The results store as a whole."""

    @store.command("copy")
    @click.argument("source", metavar="FROM")
    @click.argument("target", metavar="TO")
    @click.pass_obj
    def copy(obj: Any, source: str, target: str) -> None:
        """Copy every game, rating, bot, key, tournament and game in progress of the store FROM
        into the new (or empty) store TO. Each is a SQLite file or a postgresql:// URL: a
        SQLite store moves into PostgreSQL when several referees are to share it, and back.
        The copy is exact: `arena ratings rebuild` on it finds every stored value."""
        from .store.copy import CannotCopy, copy_store

        if not source.startswith(POSTGRES) and not os.path.exists(source):
            raise click.ClickException(f"no results database at {source}")
        systems = obj.config.ratings.systems()
        try:
            with Store(source, systems) as src, Store(target, systems) as dst:
                copied = copy_store(src, dst)
        except CannotCopy as exc:
            raise click.ClickException(str(exc)) from None
        except click.ClickException:
            raise
        except Exception as exc:  # sqlite3 or psycopg: a database that cannot be opened or written
            raise click.ClickException(f"cannot copy {shown(source)} to {shown(target)}: {exc}") from None
        rows = sum(copied.values())
        click.echo(
            f"copied {counted(copied['games'], 'game')} ({counted(rows, 'row')} in {len(copied)} tables) "
            f"from {shown(source)} to {shown(target)}"
        )
