"""protocol.md's annotated Werewolf transcripts (section 9) are real games: every line shown
is what the referee and the bots exchange when that game is played again, in that order
(the transcript leaves out turns that are all alike, marked ``(...)``).

``python -m tests.werewolf.test_docs 7`` (or ``12``) prints the whole transcript of the
7-player (or 12-player) game afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.werewolf.options import WerewolfOptions
from arena.referee.local import LocalHub
from arena.sdk import Ask, Talk, WerewolfView

from ..transcript import record

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
SEED = 21
OPTIONS = WerewolfOptions(roleCounts="werewolf:2,seer:1,witch:1")
DEEP_NICKS = [*NICKS, "heidi", "ivan", "judy", "mallory", "oscar"]
DEEP_SEED = 373
DEEP_COUNTS = (
    "werewolf:1,godfather:1,silencer:1,thief:1,serial_killer:1,jailer:1,tracker:1,watcher:1,"
    "little_girl:1,priest:1,seer:1"
)
DEEP_OPTIONS = WerewolfOptions(enabledRoles=f"villager,{DEEP_COUNTS.replace(':1', '')}", roleCounts=DEEP_COUNTS)
GAMES = {
    "### A complete 7-player game": (NICKS, OPTIONS, SEED),
    "### A 12-player game": (DEEP_NICKS, DEEP_OPTIONS, DEEP_SEED),
}
"""Each annotated game of section 9, by the heading it starts under: seats, options, seed."""
NOTE_COLUMN = 70
"""Annotations start after this column (or on a line of their own, indented)."""


class Talky(WerewolfRuleBot):
    """The rule bot, saying "nothing to report" when it has nothing to say, and asking for
    votes after a claim (so the transcript shows a speech of two lines)."""

    def speech(self, game: WerewolfView, ask: Ask) -> Talk:
        said = super().speech(game, ask)
        if not said:
            return "nothing to report"
        return "\n".join([said] if isinstance(said, str) else said) + "\nvote with me"


def werewolf_transcript(heading: str) -> list[str]:
    """Every line of the game documented under ``heading``, as ``sender → target  text``."""
    nicks, options, seed = GAMES[heading]
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(nicks):
        hub.connect(nick, Talky(seed=i))
    lines = record(hub)
    hub.play("werewolf", nicks, options, seed, gid="g1")
    return lines


def documented(heading: str) -> list[str]:
    """The transcript's lines under ``heading`` in section 9 of protocol.md, annotations removed."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 9. Werewolf") :]
    section = section[section.index(heading) :]
    block = section[section.index("```") + 3 :]
    block = block[block.index("\n") + 1 : block.index("```")]
    out = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" "):
            continue  # blank, an elision, or an annotation on its own line
        if line[NOTE_COLUMN : NOTE_COLUMN + 2] == " (":
            line = line[:NOTE_COLUMN]
        out.append(line.rstrip())
    return out


@pytest.mark.parametrize("heading", GAMES)
def test_the_documented_werewolf_transcripts_are_real_games(heading: str) -> None:
    fresh = iter(werewolf_transcript(heading))
    shown = documented(heading)
    assert len(shown) > 50
    for line in shown:  # in order, each found after the previous one
        assert any(line == f for f in fresh), f"protocol.md section 9 is out of date at {line!r}"


if __name__ == "__main__":
    import sys

    print("\n".join(werewolf_transcript(next((h for h in GAMES if f" {sys.argv[-1]}-player" in h), next(iter(GAMES))))))
