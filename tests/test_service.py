"""The referee service's own timing, without a server: it must never spin."""

from __future__ import annotations

import logging
import socket
import threading
import time

import pytest

from arena.config import Config, parse_config
from arena.games.avalon.options import AvalonOptions
from arena.referee.lobby import Lobby
from arena.referee.service import MIN_WAKE, RefereeService
from arena.store.database import Unavailable
from arena.tournament import Schedule, Settings
from arena.tournament.seater import TournamentSeater


def test_a_finished_service_with_a_lobby_countdown_past_does_not_spin() -> None:
    """Once ``max_games`` games have ended the lobby seats no one, so a countdown that ran
    out must not be rescheduled at once, forever (it used to hang the reactor's thread)."""
    service = RefereeService(Config(), max_games=0, clock=lambda: 100.0)
    for nick in ("a", "b", "c", "d", "e"):
        service.room.lobby.add(nick, 0.0)
    assert service.done and service.room.lobby.deadline is not None and service.room.lobby.deadline < 100.0
    service.room.after(100.0)
    runner = threading.Thread(target=service.reactor.process_timeout, daemon=True)
    runner.start()
    runner.join(2.0)
    assert not runner.is_alive(), "the scheduler kept running due commands"


def test_a_wake_up_due_now_is_scheduled_no_sooner_than_the_minimum() -> None:
    service = RefereeService(Config(), max_games=None, clock=lambda: 50.0)
    lobby = service.room.lobby
    assert isinstance(lobby, Lobby)
    lobby.deadline = 10.0  # overdue, yet nobody waits: nothing can be seated
    service.room.after(50.0)
    (command,) = service.reactor.scheduler.queue
    assert command.delay.total_seconds() >= MIN_WAKE


def _tournament_service(config: Config = Config(), wait_report: float = 10.0) -> RefereeService:
    settings = Settings(
        id="t1",
        game="avalon",
        games=3,
        players=5,
        bots=("alice", "bob", "carol", "dave", "eve"),
        options=AvalonOptions().to_dict(),
        transport="irc",
        keep=16,
    )
    seater = TournamentSeater(Schedule(settings, bytes(32)), AvalonOptions(), lambda gid: False)
    return RefereeService(config, max_games=3, seater=seater, wait_report=wait_report)


def test_a_tournament_names_the_bots_its_next_game_lacks() -> None:
    service = _tournament_service()
    for nick in ("alice", "carol", "eve"):
        service.room.lobby.add(nick, 0.0)
    assert service.waiting_line() == "waiting for bots: bob, dave (not registered)"
    for nick in ("bob", "dave"):
        service.room.lobby.add(nick, 0.0)
    assert service.waiting_line() is None


def test_the_wait_is_reported_periodically_once_started(caplog: pytest.LogCaptureFixture) -> None:
    """Every ``wait_report`` seconds, as long as the bots are missing, not just once."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]  # nothing listens once closed: the link just retries
    service = _tournament_service(parse_config({"server": {"port": port}}), wait_report=0.05)
    service.start()
    try:
        end = time.monotonic() + 0.5
        while time.monotonic() < end:
            service.turn(0.01)
    finally:
        service.link.close()
    reports = [r for r in caplog.records if r.getMessage().startswith("waiting for bots:")]
    assert len(reports) >= 3 and all(r.levelno == logging.WARNING for r in reports)
    assert reports[0].getMessage() == "waiting for bots: alice, bob, carol, dave, eve (not registered)"


def test_the_lobby_says_who_waits_once_until_that_changes(caplog: pytest.LogCaptureFixture) -> None:
    service = RefereeService(Config(), clock=lambda: 0.0)
    assert service.waiting_line() is None  # nobody waits: nothing to say
    service.room.lobby.add("alice", 0.0)
    service.room.lobby.add("bob", 0.0)
    service._report_waiting()
    service._report_waiting()
    service.room.lobby.add("carol", 0.0)
    service._report_waiting()
    assert [r.getMessage() for r in caplog.records] == [
        "lobby: 2 waiting (alice, bob); avalon needs 5 players",
        "lobby: 3 waiting (alice, bob, carol); avalon needs 5 players",
    ]


def test_a_tournament_game_withdrawn_before_its_start_is_seated_again_first() -> None:
    """One of its bots left after its TABLE: the game is announced again with no seats, and
    it is the next seated once its bots wait again (not skipped, not played twice)."""
    service = _tournament_service()
    names = ("alice", "bob", "carol", "dave", "eve")
    for nick in names:
        service.room.lobby.add(nick, 0.0)
    service.room.after(0.0)
    assert list(service.room._tables) == ["t1-1"]
    service.room._bot_changed("alice", False)
    said = [item[2] for item in service.link.outbox.queue if not callable(item) and item[0] == "PRIVMSG"]
    assert not service.room._tables and said[-1] == "TABLE t1-1 game=avalon channel=#arena-t1-1 seats="
    for nick in names:
        service.room.lobby.add(nick, 1.0)
    service.room.after(1.0)
    assert list(service.room._tables) == ["t1-1"]


@pytest.mark.parametrize(
    ("raised", "traceback"), [(Unavailable("connection lost"), False), (RuntimeError("a bug"), True)]
)
def test_a_scheduled_command_that_fails_tells_a_bug_by_its_traceback(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, raised: Exception, traceback: bool
) -> None:
    """The database out of reach (as after Ctrl-C cut a statement short) is a condition of
    the moment: one line in the log. Anything else is a bug and comes with its traceback."""
    service = RefereeService(Config(), clock=lambda: 0.0)

    def fails() -> str:
        raise raised

    monkeypatch.setattr(service.room, "status_line", fails)
    with caplog.at_level(logging.ERROR):
        service._status_topic()
    (record,) = caplog.records
    assert record.getMessage().startswith("updating the lobby's topic failed")
    assert (record.exc_info is not None) == traceback
