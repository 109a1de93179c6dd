"""Avalon's lines as typed messages: one class per verb its referee sends (protocol.md,
"Avalon"), read and written by ``arena.games.wire``. Tuvalon builds on these.

``lines.py`` builds these from the engine's events; the SDK's state, the language-model
prompt and the narration read them. ``MESSAGES`` maps each verb to its class.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...protocol import ASSASSINATION, DECK, END, LOYALTY, QUEST, ROLE, START, VOTES
from ..wire import WireMessage, verbs


@dataclass(frozen=True, kw_only=True)
class Start(WireMessage):
    """The table, the optional roles in play, and the quest track (sizes, fails needed)."""

    VERB = START
    game: str
    seats: tuple[str, ...]
    options: dict[str, str]
    good: int
    evil: int
    quests: tuple[int, ...]
    fails: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class Role(WireMessage):
    """Your role and the players it lets you see (protocol.md, "What `sees` means")."""

    VERB = ROLE
    role: str
    side: str
    sees: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Votes(WireMessage):
    """Everyone's vote on a team, revealed together; ``result``: ``approved`` or ``rejected``."""

    VERB = VOTES
    approve: tuple[str, ...]
    reject: tuple[str, ...]
    result: str
    rejections: int


@dataclass(frozen=True, kw_only=True)
class Quest(WireMessage):
    VERB = QUEST
    quest: int
    team: tuple[str, ...]
    result: str
    fails: int
    successes: int
    failures: int


@dataclass(frozen=True, kw_only=True)
class Deck(WireMessage):
    """Lancelot variant 2: the loyalty cards, in the order they apply."""

    VERB = DECK
    cards: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Loyalty(WireMessage):
    VERB = LOYALTY
    quest: int
    card: str


@dataclass(frozen=True, kw_only=True)
class Assassination(WireMessage):
    VERB = ASSASSINATION
    assassin: str
    target: str
    hit: bool


@dataclass(frozen=True, kw_only=True)
class End(WireMessage):
    """The end: every player's role, and the Lancelots' final sides where they played."""

    VERB = END
    winner: str
    reason: str
    forfeit: str | None = None
    roles: dict[str, str]
    lancelots: dict[str, str] | None = None


MESSAGES = verbs(Start, Role, Votes, Quest, Deck, Loyalty, Assassination, End)
"""Every verb an Avalon referee sends with a game's news, to its message class."""
