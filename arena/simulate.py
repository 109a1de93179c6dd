"""In-process simulation: many games between built-in random legal players.

This is the engine's fast path (no protocol, no transport); it is what ``arena simulate``
and the engine benchmark run.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from .core.game import Game, Result
from .core.options import Options
from .core.seeds import derive_seed
from .config import TimeoutConfig
from .games import GAMES
from .referee.local import CLOCKS, LocalHub
from .referee.match import Timeouts
from .sdk.bot import Bot


def play_random(game: Game, rng: random.Random) -> Result:
    """Play ``game`` to the end with uniformly random legal answers.

    The benchmark's inner loop: one-item choices are drawn inline, as
    ``Decision.random_choice`` draws them (``floor`` is ``int`` on these numbers, and
    cheaper), to spare a call per answer; a choice of several items (an Avalon team) is one
    draw among all the possible answers (``_subsets``), which is as uniform as
    ``random_choice`` and much cheaper than ``Random.sample``. A round of tallied decisions
    (votes, quest cards) is answered in one ``apply_round`` once all its answers are drawn:
    none of them can change the round before the last."""
    apply, apply_round, rand, floor, tallied = game.apply, game.apply_round, rng.random, math.floor, game.tallied_kinds
    while game.result is None:
        pending = game.pending()
        together = len(pending) > 1 and pending[0].kind in tallied
        answers: list[Any] = []
        round_ = game.round
        for decision in pending:
            if game.round != round_:
                break  # a new round replaced what was pending
            options: tuple[Any, ...] | None = decision.options
            if decision.count != 1:
                options = _subsets(decision.options, decision.count)
            value = decision.random_choice(rng) if options is None else options[floor(rand() * len(options))]
            if together:
                answers.append(value)
            else:
                apply(decision.seat, decision.kind, value)
        if together:
            apply_round(answers)
    return game.result


_MAX_SUBSETS = 1000
"""Above this many possible answers ``_subsets`` declines and ``random_choice`` draws."""


@functools.lru_cache(maxsize=1024)
def _subsets(options: tuple[Any, ...], count: int) -> tuple[tuple[Any, ...], ...] | None:
    """Every legal answer to a choice of ``count`` distinct ``options``, as the sorted tuples
    ``Decision.check`` makes of them; None when there are too many to list. Depends only
    on its (immutable) arguments, so the cache is shared by all games."""
    if math.comb(len(options), count) > _MAX_SUBSETS:
        return None
    return tuple(tuple(sorted(subset)) for subset in itertools.combinations(options, count))


@dataclass
class Summary:
    game: str
    players: int
    games: int
    seed: int
    options: dict[str, Any]
    wins: Counter[str | None] = field(default_factory=Counter)
    end_reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON summary: identical for identical arguments except ``seconds``."""
        game_cls = GAMES[self.game]
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "options": self.options,
            "wins": {side: self.wins[side] for side in game_cls.sides},
            "end_reasons": {r: self.end_reasons[r] for r in game_cls.end_reasons if self.end_reasons[r]},
            "seconds": round(self.seconds, 6),
        }


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int,
    options: Options,
    progress: Callable[[int], None] | None = None,
    transport: str = "engine",
    timeouts: Timeouts | None = None,
    clock: str = "virtual",
) -> Summary:
    """Play ``games`` random games; game ``i`` uses seeds derived from ``(seed, i)`` alone.

    ``transport="engine"`` calls the engine directly; ``"protocol"`` plays the same games
    through protocol lines between the referee and SDK bots in memory (``timeouts`` apply,
    on the ``clock`` named, one of ``CLOCKS``: with ``"wall"`` the time the bots take to
    decide counts against their deadlines, and the same arguments may give other results).
    """
    game_cls = GAMES[game]
    summary = Summary(game, players, games, seed, options.to_dict())
    if transport == "protocol":
        hub = LocalHub(timeouts or TimeoutConfig(), clock=CLOCKS[clock])
        nicks = [f"random{i + 1}" for i in range(players)]
        for i, nick in enumerate(nicks):
            hub.connect(nick, Bot(seed=derive_seed(seed, "bot", i)))
    start = time.perf_counter()
    for i in range(games):
        if transport == "protocol":
            result = hub.play(game, nicks, options, derive_seed(seed, "game", i)).game.result
            assert result is not None
        else:
            g = game_cls(players, options, derive_seed(seed, "game", i))
            result = play_random(g, random.Random(derive_seed(seed, "players", i)))
        summary.wins[result.winner] += 1
        summary.end_reasons[result.reason] += 1
        if progress is not None:
            progress(1)
    summary.seconds = time.perf_counter() - start
    return summary
