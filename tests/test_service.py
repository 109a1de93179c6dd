"""The referee service's own timing, without a server: it must never spin."""

from __future__ import annotations

import threading

from arena.config import Config
from arena.referee.service import MIN_WAKE, RefereeService


def test_a_finished_service_with_a_lobby_countdown_past_does_not_spin() -> None:
    """Once ``max_games`` games have ended the lobby seats no one, so a countdown that ran
    out must not be rescheduled at once, forever (it used to hang the reactor's thread)."""
    service = RefereeService(Config(), max_games=0, clock=lambda: 100.0)
    for nick in ("a", "b", "c", "d", "e"):
        service.lobby.add(nick, 0.0)
    assert service.done and service.lobby.deadline is not None and service.lobby.deadline < 100.0
    service._after(100.0)
    runner = threading.Thread(target=service.reactor.process_timeout, daemon=True)
    runner.start()
    runner.join(2.0)
    assert not runner.is_alive(), "the scheduler kept running due commands"


def test_a_wake_up_due_now_is_scheduled_no_sooner_than_the_minimum() -> None:
    service = RefereeService(Config(), max_games=None, clock=lambda: 50.0)
    service.lobby.deadline = 10.0  # overdue, yet nobody waits: nothing can be seated
    service._after(50.0)
    (command,) = service.reactor.scheduler.queue
    assert command.delay.total_seconds() >= MIN_WAKE
