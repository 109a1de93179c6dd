"""Fuzzed lines against a referee with games in progress: every bad line gets its ERROR,
nothing raises, and the games still finish (``bench/fuzz.py`` is the long form, over IRC)."""

from __future__ import annotations

import logging

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ANSWER, ERROR, TEAM, ProtocolError, parse
from arena.referee.local import LocalHub
from arena.referee.referee import Referee
from arena.sdk import Bot
from bench.fuzz import LineFuzzer

LINES = 12_000
STRANGERS = ("zed", "mallory", "x-1")


def answered_or_silent(verb: str | None, sender: str, seated: set[str], replies: list[str]) -> bool:
    """A direct line gets a reply, unless it is the one documented silent case: an
    accepted ANSWER or TEAM from a seated player (its effect is the game going on)."""
    return bool(replies) or (verb in (ANSWER, TEAM) and sender.lower() in seated)


@pytest.mark.parametrize(
    "game,bot,options",
    [
        ("avalon", RuleBot, AvalonOptions()),
        ("werewolf", WerewolfRuleBot, WerewolfOptions()),
    ],
)
def test_fuzzed_lines_get_errors_and_games_finish(
    game: str,
    bot: type[RuleBot] | type[WerewolfRuleBot],
    options: AvalonOptions | WerewolfOptions,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.ERROR)
    hub = LocalHub(TimeoutConfig(decision=5.0, grace=1.0), messages=False)  # every line through send
    referee = hub.referee
    sent: list[tuple[str, str]] = []
    forward = referee.send

    def record(target: str, text: str) -> None:
        sent.append((target, text))
        forward(target, text)

    referee.send = record  # before the games start: matches keep the function they are given
    nicks = [f"p{i}" for i in range(7)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, bot(seed=i))
    fuzzer = LineFuzzer(seed=11)
    rng = fuzzer.rng
    senders = [*nicks, *STRANGERS]
    seated = {nick.lower() for nick in nicks}
    finished, silent, errors = 0, [], 0
    match = referee.start_game(game, nicks, options, 0, hub.channel, hub.now)
    for n in range(LINES):
        gids = [match.gid, "g999"]
        line = fuzzer.line(gids, sorted(match.requests.open) or [1], nicks)
        sender = rng.choice(senders)
        direct = rng.random() < 0.9
        before = len(sent)
        referee.on_message(sender, referee.nick if direct else hub.channel, line, hub.now)
        replies = [text for target, text in sent[before:] if target.lower() == sender.lower()]
        errors += sum(text.startswith(ERROR) for text in replies)
        if direct:
            try:
                verb: str | None = parse(line).verb
            except ProtocolError:
                verb = None
            if not answered_or_silent(verb, sender, seated, replies):
                silent.append((sender, line))
        if n % 4 == 0:
            hub.run()
            if rng.random() < 0.2 and (deadline := referee.next_deadline()) is not None:
                hub.now = max(hub.now, deadline)
                referee.poll(hub.now)
        if match.over:
            finished += 1
            hub.run()
            for nick in nicks:  # a fuzzed UNREGISTER or REGISTER may have taken a bot's seat away
                hub.referee.on_message(nick, referee.nick, f"REGISTER 1 name={nick}", hub.now)
            match = referee.start_game(game, nicks, options, finished, hub.channel, hub.now)
    while not match.over:  # the last game too ends, however the fuzz left it
        hub.run()
        if not match.over:
            hub.now = max(hub.now, referee.next_deadline() or hub.now)
            referee.poll(hub.now)
    assert [r.getMessage() for r in caplog.records] == []
    assert silent == []
    assert finished >= 3
    assert errors > LINES // 2


def seated_referee() -> tuple[Referee, list[tuple[str, str]]]:
    """A referee running an Avalon game g1 of five registered players, p0 to p4, and the
    lines it sends from then on."""
    out: list[tuple[str, str]] = []
    hub = LocalHub(TimeoutConfig())
    referee = hub.referee
    referee.send = lambda target, text: out.append((target, text))
    nicks = [f"p{i}" for i in range(5)]
    for nick in nicks:
        referee.on_message(nick, referee.nick, "REGISTER 1", 0.0)
    referee.start_game("avalon", nicks, AvalonOptions(), 0, hub.channel, 0.0, gid="g1")
    out.clear()
    return referee, out


