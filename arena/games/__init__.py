"""The games the arena runs, by name: engines and how their events read on the wire."""

from __future__ import annotations

from ..core.game import Game
from .avalon.engine import AvalonGame
from .avalon.lines import AvalonLines
from .werewolf.engine import WerewolfGame
from .werewolf.lines import WerewolfLines

GAMES: dict[str, type[Game]] = {AvalonGame.name: AvalonGame, WerewolfGame.name: WerewolfGame}
LINES: dict[str, AvalonLines | WerewolfLines] = {AvalonGame.name: AvalonLines(), WerewolfGame.name: WerewolfLines()}

RESERVED_NICKS: frozenset[str] = frozenset({"all"} | {w for g in GAMES.values() for w in g.reserved_words})
"""Words some game's options hold beside nicks, and ``all`` (``to=all`` addresses every
player): no player may be named like one."""
