"""What a Tuvalon game's second discussion must look like on the wire: each line relayed to
exactly the players in range (worked out here from the public lines, independently of the
engine), once each, and never in the channel."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.protocol import parse
from arena.sdk import Talk, TurnAsk, TuvalonView


class Whisperer(TuvalonRuleBot):
    """The rule bot, saying a unique line (sometimes two) on every second-discussion turn."""

    def near_speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:
        n = len(game.state.heard)
        said = [f"psst {game.me} {game.gid} {ask.rid} {i}" for i in range(1 + n % 2)]
        return said


def cell(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:]) - 1


def expected_relays(transcript: Sequence[tuple[str | None, str]]) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """(the (listener, text) pairs the rules call for, the pairs relayed), from a match's
    transcript: positions from MAP and MOVE, hearing from each ROLE, the speaker's lines
    from the ``near`` texts relayed to anyone or (heard by nobody) left out."""
    where: dict[str, tuple[int, int]] = {}
    hearing: dict[str, int] = {}
    speaker: str | None = None
    expected: Counter[tuple[str, str]] = Counter()
    relayed: Counter[tuple[str, str]] = Counter()
    for to, line in transcript:
        msg = parse(line)
        if msg.verb == "ROLE" and to is not None:
            hearing[to] = msg.int("hearing")
        elif msg.verb == "MAP":
            where = {n: cell(c) for n, c in msg.pairs("cells").items()}
        elif msg.verb == "MOVE":
            where[msg.get("player", "")] = cell(msg.get("to", ""))
        elif msg.verb == "ASK" and msg.args[2] == "speak_near":
            speaker = msg.get("to")
        elif msg.verb == "SPEECH" and msg.get("purpose") == "near":
            assert msg.get("player") == speaker
            here = where[speaker]
            hearers = sorted(n for n, c in where.items() if n != speaker
                             and max(abs(c[0] - here[0]), abs(c[1] - here[1])) <= hearing[n])
            assert sorted(msg.list("heard_by")) == hearers
            speaker = None
        elif msg.verb == "TEAM":
            assert to is not None, "a second-discussion line reached the channel"
            assert msg.get("from") == speaker, "a relay outside the speaker's turn"
            relayed[(to, msg.text or "")] += 1
            if (to, msg.text or "") not in expected:
                here = where[speaker]
                for n, c in where.items():
                    if n != speaker and max(abs(c[0] - here[0]), abs(c[1] - here[1])) <= hearing[n]:
                        expected[(n, msg.text or "")] += 1
    return expected, relayed
