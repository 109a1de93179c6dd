"""What the referee's room needs of a transport (IRC, or the in-memory hub)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol


class Port(Protocol):
    """What a room needs of its transport: channels with members, lines out, and word of
    when the lines queued so far have gone out."""

    def send(self, target: str, text: str) -> object:
        """Send ``text`` to a channel or a nick, in order with every other line."""
        ...

    def join(self, channel: str) -> None: ...
    def part(self, channel: str) -> None: ...

    def members(self, channel: str) -> Collection[str]:
        """The nicks in ``channel`` now (the room's own included); empty if it is not in it."""
        ...

    def present(self, nick: str, channel: str) -> bool:
        """Whether ``nick`` is in ``channel`` now: ``members`` without copying them, for a
        question asked on every line."""
        ...

    def fold(self, name: str) -> str:
        """A nick or channel as the transport compares names (IRC: its case mapping)."""
        ...

    def after_sent(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once every line queued so far has gone out."""
        ...

    def max_text_bytes(self, target: str) -> int:
        """The longest text one line to ``target`` carries whole."""
        ...
