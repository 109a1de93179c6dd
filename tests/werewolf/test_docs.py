"""protocol.md's annotated Werewolf transcript (section 9) is a real game: every line shown
is what the referee and the bots exchange when that game is played again, in that order
(the transcript leaves out turns that are all alike, marked ``(...)``).

``python -m tests.werewolf.test_docs`` prints the whole transcript afresh."""

from __future__ import annotations

from pathlib import Path

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.werewolf.options import WerewolfOptions
from arena.referee.local import LocalHub
from arena.sdk.bot import Ask
from arena.sdk.werewolf import Talk, WerewolfView

from ..transcript import record

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
SEED = 21
OPTIONS = WerewolfOptions(roleCounts="werewolf:2,seer:1,witch:1")
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


def werewolf_transcript() -> list[str]:
    """Every line of the documented game, as ``sender → target  text``."""
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Talky(seed=i))
    lines = record(hub)
    hub.play("werewolf", NICKS, OPTIONS, SEED, gid="g1")
    return lines


def documented() -> list[str]:
    """The transcript's lines in section 9 of protocol.md, annotations removed."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 9. Werewolf"):]
    section = section[section.index("### A complete"):]
    block = section[section.index("```") + 3:]
    block = block[block.index("\n") + 1:block.index("```")]
    out = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" "):
            continue  # blank, an elision, or an annotation on its own line
        if line[NOTE_COLUMN:NOTE_COLUMN + 2] == " (":
            line = line[:NOTE_COLUMN]
        out.append(line.rstrip())
    return out


def test_the_documented_werewolf_transcript_is_a_real_game() -> None:
    fresh = iter(werewolf_transcript())
    shown = documented()
    assert len(shown) > 50
    for line in shown:  # in order, each found after the previous one
        assert any(line == f for f in fresh), f"protocol.md section 9 is out of date at {line!r}"


if __name__ == "__main__":
    print("\n".join(werewolf_transcript()))
