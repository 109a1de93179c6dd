"""The contract every game engine fulfils, and the bookkeeping they all share.

An engine is a deterministic state machine: it is built from a player count, options and a
seed; it says which decisions are pending with their legal choices; ``apply`` takes one
answer and returns the events it caused. It never touches a socket, a clock or a terminal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

from .decisions import Decision
from .errors import ErrorCode, IllegalAction, SetupError
from .events import EVERYONE, Event, view
from .options import Options


FORFEIT = "forfeit"
ABORTED = "aborted"


@dataclass(frozen=True)
class Result:
    """How a game ended: the winning side, the seats that won, and why.

    A forfeit has no winning side: the offender loses and everyone else draws (the
    abnormal-end rule), so ``winner`` is None and ``forfeited`` names the offender.
    """

    winner: str | None
    winners: frozenset[int]
    reason: str
    forfeited: int | None = None


class Game:
    """Base class of the engines: pending decisions, validation, the event log.

    Subclasses register one handler per decision kind in ``handlers`` (the kind's name to a
    method taking the seat and the checked answer) and open rounds of decisions with
    ``_open``. Validation happens here, before any handler runs, so a refused action can
    never change state.
    """

    name: ClassVar[str]
    Options: ClassVar[type[Options]]
    sides: ClassVar[tuple[str, ...]]
    end_reasons: ClassVar[tuple[str, ...]]
    handlers: ClassVar[Mapping[str, Callable[[Any, int, Any], None]]]
    public_kinds: ClassVar[frozenset[str]] = frozenset()
    """Decision kinds whose request (options included) may be announced to everyone."""
    secret_kinds: ClassVar[frozenset[str]] = frozenset()
    """Decision kinds whose very existence is secret (a night action tells who holds a
    role): a driver must not let anyone else learn that one was asked, not even by a
    timeout notice or by gaps in request numbers."""
    floor_kinds: ClassVar[frozenset[str]] = frozenset()
    """Decision kinds that give their player the floor: while one is open, that player (and
    only they) may talk in the game's channel."""
    reserved_words: ClassVar[frozenset[str]] = frozenset()
    """Words that options may hold beside seats; no player may be named like one of them."""
    tallied_kinds: ClassVar[frozenset[str]] = frozenset()
    """Kinds of simultaneous decisions whose answers only count together (Avalon's votes and
    quest cards): their handler runs once, on the last answer of the round, and finds the
    round's answers at the end of ``history``. That spares a call per answer on the
    hottest path (a ten-player Avalon game casts some 80 votes). A round that holds one
    holds nothing else (its handler reads the round's answers), so ``apply_round`` may
    answer it whole; its decisions are one-item choices (``play_random`` draws one item
    for each)."""
    dependent_kinds: ClassVar[frozenset[str]] = frozenset()
    """Secret kinds asked only once another's answer is known (the witch acts on the wolves'
    target). Every other secret decision of a stretch is asked at its start; a driver sends
    these no earlier than a fixed time after it began, so how soon they come tells nobody
    who answered early or who is no longer asked."""
    escalation: ClassVar[tuple[str, ...] | None] = None
    """The steps of a missed deadline when the game's own rules fix them (Tuvalon's abnormal
    end: ``forfeit`` at once); None: the referee's ``timeouts.escalation``."""
    default_players: ClassVar[int] = 5
    """The player count a configuration starts from for this game."""

    def __init__(self, players: int, options: Any, seed: int, deal: Sequence[int] | None = None) -> None:
        """Every game is made alike, so a driver can make any of them from a registry: a
        table size, the game's options, a seed and, to replay an old stored game, its deal
        (``deal_roles``)."""
        self.players = players
        self.options = options
        self.seed = seed
        self._deal_asked = None if deal is None else tuple(deal)
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self.history: list[tuple[int, str, Any]] = []
        self.result: Result | None = None
        self.deal: tuple[int, ...] | None = None
        """The deal the roles followed (``deal_roles``); None: the seed shuffled them."""
        self.round = 0
        """Counts rounds of decisions, so a driver can tell a new round from the old one."""
        self._round: Mapping[int, Decision] = {}
        self._pending: dict[int, Decision] = {}
        self._tallied = self.tallied_kinds
        """The class's, read once a game: a class attribute read through an instance is a
        slow lookup, and ``apply`` reads this one on every answer."""

    @classmethod
    def check_setup(cls, players: int, options: Any) -> None:
        """Raise SetupError if a game cannot start with these players and options."""
        raise NotImplementedError

    # -- what a driver asks ---------------------------------------------------------

    def pending(self) -> tuple[Decision, ...]:
        """The decisions the game waits for now (several at once when they are simultaneous)."""
        return tuple(self._pending.values())

    def decision_for(self, seat: int) -> Decision | None:
        return self._pending.get(seat)

    def deal_roles(self, roles: Sequence[Any]) -> list[Any]:
        """Seat ``s`` gets ``roles[deal[s]]`` for the deal the game was made with; without
        one the seeded RNG shuffles, uniformly.

        Games are dealt by their secret seed: any other rule (series once rotated a deal to
        spread role luck) lets players predict roles from earlier games. An explicit deal
        remains so that games stored with one replay exactly, and for tests.
        """
        return [roles[i] for i in self.deal_order(len(roles))]

    def deal_order(self, count: int) -> Sequence[int]:
        """The deal of ``deal_roles`` as the index of each seat's role among ``count`` roles:
        the seeded shuffle of the indices moves them as it would move the roles, so an
        engine that keeps what it knows of each role by index looks it up for the seat."""
        deal = self._deal_asked
        if deal is None:
            order = list(range(count))
            self.rng.shuffle(order)
            return order
        if sorted(deal) != list(range(count)):
            raise SetupError(f"a deal must order the {count} roles, got {list(deal)}")
        self.deal = deal
        return deal

    def view(self, seat: int | None) -> list[Event]:
        """Everything ``seat`` has been told so far; ``None`` is a spectator."""
        return list(view(self.events, seat))

    def apply(self, seat: int, kind: str, value: Any) -> list[Event]:
        """Apply one answer; returns the new events, or raises IllegalAction and changes nothing."""
        pending = self._pending
        try:
            decision = pending[seat] if type(seat) is int else None
        except KeyError:
            decision = None
        if decision is None or decision.kind != kind:
            self._refuse(seat, kind, decision)
        # The common case (one item of the options' own type) skips a call.
        if decision.count != 1 or type(value) is not decision.item_type or value not in decision.options:
            value = decision.check(value)
        self.history.append((seat, kind, value))
        del pending[seat]
        if pending and kind in self._tallied:
            return []  # the handler sees the round's answers together, on the last one
        events = self.events
        start = len(events)
        self.handlers[kind](self, seat, value)
        return events[start:] if len(events) != start else []

    def apply_round(self, answers: Sequence[Any]) -> list[Event]:
        """Answer every pending decision at once, ``answers[i]`` to ``pending()[i]``, when
        they are of ``tallied_kinds``: what applying them in that order does, the handler
        running once, on the last, in one call rather than one a seat (the simulator's way:
        most answers of a random game are votes). Raises IllegalAction and changes nothing
        if any answer is refused."""
        pending = self._pending
        if len(answers) != len(pending) or not pending:
            if self.result is not None:
                raise IllegalAction(ErrorCode.GAME_OVER, "the game is over")
            raise ValueError(f"{len(answers)} answers to a round of {len(pending)} decisions")
        decisions = pending.values()
        first = next(iter(decisions))
        kind, several = first.kind, first.count != 1
        if kind not in self._tallied:
            raise ValueError(f"{kind!r} is not a tallied kind: apply its answer alone")
        answered: list[tuple[int, str, Any]] = []
        for decision, value in zip(decisions, answers):  # a tallied round holds one kind, so one count
            if several or type(value) is not decision.item_type or value not in decision.options:
                value = decision.check(value)
            answered.append((decision.seat, kind, value))
        self.history += answered
        pending.clear()
        events = self.events
        start = len(events)
        self.handlers[kind](self, decision.seat, value)
        return events[start:]

    def time_limit(self, decision: Decision) -> float | None:
        """Seconds the game's own options give ``decision``; None: the referee's default."""
        return None

    def paced(self) -> bool:
        """Whether the secret decisions pending now open a stretch that may grow with
        ``dependent_kinds`` ones (a Werewolf night with a witch dealt, alive or not): a
        driver then ends the stretch no earlier than when those would go out, so its length
        does not tell whether they did."""
        return False

    def speech_budget(self) -> int | None:
        """Bytes each player may say in the whole game (in the channel and in private) before
        it forfeits; None: no budget."""
        return None

    def is_out(self, seat: int) -> bool:
        """Whether ``seat`` is out of the game (a dead Werewolf player): it may neither talk
        nor act, and a driver tells it so (PLAYER_DEAD) rather than "not your turn"."""
        return False

    def team_talk(self, seat: int) -> tuple[int, ...]:
        """The other seats that may hear ``seat`` talk in private now (the wolves at night);
        empty when ``seat`` may not talk in private."""
        return ()

    def talks_in_private(self, seat: int) -> bool:
        """Whether ``seat`` may talk in private now (its lines go to ``team_talk``, which may
        be nobody: a Tuvalon speaker out of everyone's range still speaks). By default,
        whenever someone may hear it."""
        return bool(self.team_talk(seat))

    def default_answer(self, decision: Decision) -> Any:
        """The answer applied for a player who let the deadline pass (documented per game)."""
        raise NotImplementedError

    def forfeit(self, seat: int, why: str) -> list[Event]:
        """End the game because ``seat`` broke the rules of play (timeouts, leaving)."""
        if self.result is not None:
            raise IllegalAction(ErrorCode.GAME_OVER, "the game is over")
        start = len(self.events)
        self._emit("end", {"winner": None, "reason": FORFEIT, "forfeit": seat, "why": why, **self._reveal()})
        self._finish(Result(None, frozenset(), FORFEIT, forfeited=seat))
        return self.events[start:]

    def abort(self, why: str) -> list[Event]:
        """End the game with nobody at fault (an operator stopped it): no winner, no loser."""
        if self.result is not None:
            raise IllegalAction(ErrorCode.GAME_OVER, "the game is over")
        start = len(self.events)
        self._emit("end", {"winner": None, "reason": ABORTED, "why": why, **self._reveal()})
        self._finish(Result(None, frozenset(), ABORTED))
        return self.events[start:]

    def _reveal(self) -> dict[str, Any]:
        """What the end of a game discloses to everyone (roles and the like)."""
        raise NotImplementedError

    def replay(self, actions: Iterable[tuple[int, str, Any]]) -> None:
        """Re-apply a recorded history (the engine is deterministic given its seed)."""
        for seat, kind, value in actions:
            self.apply(seat, kind, value)

    # -- what engines use -----------------------------------------------------------

    def _emit(self, kind: str, data: dict[str, Any], audience: Iterable[int] | None = EVERYONE) -> None:
        self.events.append(Event(kind, data, None if audience is None else frozenset(audience)))

    def _open(self, decisions: Iterable[Decision]) -> None:
        """Start a new round of decisions, replacing whatever was pending."""
        self.round += 1
        self._round = {d.seat: d for d in decisions}
        self._pending = self._round.copy()

    def _extend(self, decisions: Iterable[Decision]) -> None:
        """Add decisions to the open round while others in it are still unanswered (a
        Werewolf night asks the witch once the wolves are done, whoever else still thinks).
        It counts as a new round: a driver asks what it has not asked yet."""
        added = {d.seat: d for d in decisions}
        self.round += 1
        self._round = {**self._round, **added}
        self._pending.update(added)

    def _open_round(self, round_: dict[int, Decision]) -> None:
        """``_open`` for a round built in advance, seat to decision: engines ask the same
        rounds again and again (every seat's vote), and building them once spares a dict
        per round. Games may share ``round_``, so it is never mutated: only the copy that
        tracks who has yet to answer changes."""
        self.round += 1
        self._round = round_
        self._pending = round_.copy()

    def round_answers(self) -> list[tuple[int, str, Any]]:
        """The answers of the round just completed, for a tallied kind's handler."""
        return self.history[-len(self._round) :]

    def _finish(self, result: Result) -> None:
        self.result = result
        self._round = {}
        self._pending = {}

    def _refuse(self, seat: int, kind: str, decision: Decision | None) -> NoReturn:
        if self.result is not None:
            raise IllegalAction(ErrorCode.GAME_OVER, "the game is over")
        if not (type(seat) is int and 0 <= seat < self.players):
            raise IllegalAction(ErrorCode.NOT_A_PLAYER, f"seat {seat!r} is not in this game")
        kinds = {d.kind for d in self._round.values()}
        if not isinstance(kind, str) or kind not in kinds:
            now = ", ".join(sorted(kinds)) or "nothing"
            raise IllegalAction(ErrorCode.INVALID_PHASE, f"{kind!r} is not asked for now (the game waits for {now})")
        if decision is not None:
            raise IllegalAction(ErrorCode.ACTION_NOT_ALLOWED, f"you are asked for {decision.kind!r}, not {kind!r}")
        if seat in self._round:
            raise IllegalAction(ErrorCode.ALREADY_ACTED, f"you already answered {kind!r} this round")
        raise IllegalAction(ErrorCode.NOT_YOUR_TURN, f"{kind!r} is not yours to answer now")
