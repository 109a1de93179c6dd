"""Long speeches over a real IRC server: a bot's speech of several paragraphs reaches the
channel (and the referee's record) as several lines, words whole, paragraphs apart, within
the turn's cap; what is over the cap is cut by the SDK, so the referee refuses nothing and
no line is cut by the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.irc.servers import LocalServer
from arena.protocol import FLOOR_LINES, MAX_TEXT_BYTES, parse
from arena.sdk import Ask, GameView, Talk
from arena.sdk.speech import lines_of

from .test_games import FAST, Arena

PARAGRAPH = (
    "I have watched the votes since the first day, and the pattern is plain to anyone who cares to look: "
    "whoever defends the quiet players is protecting a wolf, and I will say who at the end of this turn. "
)


class Orator(WerewolfRuleBot):
    """A rule bot that makes long speeches: two paragraphs of some 500 bytes each, one text;
    ``rambling`` bots say fifteen paragraphs, far over a turn."""

    def __init__(self, seed: int, rambling: bool) -> None:
        super().__init__(seed)
        self.rambling = rambling
        self.said: list[tuple[str, list[str]]] = []
        """Per turn: the speaker's nick and the lines the SDK made of the speech."""

    def speech(self, game: GameView[Any], ask: Ask) -> Talk:
        talk = [PARAGRAPH] * 15 if self.rambling else f"{PARAGRAPH * 2}\n\n{PARAGRAPH * 2}"
        self.said.append((game.me, lines_of(talk)))
        return talk


def test_long_speeches_reach_the_record_in_whole_lines(irc_server: LocalServer, tmp_path: Path) -> None:
    arena = Arena(irc_server, 6, FAST, game="werewolf", store=tmp_path / "results.db")
    bots = {f"w{i}": Orator(seed=i, rambling=i % 2 == 1) for i in range(6)}
    for nick, bot in bots.items():
        arena.add_bot(nick, bot)
    with arena:
        (match,) = arena.wait(timeout=60)
    assert match.game.result is not None and match.game.result.forfeited is None
    refused = [line for _, line in match.transcript if line.startswith("ERROR")]
    assert refused == [], "the SDK sent nothing the referee had to refuse"
    turns = [(nick, lines) for bot in bots.values() for nick, lines in bot.said]
    assert any(len(lines) > FLOOR_LINES for _, lines in turns) and any(len(lines) < FLOOR_LINES for _, lines in turns)
    # Each turn's lines, cut to the cap, are in the record, in order, and nothing else is.
    recorded = [(t.nick, t.text) for t in match.talk]
    for nick, lines in turns:
        kept = [(nick, line) for line in lines[:FLOOR_LINES]]
        at = next(i for i in range(len(recorded)) if recorded[i : i + len(kept)] == kept)
        del recorded[at : at + len(kept)]
    assert recorded == []
    assert all(len(text.encode()) <= MAX_TEXT_BYTES for text in (t.text for t in match.talk))
    # The stored game keeps the speeches as said in the channel, each after its floor's ASK.
    (stored,) = arena.stored
    assert stored is not None and stored.talk == tuple(match.talk)
    assert [(t.nick, t.text) for t in stored.talk] == [(t.nick, t.text) for t in match.talk] != []
    for t in stored.talk:
        asks = [parse(line) for to, line in stored.transcript[: t.after] if to is None and line.startswith("ASK ")]
        assert asks[-1].flag("floor") and asks[-1].fields["to"] == t.nick
    assert all(a.error is None and a.latency is not None for a in stored.answers)
    short = next(lines for _, lines in turns if len(lines) < FLOOR_LINES)
    assert " ".join(short).split() == (PARAGRAPH * 4).split(), "every word, whole"
    assert len(short) == 2 * len(lines_of(PARAGRAPH * 2)), "the second paragraph starts a line"
