"""What the players said during a game, as the referee heard it: their talk in the game's
channel and their answers to its requests.

The referee keeps both beside its own lines (the transcript) so that a replay shows the
game as it went, and so that a bot's conduct (refused answers, how late it answered, how
often its SDK answered for it) can be read back from the store. ``after`` places each
line among the referee's: it came after that many transcript lines, before the next one.
Times are seconds since the game began, on the referee's clock.
"""

from __future__ import annotations

from dataclasses import dataclass

FALLBACKS = ("error", "late", "own")
"""What an answer's ``fallback=`` field may say (protocol section 4): the bot's decision
raised and its SDK answered at random (``error``), the SDK's timer answered because the
decision had not returned in time (``late``), the bot itself gave up and answered at random
(``own``: say, a language model that gave nothing legal). Any other value is not kept."""


@dataclass(frozen=True, slots=True)
class Talk:
    """A line a player said in the game's channel that counted (part of its speech)."""

    seat: int
    nick: str
    """The nick it came from."""
    text: str
    at: float
    """Seconds since the game began."""
    after: int
    """How many of the referee's lines (the transcript) were sent before it."""


@dataclass(frozen=True, slots=True)
class Answer:
    """An ``ANSWER`` line from a seat's bot, accepted or refused."""

    seat: int
    rid: str
    """The request id as the line gave it (a refused line may give no valid id)."""
    line: str
    """The line as it arrived."""
    at: float
    """Seconds since the game began."""
    latency: float | None
    """Seconds since the request it answers went out to this seat; None if it answers no
    request that was open for the seat."""
    error: str | None
    """The error code the referee refused it with; None: accepted."""
    fallback: str | None
    """The SDK's ``fallback=`` marker (one of ``FALLBACKS``), None if the bot chose."""
    after: int
    """How many of the referee's lines (the transcript) were sent before it."""
