"""What a game's players have been sent and have said: the record a match keeps as it
sends its lines, from which a bot coming back is told everything again and a restarted
referee takes the game up."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, Protocol

from ..core.decisions import Decision
from ..core.errors import ErrorCode
from ..core.events import Event
from ..core.game import Game
from ..core.said import Answer, Talk
from ..protocol import ASK, BUNDLE, ERROR, MAX_LINE_BYTES, RESYNC, WARN, Message, parse
from .output import MatchOutput
from .seats import Seats
from .state import Counted, Kept, MatchState

REFUSALS_KEPT = 20
"""Refusals (ERROR lines) the transcript keeps one by one per seat; the rest are counted by
code, so a bot that floods the referee with bad lines cannot grow a stored game without bound."""


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


class Record:
    """The lines a game sent, to whom and whose knowledge each is, and what its players said;
    every line of the game goes out through here, so nothing sent is left out of it."""

    def __init__(self, gid: str, seats: Seats, output: MatchOutput, bundles: bool = False) -> None:
        self.gid = gid
        self.seats = seats
        self.output = output
        self.bundle: list[str] | None = [] if bundles else None
        """Where channel lines wait to go out together, as one line of messages separated by
        ``BUNDLE`` (protocol 2), when the game bundles (None: it does not). ``flush`` sends
        them: before any other line of the game, before a request's clock starts, and at the
        end of each step. The transcript keeps each message as its own line."""
        self.transcript: list[tuple[str | None, str]] = []
        """Every line sent, with its addressee (None: the channel) — the game as people saw it —
        except refusals past ``REFUSALS_KEPT`` per seat: at the end, one line per seat and code
        stands for those, ``ERROR CODE GID count=N :...`` (to the seat's name in START)."""
        self.told: list[int | None] = []
        """For each transcript line, the seat whose knowledge it is (a private line to the
        seat, whoever held the nick), or None (the channel, refusals, strangers): what
        ``replay`` tells a seat besides the channel's lines."""
        self.talk: list[Talk] = []
        """The speeches: every line a floor holder said in the game's channel during its turn,
        within the turn's limits (or, where talk is free, its chat). Refused lines are left
        out: they are no part of the game."""
        self.answers: list[Answer] = []
        """Every ``ANSWER`` from a seat's bot, accepted or refused, except refusals past
        ``REFUSALS_KEPT`` per seat (counted in the transcript, like their ERROR lines)."""
        self.origin = 0.0
        """The callers' clock (``now``) when the game began: the times of ``talk`` and
        ``answers`` count from it. The match's start sets it; a restored game's is set by its
        referee."""
        self.kept: Counter[int | None] = Counter()
        """Refusals kept in the transcript, by seat (None: senders without a seat, who
        share one allowance and are not counted past it: they are no player's conduct)."""
        self.refusals: dict[int, Counter[str]] = {}
        """Refusals past the allowance, by seat and code."""

    def send(self, nick: str | None, msg: Message) -> None:
        """Send ``msg`` to ``nick`` (None: the channel)."""
        self.send_lines(nick, msg.lines(), msg)  # one, unless a big table's lists need continuing

    def send_lines(self, nick: str | None, lines: list[str], msg: Message) -> None:
        output = self.output
        bundle = self.bundle
        if nick is None:
            seat, away = None, False
            if bundle is not None:
                if len(lines) == 1:
                    self.told.append(None)
                    self.transcript.append((None, lines[0]))
                    self._hold(lines[0], msg.text is not None)
                    return
                self.flush()  # a continued message is never bundled: its parts come back to back
        else:
            if bundle:
                self.flush()
            low, seats = nick.lower(), self.seats
            seat, away = seats.at[low], low in seats.away
        post = output.post
        if post is not None and len(lines) == 1:  # the line is the whole message
            line = lines[0]
            self.told.append(seat)
            self.transcript.append((nick, line))
            if not away:
                post(nick, line, msg)
            return
        for line in lines:
            self.told.append(seat)
            self.transcript.append((nick, line))
            if nick is None:
                output.say(line)
            elif not away:
                output.tell(nick, line)

    def send_each(self, nicks: Sequence[str], msg: Message) -> None:
        """The same message by DM to each of ``nicks``: in one line where the transport can
        (the transcript still says who got it), formatted once."""
        lines = msg.lines()
        tell_many = self.output.tell_many
        if self.bundle:
            self.flush()
        if len(nicks) < 2 or tell_many is None:
            for nick in nicks:
                self.send_lines(nick, lines, msg)
            return
        away, at = self.seats.away, self.seats.at
        present = [nick for nick in nicks if nick.lower() not in away] if away else nicks
        seats = [at[nick.lower()] for nick in nicks]
        for line in lines:
            for nick, seat in zip(nicks, seats):
                self.told.append(seat)
                self.transcript.append((nick, line))
            if present:
                tell_many(present, line)

    def _hold(self, line: str, last: bool) -> None:
        """Add a channel line to the bundle, which goes out first if the line would make it
        too long; a line with free text ends it (only the last message may have text)."""
        bundle = self.bundle
        assert bundle is not None
        if bundle and len(BUNDLE.join((*bundle, line)).encode()) > MAX_LINE_BYTES:
            self.flush()
        bundle.append(line)
        if last:
            self.flush()

    def stop_bundling(self) -> None:
        """One of the game's bots came back speaking protocol 1: one message a line from now on."""
        self.flush()
        self.bundle = None

    def flush(self) -> None:
        """Send the channel lines that wait in the bundle, as one line."""
        bundle = self.bundle
        if bundle:
            self.output.say(BUNDLE.join(bundle))
            bundle.clear()

    def publish(self, events: Sequence[Event], lines: Lines) -> None:
        """Say the events' lines. Where one line can reach several nicks (``tell_many``),
        identical private lines of these events (the servants' ``ROLE``) are held and sent
        together, before any channel line that follows them: nobody's lines change order
        (the server tells each recipient only that the line was for them)."""
        gid, names, nicks = self.gid, self.seats.names, self.seats.nicks
        many = self.output.tell_many is not None
        held: dict[str, tuple[Message, list[str]]] = {}
        for event in events:
            out = lines.event_message(event, gid, names)
            if out is None:
                continue
            for msg in (out,) if isinstance(out, Message) else out:
                if event.audience is None:
                    if held:  # (without ``tell_many``, never: no call then)
                        self._flush(held)
                    self.send(None, msg)
                    continue
                to = [nicks[seat] for seat in sorted(event.audience)]
                if not many:
                    self.send_each(to, msg)
                    continue
                if any(nick in group for _, group in held.values() for nick in to):
                    self._flush(held)  # a second line for someone: the first goes out first
                held.setdefault(msg.format(), (msg, []))[1].extend(to)
        if held:
            self._flush(held)

    def _flush(self, held: dict[str, tuple[Message, list[str]]]) -> None:
        for msg, nicks in held.values():
            self.send_each(nicks, msg)
        held.clear()

    def keeps(self, seat: int | None) -> bool:
        """Whether a refusal of the seat's would still be kept one by one."""
        return self.kept[seat] < REFUSALS_KEPT

    def refuse(self, nick: str, seat: int | None, code: ErrorCode, why: str, *context: str) -> None:
        """Tell ``nick`` (playing ``seat``, if any) that its line was refused: an ERROR
        naming the game (and ``context``), sent through ``reply``. The transcript keeps the
        first ``REFUSALS_KEPT`` per seat and counts the rest (see ``transcript``)."""
        msg = Message.make(ERROR, code.value, self.gid, *context, text=why)
        lines = msg.lines()
        if self.bundle:
            self.flush()
        if self.kept[seat] < REFUSALS_KEPT:
            self.kept[seat] += 1
            self.transcript.extend((nick, line) for line in lines)
            self.told.extend(None for _ in lines)
        elif seat is not None:
            self.refusals.setdefault(seat, Counter())[code.value] += 1
        send = self.output.tell if self.output.reply is None else self.output.reply
        for line in lines:
            send(nick, line)

    def refuse_bot(self, bot: str, nick: str, code: ErrorCode, why: str, *context: str) -> bool:
        """Refuse a line of ``bot``'s about this game that the referee refused before the game
        could read it (it broke the grammar), as the game's own refusals are: kept or counted
        for its seat. False, sending nothing, if ``bot`` has no seat here."""
        seat = self.seats.of(bot)
        if seat is None:
            return False
        self.refuse(nick, seat, code, why, *context)
        return True

    def refusal_counts(self) -> tuple[Kept, Counted]:
        """The refusals kept by seat, and those counted by seat and code, for ``MatchState``."""
        return (
            tuple(self.kept.items()),
            tuple((seat, tuple(counts.items())) for seat, counts in self.refusals.items()),
        )

    def restore(
        self,
        transcript: Sequence[tuple[str | None, int | None, str]],
        talk: Sequence[Talk],
        answers: Sequence[Answer],
        state: MatchState,
    ) -> None:
        """Take up the record of a game an earlier run of the referee left: the lines it
        sent (``(to, seat told, line)``), what its players said, and its refusals."""
        self.transcript = [(to, line) for to, _, line in transcript]
        self.told = [seat for _, seat, _ in transcript]
        self.talk, self.answers = list(talk), list(answers)
        self.kept = Counter(dict(state.kept))
        self.refusals = {seat: Counter(dict(counts)) for seat, counts in state.refusals}

    def count_refusals(self) -> None:
        """At the end: one transcript line per seat and code for the refusals not kept."""
        for seat, counts in sorted(self.refusals.items()):
            for code, n in sorted(counts.items()):
                line = Message.make(
                    ERROR, code, self.gid, count=n, text=f"{n} more refusals with this code, not kept one by one"
                ).format()
                self.transcript.append((self.seats.names[seat], line))
                self.told.append(None)
        self.refusals.clear()

    def begin_replay(self, seat: int, channel: str | None) -> None:
        """``RESYNC GID begin seat=NICK channel=CHANNEL``: the bot rejoins the channel on
        it. The rest of the block may wait until it is in (``replay``): a channel line
        said before it gets there would otherwise be lost to it."""
        self.flush()
        begin = Message.make(RESYNC, self.gid, "begin", seat=self.seats.names[seat])
        if channel is not None:
            begin.fields["channel"] = channel
        self.output.tell(self.seats.nicks[seat], begin.format())

    def replay(self, seat: int, open_rid: int | None, left: int) -> None:
        """Every channel line and every private line sent to the seat so far, verbatim and
        in order, then ``RESYNC GID end`` and its open request ``open_rid`` with ``left``
        seconds. Left out: refusals and warnings (answers to lines of a connection that is
        gone), and the open request's ASK, which comes last, live, with its deadline as it
        stands now."""
        nick = self.seats.nicks[seat]
        tell = self.output.tell
        live = f"{ASK} {self.gid} {open_rid} "
        told = self.told
        history: list[str] = []
        ask: list[str] = []
        for i, (to, line) in enumerate(self.transcript):
            if to is not None and told[i] != seat or line.startswith(WARN + " "):
                continue
            (ask if open_rid is not None and line.startswith(live) else history).append(line)
        for line in history:
            tell(nick, line)
        tell(nick, Message.make(RESYNC, self.gid, "end").format())
        for line in ask:
            msg = parse(line)
            if "deadline" in msg.fields:
                msg.fields["deadline"] = str(left)
            tell(nick, msg.format())


@dataclass(frozen=True)
class Told:
    """What a game's players have been told of its seats: who is out, and whom each seat may
    talk to in private (None: it may not). While a night's public lines are held, the game
    itself is ahead of this (its dawn is resolved), and a refusal must not tell it early."""

    out: frozenset[int]
    talk: tuple[tuple[int, ...] | None, ...]


class Knowledge:
    """How far the players know the game: how many of its events have been said, and the
    seats as they were last told everything during a stretch of secret requests, whose
    public lines may be held. What the referee tells a player (a refusal, who hears its
    private talk) follows this, not the engine, so it never tells a death early."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.published = 0
        """How many of the engine's events have been said."""
        self._told: Told | None = None
        """The seats as the players were last told everything (``remember``)."""

    def remember(self) -> None:
        """Keep the seats as the players now know them all (everything is said), while a
        stretch of secret requests runs: its public lines may then be held (``as_told``)."""
        game = self.game
        seats = range(game.players)
        talk = [game.team_talk(s) for s in seats]
        self._told = Told(
            frozenset(s for s in seats if game.is_out(s)),
            tuple(t if t or game.talks_in_private(s) else None for s, t in zip(seats, talk)),
        )

    def as_told(self) -> Told | None:
        """The seats as the players know them while the game is ahead of what they were
        told (a held night: its deaths and its end are not said yet), else None: the game
        as it is. Refusals and private talk follow it, so neither tells a death, nor that
        every night answer is in, before the lines that say so."""
        return self._told if self.published < len(self.game.events) else None

    def is_out(self, seat: int) -> bool:
        told = self.as_told()
        return self.game.is_out(seat) if told is None else seat in told.out
