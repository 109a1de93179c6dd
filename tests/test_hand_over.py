"""The local hub hands a line's reader the message it was formatted from (the referee's
game lines to its bots, the bots' answers to the referee) instead of having the reader
parse the line again. That must change nothing: the same seeded games, played with the
hand-over and with text alone (``messages=False``, as over IRC), show every bot the same
messages, draw the same answers and refusals, and leave the same records."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import Message, ProtocolError, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot, GameView
from arena.sdk.answers import Reply
from arena.sdk.view import Ask
from bench.fuzz import LineFuzzer

ODD = ("²", "é", "nobody", "none", "approve,reject", "1e3", "x" * 30, "g9", "-1")
"""Answers no request accepts, each one token the grammar takes."""


class Clumsy(Bot):
    """Answers at random, but one request in three with something no request accepts
    (a token of ``ODD``, a player of another table, a repeated choice): the referee
    refuses it, and the SDK answers again at random."""

    def decide(self, game: GameView[Any], ask: Ask) -> Any:
        roll = self.rng.randrange(3)
        if roll == 0:
            return self.rng.choice(ODD)
        if roll == 1 and ask.options:
            return [ask.options[0]] * max(ask.pick, 2)
        return ask.random(self.rng)


def seen(msg: Message) -> tuple[Any, ...]:
    """A message as a bot could tell it apart: its parts and their types."""
    return (msg.verb, type(msg.args), msg.args, [(k, type(v), v) for k, v in msg.fields.items()], msg.text)


def watch(hub: LocalHub) -> dict[str, list[Any]]:
    """Record, per bot, every message it is given, every line it answers with and every
    channel line it hears."""
    log: dict[str, list[Any]] = {}
    for session in hub.sessions.values():
        mine = log.setdefault(session.nick, [])

        def replies(
            msg: Message,
            whole: bool = False,
            *,
            mine: list[Any] = mine,
            plain: Callable[[Message], list[Reply]] = session.replies,
        ) -> list[Reply]:
            out = plain(msg)
            mine.append((seen(msg), [line for line, _ in out]))
            return out

        def chat(
            sender: str, text: str, *, mine: list[Any] = mine, plain: Callable[[str, str], None] = session.chat
        ) -> None:
            mine.append(("chat", sender, text))
            plain(sender, text)

        session.replies = replies  # type: ignore[method-assign]
        session.chat = chat  # type: ignore[method-assign]
    return log


def play(
    messages: bool, game: str, players: int, make: Any, options: Any, seeds: range, prefix: str = "p"
) -> list[Any]:
    hub = LocalHub(TimeoutConfig(), messages=messages)
    nicks = [f"{prefix}{i}" for i in range(players)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, make(i))
    log = watch(hub)
    records = []
    for seed in seeds:
        match = hub.play(game, nicks, options, seed)
        records.append((match.transcript, match.told, match.answers, match.talk, match.game.result, match.game.history))
    return [records, log, hub.channel_log, hub.chat_log]


TABLES = [
    ("avalon", 10, Bot, AvalonOptions()),
    ("avalon", 10, RuleBot, AvalonOptions()),
    ("avalon", 7, Clumsy, AvalonOptions()),
    ("werewolf", 9, WerewolfRuleBot, WerewolfOptions()),
    ("werewolf", 8, Clumsy, WerewolfOptions()),
    ("tuvalon", 7, TuvalonRuleBot, TuvalonOptions()),
]


@pytest.mark.parametrize("game,players,cls,options", TABLES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_handing_messages_over_changes_nothing(game: str, players: int, cls: type[Bot], options: Any) -> None:
    def make(i: int) -> Bot:
        return cls(seed=i)

    fast = play(True, game, players, make, options, range(6))
    plain = play(False, game, players, make, options, range(6))
    assert fast == plain
    if cls is Clumsy:  # the refusals were there to compare
        assert any(a.error is not None for record in fast[0] for a in record[2])


def test_a_message_too_long_for_one_line_goes_in_parts_as_text() -> None:
    """A big table's lines that need continuing (``Message.lines``) go as text, in parts
    the bots join again: the same games either way."""

    def make(i: int) -> Bot:
        return WerewolfRuleBot(seed=i)

    fast = play(True, "werewolf", 18, make, WerewolfOptions(), range(2), prefix="averylongnick")
    plain = play(False, "werewolf", 18, make, WerewolfOptions(), range(2), prefix="averylongnick")
    assert fast == plain
    assert any(line.endswith(" more=true") for record in fast[0] for _, line in record[0])


def test_a_line_with_its_message_is_refused_as_the_line_alone() -> None:
    """Whatever a line that parses says, the referee answers it the same whether it
    parses the line or is given the message: the same ERROR lines, the same records."""
    fuzzer = LineFuzzer(7)
    outcomes = []
    for messages in (False, True):
        hub = LocalHub(TimeoutConfig())
        nicks = [f"p{i}" for i in range(5)]
        for i, nick in enumerate(nicks):
            hub.connect(nick, Bot(seed=i))
        sent: list[tuple[str, str]] = []
        send = hub.referee.send
        hub.referee.send = lambda target, text: (sent.append((target, text)), send(target, text))  # type: ignore
        match = hub.referee.start_game("avalon", nicks, AvalonOptions(), 3, hub.channel, 0.0, gid="g1")
        fuzzer.rng = random.Random(11)
        tried = 0
        while tried < 400:
            line = fuzzer.line(["g1", "g2"], list(range(1, 8)), nicks + ["zed"])
            try:
                msg = parse(line)
            except ProtocolError:
                continue
            tried += 1
            sender = nicks[tried % len(nicks)]
            hub.referee.on_message(sender, hub.referee.nick, line, 0.0, None, msg if messages else None)
        outcomes.append((sent, match.transcript, match.answers, match.game.history))
    assert outcomes[0] == outcomes[1]
    assert any(text.startswith("ERROR") for _, text in outcomes[0][0])
