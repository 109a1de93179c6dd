"""Which games the narrated channel tells in full, and what it says of the others.

One channel can carry a few games' stories at a pace people read; it cannot carry three
hundred. So the narration tells at most ``limit`` games in full at once (those announced
first), and a game announced while that many are being told is told by its result alone:
no table, no play, one ``g9 (avalon) evil wins (three fails)`` when it ends, folded with the
other results waiting into one ``Results:`` line (``Backlog``). The first game told so, each
time the channel fills up, comes with a line that says it, so whoever reads the channel
knows why a game goes untold. A slot frees when a game told in full is over (its channel
left); a game keeps the way it was told to its end (a resumed one too).

Pure: sentences in, sentences out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..narrate.sentence import END, Fact, Say, Sentence

RESULT = "result"
"""The fact of a game told by its result alone: ``(RESULT, gid, game, winner, reason)``."""
BRIEF = "brief"
"""The fact of the line that says games are told by their results: ``(BRIEF, gid, limit)``."""


def results(facts: Sequence[Fact]) -> Sentence:
    """One line of results: ``Results: g9 (avalon) evil wins (three fails); g12 ...``."""
    say = Say(None, stage=END).add("Results: ")
    for i, (_, gid, game, winner, reason) in enumerate(facts):
        say.add("; " if i else "", f"{gid} ({game}) ")
        say.add("nobody wins" if winner == "none" else f"{winner} wins")
        say.add(f" ({reason.replace('_', ' ')})" if reason else "")
        say.fact(RESULT, gid, game, winner, reason)
    return say.add(".").done()


def tally(facts: Sequence[Fact], width: int) -> Sentence:
    """The results of many games in one line of at most ``width`` bytes, for a narration
    behind: how many each side won, then the games' ids, as many as fit
    (``Results of 40 games (narration behind): evil 22, good 18: g9 g12 ... and 3 more.``)."""
    wins: dict[str, int] = {}
    for fact in facts:
        wins[fact[3]] = wins.get(fact[3], 0) + 1
    counts = ", ".join(f"{'nobody' if winner == 'none' else winner} {n}" for winner, n in sorted(wins.items()))
    head = f"Results of {len(facts)} games (narration behind): {counts}:"
    named = 0
    text = head
    for i, fact in enumerate(facts):
        more = f" and {len(facts) - i - 1} more." if i < len(facts) - 1 else "."
        if len((text + f" {fact[1]}" + more).encode()) > width:
            break
        text += f" {fact[1]}"
        named += 1
    rest = len(facts) - named
    text += f" and {rest} more." if rest else "."
    say = Say(None, stage=END).add(text)
    for fact in facts:
        say.fact(*fact)
    return say.done()


class Focus:
    """The games told in full (at most ``limit`` at once) and those told by their result."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("at least one game is told in full")
        self.limit = limit
        self.full: set[str] = set()
        self.brief: dict[str, str] = {}
        """Games told by their result alone, and the game each is (``avalon``)."""

    def take(self, sentence: Sentence) -> list[Sentence]:
        """What the channel says for ``sentence``: itself (the lobby's, a game told in
        full), nothing (the rest of a game told by its result), or the result."""
        gid = sentence.gid
        if gid is None:
            return [sentence]
        said: list[Sentence] = []
        if gid not in self.full and gid not in self.brief:
            game = next((f[2] for f in sentence.facts if f[0] in ("table", "resume")), "game")
            if len(self.full) < self.limit:
                self.full.add(gid)
            else:
                if not self.brief:
                    said.append(self._notice(gid))
                self.brief[gid] = game
        if gid in self.full:
            return [*said, sentence]
        ending = dict((f[0], f[1]) for f in sentence.facts if f[0] in ("winner", "reason"))
        if "winner" in ending:
            said.append(results([(RESULT, gid, self.brief[gid], ending["winner"], ending.get("reason", ""))]))
        return said

    def gone(self, gid: str) -> bool:
        """Game ``gid`` is over and told (its channel left): whether it was told in full."""
        self.brief.pop(gid, None)
        if gid in self.full:
            self.full.discard(gid)
            return True
        return False

    def _notice(self, gid: str) -> Sentence:
        games = f"{self.limit} game{' is' if self.limit == 1 else 's are'}"
        say = Say(None).fact(BRIEF, gid, str(self.limit)).add(f"({games} told in full already: {gid}, and every game")
        return say.add(" that starts before one of them ends, is told by its result alone.)").done()
