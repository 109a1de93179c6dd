"""What the narrator has yet to say, and how it catches up when it falls behind.

The narrator speaks at its own rate (``narrator.lines_per_second``); games played faster
than that, or several at once, leave it behind. Past ``limit`` lines waiting, it skips the
play of the games it has yet to tell, each replaced by one line that says how much was
skipped, but never a game's setup (its table, its deal) or its end (the winner, the roles,
the ratings): whoever reads the channel learns every game that was played and how it ended.
The results of games told by their result alone (``Focus``) fold into one line while they
wait, as many as it holds; past ``limit``, every ``Results:`` line waiting becomes one that
counts them (how many each side won) and names as many of the games as fit.

Pure: no sockets, no clock; ``NarratorService`` feeds it sentences and takes them out as
its connection can send them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ..narrate.sentence import PLAY, Say, Sentence
from .focus import RESULT, results, tally


@dataclass
class Post:
    """One sentence as it goes out: its IRC lines, each with its channel."""

    sentence: Sentence
    lines: list[tuple[str, str]] = field(default_factory=list)
    skipped: int = 0
    """For the line that replaces skipped play: how many lines it stands for."""
    width: int = 0
    """Bytes a line of it may take (for results folded into it)."""

    @property
    def results(self) -> bool:
        """Whether it is a ``Results:`` line (``Focus``), which later results may join."""
        facts = self.sentence.facts
        return bool(facts) and all(fact[0] == RESULT for fact in facts) and len(self.lines) == 1

    @property
    def droppable(self) -> bool:
        return self.sentence.gid is not None and self.sentence.stage == PLAY


def skipped_notice(gid: str, lines: int, target: str) -> Post:
    """The line that says the narration skipped ``lines`` lines of game ``gid``."""
    sentence = Say(gid).add(f"(narration is behind: {lines} line{'' if lines == 1 else 's'} of {gid} skipped)").done()
    return Post(sentence, [(target, sentence.irc())], skipped=lines)


def _tallied(posts: list[Post]) -> Post:
    """The ``Results:`` lines waiting, as one line that counts them (``tally``)."""
    target, width = posts[-1].lines[0][0], posts[-1].width
    sentence = tally([fact for post in posts for fact in post.sentence.facts], width)
    return Post(sentence, [(target, line) for line in sentence.irc_lines(width)][:1], width=width)


class Backlog:
    """Posts waiting to be sent, oldest first, never more than ``limit`` lines of play."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("the backlog limit must be at least 1")
        self.limit = limit
        self._posts: deque[Post] = deque()
        self._lines = 0

    def __len__(self) -> int:
        """Lines waiting."""
        return self._lines

    def add(self, post: Post) -> None:
        if post.results and self._fold(post):
            return
        self._posts.append(post)
        self._lines += len(post.lines)
        if self._lines > self.limit:
            self._catch_up()

    def pop(self) -> Post | None:
        if not self._posts:
            return None
        post = self._posts.popleft()
        self._lines -= len(post.lines)
        return post

    def has(self, gid: str) -> bool:
        """Whether a line of game ``gid`` still waits."""
        return any(post.sentence.gid == gid for post in self._posts)

    def _fold(self, post: Post) -> bool:
        """Join the results of ``post`` to the newest ``Results:`` line waiting for the
        same channel, if they fit in one line: games ended faster than lines go out cost
        a line per line's worth of results, not one each."""
        target = post.lines[0][0]
        waiting = next((p for p in reversed(self._posts) if p.results and p.lines[0][0] == target), None)
        if waiting is None:
            return False
        merged = results(waiting.sentence.facts + post.sentence.facts)
        lines = merged.irc_lines(post.width)
        if len(lines) != 1:
            return False
        waiting.sentence, waiting.lines = merged, [(target, lines[0])]
        return True

    def _catch_up(self) -> None:
        """Replace the play of each game waiting by one line in the place of its last line
        skipped (so it comes right before what is told next of that game)."""
        skipped: dict[str, int] = {}
        last: dict[str, int] = {}
        for i, post in enumerate(self._posts):
            if post.droppable and post.lines:
                gid = post.sentence.gid
                assert gid is not None
                skipped[gid] = skipped.get(gid, 0) + (post.skipped or len(post.lines))
                last[gid] = i
        channel = next((post.lines[0][0] for post in reversed(self._posts) if post.results), None)
        tallied = [i for i, post in enumerate(self._posts) if post.results and post.lines[0][0] == channel]
        if not skipped and len(tallied) < 2:
            return  # setups and ends alone: they all go out, however long that takes
        kept: deque[Post] = deque()
        for i, post in enumerate(self._posts):
            gid = post.sentence.gid
            if gid is not None and last.get(gid) == i:
                kept.append(skipped_notice(gid, skipped[gid], post.lines[0][0]))
            elif len(tallied) > 1 and i == tallied[-1]:
                kept.append(_tallied([self._posts[t] for t in tallied]))
            elif not (post.droppable and post.lines) and not (len(tallied) > 1 and i in tallied):
                kept.append(post)
        self._posts = kept
        self._lines = sum(len(post.lines) for post in kept)
