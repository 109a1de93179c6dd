"""In-process simulation: many games between built-in random legal players.

This is the engine's fast path (no protocol, no transport); it is what ``arena simulate``
and the engine benchmark run.
"""

from __future__ import annotations

import contextlib
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
from .core.seeds import derive_seed, seed_series
from .config import TimeoutConfig
from .games import GAMES
from .parallel import Workers, cores
from .referee.clocks import CLOCKS
from .referee.local import LocalHub
from .referee.match import Timeouts
from .sdk.bot import Bot


def play_random(game: Game, rng: random.Random) -> Result:
    """Play ``game`` to the end with uniformly random legal answers.

    The benchmark's inner loop: one-item choices are drawn inline, as
    ``Decision.random_choice`` draws them (``floor`` is ``int`` on these numbers, and
    cheaper), to spare a call per answer; a choice of several items (an Avalon team) is one
    draw among all the possible answers (``_subsets``), which is as uniform as
    ``random_choice`` and much cheaper than ``Random.sample``. A round of tallied decisions
    (votes, quest cards: one-item choices) is answered in one ``apply_round`` once all its
    answers are drawn: none of them can change the round before the last."""
    apply, apply_round, rand, floor, tallied = game.apply, game.apply_round, rng.random, math.floor, game.tallied_kinds
    while game.result is None:
        pending = game.pending()
        if len(pending) > 1 and pending[0].kind in tallied:
            answers = []
            for decision in pending:
                options = decision.options
                answers.append(options[floor(rand() * len(options))])
            apply_round(answers)
            continue
        round_ = game.round
        for decision in pending:
            choices: tuple[Any, ...] | None = decision.options
            if decision.count != 1:
                choices = _subsets(decision.options, decision.count)
            value = decision.random_choice(rng) if choices is None else choices[floor(rand() * len(choices))]
            apply(decision.seat, decision.kind, value)
            if game.round != round_:
                break  # a new round replaced what was pending
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


class _Games:
    """Plays games of a simulation by their numbers: the engine's random players, or SDK
    random bots over the protocol in memory, its hub and bots kept from one range of games
    to the next (in this process, or in a worker of ``arena.parallel``)."""

    def __init__(
        self, game: str, players: int, seed: int, options: Options, transport: str, timeouts: Timeouts, clock: str
    ) -> None:
        self.game_cls = GAMES[game]
        self.game = game
        self.players = players
        self.seed = seed
        self.options = options
        self.protocol = transport == "protocol"
        self.game_seeds = seed_series(seed, "game")
        self.player_seeds = seed_series(seed, "players")
        self.rng = random.Random()
        """The random players' generator, seeded afresh for every game (as a new one would be)."""
        self.nicks = [f"random{i + 1}" for i in range(players)]
        self.bots = [Bot() for _ in self.nicks]
        self.hub = LocalHub(timeouts, clock=CLOCKS[clock])
        if self.protocol:
            for nick, bot in zip(self.nicks, self.bots):
                self.hub.connect(nick, bot)

    def __call__(self, numbers: range) -> tuple[Counter[str | None], Counter[str]]:
        """The winners and end reasons of games ``numbers``."""
        wins: Counter[str | None] = Counter()
        reasons: Counter[str] = Counter()
        seed = self.seed
        for i in numbers:
            if self.protocol:
                for n, bot in enumerate(self.bots):  # per game: any game, in any process, is the same
                    bot.rng.seed(derive_seed(seed, "bot", n, i))
                result = self.hub.play(self.game, self.nicks, self.options, self.game_seeds(i)).game.result
                assert result is not None
            else:
                self.rng.seed(self.player_seeds(i))
                result = play_random(self.game_cls(self.players, self.options, self.game_seeds(i)), self.rng)
            wins[result.winner] += 1
            reasons[result.reason] += 1
        return wins, reasons

    def close(self) -> None:
        return None


GAMES_PER_WORKER = {"engine": 20000, "protocol": 300}
"""Games a worker process plays at least, by transport: starting one costs up to a second
(a spawned interpreter imports the arena; a forked one still sets up its own players),
which fewer games would not pay back."""


def _ranges(games: int, jobs: int) -> list[range]:
    """The games cut into ranges: a few per worker, so that workers finish together and
    the progress moves, and not so many that sending them costs more than playing them."""
    size = max(1, min(1000, games // (jobs * 8)))
    return [range(start, min(start + size, games)) for start in range(0, games, size)]


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
    jobs: int | None = 1,
) -> Summary:
    """Play ``games`` random games; game ``i`` uses seeds derived from ``(seed, i)`` alone,
    so the summary is the same with any number of worker processes (``jobs``; None: one
    per core, each with at least ``GAMES_PER_WORKER`` games to play).

    ``transport="engine"`` calls the engine directly; ``"protocol"`` plays the same games
    through protocol lines between the referee and SDK bots in memory (``timeouts`` apply,
    on the ``clock`` named, one of ``CLOCKS``: with ``"wall"`` the time the bots take to
    decide counts against their deadlines, and the same arguments may give other results).
    """
    summary = Summary(game, players, games, seed, options.to_dict())
    jobs = min(cores(), games // GAMES_PER_WORKER[transport]) if jobs is None else min(jobs, games)
    jobs = max(jobs, 1)
    ranges = _ranges(games, jobs)
    args = (game, players, seed, options, transport, timeouts or TimeoutConfig(), clock)
    start = time.perf_counter()
    with contextlib.ExitStack() as stack:
        if jobs > 1:
            workers = stack.enter_context(Workers(_Games, args, jobs))
            results = workers.ordered(ranges)
        else:
            results = map(_Games(*args), ranges)
        for numbers, (wins, reasons) in zip(ranges, results):
            summary.wins.update(wins)
            summary.end_reasons.update(reasons)
            if progress is not None:
                progress(len(numbers))
    summary.seconds = time.perf_counter() - start
    return summary
