"""The built-in games' parts of a game's page: the variables their templates read
(``avalon.html``, ``tuvalon.html``, ``werewolf.html``), from the export document. Each
game's kit names its function here (``Kit.page``) and its templates (``Kit.templates``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import views


def avalon(doc: Mapping[str, Any], names: views.Names) -> Mapping[str, Any]:
    """The quest track and the vote grid."""
    return {"avalon": views.avalon(doc, names)}


def tuvalon(doc: Mapping[str, Any], names: views.Names) -> Mapping[str, Any]:
    """Avalon's, and the map round by round."""
    return {**avalon(doc, names), "rounds": views.tuvalon_map(doc)}


def werewolf(doc: Mapping[str, Any], names: views.Names) -> Mapping[str, Any]:
    """The nights and days, each with what was said in it (so the page lists no talk apart)."""
    return {"phases": views.werewolf(doc, names), "talk_shown": True}
