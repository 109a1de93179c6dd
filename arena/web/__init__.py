"""``arena web``: the report's pages served locally, with games in progress as they are played."""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
