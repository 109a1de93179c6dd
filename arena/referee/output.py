"""Where a match's lines and signals go: the one port a transport gives a game.

The match never touches a connection: the referee builds one ``MatchOutput`` per game from
its transport (in-memory hub or IRC), and the match writes through it alone. The optional
parts are what only some transports can do; without them the match falls back on ``say``
and ``tell``.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..protocol import Message

if TYPE_CHECKING:
    from .match import Match


@dataclass(frozen=True)
class MatchOutput:
    say: Callable[[str], object]
    """Sends a line to the game's channel."""
    tell: Callable[[str, str], object]
    """Sends a line to a nick, by direct message."""
    tell_many: Callable[[Sequence[str], str], object] | None = None
    """Sends one line to several nicks at once (one IRC line for many DMs); None: ``tell`` each."""
    reply: Callable[[str, str], object] | None = None
    """Sends a refusal to the nick whose line it answers, behind the game's lines where the
    transport can, and may drop it (the referee limits what one sender costs); None: ``tell``."""
    after_sent: Callable[[Callable[[float], None]], object] | None = None
    """Calls back with the time every line sent so far actually went out (IRC queues them
    behind a rate limit): a deadline starts then. None: lines go out at once."""
    post: Callable[[str | None, str, Message], object] | None = None
    """Sends a line that carries one whole message together with that message, to a nick
    or (None) the game's channel, where the transport can use the message: the in-memory
    hub hands it to bots in its own process, which need not parse the line again. None:
    ``say`` and ``tell``."""
    on_end: Callable[[Match], None] | None = None
    """Called once, when the game is over and its last lines are sent."""
    on_floor: Callable[[str | None, str | None], None] | None = None
    """Called with the nicks of the old and the new floor holder when the floor changes
    hands (IRC voices the speaker in a moderated channel)."""
    on_change: Callable[[], None] | None = None
    """Called after every call that may have moved the game on or changed its clocks: the
    referee then looks again at this game alone (when it next has work, what to store),
    not at every game it runs."""


def posting(post: Callable[[str, str, Message], object], channel: str) -> Callable[[str | None, str, Message], None]:
    """A transport's ``post`` as a game in ``channel`` uses it: None stands for the channel."""

    def to(nick: str | None, line: str, msg: Message) -> None:
        post(channel if nick is None else nick, line, msg)

    return to


def moderating(
    mode: Callable[[str, str], object], behind: Callable[..., Any], channel: str
) -> Callable[[str | None, str | None], None]:
    """Only the voiced may talk in a moderated channel: a game's ``on_floor``, which voices
    whoever has the floor, through the server's ``mode`` (sent ``behind`` the game's lines).
    The channel is moderated at once."""

    def change(what: str) -> None:
        behind(mode, channel, what)

    change("+m")

    def floor(old: str | None, new: str | None) -> None:
        if old is not None:
            change(f"-v {old}")
        if new is not None:
            change(f"+v {new}")

    return floor
