"""protocol.md's annotated Tuvalon transcript (section 10) is a real game: every line shown
is what the referee and the bots exchange when that game is played again, in that order
(the transcript leaves out turns that are all alike, marked ``(...)``). The refused move
shown after it is checked in ``test_wire.py``.

``python -m tests.tuvalon.test_docs`` prints the whole transcript afresh."""

from __future__ import annotations

from pathlib import Path

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import TimeoutConfig
from arena.games.tuvalon.options import TuvalonOptions
from arena.referee.local import LocalHub

from ..transcript import record

DOC = Path(__file__).resolve().parents[2] / "protocol.md"
NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
SEED = 2
NOTE_COLUMN = 70


def tuvalon_transcript() -> list[str]:
    """Every line of the documented game, as ``sender → target  text``."""
    hub = LocalHub(TimeoutConfig())
    for i, nick in enumerate(NICKS):
        hub.connect(nick, TuvalonRuleBot(seed=i))
    lines = record(hub)
    hub.play("tuvalon", NICKS, TuvalonOptions(), SEED, gid="g1")
    return lines


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index("## 10. Tuvalon") :]


def documented() -> list[str]:
    """The transcript's lines in section 10 of protocol.md, annotations removed."""
    part = section()
    part = part[part.index("### A complete") :]
    block = part[part.index("```") + 3 :]
    block = block[block.index("\n") + 1 : block.index("```")]
    out = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        if line[NOTE_COLUMN : NOTE_COLUMN + 2] == " (":
            line = line[:NOTE_COLUMN]
        out.append(line.rstrip())
    return out


def test_the_documented_tuvalon_transcript_is_a_real_game() -> None:
    fresh = iter(tuvalon_transcript())
    shown = documented()
    assert len(shown) > 50
    for line in shown:
        assert any(line == f for f in fresh), f"protocol.md section 10 is out of date at {line!r}"


if __name__ == "__main__":
    print("\n".join(tuvalon_transcript()))
