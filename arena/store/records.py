"""What the store takes in (a finished game) and gives back (stored games, stats)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.events import Event, view
from ..core.game import Game, Result
from ..core.said import Answer, Talk
from ..ratings.model import Change, Match, aborted, forfeit, ranked
from .logs import PackedLog, pack

ABORTED_REASON = "aborted"


@dataclass(frozen=True)
class GameRecord:
    """A finished (or aborted) game, everything needed to store, replay and rate it.

    ``result`` None means aborted (nobody at fault: no rating change). Timestamps come
    from the caller so nothing in here reads a clock.
    """

    id: str
    game: str
    options: Mapping[str, Any]
    seed: int
    nicks: tuple[str, ...]
    roles: tuple[str | None, ...]
    sides: tuple[str | None, ...]
    result: Result | None
    events: Sequence[Event]
    history: Sequence[tuple[int, str, Any]]
    started: float
    finished: float
    tournament: str | None = None
    abort_reason: str = ABORTED_REASON
    deal: tuple[int, ...] | None = None
    """How roles were dealt when not by the seed (games of older series); None: by the seed. Replays need it."""
    transcript: Sequence[tuple[str | None, str]] = ()
    """Every line the referee sent, with the nick of a direct message (None: the channel)."""
    bots: tuple[str, ...] = ()
    """The bot that played each seat (its rating identity); empty: the nicks are."""
    talk: Sequence[Talk] = ()
    """What the players said in the game's channel that counted, in order."""
    answers: Sequence[Answer] = ()
    """Every answer line the referee kept, accepted or refused, in order."""
    packed: PackedLog | None = None
    """The log (events, history, transcript, talk, answers) as the store writes it, if it
    was packed where the game was played (``pack``): those five are then empty."""

    def pack(self) -> GameRecord:
        """This record with its log packed as the store writes it: where games are played
        in other processes, a record that crosses to the one that stores it carries a few
        KB rather than every event and line, and packing is not left to that process."""
        if self.packed is not None:
            return self
        return replace(self, events=(), history=(), transcript=(), talk=(), answers=(), packed=self.log())

    def log(self) -> PackedLog:
        """The log as the store writes it (``logs.pack``)."""
        if self.packed is not None:
            return self.packed
        return pack(self.identities, self.nicks, self.events, self.history, self.transcript, self.talk, self.answers)

    @property
    def players(self) -> int:
        return len(self.nicks)

    @property
    def identities(self) -> tuple[str, ...]:
        return self.bots or self.nicks

    def match(self) -> Match:
        """The match the rating systems see (see ``build_match``)."""
        return build_match(self.identities, self.sides, self.result)


def build_match(nicks: Sequence[str], sides: Sequence[str | None], result: Result | None) -> Match:
    """Result -> Match, per the abnormal-end rule for forfeits and aborts.

    A normal end: every seat in ``result.winners`` joins one winning group named after
    ``result.winner`` (rank 0); everyone else is grouped by their own final side (rank 1).
    So Avalon gives good vs evil; a Werewolf jester who wins alone is "jester" against
    "village" and "wolves" (tied); winners drawn from several sides (lovers) still form
    one winning group. Groups are ordered by their first seat and players by seat;
    ``rebuild`` relies on that order being reproducible.
    """
    if result is None:
        return aborted(nicks)
    if result.forfeited is not None:
        return forfeit(nicks, nicks[result.forfeited])
    winner = result.winner if result.winner is not None else "winners"
    labels: dict[str, str] = {}
    for seat, nick in enumerate(nicks):
        if seat in result.winners:
            labels[nick] = winner
        else:
            labels[nick] = sides[seat] or "others"
            if labels[nick] == winner:
                raise ValueError(f"seat {seat} is on the winning side {winner!r} but not among the winners")
    return ranked(labels, {label: 0 if label == winner else 1 for label in labels.values()}, len(nicks))


