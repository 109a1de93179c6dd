"""Bundled lines (protocol.md, section 2): in a game of protocol-2 bots, the channel lines
that go out together share one line. A spectator must learn nothing from how they are
grouped that the messages do not say: which line ends a bundle is told by the channel's
own messages, never by the private lines sent between them (who was asked a quest card,
which options a player was offered, whose deadline passed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, BUNDLE, MAX_LINE_BYTES, Message, parse, unbundle
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.output import MatchOutput
from arena.referee.record import Record
from arena.referee.seats import Seats
from arena.sdk import Ask, Bot, GameView

from .test_hand_over import Clumsy

NICKS = [f"p{i}" for i in range(10)]
ENDS = frozenset({ASK, "START", "END", "FORCED"})
"""Messages after which the referee always ends a bundle: a request (its deadline runs from
when it goes out), the start (the ROLE lines follow), the end, and a team that goes on a
quest without a vote (its private quest cards follow)."""


class Stopwatch:
    """A clock that moves only when a bot thinks."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowCards(Clumsy):
    """Clumsy, and so slow over some quest cards that their deadline passes: the referee
    plays the card for it and says so by DM alone."""

    def __init__(self, watch: Stopwatch, seed: int) -> None:
        super().__init__(seed)
        self.watch = watch

    def decide(self, game: GameView[Any], ask: Ask) -> Any:
        if ask.kind == "quest" and self.rng.randrange(2):
            self.watch.now += 5.0
        return super().decide(game, ask)


def public_bundles(messages: Sequence[str]) -> list[list[str]]:
    """How the channel's messages are grouped, worked out from them alone, as anyone in the
    channel could: a bundle ends after a message of ``ENDS``, after an approving ``VOTES``
    (the team's private quest cards follow) and before a message that would make it longer
    than a line."""
    bundles: list[list[str]] = []
    current: list[str] = []
    for line in messages:
        if current and len(BUNDLE.join((*current, line)).encode()) > MAX_LINE_BYTES:
            bundles.append(current)
            current = []
        current.append(line)
        msg = parse(line)
        if msg.verb in ENDS or msg.verb == "VOTES" and msg.get("result") == "approved":
            bundles.append(current)
            current = []
    if current:
        bundles.append(current)
    return bundles


def bundling_hub(timeouts: TimeoutConfig = TimeoutConfig(), clock: Any = None) -> tuple[LocalHub, list[str]]:
    """A hub whose referee bundles, as over IRC, and the lines it says in the channel."""
    hub = LocalHub(timeouts, messages=False, clock=clock)
    hub.referee.bundles = True
    said: list[str] = []
    send = hub.referee.send

    def tap(target: str, text: str) -> None:
        if target == hub.channel:
            said.append(text)
        send(target, text)

    hub.referee.send = tap
    return hub, said


def channel_messages(match: Match) -> list[str]:
    return [line for to, line in match.transcript if to is None]


def check(match: Match, said: list[str]) -> None:
    """The game's channel lines carry its record's channel messages exactly, grouped as
    the messages alone tell, each line within the limit."""
    result = match.game.result
    assert result is not None and result.forfeited is None
    messages = channel_messages(match)
    assert [m for line in said for m in unbundle(line)] == messages
    assert [unbundle(line) for line in said] == public_bundles(messages)
    assert all(len(line.encode()) <= MAX_LINE_BYTES for line in said)
    assert len(said) < len(messages)


@pytest.mark.parametrize("seed", range(12))
def test_avalon_bundles_are_told_by_the_channel_alone(seed: int) -> None:
    """Rule bots and clumsy ones (refused answers: their ERROR lines go between), and one
    whose quest cards are sometimes late (a private TIMEOUT): the teams differ, so do the
    quest requests' variants (one DM line or two), and none of it shows in the grouping."""
    watch = Stopwatch()
    timeouts = TimeoutConfig(decision=2.0, grace=1.0, escalation=("default",))
    hub, said = bundling_hub(timeouts, clock=watch)
    bots: list[Bot] = [SlowCards(watch, seed), Clumsy(seed + 1)] + [RuleBot(seed=seed * 10 + i) for i in range(8)]
    for nick, bot in zip(NICKS, bots):
        hub.connect(nick, bot)
    match = hub.play("avalon", NICKS, AvalonOptions(percival=True, morgana=True, lancelot=2), seed)
    check(match, said)


