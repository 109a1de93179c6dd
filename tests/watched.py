"""Games for the tests of what spectators see (export, reports, the web view): stored
tournaments, and games left in progress in the store's journal, as a referee writes it."""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Container
from typing import Any

from click.testing import CliRunner

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.cli import main
from arena.config import TimeoutConfig
from arena.core.options import Options
from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.referee.journal import Journal
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.store import LiveGame, Store

SEED = 8_815_307_244_119_006
"""A seed long enough that finding its digits in a page means the page shows it."""
PLACE = "127.0.0.1:6667/#arena"
TIMEOUTS = TimeoutConfig(decision=30.0, grace=5.0)
TOURNAMENTS = {"av": ("avalon", 5, "avalon_rule"), "ww": ("werewolf", 8, "werewolf_rule")}
"""The stored tournaments: id -> (game, players, the rule bot half the seats get)."""


def run(store: Path, *args: str) -> Any:
    """``arena ARGS`` on the store at ``store``; fails the test on a non-zero exit."""
    result = CliRunner().invoke(main, list(args), env={"ARENA_STORE_PATH": str(store)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def stored_tournaments(path: Path, games: int = 4) -> None:
    """An Avalon and a Werewolf tournament of ``games`` games each, stored at ``path``."""
    for tid, (game, players, rule) in TOURNAMENTS.items():
        bots = [f"--bot=b{i}={rule if i % 2 else 'random'}" for i in range(players)]
        run(path, "tournament", "--id", tid, "--game", game, "--games", str(games), *bots)


class Stop(BaseException):
    """The referee stops here, its game left in progress in the store."""


class PacedJournal(Journal):
    """A journal that stops the referee at its ``stop_at``-th save, or waits ``pause`` seconds
    after each save, so a game runs slowly enough for a page to be seen updating."""

    def __init__(self, store: Store, stop_at: int | None = None, pause: float = 0.0) -> None:
        super().__init__(store, PLACE)
        self.stop_at, self.pause, self.saves = stop_at, pause, 0

    def save(self, skip: Container[str] = ()) -> dict[str, tuple[Match, Exception]]:
        failed = super().save(skip)
        self.saves += 1
        if self.saves == self.stop_at:
            raise Stop
        time.sleep(self.pause)
        return failed


def hub_game(store: Store, game: str, journal: PacedJournal, gid: str = "g1") -> LocalHub:
    """Rule bots play ``game`` (``gid``) through the referee's real code, journaled by
    ``journal`` and recorded in ``store`` at its end. ``chaos``: Werewolf with the chaos deck
    at 12 seats."""
    hub = LocalHub(TIMEOUTS, journal=journal)
    Recorder(store).attach(hub.referee)
    options: Options
    bot: Any
    if game == "avalon":
        seats, options, bot = [f"p{i}" for i in range(7)], AvalonOptions(percival=True, morgana=True), RuleBot
    elif game == "tuvalon":
        seats, options, bot = [f"t{i}" for i in range(7)], TuvalonOptions(), TuvalonRuleBot
    elif game == "chaos":
        game, seats, options, bot = (
            "werewolf",
            [f"c{i}" for i in range(12)],
            WerewolfOptions(preset="chaos"),
            WerewolfRuleBot,
        )
    else:
        seats, options, bot = [f"w{i}" for i in range(9)], WerewolfOptions(), WerewolfRuleBot
    for i, nick in enumerate(seats):
        hub.connect(nick, bot(seed=i))
    try:
        hub.play(game, seats, options, seed=SEED, gid=gid)
    except Stop:
        pass
    return hub


def live_game(store: Store, game: str, stop_at: int) -> LiveGame:
    """A game stopped at its referee's ``stop_at``-th save: in progress, as the store keeps it."""
    hub_game(store, game, PacedJournal(store, stop_at=stop_at))
    (live,) = store.live.all()
    return live
