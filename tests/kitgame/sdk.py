"""What the SDK knows of odd one out: the state a bot reads, its one request, a base class
for its bots, and a sample bot that accuses whoever was accused most before."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from arena.protocol import Message
from arena.sdk import Ask, GameState, GameView
from arena.sdk.bot import GameBot
from arena.sdk.view import GameSpec


@dataclass
class OddOneState(GameState):
    """Who is out, and every accusation so far, by round."""

    out: list[str] = field(default_factory=list)
    accusations: list[dict[str, str]] = field(default_factory=list)

    def _tally(self, msg: Message) -> None:
        self.accusations.append(msg.pairs("votes"))
        if msg.get("out", "none") != "none":
            self.out.append(msg.get("out", ""))

    READERS: ClassVar[Mapping[str, Callable[[Any, Message], None]]] = {**GameState.READERS, "TALLY": _tally}


@dataclass
class AccuseAsk(Ask):
    """Accuse one of ``options``, the other players still in."""

    @property
    def round(self) -> int:
        return int(self.fields.get("round", "1"))


SPEC = GameSpec("oddone", OddOneState, {"accuse": AccuseAsk})


class OddOneBot(GameBot):
    """An odd one out bot: override ``accuse``. Default: a random player."""

    plays = "oddone"

    def accuse(self, game: GameView[OddOneState], ask: AccuseAsk) -> str:
        return str(self._at_random(ask))


class GrudgeBot(OddOneBot):
    """Accuses whoever was accused most in earlier rounds (a citizen); the spy accuses at
    random, as any citizen without a grudge does."""

    def accuse(self, game: GameView[OddOneState], ask: AccuseAsk) -> str:
        held = Counter(t for votes in game.state.accusations for t in votes.values() if t in ask.options)
        if held and game.state.role != "spy":
            return held.most_common(1)[0][0]
        return str(self._at_random(ask))
