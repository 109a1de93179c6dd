"""One game in progress, driven through lines: requests out, answers in, deadlines kept.

The match is transport-agnostic: it writes through one ``MatchOutput`` (the game's
channel, direct messages, and what else its transport can do) and reads the clock only
through the ``now`` its callers pass, so the in-memory transport and IRC drive the same
code. It conducts the game: asks its decisions, takes their answers, moves the engine on
and ends it, with collaborators that each keep their own part of it: ``Seats`` (who plays
where), ``Record`` (what was sent and said), ``Deadlines`` (the clocks), ``Floor`` (who may
speak), ``Requests`` (what is open for whom) and ``Asker`` (how a round is asked, and
what a missed deadline brings).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

from ..core.errors import ErrorCode, IllegalAction
from ..core.events import Event
from ..core.game import ABORTED, FORFEIT, Game
from ..core.said import FALLBACKS, Answer, Talk
from ..protocol import Message, ProtocolError, request_id, valid_request_id
from .asking import Asker
from .deadlines import Deadlines, Timeouts
from .floor import Floor, game_over, not_playing
from .output import MatchOutput
from .record import Knowledge, Lines, Record
from .requests import Requests, apply_answer
from .seats import Seats
from .state import Ending, MatchState

__all__ = ["Match", "Timeouts"]  # (``Timeouts`` as its callers have always imported it)

_tuple_new = tuple.__new__

_P = ParamSpec("_P")
_R = TypeVar("_R")


def changes(method: Callable[Concatenate[Match, _P], _R]) -> Callable[Concatenate[Match, _P], _R]:
    """A call into the match that may move it on or change its clocks: its output's
    ``on_change`` hears of it after, however the call ends."""

    def call(match: Match, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(match, *args, **kwargs)
        finally:
            on_change = match.output.on_change
            if on_change is not None:
                on_change()

    functools.update_wrapper(call, method)
    return call


class Match:
    """One game: its engine, the lines it is put in, and the collaborators that keep the rest."""

    def __init__(
        self,
        gid: str,
        game: Game,
        names: Sequence[str],
        lines: Lines,
        timeouts: Timeouts,
        output: MatchOutput,
        bots: Sequence[str] | None = None,
        channel: str | None = None,
        started: float | None = None,
        bundles: bool = False,
    ) -> None:
        """``bundles``: channel lines that go out together travel as one line (protocol 2,
        ``Record.bundle``)."""
        self.gid = gid
        self.game = game
        self.lines = lines
        self.timeouts = timeouts
        self.output = output
        self.channel = channel
        """The game's channel, named in ``RESYNC`` so that a bot coming back can rejoin it."""
        self.started = started
        """Wall-clock time the game began, when it began in an earlier run of the referee
        (``restore``); None: now."""
        self.seats = Seats(names, bots)
        self.record = Record(gid, self.seats, output, bundles)
        self.knowledge = Knowledge(game)
        self.requests = Requests(game)
        self.deadlines = Deadlines(timeouts, len(self.seats), output.after_sent)
        self.floor = Floor(game, self.record, self.knowledge, lines.private_talk, lines.private_lines)
        self.asker = Asker(
            gid,
            game,
            self.seats,
            lines,
            timeouts,
            self.record,
            self.requests,
            self.deadlines,
            output.after_sent is not None,
        )
        self._suspended = False
        """Restored from the store and waiting for its bots (``restore``), or paused
        (``pause``), until ``go_on``."""
        self._ended = False
        """Whether ``on_end`` has been told: once, however often the game is moved on after."""

    # -- what its callers read ------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return self.seats.names

    @property
    def bots(self) -> list[str]:
        return self.seats.bots

    @property
    def nicks(self) -> list[str]:
        return self.seats.nicks

    @property
    def transcript(self) -> list[tuple[str | None, str]]:
        return self.record.transcript

    @property
    def told(self) -> list[int | None]:
        return self.record.told

    @property
    def talk(self) -> list[Talk]:
        return self.record.talk

    @property
    def answers(self) -> list[Answer]:
        return self.record.answers

    @property
    def over(self) -> bool:
        return self.game.result is not None

    @property
    def suspended(self) -> bool:
        """Restored and not yet going on (its bots are not all back), or paused."""
        return self._suspended

    # -- lifecycle ------------------------------------------------------------------

    @changes
    def start(self, now: float) -> None:
        self.record.origin = now
        self._advance(now)

    def route(self, seat: int, nick: str | None) -> None:
        """Send the seat's private lines to its bot's connection from now on (None: nowhere, it is gone)."""
        self.seats.route(seat, nick)
        self.floor.follow(seat)

    @changes
    def resync_begin(self, seat: int) -> None:
        """``RESYNC GID begin`` to the seat's bot, which has just registered (again): it is
        told everything it was told in this game (``Record.begin_replay``), then, once it is
        back in the channel, the rest (``resync_rest``)."""
        self.record.begin_replay(seat, self.channel)

    @changes
    def resync_rest(self, seat: int, now: float) -> None:
        """The rest of the seat's resync block, its open request last with the seconds it
        has left: see ``Record.replay``."""
        request = self.requests.of(seat)
        left = int(max(0.0, self.deadlines.at.get(seat, now) - now))
        self.record.replay(seat, None if request is None else request.rid, left)

    @changes
    def refuse_bot(self, bot: str, nick: str, code: ErrorCode, why: str, *context: str) -> bool:
        """A line of ``bot``'s that broke the grammar, refused as the game's own (``Record.refuse_bot``)."""
        return self.record.refuse_bot(bot, nick, code, why, *context)

    # -- taken up again after a restart ---------------------------------------------

    def state(self) -> MatchState:
        """The bookkeeping that neither the engine's answers nor the transcript hold: with
        those two it is all ``restore`` needs. A forfeit or a stop ends a game outside its
        answers, so it is kept here too."""
        end, result = None, self.game.result
        if result is not None and result.reason in (FORFEIT, ABORTED):
            event = next(e for e in reversed(self.game.events) if e.kind == "end")
            end = Ending(result.reason, result.forfeited, event.data.get("why", ""))
        kept, refusals = self.record.refusal_counts()
        return MatchState(
            self.knowledge.published,
            tuple(self.deadlines.misses),
            tuple(self.floor.spoken),
            kept,
            refusals,
            end,
            frozenset(self.requests.issued),
        )

    @changes
    def restore(
        self,
        transcript: Sequence[tuple[str | None, int | None, str]],
        state: MatchState,
        resumes: int,
        talk: Sequence[Talk] = (),
        answers: Sequence[Answer] = (),
    ) -> None:
        """Take up a game an earlier run of the referee left, whose engine has been rebuilt
        from its answers: the lines it sent (``(to, seat told, line)``), its ``state``, and
        what its players said (``talk``, ``answers``). The match then waits (no request
        open, no deadline running) until ``go_on``: its bots must come back first.
        ``resumes`` counts earlier resumptions, so the request ids drawn from now on come
        from a stream of their own."""
        self.record.restore(transcript, talk, answers, state)
        self.knowledge.published = state.published
        self.deadlines.misses = list(state.misses)
        self.floor.spoken = list(state.spoken)
        end = state.end
        if end is not None and self.game.result is None:
            if end.reason == FORFEIT:
                assert end.seat is not None
                self.game.forfeit(end.seat, end.why)
            else:
                self.game.abort(end.why)
        self.requests.restore(state.issued, resumes)
        self.requests.asked = self.game.round
        self._suspended = True

    @changes
    def pause(self, stored: int, now: float) -> None:
        """Stop the game where it stands: its lines from the ``stored``-th on could not be
        stored, so they wait unsent, and nothing more may happen in it until ``go_on``. A
        seat whose request went out before (its ASK or WARN is stored) may answer into the
        pause and can be told nothing: its request is dropped, to be asked again by
        ``go_on`` as after a restart. A request among the waiting lines keeps its id, and
        its clock, like the game's pacing, stops until ``go_on``."""
        self.requests.close(self.deadlines.pause(stored, now))
        self._suspended = True

    @changes
    def go_on(self, now: float) -> None:
        """Carry on a restored or paused game from the step where it stopped: every
        decision still pending and not waiting to go out is asked again, under a new
        request id (its bot may have answered the old one into a referee that died, or
        paused, before storing it, and bots ignore an id they answered), with its whole
        time; the time a pause took is added to every other clock of the game. A game that
        was over just ends (``on_end``)."""
        if self._suspended:
            self._suspended = False
            self.deadlines.resume(now)
            self.requests.asked = -1
            self._advance(now)

    # -- what players say -----------------------------------------------------------

    @changes
    def answer(
        self,
        bot: str,
        rid_text: str,
        value: str,
        now: float,
        reply_to: str | None = None,
        line: str | None = None,
        fallback: str | None = None,
    ) -> None:
        """Handle ``ANSWER gid rid value`` from ``bot`` (a registered connection: the
        referee has checked who it is); a bad answer gets an ERROR, to ``reply_to`` (the
        sender's nick), and changes nothing. A seat's answer is kept in ``answers``, with
        ``line`` (the line as it came; default: rebuilt from its parts) and its
        ``fallback=`` marker, which is only kept: it changes nothing in how it is judged."""
        game, record, requests = self.game, self.record, self.requests
        seat = self.seats.by_bot.get(bot.lower())
        after = len(record.transcript)
        refused: IllegalAction | ProtocolError | None = None
        # The request the seat was sent last, if this answer names it (by its id as the
        # referee spelled it, which needs no check): its latency counts from then.
        sent = None if seat is None else requests.sent_at.get(seat)
        if sent is not None and sent[0] != rid_text:
            sent = None
        try:
            if seat is None:
                raise not_playing(self.gid)
            if game.result is not None:
                raise game_over(self.gid)
            rid = sent[2] if sent is not None else request_id(rid_text)
            request = requests.open.get(rid)
            if request is None or seat not in request.seats:
                requests.refuse(seat, rid, self.knowledge.is_out(seat))
            apply_answer(game, seat, value, self.seats, self.gid)
        except (IllegalAction, ProtocolError) as exc:
            refused = exc
        else:
            requests.answered(seat, request)
            self.deadlines.drop(seat)
        if refused is None or seat is not None and record.keeps(seat):
            # Kept. Built as the tuple it is: a named tuple's own ``__new__`` is a Python
            # function, and a game keeps one for every answer.
            record.answers.append(
                _tuple_new(
                    Answer,
                    (
                        seat,
                        rid_text,
                        f"ANSWER {self.gid} {rid_text} {value}" if line is None else line,
                        now - record.origin,
                        None if sent is None else now - sent[1],
                        None if refused is None else refused.code.value,
                        None if fallback is None or fallback not in FALLBACKS else fallback,
                        after,
                    ),
                )
            )
        if refused is not None:
            echo = (rid_text,) if valid_request_id(rid_text) else ()  # an ERROR echoes only a request id
            record.refuse(bot if reply_to is None else reply_to, seat, refused.code, refused.reason, *echo)
            return
        self._advance(now)

    @changes
    def said(self, bot: str | None, nick: str, text: str, now: float) -> None:
        """A line ``nick`` (playing ``bot``) said in the game's channel: a speech at the
        floor (``Floor.said``) where the game gives turns, else free talk (``Floor.chatted``)."""
        if self.game.floor_kinds:
            self.floor.said(bot, nick, text, now)
            self._forfeit_overspent(now)
        else:
            self.floor.chatted(bot, nick, text, now)

    @changes
    def team(self, bot: str, msg: Message, reply_to: str | None, now: float) -> None:
        """``TEAM`` from ``bot``: see ``Floor.team``."""
        self.floor.team(bot, msg, reply_to=reply_to)
        self._forfeit_overspent(now)

    def _forfeit_overspent(self, now: float) -> None:
        """A seat that said more than its speech budget forfeits the game at once."""
        seat = self.floor.overspent
        if seat is not None:
            self.floor.overspent = None
            self._publish(self.game.forfeit(seat, "speech_budget"))
            self._advance(now)

    # -- deadlines ------------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """The next time ``poll`` has work (see ``Deadlines.next``); None while suspended."""
        return None if self._suspended else self.deadlines.next()

    @changes
    def poll(self, now: float) -> None:
        """Apply the escalation step to every seat whose deadline has passed."""
        if self._suspended:
            return
        deadlines = self.deadlines
        for seat, deadline in sorted(deadlines.at.items(), key=lambda kv: kv[1]):
            if self.over or not deadlines.passed(seat, deadline, now):
                continue
            forfeited = self.asker.missed(seat, now)
            if forfeited:
                self._publish(forfeited)
        self._advance(now)

    # -- moving the game on ---------------------------------------------------------

    @changes
    def abort(self, why: str, now: float) -> None:
        """Stop the game with nobody at fault (an operator's ``!stop``): END says
        ``reason=aborted`` and no rating moves."""
        if not self.over:
            self.game.abort(why)
            self.deadlines.stop_stretch()
            self._suspended = False
            self._advance(now)

    @changes
    def announce(self, msg: Message) -> None:
        """Say a line of the referee's own in the game channel (e.g. the rating changes after END)."""
        self.record.send(None, msg)
        self.record.flush()

    def _advance(self, now: float) -> None:
        """Move the game on (``_step``); the step's channel lines still held to go out
        together go now."""
        self._step(now)
        self.record.flush()

    def _step(self, now: float) -> None:
        """Publish new events, then ask for any round of decisions not yet asked.

        Every decision is asked, even one with a single legal choice (a good player's quest
        card): skipping it would tell everyone who was not asked, through the request ids
        and through how soon the result comes.
        """
        if self._suspended:
            return
        game, deadlines, knowledge = self.game, self.deadlines, self.knowledge
        while True:
            events = game.events
            if knowledge.published < len(events):
                stop = len(events)
                if deadlines.secret_since is not None and game.result is None:
                    # (a decided game is not held: its END tells every role anyway)
                    public = next((i for i in range(knowledge.published, stop) if events[i].audience is None), None)
                    if public is not None and deadlines.held(now):
                        stop = public
                if stop > knowledge.published:
                    self._publish(events[knowledge.published : stop])
                if stop < len(events):
                    return  # poll() at the end of the hold carries on
            if game.result is not None:
                self._end()
                return
            round_ = game.round
            if round_ == self.requests.asked and not (deadlines.holding and deadlines.step_due(now)):
                if game.floor_kinds:
                    self.floor.pass_floor()
                return
            pending = game.pending()
            started = False
            if pending and game.secret_kinds and all(d.kind in game.secret_kinds for d in pending):
                if deadlines.secret_since is None:
                    deadlines.begin_stretch(now)
                    started = True
                    knowledge.remember()  # (everything is said: a held stretch returned above)
            elif deadlines.held(now):
                return
            self.requests.asked = round_
            if game.floor_kinds:
                self.floor.pass_floor()  # voiced before the ASK that grants the floor goes out
            self.asker.ask_new(pending, now)
            if started:
                deadlines.pace(now, game.paced())

    def _end(self) -> None:
        """The game is over: nothing is open any more, the refusals not kept are counted,
        and ``on_end`` hears it (once)."""
        self.requests.open.clear()
        self.deadlines.clear()
        self.floor.pass_floor()
        self.record.count_refusals()
        self.record.flush()  # before the channel is left
        on_end = self.output.on_end
        if on_end is not None and not self._ended:
            self._ended = True
            on_end(self)

    def _publish(self, events: Sequence[Event]) -> None:
        """Say the events' lines (``Record.publish``): once everything is said during a
        stretch of secret requests, the players know the seats as they are."""
        knowledge = self.knowledge
        knowledge.published += len(events)
        self.record.publish(events, self.lines)
        if self.deadlines.secret_since is not None and knowledge.published == len(self.game.events):
            knowledge.remember()
