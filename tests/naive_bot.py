"""A bot written the naive way, for the resume test: it draws from the ``random`` module
and from ``Ask.random()`` without passing a stream, the two streams a bot author gets
without asking for one."""

from __future__ import annotations

import random
from typing import Any

from arena.sdk import Ask, Bot, GameView


class NaiveBot(Bot):
    owner = "tests"

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        if random.random() < 0.5:
            return ask.random()
        if ask.pick == 1:
            return random.choice(ask.options)
        return random.sample(ask.options, ask.pick)