def record_from_game(
    game_id: str,
    game: Game,
    nicks: Sequence[str],
    *,
    started: float,
    finished: float,
    tournament: str | None = None,
    aborted_reason: str | None = None,
    transcript: Sequence[tuple[str | None, str]] = (),
    game_type: str | None = None,
    options: Mapping[str, Any] | None = None,
    bots: Sequence[str] | None = None,
    talk: Sequence[Talk] = (),
    answers: Sequence[Answer] = (),
) -> GameRecord:
    """A GameRecord from an engine at the end of a game (or stopped: ``aborted_reason``).

    ``nicks`` are the names announced at the start, in seat order; ``bots`` the bots that
    played the seats (the rating identities; default: the nicks). ``game_type`` and ``options`` default to the engine's
    ``name`` and ``options.to_dict()``.
    Roles and final sides come from the ``end`` event's reveal (``roles``, ``sides`` or
    ``teams``);
    for a game stopped before its end they come from the engine's ``roles`` and
    ``sides_now`` if it has them.
    """
    roles: list[Any] = []
    sides: list[Any] = []
    end = next((e for e in reversed(game.events) if e.kind == "end"), None)
    if end is not None:
        roles = list(end.data.get("roles", []))
        sides = list(end.data.get("sides") or end.data.get("teams") or [])  # Werewolf says "teams"
    if not roles:
        roles = [getattr(r, "value", r) for r in getattr(game, "roles", [])]
    if not sides:
        sides = [getattr(s, "value", s) for s in getattr(game, "sides_now", [])]
    n = len(nicks)
    roles += [None] * (n - len(roles))
    sides += [None] * (n - len(sides))
    result = None if aborted_reason is not None else game.result
    if aborted_reason is None and result is None:
        raise ValueError("the game has no result: pass aborted_reason to record it as aborted")
    if game_type is None:
        game_type = type(game).name
    if options is None:
        opts = getattr(game, "options", None)
        options = opts.to_dict() if opts is not None else {}
    return GameRecord(
        id=game_id,
        game=game_type,
        options=dict(options),
        seed=game.seed,
        nicks=tuple(nicks),
        roles=tuple(roles),
        sides=tuple(sides),
        result=result,
        events=tuple(game.events),
        history=tuple(game.history),
        started=started,
        finished=finished,
        tournament=tournament,
        abort_reason=aborted_reason or ABORTED_REASON,
        deal=game.deal,
        transcript=tuple(transcript),
        bots=tuple(bots) if bots is not None else (),
        talk=tuple(talk),
        answers=tuple(answers),
    )


UNKNOWN_OWNER = "unknown"
"""A bot's owner until someone names it: the operator (``arena bots add --owner``) or, failing
that, the bot itself when it registers."""


@dataclass(frozen=True)
class Verifier:
    """What the arena keeps of a bot's key: SCRAM-SHA-256's salt, iteration count,
    StoredKey and ServerKey (RFC 5802). They check a bot's proof and sign the referee's
    answer, but prove nothing by themselves: a copy of the store cannot register as the
    bot (it would need the key to compute a proof)."""

    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes


@dataclass(frozen=True)
class BotRecord:
    """A bot as the store knows it."""

    name: str
    owner: str
    version: str
    verifier: Verifier | None
    """Proves its key, if it has one."""
    old_key: bool
    """It has a key from before SCRAM (a scrypt hash), which nothing can check any more:
    the operator must give it a new one (``arena bots rekey``)."""
    account: str | None
    created: float
    seen: float | None


@dataclass(frozen=True)
class PlayerOutcome:
    seat: int
    bot: str
    role: str | None
    side: str | None
    result: str


@dataclass(frozen=True)
class GameSummary:
    """One line of ``arena games``."""

    seq: int
    id: str
    game: str
    players: int
    kind: str
    winner: str | None
    reason: str
    nicks: tuple[str, ...]
    started: float
    finished: float
    tournament: str | None
    bots: tuple[str, ...]
    """The bot of each seat (the nicks, for games stored before bots were identities)."""


