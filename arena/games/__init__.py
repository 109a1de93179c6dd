"""The games the arena runs, by name: the built-in kits are registered here, and the
engines and wire lines of every registered game (built in or not) are read from its kit."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Any, Generic, TypeVar

from ..core import kit
from ..core.game import Game
from .avalon.kit import KIT as AVALON
from .tuvalon.kit import KIT as TUVALON
from .werewolf.kit import KIT as WEREWOLF

for _built_in in (AVALON, WEREWOLF, TUVALON):  # the games that come with the arena, in the order lists show them
    kit.register(_built_in)

T = TypeVar("T")


class _ByGame(Mapping[str, T], Generic[T]):
    """One part of every registered kit, by game name, as the registry holds it now (a
    game registered at run time is in it from then on)."""

    def __init__(self, part: Callable[[kit.Kit], T]) -> None:
        self._part = part

    def __getitem__(self, name: str) -> T:
        return self._part(kit.find(name))

    def __iter__(self) -> Iterator[str]:
        return iter(kit.names())

    def __len__(self) -> int:
        return len(kit.names())


GAMES: Mapping[str, type[Game]] = _ByGame(lambda k: k.engine)
LINES: Mapping[str, kit.Lines] = _ByGame(lambda k: k.lines)


class _Reserved(AbstractSet[str]):
    """Words some registered game's options hold beside nicks, and ``all`` (``to=all``
    addresses every player): no player may be named like one."""

    def _words(self) -> frozenset[str]:
        return frozenset({"all"}).union(*(k.engine.reserved_words for k in kit.kits()))

    def __contains__(self, word: object) -> bool:
        return word in self._words()

    def __iter__(self) -> Iterator[str]:
        return iter(self._words())

    def __len__(self) -> int:
        return len(self._words())


RESERVED_NICKS: AbstractSet[str] = _Reserved()


def rebuild(
    name: str,
    players: int,
    options: Mapping[str, Any],
    seed: int,
    deal: tuple[int, ...] | None,
    history: Iterable[tuple[int, str, Any]],
) -> Game:
    """A fresh engine of game ``name`` replayed from its setup and the answers it took: since
    engines are deterministic, its state and events are the original's (a resumed game, a
    stored game, a live one shown to spectators)."""
    cls = GAMES[name]
    game = cls(players, cls.Options.from_mapping(options, game=name), seed, deal)
    game.replay(history)
    return game
