"""The games the arena runs, by name."""

from __future__ import annotations

from ..core.game import Game
from .avalon.engine import AvalonGame

GAMES: dict[str, type[Game]] = {AvalonGame.name: AvalonGame}