@dataclass(frozen=True)
class StoredGame:
    """A game as stored: enough to replay it exactly and to show any player's view."""

    summary: GameSummary
    options: dict[str, Any]
    seed: int
    roles: tuple[str | None, ...]
    sides: tuple[str | None, ...]
    winners: frozenset[int]
    forfeited: int | None
    events: tuple[Event, ...]
    history: tuple[tuple[int, str, Any], ...]
    outcomes: tuple[PlayerOutcome, ...]
    changes: Mapping[str, tuple[Change, ...]] = field(default_factory=dict)
    deal: tuple[int, ...] | None = None
    transcript: tuple[tuple[str | None, str], ...] = ()
    """Every line the referee sent, with the nick of a direct message (None: the channel)."""
    talk: tuple[Talk, ...] = ()
    """The players' talk in the game's channel (the lines of their speeches that counted),
    in order: seat, nick, text, seconds since the start, and ``after``, how many lines of
    ``transcript`` came before it. Empty for games stored before the store kept talk."""
    answers: tuple[Answer, ...] = ()
    """The bots' answer lines, accepted or refused (``error``: the code), in order, with
    their time, latency from their request, the SDK's ``fallback`` marker and ``after`` as
    in ``talk``. Refusals past the referee's allowance per seat are counted in
    ``transcript``, not kept here. Empty for games stored before."""

    def view(self, seat: int | None) -> list[Event]:
        """What ``seat`` was told during the game (None: a spectator)."""
        return list(view(self.events, seat))

    def replay(self) -> Game:
        """A fresh engine replayed from the seed and the recorded answers.

        Its events equal the stored ones for a normally ended game; a forfeit is applied
        after the answers, as it happened.
        """
        from ..games import rebuild

        engine = rebuild(self.summary.game, self.summary.players, self.options, self.seed, self.deal, self.history)
        if self.forfeited is not None and engine.result is None:
            end = next((e for e in reversed(self.events) if e.kind == "end"), None)
            engine.forfeit(self.forfeited, end.data.get("why", "") if end else "")
        return engine


@dataclass(frozen=True)
class RateStat:
    """``successes`` of ``trials`` with the Wilson 95% interval."""

    successes: int
    trials: int
    rate: float | None
    low: float
    high: float


@dataclass(frozen=True)
class RoleStats:
    """A bot's record in one role (or over all roles: ``role`` None)."""

    role: str | None
    games: int
    wins: int
    losses: int
    draws: int
    forfeits: int
    aborted: int
    win_rate: RateStat
    figures: Mapping[str, RateStat]


@dataclass(frozen=True)
class Conduct:
    """How a bot kept to the protocol, from the lines the referee sent it: what it refused
    (by error code), the warnings for late answers, and the timeouts by what they cost; and
    from its answer lines, how often its SDK answered for it, by ``fallback=`` marker."""

    refused: Mapping[str, int]
    warnings: int
    defaults: int
    forfeits: int
    fallbacks: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BotStats:
    bot: str
    game: str
    overall: RoleStats
    roles: Mapping[str, RoleStats]
    conduct: Conduct


@dataclass(frozen=True)
class LeaderRow:
    """One bot on a leaderboard; ``games`` counts its rated games (forfeits included)."""

    rank: int
    bot: str
    mu: float
    sigma: float
    score: float
    games: int
    wins: int
    owner: str = "unknown"
    version: str = "unknown"

    @property
    def win_rate(self) -> RateStat:
        from ..ratings.stats import wilson

        low, high = wilson(self.wins, self.games)
        return RateStat(self.wins, self.games, self.wins / self.games if self.games else None, low, high)


@dataclass(frozen=True)
class Mismatch:
    """A stored value that ``rebuild`` computed differently."""

    where: str
    stored: Any
    computed: Any


@dataclass(frozen=True)
class RebuildReport:
    games: int
    changes_checked: int
    ratings_checked: int
    mismatches: tuple[Mismatch, ...]
    written: bool
    standings_checked: int = 0
    """Rows of the tournaments' standings recomputed (each tournament's games rated afresh)."""
    differences: int = 0
    """Stored values that differ from the recomputed ones: ``mismatches`` names the first
    of them (``arena.store.rebuild.KEPT`` at most)."""

    @property
    def exact(self) -> bool:
        return not self.mismatches
