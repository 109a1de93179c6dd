"""One game in progress, driven through lines: requests out, answers in, deadlines kept.

The match is transport-agnostic: it writes through ``say`` (the game's channel) and
``tell`` (a direct message) and reads the clock only through the ``now`` its callers pass,
so the in-memory transport and IRC drive the same code.
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, NoReturn, Protocol, Sequence

from ..core.decisions import Decision
from ..core.errors import ErrorCode, IllegalAction
from ..core.events import Event
from ..core.game import ABORTED, FORFEIT, Game
from ..core.said import FALLBACKS, Answer, Talk
from ..core.seeds import derive_seed
from ..protocol import (
    ASK, ERROR, FLOOR_LINES, MAX_TEXT_BYTES, RESYNC, TEAM, TIMEOUT, WARN, Message, ProtocolError, parse, render,
    request_id, shown, text_fault, valid_request_id,
)

_tuple_new = tuple.__new__

log = logging.getLogger(__name__)

WARN_STEP, DEFAULT_STEP, FORFEIT_STEP = "warn", "default", "forfeit"

REFUSALS_KEPT = 20
"""Refusals (ERROR lines) the transcript keeps one by one per seat; the rest are counted by
code, so a bot that floods the referee with bad lines cannot grow a stored game without bound."""
CHAT_KEPT = 100
"""Lines of free chat (a game without turns at the floor: Avalon) kept per seat: enough for
any conversation, few enough that a bot flooding its channel cannot grow the record."""


def not_playing(gid: str) -> IllegalAction:
    """The refusal of a line about a game its sender has no seat in (running or ended)."""
    return IllegalAction(ErrorCode.NOT_A_PLAYER, f"you are not playing game {gid}")


def game_over(gid: str) -> IllegalAction:
    """The refusal of a player's line about a game that has ended: the same words from the
    match and, once the match is gone, from the referee that remembers the game."""
    return IllegalAction(ErrorCode.GAME_OVER, f"game {gid} is over")


class Timeouts(Protocol):
    """Read-only: the config's frozen ``TimeoutConfig`` is the usual one."""

    @property
    def decision(self) -> float: ...
    @property
    def grace(self) -> float: ...
    @property
    def escalation(self) -> tuple[str, ...]: ...
    @property
    def secret_minimum(self) -> float: ...
    @property
    def night_step(self) -> float | None: ...


class Lines(Protocol):
    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | list[Message] | None:
        """The line(s) for an event, or None when it needs none (a request carries it)."""
        ...
    def ask_context(self, game: Any, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]: ...
    @property
    def private_talk(self) -> str:
        """Why a ``TEAM`` line is refused when its sender may not talk in private now."""
        ...
    @property
    def private_lines(self) -> int | None:
        """Lines a turn of private speech holds (Tuvalon's second discussion); None: no cap."""
        ...


@dataclass
class Request:
    rid: int
    seats: set[int]


@dataclass(frozen=True)
class Told:
    """What a game's players have been told of its seats: who is out, and whom each seat may
    talk to in private (None: it may not). While a night's public lines are held, the game
    itself is ahead of this (its dawn is resolved), and a refusal must not tell it early."""

    out: frozenset[int]
    talk: tuple[tuple[int, ...] | None, ...]


