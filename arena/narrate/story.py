"""What every game's narration shares: following one game's public lines, relaying its
players' talk, timeouts, the end (winners, everyone's role, the game's length) and ratings.

A game's own narration (``arena/games/<game>/narration.py``) subclasses ``Story`` with one
``on_<verb>`` method per public line it tells; a line without a method is machinery that
spectators need not read (most ``ASK`` lines, deadlines).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import ClassVar

from ..protocol import END, RATINGS, START, Message
from .sentence import NAME, PLAY, SETUP, Say, Sentence, Span, duration
from .sentence import END as ENDING

ABNORMAL = {"forfeit": "a forfeit", "aborted": "the game was stopped"}
"""End reasons every game shares, and how they read."""


class Story:
    """One game told from its public lines; ``hear`` takes each referee line of the game
    (joined if continued), ``talk`` each line a player says in the game's channel."""

    game: ClassVar[str]
    setup: ClassVar[frozenset[str]] = frozenset({START})
    """The lines that set the game up (its ``START`` and what follows it before play):
    told even when the narration is behind."""

    def __init__(self, gid: str, seats: Sequence[str]) -> None:
        self.gid = gid
        self.seats = list(seats)
        self._seated = {nick.lower() for nick in seats}
        self.started: float | None = None
        self.over = False

    def say(self) -> Say:
        return Say(self.gid)

    def hear(self, msg: Message, at: float | None = None) -> list[Sentence]:
        """The sentences one public line of the game makes (often none); ``at``: when it
        was said (seconds on any clock), for the game's length."""
        if msg.verb == START:
            self.seats = msg.list("seats") or self.seats
            self._seated = {nick.lower() for nick in self.seats}
            self.started = at
        if msg.verb == END:
            self.over = True
            said = self._end(msg, at)
        else:
            handler = getattr(self, "on_" + msg.verb.lower(), None)
            said = [] if handler is None else handler(msg)
        stage = SETUP if msg.verb in self.setup else ENDING if msg.verb in (END, RATINGS) else PLAY
        return [dataclasses.replace(sentence, stage=stage) for sentence in said]

    def talk(self, nick: str, text: str) -> list[Sentence]:
        """A seated player's line in the game channel, relayed as ``<nick> text``; anyone
        else's (a spectator) is not part of the game."""
        if nick.lower() not in self._seated or not text:
            return []
        spans = (Span("<"), Span(nick, NAME), Span(f"> {text}"))
        return [Sentence(spans, (), self.gid, talk=True)]

    def whisper(self, nick: str, text: str, hearers: Sequence[str]) -> list[Sentence]:
        """A line said in private (the wolves' talk, a Tuvalon speaker within earshot),
        relayed as ``<nick → a, b> text``: only ever told once the game is over."""
        spans = [Span("<"), Span(nick, NAME), Span(" → ")]
        for i, hearer in enumerate(hearers):
            spans += [Span(", ")] if i else []
            spans.append(Span(hearer, NAME))
        spans.append(Span(f"> {text}"))
        return [Sentence(tuple(spans), (), self.gid, talk=True)]

    # -- shared lines ----------------------------------------------------------------

    def on_timeout(self, msg: Message) -> list[Sentence]:
        player, action = msg.get("player", "?"), msg.get("action", "")
        say = self.say().name(player).fact("timeout", player, action)
        if action == "forfeit":
            return [say.add(" ran out of time and forfeits the game.").done()]
        return [say.add(" ran out of time: the default answer was played.").done()]

    def on_pause(self, msg: Message) -> list[Sentence]:
        """``PAUSE``: the referee stopped the game (its store cannot be written)."""
        why = msg.text or "the referee cannot go on"
        return [
            self.say().fact("pause").add(f"The game is paused: {why}. It goes on where it stopped once it can.").done()
        ]

    def on_ratings(self, msg: Message) -> list[Sentence]:
        say = self.say().add("Elo ratings now: ")
        for i, item in enumerate(msg.list("elo")):
            nick, _, rest = item.partition(":")
            rating, _, change = rest.partition(":")
            say.add(", " if i else "").name(nick).add(f" {rating} ({change})")
        return [say.add(".").done()] if msg.list("elo") else []

    def _end(self, msg: Message, at: float | None) -> list[Sentence]:
        roles = msg.pairs("roles")
        reason = msg.get("reason", "")
        winner = msg.get("winner", "none")
        say = self.say().add(Span("Game over", "title"), f" after {self.progress()}")
        if at is not None and self.started is not None:
            say.add(f" ({duration(at - self.started)})")
        say.add(": ").fact("winner", winner).fact("reason", reason)
        if reason in ABNORMAL:
            forfeit = msg.get("forfeit")
            say.add(ABNORMAL[reason])
            if forfeit:
                say.add(" by ").name(forfeit).fact("forfeit", forfeit)
            say.add(", nobody wins.")
        else:
            winners = self.winners(msg)
            self.outcome(say, winner, reason)
            say.add(" Winners: ").names(winners).add(".").fact("winners", *sorted(winners))
        told = self.say().add("Roles: ")
        for i, (nick, role) in enumerate(roles.items()):
            told.add(", " if i else "").name(nick).add(" (").side(role.replace("_", " "), self.side_of(nick, role, msg))
            told.add(")")
            told.fact("role", nick, role)
        return [say.done(), told.add(".").done()]

    # -- what each game says its own way -----------------------------------------------

    def progress(self) -> str:
        """How far the game went, in its own terms (``4 quests``, ``3 days``)."""
        raise NotImplementedError

    def outcome(self, say: Say, winner: str, reason: str) -> None:
        """Add who won and why (``evil wins: Merlin was assassinated.``)."""
        raise NotImplementedError

    def side_of(self, nick: str, role: str, end: Message) -> str:
        """The side ``nick`` ends the game on, from END (for the colour of its role)."""
        raise NotImplementedError

    def winners(self, end: Message) -> list[str]:
        """The players who won, in seat order, from END alone."""
        raise NotImplementedError
