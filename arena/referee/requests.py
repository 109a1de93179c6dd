"""A match's requests: their ids, which are open for whom, and the ASK lines that carry them.

An id tells nothing: where some requests are secret (a night action) ids are drawn at
random, and a refusal says the same of a request that is someone else's as of one never
issued.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..core.decisions import Decision
from ..core.errors import ErrorCode, IllegalAction
from ..core.game import Game
from ..core.seeds import derive_seed
from ..protocol import ASK, MAX_TEXT_BYTES, Message, ProtocolError, render, shown
from .seats import Seats


@dataclass
class Request:
    rid: int
    seats: set[int]
    """The seats still to answer it."""


class Requests:
    """The requests a game has issued and those still open."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.open: dict[int, Request] = {}
        """Requests by id that some seat has still to answer."""
        self.asked = -1
        """The engine round whose requests went out last (the engine counts from 0)."""
        self._next_rid = 1
        self.issued: set[int] = set()
        """Every id issued so far: none twice."""
        self._answered: set[tuple[int, int]] = set()
        """(seat, request id) of every answer that counted: a second answer to the same
        request is told ALREADY_ACTED, whether or not the request is still open for others."""
        self._rids = random.Random(derive_seed(game.seed, "rids")) if game.secret_kinds else None
        """Request ids are drawn at random when some requests are secret: consecutive ids
        would tell everyone how many secret requests went out in between."""
        self.sent_at: dict[int, tuple[str, float, int]] = {}
        """Per seat, its latest request (by id as the wire spells it, which an answer
        names), when it went out (answers' latency) and its id as a number."""

    def new(self, seats: set[int]) -> Request:
        """Open a request of ``seats`` under a new id."""
        if self._rids is None:
            rid = self._next_rid
            self._next_rid += 1
        else:
            rid = self._rids.randrange(1, 10**6)
            while rid in self.issued:
                rid = self._rids.randrange(1, 10**6)
        self.issued.add(rid)
        request = self.open[rid] = Request(rid, seats)
        return request

    def restore(self, issued: frozenset[int], resumes: int) -> None:
        """Go on issuing ids after a restart: none of ``issued`` again, and, drawn at
        random, from a stream of their own (``resumes`` counts earlier restarts)."""
        self.issued.update(issued)
        self._next_rid = max(self.issued, default=0) + 1
        if self._rids is not None:
            self._rids = random.Random(derive_seed(self.game.seed, "rids", resumes + 1))

    def of(self, seat: int) -> Request | None:
        """The seat's open request, if any."""
        return next((r for r in self.open.values() if seat in r.seats), None)

    def sent(self, seats: set[int], rid: int, now: float, queued: bool) -> Callable[[float], None] | None:
        """The request's lines went out to ``seats`` at ``now``, or, ``queued``, wait in the
        transport's queue: then what to call with the time they actually go out."""
        sent_at = (str(rid), now, rid)
        self.sent_at.update(dict.fromkeys(seats, sent_at))
        if not queued:
            return None

        def went(at: float) -> None:
            for seat in seats:
                if self.sent_at.get(seat) == sent_at:
                    self.sent_at[seat] = (sent_at[0], at, rid)

        return went

    def answered(self, seat: int, request: Request) -> None:
        self._answered.add((seat, request.rid))
        request.seats.discard(seat)

    def close(self, seats: Sequence[int] | set[int]) -> None:
        """Nothing more is asked of ``seats`` under the ids open now."""
        for request in self.open.values():
            request.seats.difference_update(seats)

    def prune(self) -> None:
        """Forget the requests every seat has answered."""
        self.open = {rid: r for rid, r in self.open.items() if r.seats}

    def refuse(self, seat: int, rid: int, out: bool) -> NoReturn:
        """Why ``rid`` is not open for ``seat``: answered already (ALREADY_ACTED), nothing
        asked of a player who is ``out`` (PLAYER_DEAD), or else STALE_REQUEST, with one text
        whether ``rid`` is someone else's or was never issued: a difference would tell that
        a secret request (a night action) exists. The hint names only the player's own
        open request."""
        if (seat, rid) in self._answered:
            raise IllegalAction(ErrorCode.ALREADY_ACTED, f"you already answered request {rid}")
        live = [r.rid for r in self.open.values() if seat in r.seats]
        if not live and out:
            raise IllegalAction(ErrorCode.PLAYER_DEAD, "you are dead: nothing is asked of you")
        hint = f"; answer request {live[0]}" if live else "; nothing is asked of you now"
        raise ProtocolError(ErrorCode.STALE_REQUEST, f"request {rid} is not open for you{hint}")


