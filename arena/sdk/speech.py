"""Speech that survives IRC: what a bot says, cut into lines the referee accepts.

A line of speech (or of pack talk) carries at most ``MAX_TEXT_BYTES`` bytes of UTF-8 and
no control character, and a turn at the floor holds at most ``FLOOR_LINES`` lines
(protocol.md, section 9). A bot says what it likes, one text or a list of them; the SDK
makes the lines here, so nothing the bot says is glued, cut mid-word or refused.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeAlias

from ..protocol import MAX_TEXT_BYTES

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
