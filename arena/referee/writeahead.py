"""A referee's games written ahead of their lines, and what happens when they cannot be.

With a journal, what a game's step sends (lines, mode changes, deadline starts) is held
until the step is stored (``commit``); a game whose step cannot be stored is paused with
its lines unsent and tried again later (``retry``), and a game's end is stored before it
is recorded (``end``, ``finish``). Without a journal every line goes out at once and a game
is recorded as it ends. Beside the games, a write outside any game (a new game's id) that
fails stops new games from starting for a while (``store_failed``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..protocol import PAUSE, Message
from .journal import Journal
from .match import Match
from .pause import STORE_DOWN, Backoff, Pause, failure, unwritable

log = logging.getLogger(__name__)


class WriteAhead:
    """The lines held until their step is stored, the games paused because it could not
    be, and the store's state for games to come."""

    def __init__(
        self,
        journal: Journal | None,
        say: Callable[[str, str], object],
        latest: Callable[[], float],
        on_game_end: list[Callable[[Match], None]],
        after_sent: Callable[[Callable[[float], None]], object] | None,
    ) -> None:
        self.journal = journal
        self.say = say
        """Sends a line to a channel: a paused game's says why there."""
        self.latest = latest
        """The latest time the referee's callers passed in: when a pause begins, for the
        calls that pass none."""
        self.on_game_end = on_game_end
        """The referee's callbacks for a game that is over (its record, its bots back in the
        lobby), called once its end is stored (``finish``)."""
        self.after_sent = after_sent
        self.outbox: list[tuple[str, Callable[..., object], tuple[Any, ...]]] | None = None if journal is None else []
        """With a journal: what the games' steps send (by game id), held until ``commit``
        stored them."""
        self.paused: dict[str, Pause] = {}
        """Games whose last step could not be stored: nothing of them goes out until it is."""
        self._store_down: Backoff | None = None
        """Set when the store refused a write outside any game (a new game's id): no game
        starts until a try after ``at`` works (``writable``, ``store_failed``)."""
        self._batch = 0
        """Batches open (``batch``): a commit waits for the outermost one to end."""
        self._due = False
        """Whether a commit waits for the batch to end."""
        self.forgetting: set[str] = set()
        """Games recorded whose END has not reached the server yet: they are still in
        progress for a restart (``finish``), until it has."""
        self._ending: list[Match] = []
        """Games that ended inside the batch: their end is stored with its commit, and they
        are recorded then (``end``)."""

    # -- held until stored ------------------------------------------------------------

    def behind(self, gid: str, send: Callable[..., object], *args: Any) -> None:
        """Send for game ``gid``, behind the lines of the step in progress: at once without
        a journal, else once the step is stored (and the game is not paused)."""
        if self.outbox is None:
            send(*args)
        else:
            self.outbox.append((gid, send, args))

    def held(self, gid: str, send: Callable[..., object]) -> Callable[..., object]:
        """``send`` as game ``gid`` uses it: itself without a journal, else held like ``behind``."""
        if self.outbox is None:
            return send
        return lambda *args: self.behind(gid, send, *args)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Steps taken inside are stored together when it ends, in one commit (a group
        commit), and only then do their lines go out: the lines a server delivered in one
        burst cost one commit, not one each, and nothing goes out before it is stored."""
        self._batch += 1
        try:
            yield
        finally:
            self._batch -= 1
            if not self._batch and self._due:
                self._due = False
                self.commit()

    def commit(self) -> None:
        """Store the games' new steps, then send what they held back; a game whose step
        could not be stored is paused with its lines unsent (``pause``). Every public entry
        point of the referee that can move a game ends here (inside a ``batch``, the
        batch's end does it)."""
        journal = self.journal
        if journal is None:
            return
        if self._batch:
            self._due = True
            return
        while self._ending:
            ending, self._ending = self._ending, []
            self._end_stored(ending)
        outbox = self.outbox or []
        if not outbox and not journal.unsaid():
            return  # (a line of speech sends nothing, and is stored all the same)
        for match, exc in journal.save(skip=self.paused).values():
            self.pause(match, exc)
        self.outbox = []
        paused = self.paused
        if not paused:  # (the usual case: one test, not one per line)
            for _, send, args in outbox:
                send(*args)
            return
        for gid, send, args in outbox:
            pause = paused.get(gid)
            if pause is None:
                send(*args)
            else:
                pause.held.append((send, args))

    # -- when the store cannot be written ---------------------------------------------

    def pause(self, match: Match, exc: Exception, ending: bool = False) -> None:
        """Stop ``match``, whose step could not be stored: its lines wait (``commit``
        holds them), nothing is asked and no deadline runs, and the store is tried again
        later (``retry``). Its channel and the log say why, once."""
        gid = match.gid
        pause = self.paused.get(gid)
        if pause is not None:
            pause.ending = pause.ending or ending
            return
        now = self.latest()
        pause = self.paused[gid] = Pause(match, Backoff(now), ending=ending, waiting=match.suspended)
        assert self.journal is not None
        match.pause(self.journal.stored_lines(gid), now)
        log.error("game %s paused: %s (%s); trying again in %.0f s", gid, STORE_DOWN, failure(exc), pause.backoff.delay)
        if match.channel is not None:
            self.say(match.channel, Message.make(PAUSE, gid, text=STORE_DOWN).format())

    def retry(self, now: float) -> None:
        """Try again to store the steps of the paused games whose wait is over; each one
        stored goes on where it stopped: what it held goes out, and then (``Match.go_on``)
        its pending requests are asked again, or it ends as it was ending."""
        paused = self.paused
        due = [gid for gid, pause in paused.items() if pause.backoff.at <= now]
        if not due:
            return
        assert self.journal is not None
        failed = self.journal.save(skip=[gid for gid in paused if gid not in due])
        for gid, (running, why) in failed.items():
            if gid not in paused:  # (a running game with a step unstored: it pauses as in ``commit``)
                self.pause(running, why)
        for gid in due:
            pause = paused[gid]
            match = pause.match
            exc = failed[gid][1] if gid in failed else None
            if exc is None and pause.ending:
                try:
                    exc = self.finish(match)
                except Exception as bug:  # (not the store's fault) logged whole, and tried again like it
                    log.exception("game %s could not be finished", gid)
                    exc = bug
            if exc is not None:
                pause.backoff.failed(now)
                log.error(
                    "game %s still paused: %s (%s); trying again in %.0f s",
                    gid,
                    STORE_DOWN,
                    failure(exc),
                    pause.backoff.delay,
                )
                continue
            del paused[gid]
            assert self.outbox is not None
            self.outbox[:0] = [(gid, send, args) for send, args in pause.held]
            log.warning(
                "game %s goes on after %.0f s: the results store can be written again", gid, now - pause.backoff.since
            )
            if not pause.ending and not pause.waiting:
                match.go_on(now)

    def since(self) -> dict[str, float]:
        """The games paused, with since when."""
        return {gid: pause.backoff.since for gid, pause in self.paused.items()}

    def writable(self, now: float) -> bool:
        """Whether a new game may start: no game is paused, and the store did not refuse a
        write lately (once the wait after that is over, the next start is the try)."""
        return not self.paused and (self._store_down is None or now >= self._store_down.at)

    @property
    def store_retry(self) -> float | None:
        """When a new game may try the store again, after it refused a write (``store_failed``)."""
        return None if self._store_down is None else self._store_down.at

    def store_failed(self, exc: Exception, now: float) -> None:
        """The store refused a write outside any game (a new game's id): no game starts
        until a try after the wait works (``store_works``)."""
        down = self._store_down
        if down is None:
            self._store_down = down = Backoff(now)
        else:
            down.failed(now)
        log.error("no game starts: %s (%s); trying again in %.0f s", STORE_DOWN, failure(exc), down.delay)

    def store_works(self) -> None:
        """A write outside any game worked: games may start again."""
        if self._store_down is not None:
            log.warning("the results store can be written again: games start again")
            self._store_down = None

    # -- a game's end ---------------------------------------------------------------

    def end(self, match: Match) -> None:
        """``match`` is over: with a journal its end's step is stored before it is recorded
        (a restart then finds the whole game), and if either cannot be, it pauses, to end
        once they can; without one it is recorded now."""
        gid = match.gid
        journal = self.journal
        if journal is None:
            self.finish(match)
            return
        pause = self.paused.get(gid)
        if pause is not None:  # (stopped while paused) it ends once its step is stored
            pause.ending = True
            return
        if self._batch:  # stored with the batch's other steps, and recorded then
            self._ending.append(match)
            self._due = True
            return
        self._end_stored([match], deferred=False)

    def _end_stored(self, ending: list[Match], deferred: bool = True) -> None:
        """Store the games' steps, those of the games that ended among them; record each of
        these once its end is stored, or pause it until it can be. A game ended inside a
        batch (``deferred``) is finished after the line that ended it was handled: a
        failure then, not the store's, is logged, as ``retry`` logs it, and it is recorded
        no more than a line's failure would let it be."""
        assert self.journal is not None
        failed = self.journal.save(skip=self.paused)
        ended = {match.gid for match in ending}
        for other, exc in failed.values():
            self.pause(other, exc, ending=other.gid in ended)
        for match in ending:
            if match.gid in failed:
                continue
            if not deferred:
                unrecorded = self.finish(match)
            else:
                try:
                    unrecorded = self.finish(match)
                except Exception:
                    log.exception("game %s could not be finished", match.gid)
                    continue
            if unrecorded is not None:
                self.pause(match, unrecorded, ending=True)

    def finish(self, match: Match) -> Exception | None:
        """What follows a game's end, once it is stored: ``on_game_end`` (its record, its
        bots back in the lobby), then, behind its END, its removal from the games in
        progress. Returns why the store could not be written, if it could not (the game
        is then paused until it can, with its END held back); raises any other failure."""
        try:
            for callback in self.on_game_end:
                callback(match)
        except Exception as exc:
            if self.journal is None or not unwritable(exc):
                raise
            return exc
        journal = self.journal
        if journal is not None:
            gid = match.gid
            if self.after_sent is None:
                self.behind(gid, journal.forget, gid)
            else:  # once END and what follows it are written to the server, not merely queued
                self.forgetting.add(gid)

                def forget(at: float) -> None:
                    journal.forget(gid)
                    self.forgetting.discard(gid)

                self.behind(gid, self.after_sent, forget)
        return None
