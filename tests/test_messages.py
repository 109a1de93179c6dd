"""Typed messages (``arena/games/*/messages.py``): every line of many seeded games of each
game type reads as its verb's message, which writes the same line back, byte for byte; and
the lines the games write are those messages."""

from __future__ import annotations

import pytest

from arena.games import LINES
from arena.games.avalon.messages import MESSAGES as AVALON
from arena.games.tuvalon.messages import MESSAGES as TUVALON
from arena.games.werewolf.messages import MESSAGES as WEREWOLF
from arena.games.wire import Team, WireMessage
from arena.core.errors import ErrorCode
from arena.protocol import Message, ProtocolError, parse

from .seeded import games, nicks

MESSAGES = {"avalon": AVALON, "tuvalon": TUVALON, "werewolf": WEREWOLF}


def _lines(name: str) -> list[Message]:
    lines = LINES[name]
    out: list[Message] = []
    for game in games(name):
        for event in game.events:
            found = lines.event_message(event, "g1", nicks(game.players))
            out += [] if found is None else [found] if isinstance(found, Message) else found
    return out


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_every_line_reads_as_its_message_and_writes_back_the_same(name: str) -> None:
    verbs = MESSAGES[name]
    seen: set[str] = set()
    for msg in _lines(name):
        line = msg.format()
        typed = verbs[msg.verb].parse(parse(line))
        assert typed.message().format() == line
        assert typed.lines() == msg.lines()
        seen.add(msg.verb)
    assert seen == set(verbs) - {Team.VERB}, "a verb the seeded games never sent"


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_the_lines_of_a_game_are_its_messages(name: str) -> None:
    lines, verbs = LINES[name], MESSAGES[name]
    for game in games(name, count=5):
        for event in game.events:
            news = getattr(lines, "event_news")(event, "g1", nicks(game.players))  # each game's own, not in Lines
            for one in [] if news is None else [news] if isinstance(news, WireMessage) else news:
                assert verbs[one.VERB] is type(one)


def test_a_relayed_team_line_and_a_keyword_field_read_both_ways() -> None:
    line = "TEAM g1 from=alice :let us take bob"
    team = Team.parse(parse(line))
    assert (team.from_, team.text) == ("alice", "let us take bob")
    assert team.message().format() == line
    move = TUVALON["MOVE"].parse(parse("MOVE g1 player=bob from=e5 to=e6"))
    assert move.message().format() == "MOVE g1 player=bob from=e5 to=e6"


def test_a_missing_field_reads_as_empty_and_a_bad_number_is_refused() -> None:
    dawn = WEREWOLF["DAWN"].parse(parse("DAWN g1 dead=bob"))
    assert (dawn.day, dawn.dead, dawn.roles) == (0, ("bob",), None)  # type: ignore[attr-defined]
    with pytest.raises(ProtocolError) as refused:
        WEREWOLF["NIGHT"].parse(parse("NIGHT g1 night=two"))
    assert refused.value.code == ErrorCode.MALFORMED and "night=" in refused.value.reason
    with pytest.raises(ProtocolError):
        WEREWOLF["NIGHT"].parse(parse("DAY g1 day=1"))
