"""Tuvalon's lines as typed messages (protocol.md, "Tuvalon"): Avalon's, with the map size in
``START``, the hearing range in ``ROLE`` and a forfeit's cause in ``END``, and Tuvalon's
own verbs (the map, the proposed team, the turns, the moves, the team that goes without a
vote) and the relayed second discussion (``TEAM``). ``MESSAGES`` maps each verb to its
class."""

from __future__ import annotations

from dataclasses import dataclass

from ...protocol import DECK, LOYALTY
from ..avalon import messages as avalon
from ..wire import Team, WireMessage, verbs


@dataclass(frozen=True, kw_only=True)
class Start(avalon.Start):
    map: str
    """The map's size, ``9x9``."""


@dataclass(frozen=True, kw_only=True)
class Role(avalon.Role):
    hearing: int
    """How many cells away you hear in the second discussion."""


@dataclass(frozen=True, kw_only=True)
class End(avalon.End):
    why: str | None = None
    """A forfeit's cause (``timeout``, ``speech_budget``)."""


@dataclass(frozen=True, kw_only=True)
class Map(WireMessage):
    """Where everyone stands (cells as ``e5``)."""

    VERB = "MAP"
    cells: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class TeamProposed(WireMessage):
    VERB = "TEAM_PROPOSED"
    quest: int
    leader: str
    team: tuple[str, ...]
    forced: bool


@dataclass(frozen=True, kw_only=True)
class Speech(WireMessage):
    """A turn ends; in the second discussion (``purpose=near``), who heard it."""

    VERB = "SPEECH"
    player: str
    purpose: str
    passed: bool
    heard_by: tuple[str, ...] | None = None


@dataclass(frozen=True, kw_only=True)
class Move(WireMessage):
    VERB = "MOVE"
    player: str
    from_: str
    to: str


@dataclass(frozen=True, kw_only=True)
class Forced(WireMessage):
    """The team that goes without a vote, after three rejections in a row."""

    VERB = "FORCED"
    quest: int
    leader: str
    team: tuple[str, ...]


MESSAGES = verbs(
    Start,
    Role,
    End,
    Map,
    TeamProposed,
    Speech,
    Move,
    Forced,
    Team,
    base={verb: cls for verb, cls in avalon.MESSAGES.items() if verb not in (DECK, LOYALTY)},
)
"""Every verb a Tuvalon referee sends with a game's news, to its message class (Avalon's
less the Lancelots' cards: Tuvalon has no Lancelot)."""
