"""The games the arena runs, by name: engines and how their events read on the wire."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

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


def rebuild(name: str, players: int, options: Mapping[str, Any], seed: int, deal: tuple[int, ...] | None,
            history: Iterable[tuple[int, str, Any]]) -> Game:
    """A fresh engine of game ``name`` replayed from its setup and the answers it took: since
    engines are deterministic, its state and events are the original's (a resumed game, a
    stored game, a live one shown to spectators)."""
    cls = GAMES[name]
    game = cls(players, cls.Options.from_mapping(options, game=name), seed, deal)  # type: ignore[call-arg]
    game.replay(history)
    return game
