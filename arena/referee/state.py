"""A match's bookkeeping as one typed record: what ``Match.restore`` needs besides the
engine's answers and the lines sent, and how the journal stores it (plain JSON, one
object per game in progress, whose keys have not changed since games were first stored).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable, Mapping
from typing import Any

from ..protocol import ASK

Kept = tuple[tuple[int | None, int], ...]
"""Refusals kept in a game's transcript, by seat (None: senders without a seat)."""
Counted = tuple[tuple[int, tuple[tuple[str, int], ...]], ...]
"""Refusals past a seat's allowance, by seat and code: counted, not kept."""


@dataclass(frozen=True)
class Ending:
    """An end outside the game's answers (a forfeit, an operator's stop), which replaying
    the answers would not reach."""

    reason: str
    seat: int | None
    """The seat that forfeited (None: an abort)."""
    why: str


@dataclass(frozen=True)
class MatchState:
    published: int
    """How many of the engine's events have been said."""
    misses: tuple[int, ...]
    """Deadlines each seat has missed: the next escalation step follows from it."""
    spoken: tuple[int, ...]
    """Bytes each seat has said (its speeches and private lines), for the speech budget."""
    kept: Kept = ()
    refusals: Counted = ()
    end: Ending | None = None
    issued: frozenset[int] = frozenset()
    """Every request id issued so far: none is issued twice, and a game whose ids count up
    goes on from the highest. Not stored: the stored lines' ASKs name them (``asked``)."""

    def to_json(self) -> dict[str, Any]:
        """The record as the journal stores it."""
        data: dict[str, Any] = {
            "published": self.published,
            "misses": list(self.misses),
            "spoken": list(self.spoken),
            "kept": {"-" if seat is None else str(seat): n for seat, n in self.kept},
            "refusals": {str(seat): dict(counts) for seat, counts in self.refusals},
        }
        if self.end is not None:
            data["end"] = {"reason": self.end.reason, "seat": self.end.seat, "why": self.end.why}
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], players: int, issued: Iterable[int] = ()) -> MatchState:
        """The record ``to_json`` stored for a game of ``players`` seats (or an older one,
        which may lack keys: they count as nothing yet), with the request ids ``issued``."""
        end = data.get("end")
        return cls(
            int(data.get("published", 0)),
            tuple(int(n) for n in data.get("misses", (0,) * players)),
            tuple(int(n) for n in data.get("spoken", (0,) * players)),
            tuple((None if seat == "-" else int(seat), int(n)) for seat, n in data.get("kept", {}).items()),
            tuple((int(seat), tuple(counts.items())) for seat, counts in data.get("refusals", {}).items()),
            None
            if end is None
            else Ending(end["reason"], None if end["seat"] is None else int(end["seat"]), end["why"]),
            frozenset(issued),
        )


def asked(gid: str, lines: Iterable[tuple[str | None, int | None, str]]) -> set[int]:
    """The request ids the ASKs among a game's stored lines (``(to, seat told, line)``) name."""
    prefix = ASK + " " + gid + " "
    return {int(line[len(prefix) :].split(" ", 1)[0]) for _, _, line in lines if line.startswith(prefix)}