@pytest.mark.parametrize(
    "line,reply",
    [
        ("ANSWER g1 ² p1", "ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not '²'"),
        ("ANSWER g1 ٣ p1", "ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not '٣'"),
        ("ANSWER g1 １２ p1", "ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not '１２'"),
        (
            "ANSWER g1 " + "1" * 300 + " p1",
            f"ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not '{'1' * 20}...'",
        ),
        ("ANSWER g1 1234567890 p1", "ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not '1234567890'"),
        ("ANSWER g1 1234567890", "ERROR MALFORMED g1 :ANSWER takes 3 argument(s) before its fields, got 2"),
        ("ANSWER g1 r1 p1", "ERROR MALFORMED g1 :a request id is 1-9 ASCII digits, not 'r1'"),
        (
            "ANSWER " + "g" * 300 + " 1 p1",
            f"ERROR MALFORMED :a game id is 1-20 ASCII letters, digits, - or _, not '{'g' * 20}...'",
        ),
        ("TEAM g1² :hi", "ERROR MALFORMED :a game id is 1-20 ASCII letters, digits, - or _, not 'g1²'"),
        (
            "REGISTER 1 name=" + "a" * 380,
            f"ERROR NAME_INVALID :name={'a' * 20}... is not a bot name: a bot's name is 1-16 "
            "letters, digits or -[]\\^_`{|}, not starting with a digit or -, and not a reserved word",
        ),
        ("REGISTER 1 owner=" + "o" * 65, "ERROR MALFORMED :owner= is at most 64 characters"),
    ],
)
def test_odd_ids_and_names_get_a_clear_error(line: str, reply: str) -> None:
    """The issue's cases, from a seated player: each was an exception inside the referee,
    or no answer at all."""
    referee, out = seated_referee()
    referee.on_message("p0", referee.nick, line, 0.0)
    assert out == [("p0", reply)]


@pytest.mark.parametrize(
    "line,reply",
    [
        (
            "ANSWER g1 x1 approve",
            "ERROR NOT_REGISTERED g1 :register first: REGISTER 1 name=NAME (protocol.md section 3)",
        ),
        (
            "ANSWER g1 1234567890 approve",
            "ERROR NOT_REGISTERED g1 :register first: REGISTER 1 name=NAME (protocol.md section 3)",
        ),
        ("ANSWER g1² 1 approve", "ERROR MALFORMED :a game id is 1-20 ASCII letters, digits, - or _, not 'g1²'"),
        ("ANSWER g1 1", "ERROR MALFORMED g1 1 :ANSWER takes 3 argument(s) before its fields, got 2"),
    ],
)
def test_a_stranger_learns_of_the_grammar_and_the_game_id_first_and_of_the_request_id_after_registering(
    line: str, reply: str
) -> None:
    """protocol.md, section 6: the grammar and the game id's form are checked before anything
    else; the request id's form in its place, after registration."""
    referee, out = seated_referee()
    referee.on_message("stranger", referee.nick, line, 0.0)
    assert out == [("stranger", reply)]


def test_a_long_request_id_for_an_ended_game_gets_game_over() -> None:
    """Found by the long fuzz run over IRC: the ended-games path echoed the request id
    whole, and an ERROR with a 190-character id cannot fit in a line."""
    out: list[tuple[str, str]] = []
    hub = LocalHub(TimeoutConfig())
    referee = hub.referee
    nicks = [f"p{i}" for i in range(5)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    hub.play("avalon", nicks, AvalonOptions(), 0, gid="g1")
    referee.send = lambda target, text: out.append((target, text))
    referee.on_message("p0", referee.nick, "ANSWER g1 " + "-" * 190 + " approve", 0.0)
    referee.on_message("p0", referee.nick, "ANSWER g1 3" + ":" * 190 + " approve", 0.0)
    referee.on_message("p0", referee.nick, "ANSWER g1 1234567890 approve", 0.0)  # 10 digits: not an id either
    assert out == [("p0", "ERROR GAME_OVER g1 :game g1 is over")] * 3