@dataclass
class Match:
    gid: str
    game: Game
    names: list[str]
    """The seat order by nick as announced at the start; public lines keep these names."""
    lines: Lines
    timeouts: Timeouts
    say: Callable[[str], object]
    tell: Callable[[str, str], object]
    tell_many: Callable[[Sequence[str], str], object] | None = None
    """Sends one line to several nicks at once (one IRC line for many DMs); None: ``tell`` each."""
    reply: Callable[[str, str], object] | None = None
    """Sends a refusal to the nick whose line it answers, behind the game's lines where the
    transport can, and may drop it (the referee limits what one sender costs); None: ``tell``."""
    after_sent: Callable[[Callable[[float], None]], object] | None = None
    """Calls back with the time every line sent so far actually went out (IRC queues them
    behind a rate limit): a deadline starts then. None: lines go out at once."""
    post: Callable[[str | None, str, Message], object] | None = None
    """Sends a line that carries one whole message together with that message, to a nick
    or (None) the game's channel, where the transport can use the message: the in-memory
    hub hands it to bots in its own process, which need not parse the line again. None:
    ``say`` and ``tell``."""
    on_end: Callable[["Match"], None] | None = None
    on_floor: Callable[[str | None, str | None], None] | None = None
    """Called with the nicks of the old and the new floor holder when the floor changes
    hands (IRC voices the speaker in a moderated channel)."""
    bots: list[str] | None = None
    """The bot (identity) that plays each seat; None: the names announced are the bots."""
    channel: str | None = None
    """The game's channel, named in ``RESYNC`` so that a bot coming back can rejoin it."""
    started: float | None = None
    """Wall-clock time the game began, when it began in an earlier run of the referee
    (``restore``); None: now."""
    nicks: list[str] = field(init=False)
    """Where each seat's direct messages go now (follows renames)."""
    transcript: list[tuple[str | None, str]] = field(default_factory=list)
    """Every line sent, with its addressee (None: the channel) — the game as people saw it —
    except refusals past ``REFUSALS_KEPT`` per seat: at the end, one line per seat and code
    stands for those, ``ERROR CODE GID count=N :...`` (to the seat's name in START)."""
    talk: list[Talk] = field(default_factory=list)
    """The speeches: every line a floor holder said in the game's channel during its turn,
    within the turn's limits. Refused lines (out of turn, too long, past ``FLOOR_LINES``)
    are left out: they are no part of the game."""
    answers: list[Answer] = field(default_factory=list)
    """Every ``ANSWER`` from a seat's bot, accepted or refused, except refusals past
    ``REFUSALS_KEPT`` per seat (counted in the transcript, like their ERROR lines)."""
    origin: float = 0.0
    """The callers' clock (``now``) when the game began: the times of ``talk`` and
    ``answers`` count from it. ``start`` sets it; a restored game's is set by its referee."""

    def __post_init__(self) -> None:
        self.nicks = list(self.names)
        if self.bots is None:
            self.bots = list(self.names)
        self._seat_of = {n.lower(): i for i, n in enumerate(self.bots)}
        """Seats by bot: only the connection that registered a seat's bot plays it."""
        self._seat_named = {n.lower(): i for i, n in enumerate(self.names)}
        self._seat_at = dict(self._seat_named)
        """Seats by the folded nick their private lines go to now (``nicks``)."""
        self.told: list[int | None] = []
        """For each transcript line, the seat whose knowledge it is (a private line to the
        seat, whoever held the nick), or None (the channel, refusals, strangers): what
        ``resync`` replays to a seat besides the channel's lines."""
        self._away: set[str] = set()
        """Folded nicks of seats whose bot has no connection now: their lines are recorded
        but go to nobody, since whoever holds the nick meanwhile is not the bot."""
        """Seats by the names announced at the start: choices are named this way for good."""
        self._requests: dict[int, Request] = {}
        self._asked = -1
        """The engine round whose requests went out last (the engine counts from 0)."""
        self._next_rid = 1
        self._deadline: dict[int, float] = {}
        self._unsent: dict[int, int] = {}
        """Seats whose request (by id) is still queued in the transport: their deadline
        starts when it goes out (``after_sent``), and cannot pass before."""
        self._kept: Counter[int | None] = Counter()
        """Refusals kept in the transcript, by seat (None: senders without a seat, who
        share one allowance and are not counted past it: they are no player's conduct)."""
        self._refusals: dict[int, Counter[str]] = {}
        """Refusals past the allowance, by seat and code."""
        self._misses = [0] * len(self.names)
        self._spoken = [0] * len(self.names)
        self._private_turn: tuple[int, int] | None = None
        self._private_said = 0
        """Lines said in private by the seat in the engine round of ``_private_turn``: a turn
        of private speech (Tuvalon's second discussion) holds ``Lines.private_lines``."""
        """Bytes each seat has said (its speeches and private lines), for the speech budget."""
        self._published = 0
        self._issued: set[int] = set()
        self._answered: set[tuple[int, int]] = set()
        """(seat, request id) of every answer that counted: a second answer to the same
        request is told ALREADY_ACTED, whether or not the request is still open for others."""
        self._rids = random.Random(derive_seed(self.game.seed, "rids")) if self.game.secret_kinds else None
        """Request ids are drawn at random when some requests are secret: consecutive ids
        would tell everyone how many secret requests went out in between."""
        self._floor: int | None = None
        self._floor_said = 0
        self._voiced: str | None = None
        """The nick that ``on_floor`` voiced last and has not devoiced."""
        self._secret_since: float | None = None
        """When the current stretch of secret requests (a Werewolf night) began."""
        self._hold_until: float | None = None
        """Until when the stretch must still look busy: its next public line waits."""
        self._step_at: float | None = None
        """When the stretch's dependent requests (the witch's) may go out (``night_step``)."""
        self._holding = False
        """Whether a dependent request waits for ``_step_at``."""
        self._stretch_unsent = False
        """Whether the lines that opened the stretch (``NIGHT``, its requests) still wait in
        the transport's queue: its clock (``_secret_since``, ``_step_at``) starts when they
        go out (``after_sent``), as a deadline does. Counted from when they were queued, a
        night whose ``NIGHT`` waited behind the day's lines would be over, or its witch
        asked, as soon as its readers saw it begin."""
        self._suspended = False
        """Restored from the store and waiting for its bots (``restore``), or paused
        (``pause``), until ``go_on``."""
        self._paused_at: float | None = None
        """When ``pause`` stopped the game's clock (None: it runs)."""
        self._told_by: dict[int, int] = {}
        """Per seat with a deadline, the transcript's length once the line that started it
        (its ASK or WARN) was sent: whether that line went out before a pause."""
        self._sent_at: dict[int, tuple[str, float, int]] = {}
        """Per seat, its latest request (by id as the wire spells it, which an answer
        names), when it went out (answers' latency) and its id as a number."""
        self._told: Told | None = None
        """The seats as the players were last told everything during a stretch of secret
        requests, whose public lines may be held (``_remember_told``, ``_as_told``)."""

    # -- lifecycle ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.game.result is not None

    def start(self, now: float) -> None:
        self.origin = now
        self._advance(now)

    def seat_of(self, bot: str) -> int | None:
        return self._seat_of.get(bot.lower())

    def route(self, seat: int, nick: str | None) -> None:
        """Where the seat's private lines go from now on: its bot's connection (after it
        registered or changed nick), or nowhere (None: its connection is gone)."""
        self._away.discard(self.nicks[seat].lower())
        if nick is None:
            self._away.add(self.nicks[seat].lower())
        else:
            self._seat_at.pop(self.nicks[seat].lower(), None)
            self.nicks[seat] = nick
            self._seat_at[nick.lower()] = seat
        if seat == self._floor and self._floor_said < FLOOR_LINES:
            self._voice(seat)  # the voice follows the bot, not the nick

    def resync(self, seat: int, now: float) -> None:
        """Tell the seat's bot, which has just registered (again), everything it was told in
        this game, so that it can rebuild what it knows (``resync_begin``, then
        ``resync_rest``)."""
        self.resync_begin(seat)
        self.resync_rest(seat, now)

    def resync_begin(self, seat: int) -> None:
        """``RESYNC GID begin seat=NICK channel=CHANNEL``: the bot rejoins the channel on
        it. The rest of the block may wait until it is in (``resync_rest``): a channel line
        said before it gets there would otherwise be lost to it."""
        begin = Message.make(RESYNC, self.gid, "begin", seat=self.names[seat])
        if self.channel is not None:
            begin.fields["channel"] = self.channel
        self.tell(self.nicks[seat], begin.format())

    def resync_rest(self, seat: int, now: float) -> None:
        """Every channel line and every private line sent to the seat so far, verbatim and
        in order, then ``RESYNC GID end`` and its open request with the seconds left. Left
        out: refusals and warnings (answers to lines of a connection that is gone), and the
        open request's ASK, which comes last, live, with its deadline as it stands now."""
        nick = self.nicks[seat]
        open_rid = next((r.rid for r in self._requests.values() if seat in r.seats), None)
        live = f"{ASK} {self.gid} {open_rid} "
        told = self.told
        history: list[str] = []
        ask: list[str] = []
        for i, (to, line) in enumerate(self.transcript):
            if to is not None and told[i] != seat or line.startswith(WARN + " "):
                continue
            (ask if open_rid is not None and line.startswith(live) else history).append(line)
        for line in history:
            self.tell(nick, line)
        self.tell(nick, Message.make(RESYNC, self.gid, "end").format())
        left = int(max(0.0, self._deadline.get(seat, now) - now))
        for line in ask:
            msg = parse(line)
            if "deadline" in msg.fields:
                msg.fields["deadline"] = str(left)
            self.tell(nick, msg.format())

    # -- taken up again after a restart ---------------------------------------------

    def state(self) -> dict[str, Any]:
        """The bookkeeping that neither the engine's answers nor the transcript hold, as
        plain data: with those two it is all ``restore`` needs. A forfeit or a stop ends a
        game outside its answers, so it is kept here too."""
        state: dict[str, Any] = {
            "published": self._published,
            "misses": list(self._misses),
            "spoken": list(self._spoken),
            "kept": {"-" if seat is None else str(seat): n for seat, n in self._kept.items()},
            "refusals": {str(seat): dict(counts) for seat, counts in self._refusals.items()},
        }
        result = self.game.result
        if result is not None and result.reason in (FORFEIT, ABORTED):
            end = next(e for e in reversed(self.game.events) if e.kind == "end")
            state["end"] = {"reason": result.reason, "seat": result.forfeited, "why": end.data.get("why", "")}
        return state

    def restore(self, transcript: Sequence[tuple[str | None, int | None, str]], state: Mapping[str, Any],
                resumes: int, talk: Sequence[Talk] = (), answers: Sequence[Answer] = ()) -> None:
        """Take up a game an earlier run of the referee left, whose engine has been rebuilt
        from its answers: the lines it sent (``(to, seat told, line)``), its ``state``, and
        what its players said (``talk``, ``answers``). The match then waits (no request
        open, no deadline running) until ``go_on``: its bots must come back first. ``resumes`` counts earlier resumptions,
        so the request ids drawn from now on come from a stream of their own."""
        self.transcript = [(to, line) for to, _, line in transcript]
        self.told = [seat for _, seat, _ in transcript]
        self.talk, self.answers = list(talk), list(answers)
        self._published = int(state.get("published", 0))
        self._misses = [int(n) for n in state.get("misses", self._misses)]
        self._spoken = [int(n) for n in state.get("spoken", self._spoken)]
        self._kept = Counter({None if seat == "-" else int(seat): int(n) for seat, n in state.get("kept", {}).items()})
        self._refusals = {int(seat): Counter(counts) for seat, counts in state.get("refusals", {}).items()}
        end = state.get("end")
        if end is not None and self.game.result is None:
            if end["reason"] == FORFEIT:
                self.game.forfeit(int(end["seat"]), end["why"])
            else:
                self.game.abort(end["why"])
        prefix = ASK + " " + self.gid + " "
        for _, line in self.transcript:
            if line.startswith(prefix):
                self._issued.add(int(line[len(prefix):].split(" ", 1)[0]))
        self._next_rid = max(self._issued, default=0) + 1
        if self._rids is not None:
            self._rids = random.Random(derive_seed(self.game.seed, "rids", resumes + 1))
        self._asked = self.game.round
        self._suspended = True

    @property
    def suspended(self) -> bool:
        """Restored and not yet going on (its bots are not all back), or paused."""
        return self._suspended

    def pause(self, stored: int, now: float) -> None:
        """Stop the game where it stands: its lines from the ``stored``-th on could not be
        stored, so they wait unsent, and nothing more may happen in it until ``go_on``. A
        seat whose request went out before (its ASK or WARN is stored) may answer into the
        pause and can be told nothing: its request is dropped, to be asked again by
        ``go_on`` as after a restart. A request among the waiting lines keeps its id, and
        its clock, like the game's pacing, stops until ``go_on``."""
        told = [seat for seat in self._deadline if self._told_by.get(seat, 0) <= stored]
        for seat in told:
            del self._deadline[seat]
            self._unsent.pop(seat, None)
        for request in self._requests.values():
            request.seats.difference_update(told)
        self._paused_at = now
        self._suspended = True

    def go_on(self, now: float) -> None:
        """Carry on a restored or paused game from the step where it stopped: every
        decision still pending and not waiting to go out is asked again, under a new
        request id (its bot may have answered the old one into a referee that died, or
        paused, before storing it, and bots ignore an id they answered), with its whole
        time; the time a pause took is added to every other clock of the game. A game that
        was over just ends (``on_end``)."""
        if self._suspended:
            self._suspended = False
            if self._paused_at is not None:
                self._shift(now - self._paused_at)
                self._paused_at = None
            self._asked = -1
            self._advance(now)

    def _shift(self, seconds: float) -> None:
        """Move the game's running clocks ``seconds`` on (the time it was paused)."""
        for seat in self._deadline:
            self._deadline[seat] += seconds
        if self._secret_since is not None:
            self._secret_since += seconds
        if self._hold_until is not None:
            self._hold_until += seconds
        if self._step_at is not None:
            self._step_at += seconds

    # -- answers --------------------------------------------------------------------

    def answer(self, bot: str, rid_text: str, value: str, now: float, reply_to: str | None = None,
               line: str | None = None, fallback: str | None = None) -> None:
        """Handle ``ANSWER gid rid value`` from ``bot`` (a registered connection: the
        referee has checked who it is); a bad answer gets an ERROR, to ``reply_to`` (the
        sender's nick), and changes nothing. A seat's answer is kept in ``answers``, with
        ``line`` (the line as it came; default: rebuilt from its parts) and its
        ``fallback=`` marker, which is only kept: it changes nothing in how it is judged."""
        nick = bot if reply_to is None else reply_to
        game = self.game
        seat = self._seat_of.get(bot.lower())
        after = len(self.transcript)
        refused: IllegalAction | ProtocolError | None = None
        sent = None if seat is None else self._sent_at.get(seat)
        try:
            if seat is None:
                raise not_playing(self.gid)
            if game.result is not None:
                raise game_over(self.gid)
            # (the id of the request the seat was sent last, as the referee spelled it, needs no check)
            rid = sent[2] if sent is not None and sent[0] == rid_text else request_id(rid_text)
            request = self._requests.get(rid)
            if request is None or seat not in request.seats:
                self._refuse_request(seat, rid)
            decision = game.decision_for(seat)
            assert decision is not None
            items = value.split(",")
            # (most answers name no player and are their own items: no call for those)
            chosen = self._decode(decision, items) if decision.targets or len(items) != decision.count else items
            try:
                game.apply(seat, decision.kind, chosen[0] if decision.count == 1 else chosen)
            except IllegalAction as exc:
                why = exc.reason if decision.explains else self._explain(exc.code, decision, items, chosen)
                raise IllegalAction(exc.code, why) from None
        except (IllegalAction, ProtocolError) as exc:
            refused = exc
        else:
            self._answered.add((seat, rid))
            request.seats.discard(seat)
            self._deadline.pop(seat, None)
            self._unsent.pop(seat, None)
        if refused is None or seat is not None and self._kept[seat] < REFUSALS_KEPT:
            # Kept, with its latency counted from when the request it names went out to the
            # seat, if that is the seat's latest. Built as the tuple it is: a named tuple's
            # own ``__new__`` is a Python function, and a game keeps one for every answer.
            latency = now - sent[1] if sent is not None and sent[0] == rid_text else None
            self.answers.append(_tuple_new(Answer, (
                seat, rid_text, f"ANSWER {self.gid} {rid_text} {value}" if line is None else line, now - self.origin,
                latency, None if refused is None else refused.code.value, fallback if fallback in FALLBACKS else None,
                after)))
        if refused is not None:
            echo = (rid_text,) if valid_request_id(rid_text) else ()  # an ERROR echoes only a request id
            self._refuse(nick, seat, refused.code, refused.reason, *echo)
            return
        self._advance(now)

    def _refuse_request(self, seat: int, rid: int) -> NoReturn:
        """Why ``rid`` is not open for ``seat``: answered already (ALREADY_ACTED), nothing
        asked of a player who is out (PLAYER_DEAD), or else STALE_REQUEST, with one text
        whether ``rid`` is someone else's or was never issued: a difference would tell that
        a secret request (a night action) exists. The hint names only the player's own
        open request."""
        if (seat, rid) in self._answered:
            raise IllegalAction(ErrorCode.ALREADY_ACTED, f"you already answered request {rid}")
        live = [r.rid for r in self._requests.values() if seat in r.seats]
        if not live and self._is_out(seat):
            raise IllegalAction(ErrorCode.PLAYER_DEAD, "you are dead: nothing is asked of you")
        hint = f"; answer request {live[0]}" if live else "; nothing is asked of you now"
        raise ProtocolError(ErrorCode.STALE_REQUEST, f"request {rid} is not open for you{hint}")

    def _decode(self, decision: Decision, items: list[str]) -> list[Any]:
        """Wire form to engine form, one item per choice: nicks become seats where the
        choices are players; a reserved word among the options (``none``, ``abstain``)
        stays a word. Counted first: ``approve,reject`` is two choices, not a bad one."""
        if len(items) != decision.count:
            raise IllegalAction(ErrorCode.WRONG_COUNT, f"{decision.kind}: choose {decision.count}, not {len(items)}")
        if not decision.targets:
            return items
        words = self.game.reserved_words
        seats: list[Any] = []
        for item in items:
            if item in words:
                seats.append(item)
                continue
            seat = self._seat_named.get(item.lower())
            if seat is None:
                raise IllegalAction(ErrorCode.TARGET_INVALID, f"{shown(item)} is not a player of game {self.gid}")
            seats.append(seat)
        return seats

    def _explain(self, code: ErrorCode, decision: Decision, items: list[str], chosen: list[Any]) -> str:
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
        reason = f"{kind}: {bad} is not one of your options: {','.join(self._shown(decision))}"
        return reason if len(reason.encode()) <= MAX_TEXT_BYTES else f"{kind}: {bad} is not one of your options"

    # -- deadlines ------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """The next time ``poll`` has work: a player's deadline, the end of a hold on public
        lines, or the time a held dependent request goes out."""
        if self._suspended:
            return None
        deadline = min((d for seat, d in self._deadline.items() if seat not in self._unsent), default=None)
        if self._stretch_unsent:
            return deadline  # the stretch's clock has not started
        for t in (self._hold_until, self._step_at if self._holding else None):
            if t is not None and (deadline is None or t < deadline):
                deadline = t
        return deadline

    def poll(self, now: float) -> None:
        """Apply the escalation step to every seat whose deadline has passed."""
        if self._suspended:
            return
        for seat, deadline in sorted(self._deadline.items(), key=lambda kv: kv[1]):
            if self.over or deadline > now or self._deadline.get(seat) != deadline or seat in self._unsent:
                continue
            self._missed(seat, now)
        self._advance(now)

    def _missed(self, seat: int, now: float) -> None:
        if self.game.decision_for(seat) is None:
            self._deadline.pop(seat, None)
            return
        steps = self.game.escalation or self.timeouts.escalation
        step = steps[min(self._misses[seat], len(steps) - 1)]
        self._misses[seat] += 1
        rid = next(r.rid for r in self._requests.values() if seat in r.seats)
        if step == WARN_STEP:
            self._send(self.nicks[seat], Message.make(WARN, self.gid, rid, seconds=int(self.timeouts.grace),
                                                      text="your deadline passed; answer now or the default applies"))
            self._start_deadlines(rid, {seat}, self.timeouts.grace, now)
            return
        del self._deadline[seat]
        self._unsent.pop(seat, None)
        for request in self._requests.values():
            request.seats.discard(seat)
        if step == FORFEIT_STEP:
            self._send(None, Message.make(TIMEOUT, self.gid, rid, player=self.names[seat], action="forfeit"))
            self._publish(self.game.forfeit(seat, "timeout"))
            return
        decision = self.game.decision_for(seat)
        assert decision is not None
        # Only a public request's timeout is public: the default of a private one would tell
        # what its player chose (an Avalon quest card) or that they hold a role (a night action).
        to = None if decision.kind in self.game.public_kinds else self.nicks[seat]
        self._send(to, Message.make(TIMEOUT, self.gid, rid, player=self.names[seat], action="default"))
        self.game.apply(seat, decision.kind, self.game.default_answer(decision))

    # -- output ---------------------------------------------------------------------

    def abort(self, why: str, now: float) -> None:
        """Stop the game with nobody at fault (an operator's ``!stop``): END says
        ``reason=aborted`` and no rating moves."""
        if not self.over:
            self.game.abort(why)
            self._secret_since = self._hold_until = None  # an operator's stop is said at once
            self._stretch_unsent = False
            self._suspended = False
            self._advance(now)

    def announce(self, msg: Message) -> None:
        """Say a line of the referee's own in the game channel (e.g. the rating changes after END)."""
        self._send(None, msg)

    def _advance(self, now: float) -> None:
        """Publish new events, then ask for any round of decisions not yet asked.

        Every decision is asked, even one with a single legal choice (a good player's quest
        card): skipping it would tell everyone who was not asked, through the request ids
        and through how soon the result comes.
        """
        game = self.game
        if self._suspended:
            return
        while True:
            events = game.events
            if self._published < len(events):
                stop = len(events)
                if self._secret_since is not None and game.result is None:
                    # (a decided game is not held: its END tells every role anyway)
                    public = next((i for i in range(self._published, stop) if events[i].audience is None), None)
                    if public is not None and self._held(now):
                        stop = public
                if stop > self._published:
                    self._publish(events[self._published:stop])
                if stop < len(events):
                    return  # poll() at the end of the hold carries on
            if game.result is not None:
                self._requests.clear()
                self._deadline.clear()
                self._unsent.clear()
                self._pass_floor()
                self._count_refusals()
                if self.on_end is not None:
                    on_end, self.on_end = self.on_end, None
                    on_end(self)
                return
            round_ = game.round
            due = self._holding and not self._stretch_unsent and self._step_at is not None and now >= self._step_at
            if round_ == self._asked and not due:
                if game.floor_kinds:
                    self._pass_floor()
                return
            pending = game.pending()
            started = False
            if pending and game.secret_kinds and all(d.kind in game.secret_kinds for d in pending):
                if self._secret_since is None:
                    self._secret_since = now
                    started = True
                    self._remember_told()  # (everything is said: a held stretch returned above)
            elif self._held(now):
                return
            self._asked = round_
            if game.floor_kinds:
                self._pass_floor()  # voiced before the ASK that grants the floor goes out
            self._ask_new(pending, now)
            if started and game.paced():
                step = self.timeouts.night_step
                self._step_at = max(self._deadline.values(), default=now) if step is None else now + step
            if started and self.after_sent is not None:
                self._start_stretch_when_sent(now)

    def _start_stretch_when_sent(self, since: float) -> None:
        """Move the clock of the stretch begun at ``since`` to when its opening lines go out
        (see ``_stretch_unsent``)."""
        assert self.after_sent is not None
        self._stretch_unsent = True

        def sent(at: float) -> None:
            if self._secret_since != since or not self._stretch_unsent:
                return  # (that stretch is over: an operator stopped the game)
            shift = max(0.0, at - since)
            self._secret_since = at
            self._step_at = None if self._step_at is None else self._step_at + shift
            self._hold_until = None if self._hold_until is None else self._hold_until + shift
            self._stretch_unsent = False

        self.after_sent(sent)

    def _ask_new(self, pending: Sequence[Decision], now: float) -> None:
        """Ask the pending decisions not asked yet (a round may grow: a Werewolf night adds
        the witch's request while others are still open), and forget answered requests.

        A dependent decision (``Game.dependent_kinds``) waits until ``_step_at``, a fixed
        time after its stretch began: sent as soon as it could be, it would tell its player
        when the others answered, and whether the roles before it still act.
        """
        self._requests = {rid: r for rid, r in self._requests.items() if r.seats}
        new = [d for d in pending if d.seat not in self._deadline]
        step_at = self._step_at
        dependent = self.game.dependent_kinds
        early = step_at is not None and self._secret_since is not None and (self._stretch_unsent or now < step_at)
        held = [d for d in new if d.kind in dependent] if early else []
        self._holding = bool(held)
        if held:
            new = [d for d in new if d.kind not in dependent]
        if new:
            self._ask(new, now)

    def _held(self, now: float) -> bool:
        """Whether a stretch of secret requests must go on until ``timeouts.secret_minimum``
        has passed, and a paced one until its dependent step (``_step_at``): a night that
        ends as soon as its answers are in is shorter when a role is no longer asked, and
        everyone can time it. Its lines still queued (``_stretch_unsent``), it has not begun
        for anyone: held. Ends the stretch once it has not."""
        since = self._secret_since
        if since is None:
            return False
        until = max(since + self.timeouts.secret_minimum, self._step_at or since)
        if now < until or self._stretch_unsent:
            self._hold_until = until
            return True
        self._secret_since = self._hold_until = self._step_at = None
        return False

    def _publish(self, events: Sequence[Event]) -> None:
        """Say the events' lines. Where one line can reach several nicks (``tell_many``),
        identical private lines of these events (the servants' ``ROLE``) are held and sent
        together, before any channel line that follows them: nobody's lines change order
        (the server tells each recipient only that the line was for them)."""
        self._published += len(events)
        held: dict[str, tuple[Message, list[str]]] = {}
        for event in events:
            out = self.lines.event_message(event, self.gid, self.names)
            if out is None:
                continue
            for msg in (out,) if isinstance(out, Message) else out:
                if event.audience is None:
                    if held:  # (without ``tell_many``, never: no call then)
                        self._flush(held)
                    self._send(None, msg)
                    continue
                nicks = [self.nicks[seat] for seat in sorted(event.audience)]
                if self.tell_many is None:
                    self._send_each(nicks, msg)
                    continue
                if any(nick in group for _, group in held.values() for nick in nicks):
                    self._flush(held)  # a second line for someone: the first goes out first
                held.setdefault(msg.format(), (msg, []))[1].extend(nicks)
        if held:
            self._flush(held)
        if self._secret_since is not None and self._published == len(self.game.events):
            self._remember_told()

    def _remember_told(self) -> None:
        """Keep the seats as the players now know them all (everything is said), while a
        stretch of secret requests runs: its public lines may then be held (``_as_told``)."""
        game = self.game
        seats = range(len(self.names))
        talk = [game.team_talk(s) for s in seats]
        self._told = Told(frozenset(s for s in seats if game.is_out(s)),
                          tuple(t if t or game.talks_in_private(s) else None for s, t in zip(seats, talk)))

    def _as_told(self) -> Told | None:
        """The seats as the players know them while the game is ahead of what they were
        told (a held night: its deaths and its end are not said yet), else None: the game
        as it is. Refusals and private talk follow it, so neither tells a death, nor that
        every night answer is in, before the lines that say so."""
        return self._told if self._published < len(self.game.events) else None

    def _is_out(self, seat: int) -> bool:
        told = self._as_told()
        return self.game.is_out(seat) if told is None else seat in told.out

    def _flush(self, held: dict[str, tuple[Message, list[str]]]) -> None:
        for msg, nicks in held.values():
            self._send_each(nicks, msg)
        held.clear()

    def _ask(self, decisions: Sequence[Decision], now: float) -> None:
        """Ask a round of decisions with as few lines as secrets allow.

        Identical public requests share one line in the channel. Private requests of one
        kind (the quest cards of a team) share one request id, so the ids tell nobody who
        was offered what; each distinct variant goes by DM to the players it is for. A
        secret request (a night action) is asked of its player alone.
        """
        game = self.game
        public, secret = game.public_kinds, game.secret_kinds
        groups: dict[tuple, list[Decision]] = {}
        for d in decisions:
            kind = d.kind
            key: tuple = (kind, d.options, d.count) if kind in public else (d.seat,) if kind in secret else (kind,)
            group = groups.get(key)
            if group is None:
                groups[key] = [d]
            else:
                group.append(d)
        names = self.names
        for group in groups.values():
            rid = self._new_rid()
            seats = {d.seat for d in group}
            self._requests[rid] = Request(rid, seats)
            limit = game.time_limit(group[0])
            seconds = self.timeouts.decision if limit is None else limit
            to = "all" if len(seats) == len(names) else [names[s] for s in sorted(seats)]
            if group[0].kind in public:  # one variant: the options are part of the key
                self._send(None, self._request(rid, group[0], to, seconds))
            else:
                variants: dict[tuple, list[Decision]] = {}
                for d in group:
                    variants.setdefault((d.options, d.count), []).append(d)
                for variant in variants.values():
                    self._send_each([self.nicks[d.seat] for d in variant], self._request(rid, variant[0], to, seconds))
            self._start_deadlines(rid, seats, seconds, now, asked=True)

    def _start_deadlines(self, rid: int, seats: set[int], seconds: float, now: float, asked: bool = False) -> None:
        """Give ``seats`` ``seconds`` to answer request ``rid``, counted from when the lines
        just sent actually go out: a line that waits in a busy transport's queue must not eat
        its reader's time. Until the transport says so (``after_sent``) the deadline stands
        at ``now + seconds`` (what a dependent step is timed by) but cannot pass. ``asked``:
        the lines are the request itself (not a warning), and its answers' latency counts
        from when they went out."""
        self._deadline.update(dict.fromkeys(seats, now + seconds))
        self._told_by.update(dict.fromkeys(seats, len(self.transcript)))
        sent_at = (str(rid), now, rid)
        if asked:
            self._sent_at.update(dict.fromkeys(seats, sent_at))
        if self.after_sent is None:
            return
        for seat in seats:
            self._unsent[seat] = rid

        def sent(at: float) -> None:
            request = self._requests.get(rid)
            for seat in seats:
                if asked and self._sent_at.get(seat) == sent_at:
                    self._sent_at[seat] = (sent_at[0], at, rid)
                if self._unsent.get(seat) == rid:
                    del self._unsent[seat]
                    if request is not None and seat in request.seats and seat in self._deadline:
                        self._deadline[seat] = at + seconds

        self.after_sent(sent)

    def _shown(self, d: Decision) -> list[str]:
        """The decision's options as the wire shows them: players by their START nicks."""
        names, targets = self.names, d.targets
        return [names[o] if targets and type(o) is int else str(o) for o in d.options]

    def _request(self, rid: int, d: Decision, to: str | list[str], seconds: float) -> Message:
        """The ASK for ``d``, as ``Message.make`` would render it (built directly: a game
        asks on nearly every step)."""
        fields = {"to": to if type(to) is str else ",".join(to), "deadline": str(int(seconds)),
                  "options": ",".join(self._shown(d))}
        if d.count != 1:
            fields["pick"] = str(d.count)
        if d.kind in self.game.floor_kinds:
            fields["floor"] = "true"  # the player has the channel until they answer
        for key, value in self.lines.ask_context(self.game, d, self.names).items():
            fields[key] = value if type(value) is str else render(value)  # (text as it is: no call)
        return Message(ASK, (self.gid, str(rid), d.kind), fields)

    def _new_rid(self) -> int:
        if self._rids is None:
            rid = self._next_rid
            self._next_rid += 1
        else:
            rid = self._rids.randrange(1, 10**6)
            while rid in self._issued:
                rid = self._rids.randrange(1, 10**6)
        self._issued.add(rid)
        return rid

    # -- talk -----------------------------------------------------------------------

    def floor(self) -> int | None:
        """The seat that has the floor now (a speaking turn is open for it), if any."""
        kinds = self.game.floor_kinds
        if kinds and not self.over:
            for d in self.game.pending():
                if d.kind in kinds:
                    return d.seat
        return None

    def _pass_floor(self) -> None:
        """Give the floor to whoever's turn is open now, if it changed hands."""
        seat = self.floor()
        if seat != self._floor:
            self._floor, self._floor_said = seat, 0
            self._voice(seat)

    def _voice(self, seat: int | None) -> None:
        """Let ``seat`` alone talk in the channel (None: nobody), where the transport can
        enforce it (``on_floor``: IRC voices it in a moderated channel)."""
        nick = self._present(seat)
        if nick != self._voiced:
            old, self._voiced = self._voiced, nick
            if self.on_floor is not None:
                self.on_floor(old, nick)

    def _present(self, seat: int | None) -> str | None:
        """The nick of the seat's bot if it is connected (never a stranger on its nick)."""
        if seat is None or self.nicks[seat].lower() in self._away:
            return None
        return self.nicks[seat]

    def said(self, bot: str | None, nick: str, text: str, now: float) -> bool:
        """A line ``nick`` (playing ``bot``; None: no registered bot) said in the game's
        channel at ``now``: part of a speech if its seat has the floor, the turn has lines
        left and the line fits ``MAX_TEXT_BYTES``; otherwise refused with an ERROR and left
        out of ``talk`` (a server may enforce no modes, so the referee's word is what counts). The
        line that fills the turn takes the floor back. Returns whether it counted."""
        seat = None if bot is None else self.seat_of(bot)
        if seat is None:
            return False
        if seat == self._floor and self._floor_said < FLOOR_LINES:
            fault = text_fault(text)
            if fault is not None:
                return self._refuse_line(nick, seat, ErrorCode.MALFORMED, f"{fault}; this line does not count")
            if len(text.encode()) > MAX_TEXT_BYTES:
                return self._refuse_line(nick, seat, ErrorCode.MALFORMED, f"a line of speech is at most {MAX_TEXT_BYTES} "
                                                                          "bytes; this one does not count")
            if self._over_budget(seat, text, now):
                return False
            self.talk.append(Talk(seat, nick, text, now - self.origin, len(self.transcript)))
            self._floor_said += 1
            if self._floor_said == FLOOR_LINES:
                self._voice(None)
            return True
        if seat == self._floor:
            return self._refuse_line(nick, seat, ErrorCode.NOT_YOUR_TURN, f"a turn holds {FLOOR_LINES} lines: the floor "
                                                                          "is taken back; answer your request to end it")
        if not self.over and self._is_out(seat):
            return self._refuse_line(nick, seat, ErrorCode.PLAYER_DEAD, "the dead do not talk")
        why = "the game is over" if self.over else "you do not have the floor; wait for your turn to speak"
        return self._refuse_line(nick, seat, ErrorCode.NOT_YOUR_TURN, why)

    def chatted(self, bot: str | None, nick: str, text: str, now: float) -> None:
        """A line ``nick`` (playing ``bot``) said in the channel of a game where talk is free
        (no turns at the floor): the rules ignore it, but the record keeps it in ``talk`` for
        replays and spectators, ``CHAT_KEPT`` lines per seat at most. Never refused."""
        seat = None if bot is None else self.seat_of(bot)
        if seat is None or self.over or text_fault(text) is not None:
            return
        if sum(1 for t in self.talk if t.seat == seat) < CHAT_KEPT:
            self.talk.append(Talk(seat, nick, text, now - self.origin, len(self.transcript)))

    def refuse(self, bot: str, nick: str, code: ErrorCode, why: str, *context: str) -> bool:
        """Refuse a line of ``bot``'s about this game that the referee refused before the game
        could read it (it broke the grammar), as the game's own refusals are: kept or counted
        for its seat. False, sending nothing, if ``bot`` has no seat here."""
        seat = self.seat_of(bot)
        if seat is None:
            return False
        self._refuse(nick, seat, code, why, *context)
        return True

    def _refuse_line(self, nick: str, seat: int, code: ErrorCode, why: str) -> bool:
        """Tell ``nick`` its channel line does not count (always False, for ``said``)."""
        self._refuse(nick, seat, code, why)
        return False

    def _refuse(self, nick: str, seat: int | None, code: ErrorCode, why: str, *context: str) -> None:
        """Tell ``nick`` (playing ``seat``, if any) that its line was refused: an ERROR
        naming the game (and ``context``), sent through ``reply``. The transcript keeps the
        first ``REFUSALS_KEPT`` per seat and counts the rest (see ``transcript``)."""
        msg = Message.make(ERROR, code.value, self.gid, *context, text=why)
        lines = msg.lines()
        if self._kept[seat] < REFUSALS_KEPT:
            self._kept[seat] += 1
            self.transcript.extend((nick, line) for line in lines)
            self.told.extend(None for _ in lines)
        elif seat is not None:
            self._refusals.setdefault(seat, Counter())[code.value] += 1
        send = self.tell if self.reply is None else self.reply
        for line in lines:
            send(nick, line)

    def _count_refusals(self) -> None:
        """At the end: one transcript line per seat and code for the refusals not kept."""
        for seat, counts in sorted(self._refusals.items()):
            for code, n in sorted(counts.items()):
                line = Message.make(ERROR, code, self.gid, count=n,
                                    text=f"{n} more refusals with this code, not kept one by one").format()
                self.transcript.append((self.names[seat], line))
                self.told.append(None)
        self._refusals.clear()

    def _over_budget(self, seat: int, text: str, now: float) -> bool:
        """Count ``text`` against the seat's speech budget (``Game.speech_budget``); a line
        that goes over it is neither relayed nor kept, and the seat forfeits the game at once."""
        budget = self.game.speech_budget()
        if budget is None:
            return False
        self._spoken[seat] += len(text.encode())
        if self._spoken[seat] <= budget:
            return False
        self._publish(self.game.forfeit(seat, "speech_budget"))
        self._advance(now)
        return True

    def team(self, bot: str, msg: Message, reply_to: str | None = None, now: float = 0.0) -> None:
        """``TEAM gid :text`` from ``bot``: relayed to the seats the game lets hear it in
        private now (living wolves at night), as ``TEAM gid from=nick :text``; refused
        otherwise, with an ERROR to ``reply_to`` (the sender's nick)."""
        nick = bot if reply_to is None else reply_to
        seat = self.seat_of(bot)
        try:
            if seat is None:
                raise not_playing(self.gid)
            if self.over:
                raise game_over(self.gid)
            told = self._as_told()
            if told is not None:
                listeners = told.talk[seat]
            else:
                listeners = self.game.team_talk(seat) if self.game.talks_in_private(seat) else None
            if listeners is None:
                if self._is_out(seat):
                    raise IllegalAction(ErrorCode.PLAYER_DEAD, "the dead do not talk")
                raise IllegalAction(ErrorCode.INVALID_PHASE, self.lines.private_talk)
            cap = self.lines.private_lines
            if cap is not None and self._private_turn == (seat, self.game.round) and self._private_said >= cap:
                raise IllegalAction(ErrorCode.NOT_YOUR_TURN, f"a turn holds {cap} lines; answer your request to end it")
            if not msg.text:
                raise ProtocolError(ErrorCode.MALFORMED, "TEAM needs :text")
            if len(msg.text.encode()) > MAX_TEXT_BYTES:
                raise ProtocolError(ErrorCode.MALFORMED, f"TEAM text is at most {MAX_TEXT_BYTES} bytes; split it")
        except (IllegalAction, ProtocolError) as exc:
            self._refuse(nick, seat, exc.code, exc.reason)
            return
        if self._over_budget(seat, msg.text, now):
            return
        if self._private_turn != (seat, self.game.round):
            self._private_turn, self._private_said = (seat, self.game.round), 0
        self._private_said += 1
        relayed = Message.make(TEAM, self.gid, text=msg.text, **{"from": self.names[seat]})
        self._send_each([self.nicks[other] for other in listeners], relayed)

    def _send(self, nick: str | None, msg: Message) -> None:
        self._send_lines(nick, msg.lines(), msg)  # one, unless a big table's lists need continuing

    def _send_lines(self, nick: str | None, lines: list[str], msg: Message) -> None:
        away = bool(self._away) and nick is not None and nick.lower() in self._away
        seat = None if nick is None else self._seat_at[nick.lower()]
        if self.post is not None and len(lines) == 1:  # the line is the whole message
            line = lines[0]
            self.told.append(seat)
            self.transcript.append((nick, line))
            if not away:
                self.post(nick, line, msg)
            return
        for line in lines:
            self.told.append(seat)
            self.transcript.append((nick, line))
            if nick is None:
                self.say(line)
            elif not away:
                self.tell(nick, line)

    def _send_each(self, nicks: Sequence[str], msg: Message) -> None:
        """The same message by DM to each of ``nicks``: in one line where the transport can
        (the transcript still says who got it), formatted once."""
        lines = msg.lines()
        if len(nicks) < 2 or self.tell_many is None:
            for nick in nicks:
                self._send_lines(nick, lines, msg)
            return
        present = [nick for nick in nicks if nick.lower() not in self._away] if self._away else nicks
        seats = [self._seat_at[nick.lower()] for nick in nicks]
        for line in lines:
            for nick, seat in zip(nicks, seats):
                self.told.append(seat)
                self.transcript.append((nick, line))
            if present:
                self.tell_many(present, line)
