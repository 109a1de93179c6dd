"""Lines that recur are read and written once on the local path: the referee parses each
distinct answer of a round once, bots in one process format each distinct answer once and
share the message of a DM said to several of them. What a bot is told and what the
referee decides stay the same (the same seed plays the same game: test_match)."""

from __future__ import annotations

from typing import Any

import pytest

import arena.referee.referee as referee_module
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.protocol import ANSWER, Message, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot, GameView
from arena.sdk.view import Ask

from bench import protocol as bench

NICKS = [f"p{i}" for i in range(10)]


@pytest.mark.parametrize("messages", [False, True])
def test_the_referee_reads_each_distinct_answer_once(monkeypatch: pytest.MonkeyPatch, messages: bool) -> None:
    """As text, each distinct answer is parsed once; handed over with its message (the
    local hub's default), none is parsed at all."""
    read: list[str] = []

    def counting(line: str) -> Message:
        read.append(line)
        return parse(line)

    monkeypatch.setattr(referee_module, "parse", counting)  # before the referee is made
    hub = LocalHub(TimeoutConfig(), messages=messages)
    heard: list[str] = []
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Bot(seed=i))
    on_message = hub.referee.on_message

    def tap(
        sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        heard.append(text)
        on_message(sender, target, text, now, account, msg)

    hub.referee.on_message = tap  # type: ignore[method-assign]
    hub.play("avalon", NICKS, AvalonOptions(), 3)
    answers = [line for line in heard if line.startswith(ANSWER + " ")]
    parsed = [line for line in read if line.startswith(ANSWER + " ")]
    assert len(answers) > 2 * len(set(answers))  # a vote round's ten answers are two texts
    assert sorted(parsed) == (sorted(set(answers)) if not messages else [])


def test_bots_in_one_process_format_each_distinct_answer_once(monkeypatch: pytest.MonkeyPatch) -> None:
    formatted: list[str] = []
    format_line = Message.format

    def counting(msg: Message) -> str:
        line = format_line(msg)
        if msg.verb == ANSWER:
            formatted.append(line)
        return line

    monkeypatch.setattr(Message, "format", counting)
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Bot(seed=i))
    match = hub.play("avalon", NICKS, AvalonOptions(), 4)
    lines = [answer.line for answer in match.answers]
    assert len(lines) > 2 * len(set(lines))
    # (at most once: a line formatted in an earlier game of this process may be shared too)
    assert len(formatted) == len(set(formatted)) and set(formatted) <= set(lines)


class Keeper(Bot):
    """Keeps the request of every quest card it is asked for."""

    def __init__(self, seed: int, kept: list[Ask]) -> None:
        super().__init__(seed)
        self.kept = kept

    def quest(self, game: GameView[Any], ask: Ask) -> Any:
        self.kept.append(ask)
        return ask.random(self.rng)


def test_a_dm_said_to_several_bots_is_one_message() -> None:
    """The quest's ASK goes by DM to each member of the team: in one process they are
    given one parsed message, as a channel line is."""
    kept: list[Ask] = []
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Keeper(i, kept))
    hub.play("avalon", NICKS, AvalonOptions(), 5)
    by_line: dict[str, list[Ask]] = {}  # (the good and the evil are offered different cards)
    for ask in kept:
        by_line.setdefault(ask.message.format(), []).append(ask)
    shared = [asks for asks in by_line.values() if len(asks) >= 2]
    assert shared
    for asks in shared:
        assert all(ask.message is asks[0].message for ask in asks)
        assert len({id(ask.options) for ask in asks}) == len(asks)  # each bot's own options to change


def test_the_bench_splits_a_game_into_its_parts() -> None:
    """``bench/protocol.py``'s breakdown: every part of a game is measured, the grammar
    counts each distinct line once, and the bots it seats play whole games."""
    for bots, text in (("random", False), ("rules", False), ("random", True)):
        seconds, spent, matches, sent = bench.timed_split(10, 2, bots, text)
        assert len(matches) == 2 and all(m.over for m in matches)
        assert 0 < spent["referee"] and 0 < spent["bots"] and spent["referee"] + spent["bots"] < seconds
        grammar = bench.grammar(matches, sent, text)
        assert set(grammar) == {"referee", "bots", "hub"} and grammar["referee"] > 0 and grammar["bots"] > 0
        assert (grammar["hub"] > 0) == text  # handed their messages, the bots' hub parses nothing
        assert all(len(a) == len(m.answers) for a, m in zip(sent, matches))
