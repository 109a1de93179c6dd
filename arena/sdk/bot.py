"""What a bot is: ``Bot``, the base of every bot, ``GameBot``, the base of each game's
(``AvalonBot``, ``WerewolfBot``, ...), and ``audit``, which finds the methods of a bot
class that the SDK would never call.

A bot knows nothing of the wire: ``arena.sdk.session`` turns the referee's lines into calls
on it and its answers into lines, over IRC (``arena.sdk.runner``) or in memory
(``arena.referee.local``). Each game's base class and state are in ``arena.sdk.avalon``,
``arena.sdk.tuvalon`` and ``arena.sdk.werewolf``.
"""

from __future__ import annotations

import difflib
import inspect
import logging
import random
from collections.abc import Callable
from typing import Any, ClassVar, TypeAlias, cast

from ..protocol import Message
from .speech import Talk
from .view import Ask, GameView, spec_of, specs

log = logging.getLogger(__name__)

SDK = __name__.rpartition(".")[0]
"""This package: its classes are the SDK's, not a bot's (``audit`` looks at bots' only)."""


Answer: TypeAlias = str | list[str]
"""An answer: one option, or a list of ``pick`` distinct options."""

Decision: TypeAlias = Callable[[GameView[Any], Ask], Answer]
"""A decision method, as ``decide`` finds it by the request's kind."""


