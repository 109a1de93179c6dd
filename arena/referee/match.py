"""One game in progress, driven through lines: requests out, answers in, deadlines kept.

The match is transport-agnostic: it writes through ``say`` (the game's channel) and
``tell`` (a direct message) and reads the clock only through the ``now`` its callers pass,
so the in-memory transport and IRC drive the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

from ..core.decisions import Decision
from ..core.errors import ErrorCode, IllegalAction
from ..core.events import Event
from ..core.game import Game
from ..protocol import ASK, ERROR, TIMEOUT, WARN, Message, ProtocolError

WARN_STEP, DEFAULT_STEP, FORFEIT_STEP = "warn", "default", "forfeit"


class Timeouts(Protocol):
    decision: float
    grace: float
    escalation: tuple[str, ...]


class Lines(Protocol):
    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | None: ...
    def ask_context(self, game: Any, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]: ...


@dataclass
class Request:
    rid: int
    round: int
    seats: set[int]


@dataclass
class Match:
    gid: str
    game: Game
    names: list[str]
    """The seat order by nick as announced at the start; public lines keep these names."""
    lines: Lines
    timeouts: Timeouts
    say: Callable[[str], None]
    tell: Callable[[str, str], None]
    on_end: Callable[["Match"], None] | None = None
    nicks: list[str] = field(init=False)
    """Where each seat's direct messages go now (follows renames)."""
    transcript: list[tuple[str | None, str]] = field(default_factory=list)
    """Every line sent, with its addressee (None: the channel) — the game as people saw it."""

    def __post_init__(self) -> None:
        self.nicks = list(self.names)
        self._seat_of = {n.lower(): i for i, n in enumerate(self.names)}
        self._seat_named = dict(self._seat_of)
        """Seats by the names announced at the start: choices are named this way for good."""
        self._requests: dict[int, Request] = {}
        self._next_rid = 1
        self._deadline: dict[int, float] = {}
        self._misses = [0] * len(self.names)
        self._published = 0

    # -- lifecycle ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game.result is not None

    def start(self, now: float) -> None:
        self._advance(now)

    def seat_of(self, nick: str) -> int | None:
        return self._seat_of.get(nick.lower())

    def rename(self, old: str, new: str) -> None:
        seat = self._seat_of.pop(old.lower(), None)
        if seat is not None:
            self._seat_of[new.lower()] = seat
            self.nicks[seat] = new

    # -- answers --------------------------------------------------------------------

    def answer(self, nick: str, msg: Message, now: float) -> None:
        """Handle ``ANSWER gid rid value`` from ``nick``; a bad answer gets an ERROR and changes nothing."""
        rid_text, value = msg.args[1], msg.args[2]
        try:
            seat = self.seat_of(nick)
            if seat is None:
                raise IllegalAction(ErrorCode.NOT_A_PLAYER, f"you are not playing game {self.gid}")
            if self.over:
                raise IllegalAction(ErrorCode.GAME_OVER, f"game {self.gid} is over")
            if not rid_text.isdigit():
                raise ProtocolError(ErrorCode.MALFORMED, f"request id must be a number, got {rid_text[:20]!r}")
            rid = int(rid_text)
            request = self._requests.get(rid)
            if request is None or seat not in request.seats:
                self._refuse_request(seat, rid)
            decision = self.game.decision_for(seat)
            assert decision is not None
            self.game.apply(seat, decision.kind, self._decode(decision, value))
        except (IllegalAction, ProtocolError) as exc:
            self._send(nick, Message.make(ERROR, exc.code.value, self.gid, rid_text, text=exc.reason))
            return
        request.seats.discard(seat)
        self._deadline.pop(seat, None)
        self._advance(now)

    def _refuse_request(self, seat: int, rid: int) -> None:
        if rid < self._next_rid:
            live = [r.rid for r in self._requests.values() if seat in r.seats]
            hint = f"; answer request {live[0]}" if live else "; nothing is asked of you now"
            raise ProtocolError(ErrorCode.STALE_REQUEST, f"request {rid} is not open for you{hint}")
        raise ProtocolError(ErrorCode.STALE_REQUEST, f"no request {rid} in game {self.gid}")

    def _decode(self, decision: Decision, value: str) -> Any:
        """Wire form to engine form: nicks become seats where the choices are players."""
        if not decision.targets:
            return value
        items = value.split(",")
        seats = []
        for item in items:
            seat = self._seat_named.get(item.lower())
            if seat is None:
                raise IllegalAction(ErrorCode.TARGET_INVALID, f"{item[:20]!r} is not a player of game {self.gid}")
            seats.append(seat)
        if decision.count == 1:
            if len(seats) != 1:
                raise IllegalAction(ErrorCode.WRONG_COUNT, f"{decision.kind}: name exactly one player")
            return seats[0]
        return seats

    # -- deadlines ------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        return min(self._deadline.values(), default=None)

    def poll(self, now: float) -> None:
        """Apply the escalation step to every seat whose deadline has passed."""
        for seat, deadline in sorted(self._deadline.items(), key=lambda kv: kv[1]):
            if self.over or deadline > now or self._deadline.get(seat) != deadline:
                continue
            self._missed(seat, now)
        self._advance(now)

    def _missed(self, seat: int, now: float) -> None:
        if self.game.decision_for(seat) is None:
            self._deadline.pop(seat, None)
            return
        steps = self.timeouts.escalation
        step = steps[min(self._misses[seat], len(steps) - 1)]
        self._misses[seat] += 1
        rid = next(r.rid for r in self._requests.values() if seat in r.seats)
        if step == WARN_STEP:
            self._deadline[seat] = now + self.timeouts.grace
            self._send(self.nicks[seat], Message.make(WARN, self.gid, rid, seconds=int(self.timeouts.grace),
                                                      text="your deadline passed; answer now or the default applies"))
            return
        del self._deadline[seat]
        for request in self._requests.values():
            request.seats.discard(seat)
        if step == FORFEIT_STEP:
            self._send(None, Message.make(TIMEOUT, self.gid, rid, player=self.names[seat], action="forfeit"))
            self._publish(self.game.forfeit(seat, "timeout"))
            return
        decision = self.game.decision_for(seat)
        assert decision is not None
        self._send(None, Message.make(TIMEOUT, self.gid, rid, player=self.names[seat], action="default"))
        self.game.apply(seat, decision.kind, self.game.default_answer(decision))

    # -- output ---------------------------------------------------------------------

    def _advance(self, now: float) -> None:
        """Publish new events, then ask for any round of decisions not yet asked.

        A decision with a single legal choice (a good player's quest card) is made for the
        player instead of asked: it saves a line and a round trip and tells no one anything.
        """
        game = self.game
        while True:
            if self._published < len(game.events):
                self._publish(game.events[self._published:])
            if self.over:
                self._requests.clear()
                self._deadline.clear()
                if self.on_end is not None:
                    on_end, self.on_end = self.on_end, None
                    on_end(self)
                return
            round_ = game.round
            if any(r.round == round_ for r in self._requests.values()):
                return
            self._requests = {}
            self._deadline = {}
            pending = game.pending()
            forced = [d for d in pending if d.count == 1 and len(d.options) == 1]
            self._ask([d for d in pending if not (d.count == 1 and len(d.options) == 1)], now)
            for d in forced:
                game.apply(d.seat, d.kind, d.options[0])

    def _publish(self, events: Sequence[Event]) -> None:
        self._published += len(events)
        for event in events:
            msg = self.lines.event_message(event, self.gid, self.names)
            if msg is None:
                continue
            if event.audience is None:
                self._send(None, msg)
            else:
                for seat in sorted(event.audience):
                    self._send(self.nicks[seat], msg)

    def _ask(self, decisions: Sequence[Decision], now: float) -> None:
        """One line per group of identical public requests; private ones go to each player."""
        public = self.game.public_kinds
        groups: dict[tuple, list[Decision]] = {}
        for d in decisions:
            key = (d.kind, d.options, d.count) if d.kind in public else (d.seat,)
            groups.setdefault(key, []).append(d)
        deadline = now + self.timeouts.decision
        for group in groups.values():
            d = group[0]
            rid = self._next_rid
            self._next_rid += 1
            seats = {x.seat for x in group}
            self._requests[rid] = Request(rid, self.game.round, seats)
            for seat in seats:
                self._deadline[seat] = deadline
            options = [self.names[o] for o in d.options] if d.targets else list(d.options)
            to = "all" if len(seats) == len(self.names) else [self.names[s] for s in sorted(seats)]
            fields: dict[str, Any] = {"to": to, "deadline": int(self.timeouts.decision), "options": options}
            if d.count != 1:
                fields["pick"] = d.count
            fields.update(self.lines.ask_context(self.game, d, self.names))
            msg = Message.make(ASK, self.gid, rid, d.kind, **fields)
            if d.kind in public:
                self._send(None, msg)
            else:
                self._send(self.nicks[d.seat], msg)

    def _send(self, nick: str | None, msg: Message) -> None:
        line = msg.format()
        self.transcript.append((nick, line))
        if nick is None:
            self.say(line)
        else:
            self.tell(nick, line)
