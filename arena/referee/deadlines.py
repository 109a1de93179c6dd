"""A match's clocks: each seat's deadline and how a missed one escalates, the pacing of a
stretch of secret requests (a Werewolf night), and the time a pause stops them all.

Every clock counts from when the lines that started it actually went out (``after_sent``),
not from when they were queued: a line that waits in a busy transport's queue must not eat
its reader's time, nor end a night its readers have just seen begin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

WARN_STEP, DEFAULT_STEP, FORFEIT_STEP = "warn", "default", "forfeit"


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


class Deadlines:
    """The deadlines of a game's open requests, and the clock of its secret stretches."""

    def __init__(
        self, timeouts: Timeouts, players: int, after_sent: Callable[[Callable[[float], None]], object] | None = None
    ) -> None:
        self.timeouts = timeouts
        self.after_sent = after_sent
        self.at: dict[int, float] = {}
        """Per seat with an open request, when its time is up."""
        self.unsent: dict[int, int] = {}
        """Seats whose request (by id) is still queued in the transport: their deadline
        starts when it goes out (``after_sent``), and cannot pass before."""
        self._told_by: dict[int, int] = {}
        """Per seat with a deadline, the transcript's length once the line that started it
        (its ASK or WARN) was sent: whether that line went out before a pause."""
        self.misses = [0] * players
        """Deadlines each seat has missed: the next one's escalation step."""
        self.secret_since: float | None = None
        """When the current stretch of secret requests (a Werewolf night) began."""
        self._hold_until: float | None = None
        """Until when the stretch must still look busy: its next public line waits."""
        self.step_at: float | None = None
        """When the stretch's dependent requests (the witch's) may go out (``night_step``)."""
        self.holding = False
        """Whether a dependent request waits for ``step_at``."""
        self.stretch_unsent = False
        """Whether the lines that opened the stretch (``NIGHT``, its requests) still wait in
        the transport's queue: its clock (``secret_since``, ``step_at``) starts when they
        go out (``after_sent``), as a deadline does. Counted from when they were queued, a
        night whose ``NIGHT`` waited behind the day's lines would be over, or its witch
        asked, as soon as its readers saw it begin."""
        self._paused_at: float | None = None
        """When ``pause`` stopped the game's clocks (None: they run)."""
        self._stretches = 0
        """Stretches of secret requests begun so far: which one a late word of its opening
        lines going out is about (a pause moves its clocks, so a time cannot tell)."""

    # -- the seats' deadlines -------------------------------------------------------

    def start(
        self,
        rid: int,
        seats: set[int],
        seconds: float,
        now: float,
        told_by: int,
        sent: Callable[[float], None] | None = None,
    ) -> None:
        """Give ``seats`` ``seconds`` to answer request ``rid``, whose lines (its ASK, or a
        WARN) end the transcript at ``told_by``: counted from when they actually go out.
        Until the transport says so (``after_sent``; then ``sent`` hears when) the deadline
        stands at ``now + seconds`` (what a dependent step is timed by) but cannot pass.
        ``seats`` may be the request's own set of seats still to answer: who has answered
        by then needs no deadline."""
        self.at.update(dict.fromkeys(seats, now + seconds))
        self._told_by.update(dict.fromkeys(seats, told_by))
        if self.after_sent is None:
            return
        for seat in seats:
            self.unsent[seat] = rid

        def went(at: float) -> None:
            if sent is not None:
                sent(at)
            for seat in seats:
                if self.unsent.get(seat) == rid:
                    del self.unsent[seat]
                    if seat in self.at:
                        self.at[seat] = at + seconds

        self.after_sent(went)

    def escalate(self, seat: int, steps: tuple[str, ...]) -> str:
        """The seat missed its deadline: the step of ``steps`` that follows (its last one
        for every miss past them)."""
        step = steps[min(self.misses[seat], len(steps) - 1)]
        self.misses[seat] += 1
        return step

    def drop(self, seat: int) -> None:
        """The seat's request is closed (answered, defaulted): no more deadline for it."""
        self.at.pop(seat, None)
        if self.unsent:  # (empty where lines go out at once: every answer passes here)
            self.unsent.pop(seat, None)

    def clear(self) -> None:
        """The game is over: nothing more is due."""
        self.at.clear()
        self.unsent.clear()

    def next(self) -> float | None:
        """The next time there is work: a player's deadline, the end of a hold on public
        lines, or the time a held dependent request goes out."""
        deadline = min((d for seat, d in self.at.items() if seat not in self.unsent), default=None)
        if self.stretch_unsent:
            return deadline  # the stretch's clock has not started
        for t in (self._hold_until, self.step_at if self.holding else None):
            if t is not None and (deadline is None or t < deadline):
                deadline = t
        return deadline

    def passed(self, seat: int, deadline: float, now: float) -> bool:
        """Whether ``deadline``, the seat's when it was looked at, is still its own and has
        passed (a request still queued cannot pass)."""
        return deadline <= now and self.at.get(seat) == deadline and seat not in self.unsent

    # -- pauses ---------------------------------------------------------------------

    def pause(self, stored: int, now: float) -> list[int]:
        """Stop the clocks: the transcript's lines from the ``stored``-th on wait unsent.
        Returns the seats whose request went out before (its ASK or WARN is stored), whose
        deadlines are dropped: they are asked again once the game goes on."""
        told = [seat for seat in self.at if self._told_by.get(seat, 0) <= stored]
        for seat in told:
            del self.at[seat]
            self.unsent.pop(seat, None)
        self._paused_at = now
        return told

    def resume(self, now: float) -> None:
        """Start the clocks again, if ``pause`` stopped them: every one moves on by the time
        the pause took."""
        if self._paused_at is not None:
            seconds = now - self._paused_at
            self._paused_at = None
            for seat in self.at:
                self.at[seat] += seconds
            if self.secret_since is not None:
                self.secret_since += seconds
            if self._hold_until is not None:
                self._hold_until += seconds
            if self.step_at is not None:
                self.step_at += seconds

    # -- stretches of secret requests -----------------------------------------------

    def begin_stretch(self, now: float) -> None:
        self.secret_since = now
        self._stretches += 1

    def pace(self, now: float, paced: bool) -> None:
        """A stretch began at ``now`` and its requests went out: time its dependent step
        (if ``paced``: ``night_step`` on, or when its requests' deadlines are up), and move
        its clock to when its opening lines go out."""
        if paced:
            step = self.timeouts.night_step
            self.step_at = max(self.at.values(), default=now) if step is None else now + step
        if self.after_sent is not None:
            self._start_when_sent()

    def _start_when_sent(self) -> None:
        """Move the clock of the stretch begun now to when its opening lines go out (see
        ``stretch_unsent``)."""
        assert self.after_sent is not None
        self.stretch_unsent = True
        stretch = self._stretches

        def sent(at: float) -> None:
            since = self.secret_since  # (moved on by a pause meanwhile, with the stretch's other clocks)
            if stretch != self._stretches or not self.stretch_unsent or since is None:
                return  # (that stretch is over: an operator stopped the game)
            shift = max(0.0, at - since)
            self.secret_since = at
            self.step_at = None if self.step_at is None else self.step_at + shift
            self._hold_until = None if self._hold_until is None else self._hold_until + shift
            self.stretch_unsent = False

        self.after_sent(sent)

    def step_due(self, now: float) -> bool:
        """Whether a held dependent request may go out now."""
        return self.holding and not self.stretch_unsent and self.step_at is not None and now >= self.step_at

    def early(self, now: float) -> bool:
        """Whether a dependent request asked now would go out before its stretch's step."""
        step_at = self.step_at
        return step_at is not None and self.secret_since is not None and (self.stretch_unsent or now < step_at)

    def held(self, now: float) -> bool:
        """Whether a stretch of secret requests must go on until ``timeouts.secret_minimum``
        has passed, and a paced one until its dependent step (``step_at``): a night that
        ends as soon as its answers are in is shorter when a role is no longer asked, and
        everyone can time it. Its lines still queued (``stretch_unsent``), it has not begun
        for anyone: held. Ends the stretch once it has not."""
        since = self.secret_since
        if since is None:
            return False
        until = max(since + self.timeouts.secret_minimum, self.step_at or since)
        if now < until or self.stretch_unsent:
            self._hold_until = until
            return True
        self.secret_since = self._hold_until = self.step_at = None
        return False

    def stop_stretch(self) -> None:
        """An operator stopped the game: what the stretch held is said at once."""
        self.secret_since = self._hold_until = None
        self.stretch_unsent = False
