"""The narrator's backlog: past its limit it skips the play of the games it has yet to tell,
says how much in their place, and keeps every game's setup and end, and their order."""

from __future__ import annotations

from arena.spectate.backlog import Backlog, Post
from arena.narrate.sentence import END, PLAY, SETUP, Say

LIVE = "#live"


def post(gid: str, text: str, stage: str = PLAY, lines: int = 1) -> Post:
    sentence = Say(gid, stage=stage).add(text).done()
    return Post(sentence, [(LIVE, f"{text} ({i})") for i in range(lines)])


def drained(backlog: Backlog) -> list[str]:
    out = []
    while (item := backlog.pop()) is not None:
        out.append(item.sentence.plain())
    assert len(backlog) == 0
    return out


def test_under_its_limit_nothing_is_skipped() -> None:
    backlog = Backlog(limit=4)
    for item in (post("g1", "table", SETUP), post("g1", "quest 1"), post("g1", "quest 2"), post("g1", "over", END)):
        backlog.add(item)
    assert len(backlog) == 4
    assert drained(backlog) == ["table", "quest 1", "quest 2", "over"]


def test_past_its_limit_the_play_of_each_game_is_skipped_and_said() -> None:
    backlog = Backlog(limit=5)
    for item in (
        post("g1", "table", SETUP),
        post("g2", "table", SETUP),
        post("g1", "quest 1", lines=2),
        post("g2", "quest 1"),
        post("g1", "quest 2"),
        post("g2", "over", END),
        post("g1", "quest 3"),
    ):
        backlog.add(item)
    assert drained(backlog) == [
        "table",
        "table",
        "(narration is behind: 1 line of g2 skipped)",
        "over",
        "(narration is behind: 4 lines of g1 skipped)",
    ]


def test_skipping_again_counts_what_was_skipped_before() -> None:
    backlog = Backlog(limit=2)
    for item in (
        post("g1", "table", SETUP),
        post("g1", "start", SETUP),
        post("g1", "quest 1"),
        post("g1", "quest 2"),
        post("g1", "quest 3"),
    ):
        backlog.add(item)
    assert drained(backlog) == ["table", "start", "(narration is behind: 3 lines of g1 skipped)"]


def test_setups_and_ends_are_never_skipped_however_many() -> None:
    backlog = Backlog(limit=1)
    items = [post(f"g{i}", stage, stage, lines=2) for i in range(5) for stage in (SETUP, END)]
    for item in items:
        backlog.add(item)
    assert len(backlog) == 20
    assert drained(backlog) == [item.sentence.plain() for item in items]


def test_the_lobby_is_never_skipped() -> None:
    backlog = Backlog(limit=1)
    lobby = Post(Say(None).add("the referee is back").done(), [(LIVE, "the referee is back")])
    backlog.add(lobby)
    backlog.add(post("g1", "quest 1"))
    assert drained(backlog) == ["the referee is back", "(narration is behind: 1 line of g1 skipped)"]


def test_has_tells_whether_a_game_still_waits() -> None:
    backlog = Backlog(limit=10)
    backlog.add(post("g1", "over", END))
    assert backlog.has("g1") and not backlog.has("g2")
    backlog.pop()
    assert not backlog.has("g1")
