"""The games the arena runs, by name: engines and how their events read on the wire."""

from __future__ import annotations

from ..core.game import Game
from .avalon.engine import AvalonGame
from .avalon.lines import AvalonLines

GAMES: dict[str, type[Game]] = {AvalonGame.name: AvalonGame}
LINES = {AvalonGame.name: AvalonLines()}
