"""A match's clocks through a pause: a stretch of secret requests (a Werewolf night) whose
opening lines were held by the pause starts its clock when they finally go out."""

from __future__ import annotations

from collections.abc import Callable

from arena.config import TimeoutConfig
from arena.referee.deadlines import Deadlines


def test_a_night_paused_before_its_lines_went_out_starts_when_they_do() -> None:
    waiting: list[Callable[[float], None]] = []
    deadlines = Deadlines(TimeoutConfig(secret_minimum=5.0), 8, after_sent=waiting.append)
    deadlines.begin_stretch(10.0)
    deadlines.pace(10.0, paced=False)
    assert deadlines.stretch_unsent and deadlines.held(10.0)
    deadlines.pause(stored=0, now=11.0)  # the store refused the step: its lines wait
    deadlines.resume(40.0)  # 29 s later they can go
    (sent,) = waiting
    sent(40.5)
    assert not deadlines.stretch_unsent and deadlines.secret_since == 40.5
    assert deadlines.held(45.0) and not deadlines.held(45.6), "held for its minimum from when it went out"


def test_word_of_an_earlier_nights_lines_changes_nothing() -> None:
    waiting: list[Callable[[float], None]] = []
    deadlines = Deadlines(TimeoutConfig(secret_minimum=5.0), 8, after_sent=waiting.append)
    deadlines.begin_stretch(10.0)
    deadlines.pace(10.0, paced=False)
    deadlines.stop_stretch()  # an operator stopped the game
    deadlines.begin_stretch(20.0)
    deadlines.pace(20.0, paced=False)
    first, second = waiting
    first(21.0)
    assert deadlines.stretch_unsent and deadlines.secret_since == 20.0
    second(22.0)
    assert not deadlines.stretch_unsent and deadlines.secret_since == 22.0
