"""How a game reads to a model: its rules, each line of its history, what the player knows,
and what it is asked now. One ``Renderer`` per game; this base serves a game it does not
know, from the raw lines, so a new game is playable (badly) before it is described."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from ...protocol import Message
from .. import Ask, GameState, GameView

S = TypeVar("S", bound=GameState)


@dataclass
class Memory:
    """What the LLM bot keeps of one game beside the SDK's view (in ``game.notes``)."""

    timeline: list[tuple[int, str]] = field(default_factory=list)
    """Lines the referee's messages do not carry, each with the number of messages received
    before it: what others said at the floor, and what this player said and chose."""
    answers: list[tuple[str, str | list[str]]] = field(default_factory=list)
    """This player's answers, in order: (request kind, choice)."""
    decided: dict[str, str | list[str]] = field(default_factory=dict)
    """Choices made with a speech or pack talk, by request id, for the answer that follows."""
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def note(self, game: GameView[Any], text: str) -> None:
        """Add ``text`` to the timeline after the messages received so far."""
        with self.lock:
            self.timeline.append((len(game.messages), text))


def followed(game: GameView[Any], kind: type[S]) -> S:
    """The game as the SDK follows it, as a ``kind`` (a view made without the game's spec
    has the base state: the game is followed here, from its lines)."""
    state = game.state
    if isinstance(state, kind):
        return state
    found = kind(list(game.seats))
    found.follow(list(game.messages))
    return found


def memory(game: GameView[Any]) -> Memory:
    """The game's ``Memory``, made on first use."""
    found = game.notes.get("llm")
    if not isinstance(found, Memory):
        found = game.notes.setdefault("llm", Memory())
    return found


class Renderer:
    """The text of one game for a model; subclasses describe a game they know."""

    title = "a hidden-role game"

    def rules(self, game: GameView[Any]) -> str:
        """The rules, as they apply to this game (its options and roles in play)."""
        return (
            f"You are playing {self.title} through a referee. Its messages are shown as protocol lines: "
            "VERB game-id key=value ... Answer each request with one of its options."
        )

    def line(self, msg: Message, game: GameView[Any]) -> str | None:
        """One line of the history in words; None: not worth showing."""
        return msg.format()

    def facts(self, game: GameView[Any]) -> list[str]:
        """What this player knows now: its role and secrets, and the state of play."""
        facts = [f"You are {game.me}."]
        if game.role:
            facts.append(f"Your role: {game.role} (side: {game.side}).")
        if game.sees:
            facts.append(f"You see: {', '.join(game.sees)}.")
        return facts

    tasks: ClassVar[Mapping[str, str]] = {}
    """Per request kind, its words as a template over the request's fields (``fill``)."""

    def task(self, game: GameView[Any], ask: Ask) -> str:
        """The request in words (the options are listed after it)."""
        template = self.tasks.get(ask.kind)
        if template is None:
            return f"The referee asks you: {ask.kind}."
        fields = Fields(ask.fields)
        self.fill(fields, game, ask)
        return template.format_map(fields)

    def fill(self, fields: Fields, game: GameView[Any], ask: Ask) -> None:
        """Add what a game's templates say beyond the request's own fields."""


class Fields(dict[str, Any]):
    """A request's fields for ``str.format_map``: a field a line lacks reads ``?`` rather
    than failing, so a changed request still gets described."""

    def __missing__(self, key: str) -> str:
        return "?"


def join(names: Sequence[str]) -> str:
    """Players in a sentence: ``a, b and c``; ``nobody`` for none."""
    if not names:
        return "nobody"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
