"""How many games the narrated channel tells in full, and what it says of the others: a
game announced while ``in_full`` games are told is told by its result alone, the first such
game of a crowd comes with a line saying so, and results waiting fold into one line."""

from __future__ import annotations

import re

from arena.narrate.sentence import END, PLAY, SETUP, Say, Sentence
from arena.spectate.backlog import Backlog, Post
from arena.spectate.focus import BRIEF, RESULT, Focus, results

LIVE = "#live"


def table(gid: str) -> Sentence:
    return Say(gid, stage=SETUP).fact("table", gid, "avalon", f"#arena-{gid}").add(f"New avalon game {gid}.").done()


def play(gid: str) -> Sentence:
    return Say(gid, stage=PLAY).add(f"{gid}: quest 1 fails.").done()


def over(gid: str, winner: str = "evil") -> list[Sentence]:
    return [
        Say(gid, stage=END).fact("winner", winner).fact("reason", "three_fails").add("Game over.").done(),
        Say(gid, stage=END).fact("role", "a", "merlin").add("Roles: a (merlin).").done(),
    ]


def told(focus: Focus, *sentences: Sentence) -> list[Sentence]:
    return [said for sentence in sentences for said in focus.take(sentence)]


def test_up_to_the_limit_every_game_is_told_in_full() -> None:
    focus = Focus(2)
    story = [table("g1"), table("g2"), play("g1"), play("g2"), *over("g1"), *over("g2")]
    assert told(focus, *story) == story


def test_past_the_limit_a_game_is_told_by_its_result_and_the_channel_says_so() -> None:
    focus = Focus(2)
    lobby = Say(None).add("the lobby").done()
    said = told(focus, table("g1"), table("g2"), table("g3"), table("g4"), lobby, play("g3"), play("g1"))
    assert said[:2] == [table("g1"), table("g2")]
    assert [f for f in said[2].facts] == [(BRIEF, "g3", "2")], "one line for the crowd, at its first game"
    assert "g3" in said[2].plain() and "result" in said[2].plain()
    assert said[3:] == [lobby, play("g1")], "nothing of g3 and g4 but their results"
    ended = told(focus, *over("g4", "good"), *over("g3", "none"))
    assert [s.facts for s in ended] == [
        ((RESULT, "g4", "avalon", "good", "three_fails"),),
        ((RESULT, "g3", "avalon", "none", "three_fails"),),
    ]
    assert ended[0].plain() == "Results: g4 (avalon) good wins (three fails)."
    assert ended[1].plain() == "Results: g3 (avalon) nobody wins (three fails)."


def test_a_slot_frees_when_a_game_told_in_full_is_over() -> None:
    focus = Focus(1)
    told(focus, table("g1"), table("g2"))
    assert not focus.gone("g2") and focus.gone("g1")
    assert told(focus, table("g3")) == [table("g3")], "told in full: nobody else is"
    said = told(focus, table("g4"))
    assert [s.facts for s in said] == [((BRIEF, "g4", "1"),)], "a new crowd is said again"


def test_results_waiting_fold_into_one_line_as_many_as_it_holds() -> None:
    backlog = Backlog(limit=5)
    width = 120

    def result(gid: str) -> Post:
        sentence = results([(RESULT, gid, "avalon", "evil", "three_fails")])
        return Post(sentence, [(LIVE, line) for line in sentence.irc_lines(width)], width=width)

    for i in range(10):
        backlog.add(result(f"g{i}"))
    lines = []
    while (post := backlog.pop()) is not None:
        assert len(post.lines) == 1 and len(post.lines[0][1].encode()) <= width
        lines.append(post)
    assert 1 < len(lines) < 10, "folded, each line as full as the width allows"
    assert [f[1] for post in lines for f in post.sentence.facts] == [f"g{i}" for i in range(10)], "in order"
    assert lines[0].sentence.plain().startswith("Results: g0 (avalon) evil wins (three fails); g1 (avalon)")


def test_a_narration_behind_counts_the_results_it_has_yet_to_say_in_one_line() -> None:
    width = 100  # two results a line
    backlog = Backlog(limit=4)
    backlog.add(Post(table("g1"), [(LIVE, "New avalon game g1.")], width=width))
    for i in range(2, 12):
        sentence = results([(RESULT, f"g{i}", "avalon", "evil" if i % 3 else "good", "three_fails")])
        backlog.add(Post(sentence, [(LIVE, line) for line in sentence.irc_lines(width)], width=width))
    assert len(backlog) <= 4
    first = backlog.pop()
    assert first is not None and first.sentence == table("g1"), "a game's setup is never skipped"
    waiting = []
    while (post := backlog.pop()) is not None:
        waiting.append(post)
    facts = [f for post in waiting for f in post.sentence.facts]
    assert [f[1] for f in facts] == [f"g{i}" for i in range(2, 12)], "every result kept, in order"
    tallied = waiting[0].lines[0][1]
    assert tallied.startswith("Results of ") and "evil" in tallied and "good" in tallied
    assert all(len(line.encode()) <= width for post in waiting for _, line in post.lines)
    said = " ".join(line for post in waiting for _, line in post.lines)
    named = sum(f" {f[1]}" in said for f in facts)
    counted = sum(int(w) for w in re.findall(r"and (\d+) more", said))
    assert named + counted == 10, "each game named or counted"
