"""Odd one out's kit: every part of the game, for the arena to register at run time
(``arena.core.kit.register(KIT)``)."""

from __future__ import annotations

from pathlib import Path

from arena.core.kit import Figure, Kit

from .engine import CAUGHT, ESCAPED, SPY, OddOneGame
from .lines import TALLY, OddOneLines
from .narration import OddOneStory
from .page import page
from .sdk import SPEC

KIT = Kit(
    name=OddOneGame.name,
    engine=OddOneGame,
    lines=OddOneLines(),
    verbs={TALLY: (1, 1)},
    story=OddOneStory,
    figures=(
        Figure("spy_escape", SPY, "as the spy, never caught", frozenset({CAUGHT, ESCAPED}), frozenset({ESCAPED})),
    ),
    page=lambda: page,
    templates=("oddone.html",),
    template_dir=str(Path(__file__).parent / "templates"),
    sdk=lambda: SPEC,
    bots={"oddone_grudge": "tests.kitgame.sdk:GrudgeBot"},
)
