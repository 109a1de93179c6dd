"""Lines a broken or hostile client might send the referee, for fuzz tests and ``bench/fuzz.py``.

A referee that can be left running must answer every bad line with an ERROR and never raise:
the lines here are mutations of valid ones (over-long tokens, digits that only Unicode calls
digits, letters of other scripts, control characters, empty and repeated fields, many fields),
seeded so a failure can be replayed exactly.
"""

from __future__ import annotations

import random
from typing import Sequence

from ..protocol import PROTOCOL_VERSION

ODD_DIGITS = ("²", "³", "¹", "٣", "۴", "१", "１２", "𝟙", "߁", "⑦", "½", "Ⅻ", "〇", "0x1", "1e3", "-1", "+2", " 1")
"""Strings that look like numbers to someone: ``str.isdigit()`` is True for several, and
``int()`` refuses some of those ('²') and reads others ('٣', '１２') as ASCII digits."""
ODD_LETTERS = ("é", "ß", "Ω", "я", "名", "🙂", "\u200b", "\u00a0", "\ufeff", "İ", "ǅ", "ﬁ")
CONTROLS = ("\x00", "\x01", "\x07", "\t", "\r", "\n", "\x1b", "\x7f", "\udcff")
VERBS = ("ANSWER", "TEAM", "REGISTER", "UNREGISTER", "WHO", "START", "ERROR", "ASK", "answer", "HELLO", "")


class LineFuzzer:
    """Seeded generator of lines about the games ``gids`` with request ids near ``rids``
    and players ``nicks`` (the valid parts a mutation starts from)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def token(self) -> str:
        """One odd token: long, Unicode, control, empty-ish, or a plain word."""
        rng = self.rng
        kind = rng.randrange(7)
        if kind == 0:
            return rng.choice("a1:=_-,") * rng.choice((17, 21, 64, 200, 380, 600))
        if kind == 1:
            return rng.choice(ODD_DIGITS) * rng.randint(1, 3)
        if kind == 2:
            return "".join(rng.choice(ODD_LETTERS + ("a", "b", "1")) for _ in range(rng.randint(1, 20)))
        if kind == 3:
            return f"x{rng.choice(CONTROLS)}y"
        if kind == 4:
            return rng.choice(("", "=", ":", ",", ",,", "a=", "=b", "::x", "name=", "key="))
        if kind == 5:
            return str(rng.choice((0, 1, 2, 10**6, 2**63, 10**40)))
        return rng.choice(("alice", "bob", "none", "approve", "reject", "success", "fail", "g1", "1"))

    def valid(self, gids: Sequence[str], rids: Sequence[int], nicks: Sequence[str]) -> str:
        """A line the grammar accepts (the referee may still refuse it)."""
        rng = self.rng
        gid = rng.choice(gids) if gids else "g1"
        rid = rng.choice(rids) if rids else 1
        who = rng.choice(nicks) if nicks else "alice"
        return rng.choice((
            f"ANSWER {gid} {rid} {who}",
            f"ANSWER {gid} {rid} {rng.choice(('approve', 'reject', 'success', 'fail', 'none'))}",
            f"ANSWER {gid} {rid} {who},{rng.choice(nicks) if nicks else 'bob'}",
            f"TEAM {gid} :hello",
            f"REGISTER {PROTOCOL_VERSION} name=fz{rng.randrange(50)} owner=fuzz version=1",
            "WHO",
            "UNREGISTER",
        ))

    def line(self, gids: Sequence[str], rids: Sequence[int], nicks: Sequence[str]) -> str:
        """A valid line with zero to three mutations."""
        rng = self.rng
        tokens = self.valid(gids, rids, nicks).split(" ")
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            what = rng.randrange(8)
            at = rng.randrange(len(tokens))
            if what == 0:
                tokens[at] = self.token()
            elif what == 1:
                tokens.insert(at, self.token())
            elif what == 2 and len(tokens) > 1:
                del tokens[at]
            elif what == 3:
                tokens.extend(f"k{i}={self.token()}" for i in range(rng.choice((2, 30, 120))))
            elif what == 4:
                tokens.append(f"{rng.choice(('name', 'key', 'owner', 'version', 'more'))}={self.token()}")
            elif what == 5:
                tokens[0] = rng.choice(VERBS)
            elif what == 6:
                cut = rng.randrange(len(tokens[at]) + 1)
                tokens[at] = tokens[at][:cut] + self.token() + tokens[at][cut:]
            else:
                tokens.append(":" + self.token())
        return " ".join(tokens)
