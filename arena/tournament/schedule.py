"""Tournaments: a fixed schedule of games between chosen bots, stored as they finish.

Game ``i`` of a tournament is a pure function of its settings and its secret master key
(drawn when the tournament is created, kept in the store, never shown): who plays, in which
seat order (kept for ``keep`` games, then reshuffled) and the game's seed, from which the
engine deals the roles uniformly at random. Without the key no public line, setting or
amount of earlier games tells who gets which role next; with it a resumed tournament plays
exactly the games an uninterrupted one would. Nothing balances role exposure: any balancing
would make a bot's next role guessable from its public history, and the ratings' side
terms absorb role luck. A stored game is written with the tournament's progress in one
transaction, so an interrupted tournament resumes at the first game not stored: nothing is
lost and nothing is played twice.
"""

from __future__ import annotations

import importlib
import importlib.util
import random
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections.abc import Mapping
from typing import Any

from ..bots import builtin_bots
from ..core.keys import derive
from ..core.seating import Seating
from ..sdk.bot import Bot


class TournamentError(ValueError):
    """The tournament cannot run as asked; the message says what to change."""


@dataclass(frozen=True)
class Entry:
    """One player of a tournament: its nick (its rating identity) and, locally, its bot."""

    nick: str
    bot: str | None

    @classmethod
    def parse(cls, text: str) -> Entry:
        nick, sep, bot = text.partition("=")
        return cls(nick, bot if sep else None)


@dataclass(frozen=True)
class Settings:
    """Everything that fixes a tournament's schedule and how its games are played; stored
    with it, checked on resume."""

    id: str
    game: str
    games: int
    players: int
    bots: tuple[str, ...]
    options: Mapping[str, Any]
    transport: str
    keep: int
    clock: str = "virtual"
    """The clock of a local tournament (``arena.referee.clocks.CLOCKS``): a tournament keeps
    the one it started with, so that one on the virtual clock stays reproducible as a whole."""

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(Entry.parse(b) for b in self.bots)

    def to_dict(self) -> dict[str, Any]:
        """As stored. The virtual clock is left out: tournaments stored before there was a
        choice of clock played on it, and say nothing of it."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        data["options"] = dict(self.options)
        if self.clock == "virtual":
            del data["clock"]
        return data

    def check(self) -> None:
        """Raise TournamentError if no schedule can seat these bots; before anything is stored."""
        nicks = [e.nick for e in self.entries]
        if len({n.lower() for n in nicks}) != len(nicks):
            raise TournamentError("every bot of a tournament needs its own nick")
        if self.players > len(nicks):
            raise TournamentError(f"{self.players} seats per game but only {len(nicks)} bots")

    def schedule_key(self) -> dict[str, Any]:
        """What must not change between a run and its resumption (the number of games may grow)."""
        data = self.to_dict()
        del data["games"]
        return data


@dataclass(frozen=True)
class Table:
    """Game ``index`` of the tournament (0-based)."""

    index: int
    gid: str
    seats: tuple[str, ...]
    seed: int = field(repr=False)
    """Secret (kept out of ``repr``): the engine deals the roles from it."""


class Schedule:
    """The tables of a tournament, game by game.

    With more bots than seats, each block of ``keep`` games seats a window of the roster
    that moves on by ``players`` bots per block, so every bot plays as often as the others
    (to within one block) and meets every other.
    """

    def __init__(self, settings: Settings, key: bytes) -> None:
        settings.check()
        self.settings = settings
        self.key = key
        self._roster = sorted(e.nick for e in settings.entries)
        random.Random(derive(key, "roster")).shuffle(self._roster)
        self._last: Table | None = None

    def table(self, index: int) -> Table:
        last = self._last
        if last is not None and last.index == index:
            return last  # a seater asks for the next game's table until it is seated
        s = self.settings
        block = index // s.keep
        n = len(self._roster)
        if s.players == n:
            players = self._roster
        else:
            start = (block * s.players) % n
            players = [self._roster[(start + k) % n] for k in range(s.players)]
        seating = Seating(players, s.keep, derive(self.key, "seating", block))
        self._last = Table(
            index=index,
            gid=f"{s.id}-{index + 1}",
            seats=seating.order(index),
            seed=derive(self.key, "game", index),
        )
        return self._last

    def index(self, gid: str) -> int:
        """The index of the game ``table`` numbered ``gid``."""
        return int(gid.rpartition("-")[2]) - 1

    def bot_seed(self, nick: str, index: int) -> int:
        """The seed of ``nick``'s random stream in game ``index`` of a local tournament: under
        its own label, so a bot learns nothing of the deal from its randomness, and per
        game, so a resumed tournament plays the same games as an uninterrupted one."""
        return derive(self.key, "bot", nick, index)

    def module_seed(self, index: int) -> int:
        """The seed of the ``random`` module's stream in game ``index`` of a local tournament,
        which every bot of the process shares; a label of its own, like ``bot_seed``."""
        return derive(self.key, "module", index)


def load_bot_class(spec: str) -> type[Bot]:
    """``random``, ``avalon_rule``, ``package.module:Class`` or ``path/to/file.py:Class``."""
    known_bots = builtin_bots()
    target = known_bots.get(spec, spec)
    where, sep, name = target.rpartition(":")
    if not sep or not where or not name:
        known = ", ".join(known_bots)
        raise TournamentError(f"bot {spec!r}: expected one of {known}, module:Class or file.py:Class")
    try:
        if where.endswith(".py"):
            path = Path(where)
            module_name = f"arena_bot_{path.stem}"
            loader = importlib.util.spec_from_file_location(module_name, path)
            if loader is None or loader.loader is None:
                raise TournamentError(f"bot {spec!r}: cannot load {path}")
            module = importlib.util.module_from_spec(loader)
            sys.modules[module_name] = module
            loader.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except (ImportError, OSError) as exc:
        raise TournamentError(f"bot {spec!r}: {exc}") from None
    cls = getattr(module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise TournamentError(f"bot {spec!r}: {name} is not a subclass of arena.sdk.Bot")
    return cls
