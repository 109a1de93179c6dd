"""Werewolf's lines as typed messages: one class per verb its referee sends (protocol.md,
"Werewolf"), read and written by ``arena.games.wire``.

``lines.py`` builds these from the engine's events; the SDK's state, the language-model
prompt and the narration read them. ``MESSAGES`` maps each verb to its class.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...protocol import END, ROLE, START
from ..wire import Someone, Team, WireMessage, verbs


@dataclass(frozen=True, kw_only=True)
class Start(WireMessage):
    """The table and the deal: how many of each role (never who has which)."""

    VERB = START
    game: str
    seats: tuple[str, ...]
    roles: dict[str, int]


@dataclass(frozen=True, kw_only=True)
class Rules(WireMessage):
    """The options that shape play (timings are in each request's deadline)."""

    VERB = "RULES"
    options: dict[str, str]


@dataclass(frozen=True, kw_only=True)
class Role(WireMessage):
    VERB = ROLE
    role: str
    side: str


@dataclass(frozen=True, kw_only=True)
class Wolves(WireMessage):
    VERB = "WOLVES"
    wolves: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Night(WireMessage):
    VERB = "NIGHT"
    night: int


@dataclass(frozen=True, kw_only=True)
class Seer(WireMessage):
    """A check's finding: the side the target looks to be on."""

    VERB = "SEER"
    night: int
    target: str
    side: str


@dataclass(frozen=True, kw_only=True)
class WolfVotes(WireMessage):
    """How the pack voted: each wolf's victim (a nick, or ``abstain``) and the target."""

    VERB = "WOLF_VOTES"
    night: int
    votes: dict[str, str]
    target: Someone


@dataclass(frozen=True, kw_only=True)
class WolfTarget(WireMessage):
    VERB = "WOLF_TARGET"
    night: int
    target: Someone


@dataclass(frozen=True, kw_only=True)
class Lovers(WireMessage):
    VERB = "LOVERS"
    lovers: tuple[str, ...]
    cupid: str


@dataclass(frozen=True, kw_only=True)
class Charmed(WireMessage):
    VERB = "CHARMED"
    night: int
    charmed: tuple[str, ...]
    new: str


@dataclass(frozen=True, kw_only=True)
class Blocked(WireMessage):
    VERB = "BLOCKED"
    night: int


@dataclass(frozen=True, kw_only=True)
class Masons(WireMessage):
    VERB = "MASONS"
    masons: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Detective(WireMessage):
    VERB = "DETECTIVE"
    night: int
    players: tuple[str, ...]
    same: bool


@dataclass(frozen=True, kw_only=True)
class Tracked(WireMessage):
    VERB = "TRACKED"
    night: int
    target: str
    visited: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Watched(WireMessage):
    VERB = "WATCHED"
    night: int
    target: str
    visitors: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Oracle(WireMessage):
    """A dead oracle's reveal: the marked player's role, told to everyone."""

    VERB = "ORACLE"
    target: str
    role: str


@dataclass(frozen=True, kw_only=True)
class Caught(WireMessage):
    VERB = "CAUGHT"
    night: int
    player: str


@dataclass(frozen=True, kw_only=True)
class Cards(WireMessage):
    """The thief's two extra cards, in order (``card1``, ``card2``)."""

    VERB = "CARDS"
    cards: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Silenced(WireMessage):
    VERB = "SILENCED"
    day: int
    players: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Cleansed(WireMessage):
    VERB = "CLEANSED"
    night: int
    statuses: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Dawn(WireMessage):
    """The night's dead (never how they died), with their roles when roles are revealed."""

    VERB = "DAWN"
    day: int
    dead: tuple[str, ...]
    roles: dict[str, str] | None = None


@dataclass(frozen=True, kw_only=True)
class Day(WireMessage):
    VERB = "DAY"
    day: int
    alive: tuple[str, ...]
    leader: Someone


@dataclass(frozen=True, kw_only=True)
class Punished(WireMessage):
    """An executed scapegoat's punishment: ``lose_vote`` or ``death``."""

    VERB = "PUNISHED"
    day: int
    player: str
    punishment: str


@dataclass(frozen=True, kw_only=True)
class Dealt(WireMessage):
    """A card the dealer dealt you; a vision's player and the side they look to be on."""

    VERB = "DEALT"
    night: int
    card: str
    player: str | None = None
    side: str | None = None


@dataclass(frozen=True, kw_only=True)
class Cult(WireMessage):
    VERB = "CULT"
    night: int
    leader: str
    members: tuple[str, ...]
    new: str


@dataclass(frozen=True, kw_only=True)
class Candidacy(WireMessage):
    VERB = "CANDIDACY"
    player: str
    stand: bool


@dataclass(frozen=True, kw_only=True)
class LeaderVote(WireMessage):
    """A vote for leader: a candidate's nick, or ``abstain``."""

    VERB = "LEADER_VOTE"
    player: str
    vote: str


@dataclass(frozen=True, kw_only=True)
class Leader(WireMessage):
    VERB = "LEADER"
    leader: Someone
    candidates: tuple[str, ...]
    counts: dict[str, int]
    abstentions: int
    tie: bool


@dataclass(frozen=True, kw_only=True)
class Order(WireMessage):
    VERB = "ORDER"
    start: str
    direction: str
    speakers: tuple[str, ...]
    leader: Someone


@dataclass(frozen=True, kw_only=True)
class Speech(WireMessage):
    """A turn at the floor ends (``candidacy`` ends with ``CANDIDACY`` instead)."""

    VERB = "SPEECH"
    player: str
    purpose: str
    passed: bool


@dataclass(frozen=True, kw_only=True)
class Ballot(WireMessage):
    """A public vote on an execution: a nick, or ``abstain``."""

    VERB = "BALLOT"
    player: str
    vote: str
    round: int


@dataclass(frozen=True, kw_only=True)
class VoteResult(WireMessage):
    VERB = "VOTE_RESULT"
    round: int
    counts: dict[str, int]
    abstentions: int
    outcome: str
    target: Someone
    candidates: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Execution(WireMessage):
    VERB = "EXECUTION"
    day: int
    player: str
    spared: bool
    role: str | None = None


@dataclass(frozen=True, kw_only=True)
class Idiot(WireMessage):
    VERB = "IDIOT"
    player: str
    role: str


@dataclass(frozen=True, kw_only=True)
class Death(WireMessage):
    """A death in the day (a lover's grief, a shot, a punishment)."""

    VERB = "DEATH"
    day: int
    player: str
    role: str | None = None


@dataclass(frozen=True, kw_only=True)
class Shot(WireMessage):
    """A hunter's shot; with roles hidden, the shot player alone (no ``hunter``)."""

    VERB = "SHOT"
    hunter: str | None = None
    target: Someone


@dataclass(frozen=True, kw_only=True)
class End(WireMessage):
    """The end: every player's role; the lovers, the thief's unused cards, the charmed and
    the cult where the game had them."""

    VERB = END
    winner: str
    reason: str
    forfeit: str | None = None
    roles: dict[str, str]
    lovers: tuple[str, ...] | None = None
    extra: tuple[str, ...] | None = None
    charmed: tuple[str, ...] | None = None
    cult: tuple[str, ...] | None = None


MESSAGES = verbs(
    Start,
    Rules,
    Role,
    Wolves,
    Night,
    Seer,
    WolfVotes,
    WolfTarget,
    Lovers,
    Charmed,
    Blocked,
    Masons,
    Detective,
    Tracked,
    Watched,
    Oracle,
    Caught,
    Cards,
    Silenced,
    Cleansed,
    Dawn,
    Day,
    Punished,
    Dealt,
    Cult,
    Candidacy,
    LeaderVote,
    Leader,
    Order,
    Speech,
    Ballot,
    VoteResult,
    Execution,
    Idiot,
    Death,
    Shot,
    End,
    Team,
)
"""Every verb a Werewolf referee sends with a game's news, to its message class."""
