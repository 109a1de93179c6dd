"""A game's kit: everything the arena needs to know of one game, in one record.

The referee, the narrator, the store, the report and the SDK each need something of a
game (its engine, how its events read on the wire, how spectators are told them, its
figures, its page, the SDK's state for it). Each reads it here, from the game's ``Kit``,
so adding a game is writing its kit and registering it (``register``), and no module
outside the game's folder names it.

The type lives this low so that every package can look a kit up without importing the
games: a field that belongs to a higher package (the SDK, the report) is a loader, a
``Ref`` naming where it lives, imported on first use. The built-in kits are registered by
``arena.games`` (``BUILTIN``), which the first look-up imports; a game that lives outside
the arena registers its own kit at run time.
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from .decisions import Decision
from .events import Event
from .game import Game

T = TypeVar("T")

BUILTIN = "arena.games"
"""The module whose import registers the built-in kits: imported by the first look-up."""


class Lines(Protocol):
    """How a game's events read on the wire (the referee's lines are ``arena.protocol``
    messages; this package sits below the protocol, so they are typed loosely here)."""

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Any: ...
    def ask_context(self, game: Any, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]: ...
    @property
    def private_talk(self) -> str: ...
    @property
    def private_lines(self) -> int | None: ...


class Story(Protocol):
    """One game told to spectators from its public lines (``arena.narrate.story.Story``)."""

    over: bool
    """Whether its END has been told."""

    def hear(self, msg: Any, at: float | None = None) -> list[Any]: ...
    def talk(self, nick: str, text: str) -> list[Any]: ...
    def whisper(self, nick: str, text: str, hearers: Sequence[str]) -> list[Any]: ...


PageView = Callable[[Mapping[str, Any], Any], Mapping[str, Any]]
"""A game's part of its report page: from the export document and the seats' names
(``arena.report.views.Names``), the variables its templates read."""


@dataclass(frozen=True)
class Figure:
    """A role's figure: among the games a bot played in ``role`` whose end reason is in
    ``counted``, the share whose reason is in ``success`` (``arena stats``)."""

    name: str
    role: str
    help: str
    counted: frozenset[str]
    success: frozenset[str]


@dataclass(frozen=True)
class Ref(Generic[T]):
    """A part of a kit that lives in a higher package, named (``package.module:name``)
    rather than imported, so a game's folder imports nothing above it and the SDK, the
    report and the language-model code load only when they are used. Calling it loads it."""

    target: str

    def __call__(self) -> T:
        module, _, name = self.target.partition(":")
        found: T = getattr(importlib.import_module(module), name)
        return found


@dataclass(frozen=True)
class Kit:
    """One game, as every part of the arena sees it."""

    name: str
    """The game's name on the wire (``game=``), in the store and on the command line."""
    engine: type[Game]
    """The pure engine (``arena.core.game.Game``); its ``Options`` are the game's options."""
    lines: Lines
    """How its events read on the wire."""
    verbs: Mapping[str, tuple[int, int]]
    """Its own event verbs, each with its least and most args: the protocol parses them
    once the kit is registered."""
    story: Callable[[str, list[str]], Story]
    """A game's narration, made from its id and seats (``arena.narrate.story.Story``)."""
    figures: tuple[Figure, ...] = ()
    """Its roles' figures (``arena stats``)."""
    page: Callable[[], PageView] | None = None
    """Its part of a game's report page; None: the page shows the players and the events."""
    templates: tuple[str, ...] = ()
    """The Jinja templates that show ``page``'s variables, in order."""
    template_dir: str | None = None
    """Where ``templates`` are, for a game outside the arena (None: the report's own)."""
    sdk: Callable[[], Any] | None = None
    """The SDK's spec of the game (``arena.sdk.view.GameSpec``: its state and requests)."""
    llm: Callable[[], Any] | None = None
    """The language-model bot's renderer class (``arena.sdk.llm.render.Renderer``)."""
    bots: Mapping[str, str] = field(default_factory=dict)
    """Sample bots by the name a tournament knows them under (``avalon_rule``), each
    ``package.module:Class``."""
    demo: tuple[str, str] | None = None
    """Modules ``arena demo`` runs as bots (``python -m``): the rule bot of half the seats
    (rounded up), then the bot of the others; None: no demo of this game."""


_KITS: dict[str, Kit] = {}
_loaded = False
_lock = threading.RLock()
_listeners: list[Callable[[tuple[Kit, ...]], None]] = []


def _tell() -> None:
    for listen in _listeners:
        listen(tuple(_KITS.values()))


def register(kit: Kit) -> Kit:
    """Make ``kit``'s game known to the whole arena. Registering it again changes nothing;
    a different kit under a taken name, or verbs another game gives other arities, is
    refused (ValueError)."""
    with _lock:
        if _KITS.get(kit.name, kit) is not kit:
            raise ValueError(f"a game named {kit.name!r} is registered already")
        if kit.name not in _KITS:
            _KITS[kit.name] = kit
            try:
                _tell()
            except ValueError:
                del _KITS[kit.name]
                _tell()
                raise
    return kit


def unregister(name: str) -> None:
    """Forget game ``name`` (a test's game, once the test is over)."""
    with _lock:
        if _KITS.pop(name, None) is not None:
            _tell()


def on_change(listen: Callable[[tuple[Kit, ...]], None]) -> None:
    """Call ``listen`` with every registered kit now and whenever one is registered or
    forgotten (the protocol learns the games' verbs so); a ValueError it raises refuses
    the registration."""
    with _lock:
        _listeners.append(listen)
        listen(tuple(_KITS.values()))


def _builtins() -> dict[str, Kit]:
    global _loaded
    if not _loaded:
        with _lock:
            if not _loaded:
                _loaded = True
                importlib.import_module(BUILTIN)
    return _KITS


def find(name: str) -> Kit:
    """The kit of game ``name``; KeyError if no such game is registered."""
    return _builtins()[name]


def get(name: str) -> Kit | None:
    return _builtins().get(name)


def kits() -> tuple[Kit, ...]:
    """Every registered kit, the built-in ones first, in the order registered."""
    return tuple(_builtins().values())


def names() -> tuple[str, ...]:
    return tuple(_builtins())


def bots() -> dict[str, str]:
    """Every registered game's sample bots (``Kit.bots``), by the names a tournament knows."""
    return {name: target for kit in kits() for name, target in kit.bots.items()}
