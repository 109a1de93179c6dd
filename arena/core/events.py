"""Events and their audiences.

Every event names who may see it, so any player's view (and the spectators' view) is a
filter over one log: that is what makes replays, resync and leak tests possible.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

EVERYONE: None = None
"""The audience of a public event."""


class Event:
    """Something that happened in a game, with the seats allowed to know it.

    ``audience`` is ``EVERYONE`` (None) or a frozenset of seats.
    """

    __slots__ = ("kind", "data", "audience")

    def __init__(self, kind: str, data: dict[str, Any], audience: frozenset[int] | None = EVERYONE):
        self.kind = kind
        self.data = data
        self.audience = audience

    @property
    def public(self) -> bool:
        return self.audience is None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` may see this event; ``None`` stands for a spectator."""
        return self.audience is None or (seat is not None and seat in self.audience)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "data": self.data,
            "audience": None if self.audience is None else sorted(self.audience),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        aud = d.get("audience")
        return cls(d["kind"], d["data"], None if aud is None else frozenset(aud))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Event)
            and self.kind == other.kind
            and self.data == other.data
            and self.audience == other.audience
        )

    def __repr__(self) -> str:
        aud = "everyone" if self.audience is None else sorted(self.audience)
        return f"Event({self.kind!r}, {self.data!r}, to={aud})"


def view(events: Iterable[Event], seat: int | None) -> Iterator[Event]:
    """The events ``seat`` has been told, in order (``None``: what a spectator has seen)."""
    return (e for e in events if e.visible_to(seat))