class Bot:
    """The generic bot, for any game: ``decide`` gets every request.

    To play one game, subclass ``AvalonBot`` or ``WerewolfBot`` instead: they declare each
    decision of their game as a method. Subclassing ``Bot`` suits a bot that plays any
    game with one piece of code (a language model reading ``ask.kind`` and ``ask.options``);
    its methods named after decision kinds (``vote``, ``team``) are still called, as the
    first SDK did. Whatever a bot leaves undecided gets a random legal answer."""

    owner = "anonymous"
    version = "0.1"
    plays: ClassVar[str | None] = None
    """The game this bot is written for (``avalon``, ``werewolf``); None: any game."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    # -- decisions: return a choice (or a list of choices when ask.pick > 1) ---------

    def decide(self, game: GameView[Any], ask: Ask) -> Answer:
        """The answer to ``ask``: one of ``ask.options``, or a list of ``ask.pick`` distinct
        ones. By default the method named by ``ask.kind`` answers, if the bot has one, else
        a random legal choice."""
        method: Decision | None = getattr(self, ask.kind, None)  # a method found by name: untyped
        if method is None:
            return ask.random(self.rng)
        return method(game, ask)

    def speech(self, game: GameView[Any], ask: Ask) -> Talk:
        """What to say in the game's channel when given the floor (an ASK with
        ``floor=true``), said before the answer that ends the turn; nothing by default.
        One text (its line breaks kept) or a list of texts: the SDK cuts them into lines
        the referee accepts, words whole, and keeps the first ``FLOOR_LINES`` (logging what
        it left out)."""
        return []

    def team_talk(self, game: GameView[Any], ask: Ask) -> Talk:
        """What to tell the bot's team only (Werewolf: the other living wolves, at night),
        sent as ``TEAM`` lines before answering a private request; nothing by default.
        Cut into lines like ``speech``. The referee refuses it when no one may hear the bot
        in private."""
        return []

    # -- callbacks ------------------------------------------------------------------

    def on_chat(self, game: GameView[Any], nick: str, text: str) -> None:
        """``nick``, who has the floor, said ``text`` in the game's channel (lines said out
        of turn never reach a bot: the SDK drops them)."""

    def on_start(self, game: GameView[Any]) -> None:
        """The game started; ``game.seats`` is the seat order."""

    def on_role(self, game: GameView[Any]) -> None:
        """``game.role``, ``game.side`` and ``game.sees`` are now set."""

    def on_event(self, game: GameView[Any], msg: Message) -> None:
        """Any other line of the game (VOTES, QUEST, ...); ``game.state`` has read it already."""

    def on_end(self, game: GameView[Any], msg: Message) -> None:
        """The game ended; ``msg`` reveals every role (so does ``game.state.roles``)."""

    def on_error(self, msg: Message) -> None:
        """The referee refused a line of ours; by default it is logged."""
        log.warning("referee refused our line: %s", msg.format())


HOOKS = frozenset({name for name in vars(Bot) if not name.startswith("_")} | {"rng"})
"""What the SDK itself reads or calls on every bot, beside its decisions."""


class GameBot(Bot):
    """What ``AvalonBot`` and ``WerewolfBot`` share: each names its game (``plays``) and
    declares every decision of that game as a method of the same name, which ``decide``
    calls. At another game's table (a mistake the SDK logs when the game starts) every
    request gets a random legal answer."""

    plays: ClassVar[str]

    def decide(self, game: GameView[Any], ask: Ask) -> Answer:
        """Calls the decision method that ``ask.kind`` names: override those, not this.
        At another game's table, or for a kind this SDK does not know, a random legal
        choice."""
        spec = spec_of(self.plays) if game.kind == self.plays else None
        if spec is not None and ask.kind in spec.asks:
            method: Decision = getattr(self, ask.kind)  # a method found by name: untyped
            return method(game, ask)
        return ask.random(self.rng)

    def _at_random(self, ask: Ask) -> str:
        """The default of every decision of one option: a random legal answer, from the bot's
        own stream. The request's ``pick`` (off the wire) decides its shape; these decisions'
        requests say ``pick=1``, which gives one option."""
        return cast(str, ask.random(self.rng))

    def _some_at_random(self, ask: Ask) -> list[str]:
        """The default of every decision of several options (a team): as ``_at_random``, for
        requests that say ``pick`` > 1."""
        return cast(list[str], ask.random(self.rng))


def decisions_of(game: str | None) -> frozenset[str]:
    """The decision kinds of ``game`` (None: of every game the SDK knows)."""
    if game is not None:
        spec = spec_of(game)
        return frozenset(spec.asks) if spec is not None else frozenset()
    return frozenset(kind for spec in specs() for kind in spec.asks)


def audit(cls: type[Bot]) -> list[str]:
    """What looks wrong in a bot class: a method that the SDK will never call although it
    is most likely meant as a decision or hook. Such a bot plays on, at random where the
    method was meant to decide, so nothing else would ever tell its author.

    Flagged: a decision or hook of another game in a one-game bot (``team`` in a
    ``WerewolfBot``, Tuvalon's ``near_speech`` in a ``WerewolfBot``), a name close to a
    decision or hook (``votes`` for ``vote``, ``on_events``), and a method shaped like a
    decision, ``(game, ask)``, named after a role or the first words of decisions
    (``seer`` for ``seer_check``, ``witch`` for ``witch_save`` and ``witch_poison``).
    Other public methods are the bot's own business; a helper with a close name is best
    renamed with a leading underscore."""
    own: dict[str, Any] = {}
    sdk: set[str] = set()
    for klass in cls.__mro__:
        public = {
            name: value
            for name, value in vars(klass).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, (staticmethod, classmethod)))
        }
        if klass.__module__.startswith(SDK) or klass is object:
            sdk.update(public)
        else:
            for name, value in public.items():
                own.setdefault(name, value)
    mine = decisions_of(cls.plays)
    known = mine | HOOKS | sdk
    game = cls.plays or "any game"
    problems = []
    for name in sorted(set(own) - known):
        elsewhere = [spec.name for spec in specs() if name in spec.asks]
        if elsewhere:
            problems.append(
                f"{cls.__name__}.{name} is a decision of {' and '.join(sorted(elsewhere))}, not of {game}: "
                "it is never called"
            )
            continue
        hooked = sorted(other.__name__ for other in _game_bots() if name in vars(other))
        if hooked:
            problems.append(
                f"{cls.__name__}.{name} is a method of {' and '.join(hooked)}, not of {game}: it is never called"
            )
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        if close:
            what = "decision" if close[0] in mine else "hook"
            problems.append(
                f"{cls.__name__}.{name} is never called: no {what} has that name (did you mean {close[0]}?)"
            )
            continue
        started = sorted(kind for kind in mine if kind.startswith(name + "_"))
        if started and len(started) <= 3 and _decision_shaped(own[name]):
            problems.append(
                f"{cls.__name__}.{name} is never called: no decision has that name (did you mean "
                f"{' or '.join(started)}?)"
            )
    return problems


def _game_bots() -> list[type[GameBot]]:
    """The SDK's own one-game base classes (``AvalonBot``, ``WerewolfBot``, ...)."""
    found: list[type[GameBot]] = []
    todo: list[type[GameBot]] = [GameBot]
    while todo:
        klass = todo.pop()
        for sub in klass.__subclasses__():
            if sub.__module__.startswith(SDK) and sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def _decision_shaped(method: Any) -> bool:
    """Whether ``method`` takes what a decision takes: ``(self, game, ask)``."""
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 3 and all(p.default is p.empty for p in positional)
