"""How a match asks its players: a round of decisions in as few lines as secrets allow, each
request with its deadline, and what a missed deadline brings (a WARN, the default, a forfeit).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.decisions import Decision
from ..core.events import Event
from ..core.game import Game
from ..protocol import TIMEOUT, WARN, Message
from .deadlines import FORFEIT_STEP, WARN_STEP, Deadlines, Timeouts
from .record import Lines, Record
from .requests import Request, Requests, ask_line, grouped
from .seats import Seats


class Asker:
    """Sends a match's requests and keeps their deadlines."""

    def __init__(
        self,
        gid: str,
        game: Game,
        seats: Seats,
        lines: Lines,
        timeouts: Timeouts,
        record: Record,
        requests: Requests,
        deadlines: Deadlines,
        queued: bool,
    ) -> None:
        self.gid = gid
        self.game = game
        self.seats = seats
        self.lines = lines
        self.timeouts = timeouts
        self.record = record
        self.requests = requests
        self.deadlines = deadlines
        self.queued = queued
        """Whether the transport queues lines (``MatchOutput.after_sent``): a request's clock
        then starts when its lines go out."""

    def ask_new(self, pending: Sequence[Decision], now: float) -> None:
        """Ask the pending decisions not asked yet (a round may grow: a Werewolf night adds
        the witch's request while others are still open), and forget answered requests.

        A dependent decision (``Game.dependent_kinds``) waits until the stretch's step, a
        fixed time after it began: sent as soon as it could be, it would tell its player
        when the others answered, and whether the roles before it still act.
        """
        self.requests.prune()
        at = self.deadlines.at
        new = [d for d in pending if d.seat not in at]
        dependent = self.game.dependent_kinds
        held = [d for d in new if d.kind in dependent] if self.deadlines.early(now) else []
        self.deadlines.holding = bool(held)
        if held:
            new = [d for d in new if d.kind not in dependent]
        if new:
            self._ask(new, now)

    def _ask(self, decisions: Sequence[Decision], now: float) -> None:
        """Ask a round of decisions with as few lines as secrets allow.

        Identical public requests share one line in the channel. Private requests of one
        kind (the quest cards of a team) share one request id, so the ids tell nobody who
        was offered what; each distinct variant goes by DM to the players it is for. A
        secret request (a night action) is asked of its player alone.
        """
        game, record, names = self.game, self.record, self.seats.names
        public = game.public_kinds
        for group in grouped(decisions, game):
            request = self.requests.new({d.seat for d in group})
            seats = request.seats
            limit = game.time_limit(group[0])
            seconds = self.timeouts.decision if limit is None else limit
            to = "all" if len(seats) == len(names) else [names[s] for s in sorted(seats)]
            if group[0].kind in public:  # one variant: the options are part of the key
                record.send(None, self._request(request, group[0], to, seconds))
            else:
                variants: dict[tuple[object, ...], list[Decision]] = {}
                for d in group:
                    variants.setdefault((d.options, d.count), []).append(d)
                nicks = self.seats.nicks
                for variant in variants.values():
                    record.send_each([nicks[d.seat] for d in variant], self._request(request, variant[0], to, seconds))
            self._start_deadlines(request, seconds, now)

    def _request(self, request: Request, d: Decision, to: str | list[str], seconds: float) -> Message:
        return ask_line(
            self.gid,
            request.rid,
            d,
            to,
            seconds,
            self.game,
            self.lines.ask_context(self.game, d, self.seats.names),
            self.seats.names,
        )

    def _start_deadlines(self, request: Request, seconds: float, now: float) -> None:
        """Give the request's seats ``seconds`` to answer it, from when its lines go out;
        their answers' latency counts from then too."""
        seats = request.seats  # (its own set: those who answer before it goes out are done)
        self.record.flush()  # the clock starts when the request has gone out, not before
        went = self.requests.sent(seats, request.rid, now, self.queued)
        self.deadlines.start(request.rid, seats, seconds, now, len(self.record.transcript), went)

    def missed(self, seat: int, now: float) -> list[Event]:
        """The seat's deadline passed: the next step of its escalation (a WARN with a grace,
        its decision's default, or a forfeit, whose events it returns for the match to publish)."""
        game, deadlines, timeouts = self.game, self.deadlines, self.timeouts
        if game.decision_for(seat) is None:
            deadlines.at.pop(seat, None)
            return []
        step = deadlines.escalate(seat, game.escalation or timeouts.escalation)
        request = self.requests.of(seat)
        assert request is not None
        rid = request.rid
        if step == WARN_STEP:
            self.record.send(
                self.seats.nicks[seat],
                Message.make(
                    WARN,
                    self.gid,
                    rid,
                    seconds=int(timeouts.grace),
                    text="your deadline passed; answer now or the default applies",
                ),
            )
            deadlines.start(rid, {seat}, timeouts.grace, now, len(self.record.transcript))
            return []
        deadlines.drop(seat)
        self.requests.close((seat,))
        player = self.seats.names[seat]
        if step == FORFEIT_STEP:
            self.record.send(None, Message.make(TIMEOUT, self.gid, rid, player=player, action="forfeit"))
            return game.forfeit(seat, "timeout")
        decision = game.decision_for(seat)
        assert decision is not None
        # Only a public request's timeout is public: the default of a private one would tell
        # what its player chose (an Avalon quest card) or that they hold a role (a night action).
        to = None if decision.kind in game.public_kinds else self.seats.nicks[seat]
        self.record.send(to, Message.make(TIMEOUT, self.gid, rid, player=player, action="default"))
        game.apply(seat, decision.kind, game.default_answer(decision))
        return []  # (its events go out with the match's next step, as an answer's do)
