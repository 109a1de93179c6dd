"""What a Tuvalon game's second discussion must look like on the wire: each line relayed to
exactly the players in range (worked out here from the public lines, independently of the
engine), once each, and never in the channel.

The lines the rules call for are taken from what the speakers really said (``Whisperer``
keeps them), not from the relays: a line the referee relayed to nobody although someone
stood in range is caught, as is a line relayed to the wrong players."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.protocol import parse
from arena.sdk import Talk, TurnAsk, TuvalonView


class Whisperer(TuvalonRuleBot):
    """The rule bot, saying a unique line (sometimes two) on every second-discussion turn,
    ``psst NICK GID RID I``, and keeping each in ``said``."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.said: list[str] = []

    def near_speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:
        n = len(game.state.heard)
        lines = [f"psst {game.me} {game.gid} {ask.rid} {i}" for i in range(1 + n % 2)]
        self.said.extend(lines)
        return lines


def cell(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:]) - 1


def expected_relays(
    transcript: Sequence[tuple[str | None, str]], gid: str, said: Iterable[str]
) -> tuple[Counter[tuple[str, str]], Counter[tuple[str, str]]]:
    """(the (listener, text) pairs the rules call for, the pairs relayed), from a match's
    transcript (positions from MAP and MOVE, hearing from each ROLE) and the second-discussion
    lines the players said (``Whisperer.said``, of any game: those of game ``gid`` are picked
    by the id they carry). Every line said must belong to a ``speak_near`` turn of its speaker."""
    where: dict[str, tuple[int, int]] = {}
    hearing: dict[str, int] = {}
    speaker: str | None = None
    rid = ""
    lines: dict[tuple[str, str], list[str]] = {}
    for text in said:
        _, nick, game, request, _ = text.split(" ")
        if game == gid:
            lines.setdefault((nick, request), []).append(text)
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
            speaker, rid = msg.get("to"), msg.args[1]
        elif msg.verb == "SPEECH" and msg.get("purpose") == "near":
            assert speaker is not None and msg.get("player") == speaker
            here = where[speaker]
            hearers = sorted(
                n
                for n, c in where.items()
                if n != speaker and max(abs(c[0] - here[0]), abs(c[1] - here[1])) <= hearing[n]
            )
            assert sorted(msg.list("heard_by")) == hearers
            for text in lines.pop((speaker, rid), []):
                for n in hearers:
                    expected[(n, text)] += 1
            speaker = None
        elif msg.verb == "TEAM":
            assert to is not None, "a second-discussion line reached the channel"
            assert msg.get("from") == speaker, "a relay outside the speaker's turn"
            relayed[(to, msg.text or "")] += 1
    assert not lines, f"lines said outside a second-discussion turn of their speaker: {lines}"
    return expected, relayed
