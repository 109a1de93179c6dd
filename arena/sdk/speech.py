"""Speech that survives IRC: what a bot says, cut into lines the referee accepts.

A line of speech (or of pack talk) carries at most ``MAX_TEXT_BYTES`` bytes of UTF-8 and
no control character, and a turn at the floor holds at most ``FLOOR_LINES`` lines
(protocol.md, section 9); a game may also cap what a bot says in all (a speech budget,
section 10). A bot says what it likes, one text or a list of them; the SDK makes the lines
here, so nothing the bot says is glued, cut mid-word or refused, and what does not fit is
left out with a word in the log.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, TypeAlias

from ..core.words import counted
from ..protocol import FLOOR_LINES, MAX_TEXT_BYTES
from .view import GameView

log = logging.getLogger(__name__)

Talk: TypeAlias = str | Sequence[str]
"""What a bot says: one text (its line breaks kept) or a list of texts, each starting a
new line; an empty text or list says nothing."""

_UNSAYABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
"""Characters no line may carry (protocol.md, section 2), left out of what a bot says."""


def split_text(text: str, limit: int = MAX_TEXT_BYTES) -> list[str]:
    """``text`` as lines of at most ``limit`` bytes each, in order.

    Every line break of the text starts a new line, so paragraphs stay apart; blank lines
    are dropped (IRC has no empty line). Words are kept whole and joined by one space (runs
    of spaces and tabs become one); only a word longer than a whole line is cut, between
    two characters, never inside one."""
    out: list[str] = []
    for raw in text.splitlines():
        line = ""
        size = 0
        for word in raw.split():
            if not word.isprintable():
                word = _UNSAYABLE.sub("", word)
                if not word:
                    continue
            n = len(word.encode())
            if size and size + 1 + n <= limit:
                line, size = f"{line} {word}", size + 1 + n
                continue
            if line:
                out.append(line)
            line, size = word, n
            while size > limit:  # a word that no line can hold: cut between characters
                head = line.encode()[:limit].decode(errors="ignore")
                out.append(head)
                line = line[len(head) :]
                size = len(line.encode())
        if line:
            out.append(line)
    return out


def lines_of(talk: Talk, limit: int = MAX_TEXT_BYTES) -> list[str]:
    """Every line of ``talk`` (see ``Talk``), split as ``split_text`` says."""
    if isinstance(talk, str):
        return split_text(talk, limit)
    return [line for text in talk if text for line in split_text(text, limit)]


def floor_lines(lines: list[str], speaker: str, gid: str) -> list[str]:
    """The first ``FLOOR_LINES`` of ``speaker``'s lines for a turn at the floor in game
    ``gid``: the rest is left out, and the log says so."""
    if len(lines) <= FLOOR_LINES:
        return lines
    cut = lines[FLOOR_LINES:]
    log.warning(
        "%s's speech in %s is %s, %d more than a turn holds: left out, the last %s (%r...)",
        speaker,
        gid,
        counted(len(lines), "line"),
        len(cut),
        counted(sum(len(line.encode()) for line in cut), "byte"),
        cut[0][:40],
    )
    return lines[:FLOOR_LINES]


def within_budget(game: GameView[Any], lines: list[str]) -> list[str]:
    """``lines`` up to the last one the game's speech budget still holds (``GameView.
    speech_left``; going over it forfeits a Tuvalon game): the rest is left out, and the
    log says so. The bytes are counted as the lines are said (``spoken``)."""
    left = game.speech_left()
    if left is None:
        return lines
    kept: list[str] = []
    for line in lines:
        size = len(line.encode())
        if size > left:
            break
        kept.append(line)
        left -= size
    if len(kept) < len(lines):
        log.warning(
            "speech budget of %s in %s: %d of %s left out, %s left to say",
            game.me,
            game.gid,
            len(lines) - len(kept),
            counted(len(lines), "line"),
            counted(game.speech_left() or 0, "byte"),
        )
    return kept
