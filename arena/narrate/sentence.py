"""What the narrator says: sentences made of styled spans, each with the facts it states.

A sentence is rendered three ways from one form (IRC formatting for a channel, ANSI
colours for a terminal, plain text for a pipe or a test), so the channel and ``arena
watch`` can never tell different stories. Its ``facts`` are the claims it makes as data
(``("vote", "1", "1", "alice", "approve")``): the tests compare those with the engine's
public events instead of reading prose.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence

Fact = tuple[str, ...]
"""A claim a sentence makes: a kind, then its values as text."""

SETUP, PLAY, END = "setup", "play", "end"
"""The stages of a game a sentence tells: a narration that falls behind may skip the play
of a game (``backlog``), never its setup (the table, the deal) or its end."""

NAME = "name"
"""The style of a player's nick (bold)."""
SIDES = {
    "good": "good",
    "village": "good",
    "evil": "evil",
    "werewolf": "evil",
    "neutral": "neutral",
    "lovers": "neutral",
    "piper": "neutral",
    "jester": "neutral",
}
"""The colour class of each side a game names: friends of the table, its enemies, the rest."""

_IRC = {
    NAME: ("\x02", "\x02"),
    "good": ("\x0312", "\x03"),
    "evil": ("\x0304", "\x03"),
    "neutral": ("\x0306", "\x03"),
    "title": ("\x02", "\x02"),
}
"""mIRC codes: bold, blue, red, purple; ``\\x03`` alone ends a colour."""
_ANSI = {
    NAME: ("\x1b[1m", "\x1b[22m"),
    "good": ("\x1b[34m", "\x1b[39m"),
    "evil": ("\x1b[31m", "\x1b[39m"),
    "neutral": ("\x1b[35m", "\x1b[39m"),
    "title": ("\x1b[1m", "\x1b[22m"),
}


@dataclass(frozen=True)
class Span:
    """A piece of text, plain or in a style (``NAME``, a side's colour class, ``title``)."""

    text: str
    style: str | None = None


Part = str | Span


@dataclass(frozen=True)
class Sentence:
    """One line of narration: its spans, the facts it states, and the game it is about
    (None for the lobby)."""

    spans: tuple[Span, ...]
    facts: tuple[Fact, ...] = ()
    gid: str | None = None
    talk: bool = False
    """A player's own words relayed (``<nick> text``), not the narrator's."""
    stage: str = PLAY
    """``SETUP``, ``PLAY`` or ``END``: what of its game it tells."""

    def plain(self) -> str:
        return "".join(span.text for span in self.spans)

    def irc(self) -> str:
        return _styled(self.spans, _IRC)

    def ansi(self) -> str:
        return _styled(self.spans, _ANSI)

    def irc_lines(self, width: int) -> list[str]:
        """``irc()`` in lines of at most ``width`` bytes, cut between spans (a twenty-seat
        table's names do not fit in one IRC line); a span longer than a line is cut too."""
        lines: list[str] = []
        line = ""
        for span in self.spans:
            piece = _styled((span,), _IRC)
            if len((line + piece).encode()) > width and line:
                lines.append(line)
                line = "  " + piece.lstrip()
            else:
                line += piece
            while len(line.encode()) > width:
                cut = line.encode()[:width].decode("utf-8", "ignore")
                lines.append(cut)
                line = "  " + line[len(cut) :]
        if line.strip():
            lines.append(line)
        return lines


def _styled(spans: Iterable[Span], codes: dict[str, tuple[str, str]]) -> str:
    out = []
    for span in spans:
        if span.style is None or span.style not in codes:
            out.append(span.text)
        else:
            on, off = codes[span.style]
            out.append(f"{on}{span.text}{off}")
    return "".join(out)


@dataclass
class Say:
    """Builds a sentence piece by piece: ``Say(gid).add("Quest ", 1).name("bob").done()``."""

    gid: str | None
    spans: list[Span] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    stage: str = PLAY

    def add(self, *parts: Part | int) -> Say:
        for part in parts:
            self.spans.append(part if isinstance(part, Span) else Span(str(part)))
        return self

    def name(self, nick: str) -> Say:
        self.spans.append(Span(nick, NAME))
        return self

    def names(self, nicks: Sequence[str], empty: str = "nobody") -> Say:
        """``a``, ``a and b``, ``a, b and c`` (each in bold); ``empty`` for none."""
        if not nicks:
            return self.add(empty)
        for i, nick in enumerate(nicks):
            if i:
                self.add(" and " if i == len(nicks) - 1 else ", ")
            self.name(nick)
        return self

    def side(self, text: str, side: str) -> Say:
        self.spans.append(Span(text, SIDES.get(side)))
        return self

    def fact(self, *values: object) -> Say:
        self.facts.append(tuple(str(v) for v in values))
        return self

    def done(self) -> Sentence:
        return Sentence(tuple(self.spans), tuple(self.facts), self.gid, stage=self.stage)


def duration(seconds: float) -> str:
    """``under a second``, ``42 s``, ``3 min 5 s``, ``1 h 2 min``: a game's length for people."""
    s = int(round(seconds))
    if s < 1:
        return "under a second"
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"