def test_an_approved_team_ends_its_line_whoever_is_on_it() -> None:
    """The attack the grouping could allow: an all-good team is asked its cards in one
    private line, a mixed one in two. The channel line that approves either ends with the
    VOTES, and the QUEST after it goes with the next request, all the same."""
    shapes: dict[bool, set[tuple[str, ...]]] = {True: set(), False: set()}
    for seed in range(12):
        hub, said = bundling_hub()
        for i, nick in enumerate(NICKS):
            hub.connect(nick, RuleBot(seed=seed * 10 + i))
        match = hub.play("avalon", NICKS, AvalonOptions(), seed)
        check(match, said)
        variants: dict[str, set[str | None]] = {}
        for to, line in match.transcript:
            if to is not None and line.startswith(ASK) and parse(line).args[2] == "quest":
                variants.setdefault(parse(line).args[1], set()).add(parse(line).get("options"))
        approved = [i for i, line in enumerate(said) if "result=approved" in line]
        for i, rid in zip(approved, variants):
            verbs = tuple(parse(m).verb for m in unbundle(said[i]))
            shapes[len(variants[rid]) == 1].add(verbs)
            assert verbs[-1] == "VOTES"
    assert shapes[True] and shapes[False] and shapes[True] == shapes[False] == {("VOTES",)}


def test_a_continued_message_goes_alone_and_in_its_place() -> None:
    """A message too long for a line (a big table's lists) is never bundled: the bundle
    before it goes first, then its parts, back to back; a private line ends a bundle too."""
    said: list[tuple[str | None, str]] = []
    output = MatchOutput(say=lambda line: said.append((None, line)), tell=lambda nick, line: said.append((nick, line)))
    record = Record("g1", Seats(["a", "b"]), output, bundles=True)
    long = Message.make("VOTES", "g1", approve=[f"n{i:02d}" for i in range(150)], result="approved")
    record.send(None, Message.make("QUEST", "g1", quest=1))
    record.send(None, long)
    record.send(None, Message.make("QUEST", "g1", quest=2))
    record.send("a", Message.make("ROLE", "g1", role="merlin"))
    record.send(None, Message.make("QUEST", "g1", quest=3))
    record.flush()
    parts = long.lines()
    assert len(parts) > 1
    assert said == [
        (None, "QUEST g1 quest=1"),
        *((None, part) for part in parts),
        (None, "QUEST g1 quest=2"),
        ("a", "ROLE g1 role=merlin"),
        (None, "QUEST g1 quest=3"),
    ]
    assert [line for _, line in record.transcript] == [line for _, line in said]


@pytest.mark.parametrize("seed", range(6))
def test_tuvalon_closing_lines_go_with_the_next_request(seed: int) -> None:
    hub, said = bundling_hub()
    names = NICKS[:7]
    for i, nick in enumerate(names):
        hub.connect(nick, TuvalonRuleBot(seed=seed * 7 + i))
    match = hub.play("tuvalon", names, TuvalonOptions(), seed)
    check(match, said)
    kinds = [tuple(parse(m).verb for m in unbundle(line)) for line in said]
    assert ("MOVE", ASK) in kinds and ("SPEECH", ASK) in kinds
    assert len(said) < 0.6 * len(channel_messages(match))


def test_werewolf_never_bundles() -> None:
    """A night action's DM between two channel lines would part them: a game that asks in
    secret sends one message a line, whatever its bots speak."""
    hub, said = bundling_hub()
    names = NICKS[:8]
    for i, nick in enumerate(names):
        hub.connect(nick, Bot(seed=i))
    match = hub.play("werewolf", names, WerewolfOptions(), 1)
    assert match.game.result is not None
    assert said == channel_messages(match)


def test_a_protocol_1_bot_gets_one_message_a_line() -> None:
    hub, said = bundling_hub()
    for i, nick in enumerate(NICKS):
        hub.connect(nick, RuleBot(seed=i))
    hub.referee.on_message("p3", hub.referee.nick, "REGISTER 1 name=p3 owner=arena version=1", hub.now)
    hub.run()
    match = hub.play("avalon", NICKS, AvalonOptions(), 1)
    assert match.game.result is not None
    assert said == channel_messages(match)


def test_a_bot_that_comes_back_speaking_protocol_1_gets_one_message_a_line_from_then_on() -> None:
    hub, said = bundling_hub()
    back: list[int] = []

    class Older(RuleBot):
        """Comes back, at its third vote, as a bot that reads no bundles."""

        votes = 0

        def decide(self, game: GameView[Any], ask: Ask) -> Any:
            if ask.kind == "vote":
                self.votes += 1
                if self.votes == 3:
                    hub.referee.on_message("p3", hub.referee.nick, "REGISTER 1 name=p3 owner=arena version=1", hub.now)
                    back.append(len(said))
            return super().decide(game, ask)

    for i, nick in enumerate(NICKS):
        hub.connect(nick, (Older if nick == "p3" else RuleBot)(seed=i))
    match = hub.play("avalon", NICKS, AvalonOptions(), 1)
    assert match.game.result is not None and back
    assert any(len(unbundle(line)) > 1 for line in said[: back[0]]), "it bundled before"
    assert all(len(unbundle(line)) == 1 for line in said[back[0] :])
    assert [m for line in said for m in unbundle(line)] == channel_messages(match)
