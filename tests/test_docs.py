"""protocol.md's annotated Avalon transcript is a real game: every line of it is what the
referee and the bots exchange when that game is played again through the referee's code.

``python -m tests.test_docs`` prints the transcript afresh (to annotate after a change)."""

from __future__ import annotations

import re
from pathlib import Path

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.referee.local import LocalHub
from arena.referee.recorder import Recorder
from arena.sdk import Bot
from arena.store import Store

from .transcript import record

DOC = Path(__file__).resolve().parents[1] / "protocol.md"
NICKS = ["alice", "bob", "carol", "dave", "erin"]
SEED = 77
OPTIONS = AvalonOptions(percival=True, morgana=True)


def bot_for(seat: int) -> Bot:
    """alice, carol and erin play by rules; bob and dave at random."""
    seed = SEED * 10 + seat
    return RuleBot(seed=seed) if seat % 2 == 0 else Bot(seed=seed)


def avalon_transcript(store_path: Path) -> list[str]:
    """Every line of one 5-player game (random bots), as ``sender → target  text``."""
    hub = LocalHub(TimeoutConfig())
    lines = record(hub)
    with Store(store_path) as store:
        Recorder(store).attach(hub.referee)
        for i, nick in enumerate(NICKS):
            hub.connect(nick, bot_for(i))
        hub.play("avalon", NICKS, OPTIONS, SEED)
    return lines


def documented() -> list[str]:
    """The transcript's lines in section 8 of protocol.md, annotations removed."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## 8.") :]
    block = section[section.index("```") + 3 :]
    block = block[block.index("\n") + 1 : block.index("```")]
    out = []
    for line in block.splitlines():
        if not line.strip() or line.startswith(" "):
            continue  # blank, or an annotation continued on its own line
        found = re.match(r"(\S+)\s+→\s+(\S+)\s+(.*)", line)
        assert found is not None, line
        sender, target, rest = found.groups()
        content = re.split(r"\s{2,}", rest)[0]
        out.append(f"{sender:<5} → {target:<7} {content}")
    return out


def test_the_documented_transcript_is_a_real_game(tmp_path: Path) -> None:
    fresh = avalon_transcript(tmp_path / "doc.db")
    assert documented() == fresh, "protocol.md section 8 is out of date: run python -m tests.test_docs"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        print("\n".join(avalon_transcript(Path(scratch) / "doc.db")))