def grouped(decisions: Sequence[Decision], game: Game) -> list[list[Decision]]:
    """A round of decisions by the request that asks them. Identical public requests
    share one (one line in the channel); private requests of one kind (the quest cards of
    a team) share one id, so the ids tell nobody who was offered what; a secret request
    (a night action) is its player's alone."""
    public, secret = game.public_kinds, game.secret_kinds
    groups: dict[tuple[object, ...], list[Decision]] = {}
    for d in decisions:
        kind = d.kind
        key: tuple[object, ...] = (
            (kind, d.options, d.count) if kind in public else (d.seat,) if kind in secret else (kind,)
        )
        group = groups.get(key)
        if group is None:
            groups[key] = [d]
        else:
            group.append(d)
    return list(groups.values())


def apply_answer(game: Game, seat: int, value: str, seats: Seats, gid: str) -> None:
    """Apply the seat's answer ``value`` (as the wire spells it) to its pending decision;
    a refusal says why in the wire's words."""
    decision = game.decision_for(seat)
    assert decision is not None
    items = value.split(",")
    # (most answers name no player and are their own items: no call for those)
    chosen = decode(decision, items, game, seats, gid) if decision.targets or len(items) != decision.count else items
    try:
        game.apply(seat, decision.kind, chosen[0] if decision.count == 1 else chosen)
    except IllegalAction as exc:
        why = exc.reason if decision.explains else explain(exc.code, decision, items, chosen, seats.names)
        raise IllegalAction(exc.code, why) from None


def options_shown(d: Decision, names: Sequence[str]) -> list[str]:
    """The decision's options as the wire shows them: players by their START nicks."""
    if not d.targets:
        return list(map(str, d.options))
    return [names[o] if type(o) is int else str(o) for o in d.options]


def ask_line(
    gid: str,
    rid: int,
    d: Decision,
    to: str | list[str],
    seconds: float,
    game: Game,
    context: dict[str, Any],
    names: Sequence[str],
) -> Message:
    """The ASK for ``d``, with the game's ``context`` fields, as ``Message.make`` would
    render it (built directly: a game asks on nearly every step)."""
    fields = {
        "to": to if type(to) is str else ",".join(to),
        "deadline": str(int(seconds)),
        "options": ",".join(options_shown(d, names)),
    }
    if d.count != 1:
        fields["pick"] = str(d.count)
    if d.kind in game.floor_kinds:
        fields["floor"] = "true"  # the player has the channel until they answer
    for key, value in context.items():
        fields[key] = value if type(value) is str else render(value)  # (text as it is: no call)
    return Message(ASK, (gid, str(rid), d.kind), fields)


def decode(decision: Decision, items: list[str], game: Game, seats: Seats, gid: str) -> list[Any]:
    """Wire form to engine form, one item per choice: nicks become seats where the
    choices are players; a reserved word among the options (``none``, ``abstain``)
    stays a word. Counted first: ``approve,reject`` is two choices, not a bad one."""
    if len(items) != decision.count:
        raise IllegalAction(ErrorCode.WRONG_COUNT, f"{decision.kind}: choose {decision.count}, not {len(items)}")
    if not decision.targets:
        return items
    words = game.reserved_words
    chosen: list[Any] = []
    for item in items:
        if item in words:
            chosen.append(item)
            continue
        seat = seats.named(item)
        if seat is None:
            raise IllegalAction(ErrorCode.TARGET_INVALID, f"{shown(item)} is not a player of game {gid}")
        chosen.append(seat)
    return chosen


def explain(code: ErrorCode, decision: Decision, items: list[str], chosen: list[Any], names: Sequence[str]) -> str:
    """The engine's refusal in the wire's words. Engines know players by seat and say
    so; a bot knows them by the nicks of START, so the reason is phrased here, from the
    code, the choice as the bot wrote it and the options as its request showed them."""
    kind = decision.kind
    bad = next((shown(item) for item, c in zip(items, chosen) if c not in decision.options), None)
    if code is ErrorCode.CANNOT_SELF_TARGET:
        return f"{kind}: you cannot choose yourself"
    if code is ErrorCode.TARGET_ALREADY_DEAD:
        return f"{kind}: {bad} is dead"
    if code is ErrorCode.REPEATED_PROTECT:
        return f"{kind}: you protected {bad} last night"
    if bad is None:
        return f"{kind}: a choice is repeated"
    reason = f"{kind}: {bad} is not one of your options: {','.join(options_shown(decision, names))}"
    return reason if len(reason.encode()) <= MAX_TEXT_BYTES else f"{kind}: {bad} is not one of your options"
