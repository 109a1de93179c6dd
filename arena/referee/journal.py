"""Games in progress, written to the store ahead of every line the referee sends.

The referee holds back what a step of a game sends (lines, mode changes, deadline starts)
until ``save`` has made the step durable: the answers the engine took since the last step,
the lines, the match's bookkeeping, and what its players said (talk, answer lines). A
referee killed at any moment therefore leaves a store from which a new one rebuilds every
game in progress exactly as far as anyone saw it (``Referee.resume_game``); an answer that
was not yet stored was never acted on, and its bot is asked again. A line of talk sends
nothing, so it is stored on its own as it comes.

A write that fails leaves the step unstored, and the game it belongs to says so (``save``
returns it): its referee holds its lines back and pauses it (``arena.referee.writeahead``). A
game's first write (its opening, or its taking up after a restart) is part of its first
step, so it is tried again with it.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from collections.abc import Callable, Container

from ..store import LiveGame, Store
from ..store.referees import Fenced
from .match import Match
from .pause import unwritable
from .state import MatchState, asked

log = logging.getLogger(__name__)


def stored_state(live: LiveGame) -> MatchState:
    """The bookkeeping of a game taken up from ``live``: as stored, with the request ids
    its stored ASK lines name (issued before the restart: none is issued again)."""
    return MatchState.from_json(live.state, len(live.names), asked(live.id, live.lines))


@dataclass(frozen=True)
class Written:
    """A game being written: its match, and how many of its engine's answers, lines, talk
    and answer lines are stored."""

    match: Match
    actions: int = 0
    lines: int = 0
    talk: int = 0
    answers: int = 0


class Journal:
    """Writes the live games of one referee to ``store``.

    ``place`` names where the referee runs (its server and lobby): a restarted ``arena
    serve`` takes up the games left at its own place, so referees sharing a store never
    take each other's; a tournament's referee takes up its tournament's games wherever
    they ran.
    """

    def __init__(
        self,
        store: Store,
        place: str,
        tournament: str | None = None,
        wall: Callable[[], float] = time.time,
        owner: str | None = None,
    ) -> None:
        self.store = store
        self.place = place
        self.owner = owner
        """This run of the referee, whose writes alone count for the games it runs (None:
        unchecked); a write for a game another run took over raises ``Fenced``."""
        self.tournament = tournament
        self.wall = wall
        self._live: dict[str, Written] = {}
        """Games being written, by id."""
        self._first: dict[str, Callable[[], None]] = {}
        """Games whose first write (opening, taking up) is still to be done: it goes with
        their first step."""
        self._closing: set[str] = set()
        """Games over whose removal from the games in progress failed: tried again with
        the next step."""
        self._touched: dict[str, None] = {}
        """Games that may have a step not stored yet (``touch``): ``save`` looks at these
        alone, so a line costs the games it moved, not every game in progress."""

    def touch(self, gid: str) -> None:
        """Game ``gid`` may have moved on: ``save`` looks at it."""
        self._touched[gid] = None

    def new_game_id(self) -> str:
        return self.store.live.new_id(self.wall())

    def unfinished(self) -> list[LiveGame]:
        """The games an earlier run left in progress here, to take up: not those this run
        still writes. A game of its own that is recorded but whose END has not reached the
        server yet is still in progress in the store, and a referee of a shared lobby looks
        again when it inherits a peer's games: taken up then, its bots would get a
        ``RESUME`` for a game that is ending."""
        found = self.store.live.unfinished(place=self.place, tournament=self.tournament, owner=self.owner)
        return [live for live in found if live.id not in self._live]

    def opened(self, match: Match) -> None:
        """Start writing a new game (before its first line goes out)."""
        game = match.game
        started = self.wall() if match.started is None else match.started
        match.started = started
        live = LiveGame(
            match.gid,
            game.name,
            game.options.to_dict(),
            game.seed,
            game.deal,
            tuple(match.names),
            tuple(match.bots or match.names),
            self.place,
            self.tournament,
            started,
        )
        self._live[match.gid] = Written(match)
        self.touch(match.gid)
        self._begin(match.gid, lambda: self.store.live.open(live, self.owner))

    def resumed(self, match: Match, live: LiveGame) -> None:
        """Go on writing a game taken up from ``live`` (``match`` is restored from it)."""
        self._live[match.gid] = Written(match, len(live.history), len(live.lines), len(live.talk), len(live.answers))
        self.touch(match.gid)
        self._begin(match.gid, lambda: self.store.live.resumed(live.id, self.place, self.owner))

    def _begin(self, gid: str, write: Callable[[], None]) -> None:
        """A game's first write: now, or, if the store refuses it, with the game's first
        step (``save``, which reports the game then, should it fail again)."""
        try:
            write()
        except Exception:
            self._first[gid] = write

    def unsaid(self) -> bool:
        """Whether a game has talk not stored yet. A line of speech sends nothing, so no
        step would store it before the next one, and a referee dying meanwhile would lose
        it; an answer line rides with the next step, as the engine's answers do (one not
        stored was never acted on: its bot is asked again)."""
        live = self._live
        return any((w := live.get(gid)) is not None and len(w.match.talk) != w.talk for gid in self._touched)

    def stored_lines(self, gid: str) -> int:
        """How many of the game's lines are stored: the rest must wait unsent."""
        return self._live[gid].lines

    def save(self, skip: Container[str] = ()) -> dict[str, tuple[Match, Exception]]:
        """Make every game's new step durable (but those in ``skip``); returns once it is,
        with the games whose step could not be stored and why (their step is tried again
        whole by the next call). A step is new answers or new lines: whatever else changes
        in a match comes with one of them, except counts of refusals past the transcript's
        allowance, which ride with the next step, as answer lines the engine did not take
        do. A line of talk is a step of its own (``unsaid``).

        One commit for every game's step, each whole or absent: the steps are parts of one
        flat transaction, and should one fail, the whole is rolled back and written again
        without it (a bug's rare cost, where a savepoint a step would cost every step two
        round trips). The rows are the games' own (fenced by their owner), so a peer's
        writes go on meanwhile."""
        failed: dict[str, tuple[Match, Exception]] = {}
        for gid in list(self._closing):
            self._close(gid)
        touched, self._touched = self._touched, {}
        steps: list[tuple[str, Written]] = []
        try:
            while True:
                steps, before = [], len(failed)
                try:
                    with self.store.db.transaction(alone=False, flat=True):
                        for gid in touched:
                            written = None if gid in failed else self._step(gid, skip, failed)
                            if written is not None:
                                steps.append((gid, written))
                        _give_up_if_any(list(failed.values())[before:])
                    break
                except _Again:
                    continue
        except Fenced:
            raise
        except Exception as exc:  # the transaction failed whole: none of the steps is stored
            for gid in touched:
                stored = self._live.get(gid)
                if stored is not None and gid not in skip and gid not in failed and _new_step(stored):
                    failed[gid] = (stored.match, exc)
                    self._touched[gid] = None
            return failed
        for gid, written in steps:
            self._live[gid] = written
            self._first.pop(gid, None)  # (its first write went with its step)
        return failed

    def _step(self, gid: str, skip: Container[str], failed: dict[str, tuple[Match, Exception]]) -> Written | None:
        """Write game ``gid``'s new step, if it has one (inside ``save``'s transaction): what
        it is stored up to then, or None (nothing new, skipped, or it failed: ``failed``
        says why, and it is tried again next time)."""
        stored = self._live.get(gid)
        if stored is None:
            return None
        if gid in skip:
            self._touched[gid] = None  # (its step waits for the next call)
            return None
        if not _new_step(stored):
            return None
        match, actions, lines = stored.match, stored.actions, stored.lines
        talk, answers = stored.talk, stored.answers
        history, transcript, said, heard = match.game.history, match.transcript, match.talk, match.answers
        told = match.told
        try:
            first = self._first.get(gid)
            if first is not None:
                first()
            self.store.live.append(
                gid,
                actions,
                history[actions:],
                lines,
                [(to, told[i], line) for i, (to, line) in enumerate(transcript[lines:], lines)],
                match.state().to_json(),
                talk,
                said[talk:],
                answers,
                heard[answers:],
                self.owner,
            )
        except Fenced:
            raise
        except Exception as exc:
            failed[gid] = (match, exc)
            self._touched[gid] = None
            return None
        return Written(match, len(history), len(transcript), len(said), len(heard))

    def forget(self, gid: str) -> None:
        """A game's end has been written to the server: it is no longer in progress, if it
        is recorded. Until then a restart takes it up and tells its end again to its bots
        (they may not have heard it); one whose recording failed is recorded then."""
        self._live.pop(gid, None)
        self._first.pop(gid, None)
        self._close(gid)

    def _close(self, gid: str) -> None:
        """Remove a recorded game from the games in progress; should the store refuse, the
        next ``save`` tries again (meanwhile a restart would tell its end again, harmlessly)."""
        try:
            if self.store.games.has(gid):
                self.store.live.close(gid, self.owner)
            self._closing.discard(gid)
        except Fenced:
            raise
        except Exception as exc:
            if gid not in self._closing:
                log.warning(
                    "game %s is over, but could not be removed from the games in progress (%s); "
                    "trying again with the next write",
                    gid,
                    exc,
                )
            self._closing.add(gid)


def _new_step(stored: Written) -> bool:
    """Whether the game has answers, lines, talk or answer lines not stored yet."""
    match = stored.match
    return (
        len(match.game.history) != stored.actions
        or len(match.transcript) != stored.lines
        or len(match.talk) != stored.talk
        or len(match.answers) != stored.answers
    )


class _Again(Exception):
    """A step failed inside ``Journal.save``'s transaction: roll it back, and write the
    others again without it."""


def _give_up_if_any(failures: list[tuple[Match, Exception]]) -> None:
    """After the steps of one try: if some failed, none of the try may be kept (they were
    parts of one transaction, half written); the store out of reach fails them all."""
    for _, exc in failures:
        if unwritable(exc):
            raise exc
    if failures:
        raise _Again
