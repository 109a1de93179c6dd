"""Speech that survives IRC: whatever a bot says is cut by the SDK into lines the referee
accepts (at most 300 bytes each, words whole, paragraphs apart), at most a turn's worth,
and what does not fit is left out with a warning in the bot's log, never cut by the
server."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.config import TimeoutConfig
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import FLOOR_LINES, MAX_TEXT_BYTES, text_fault
from arena.referee.local import LocalHub
from arena.sdk import Ask, Bot, GameView, Talk, WerewolfBot, WerewolfState, split_text
from arena.sdk.speech import lines_of

from .werewolf.helpers import werewolf

PARAGRAPH = (
    "The seer spoke first and named nobody, which is odd for a seer who has had two nights to look; "
    "either she found only villagers or she is not the seer at all. "
)
SPEECH = f"{PARAGRAPH * 3}\n\n{PARAGRAPH * 2}"
"""Two paragraphs, some 800 characters: one IRC line would glue them and cut the rest mid-word."""

text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=2000)


def words(text: str) -> list[str]:
    return text.split()


def test_a_long_speech_is_split_at_words_and_paragraphs() -> None:
    assert len(SPEECH.encode()) > 2 * MAX_TEXT_BYTES
    lines = split_text(SPEECH)
    assert all(len(line.encode()) <= MAX_TEXT_BYTES for line in lines)
    assert " ".join(lines).split() == SPEECH.split(), "every word, whole, in order"
    first = split_text(PARAGRAPH * 3)
    assert lines[: len(first)] == first and lines[len(first)] == split_text(PARAGRAPH * 2)[0], (
        "the second paragraph starts a line of its own"
    )
    assert all(len(line.encode()) > MAX_TEXT_BYTES - 20 for line in first[:-1]), "lines are filled"


@pytest.mark.parametrize(
    "text,lines",
    [
        ("", []),
        ("   \n\n\t ", []),
        ("one line", ["one line"]),
        ("a\nb\r\nc", ["a", "b", "c"]),
        ("tabs\tand   runs of  spaces", ["tabs and runs of spaces"]),
        ("colour \x0304red\x03 and \x02bold\x02", ["colour 04red and bold"]),
        ("first paragraph\n\n\nsecond", ["first paragraph", "second"]),
    ],
)
def test_split_text_examples(text: str, lines: list[str]) -> None:
    assert split_text(text) == lines


def test_a_word_longer_than_a_line_is_cut_between_characters() -> None:
    word = "é" * 200  # 400 bytes: no line holds it
    assert split_text(f"a {word} b") == ["a", "é" * 150, "é" * 50 + " b"]
    emoji = "🐺" * 100  # 4 bytes each: 75 to a line
    assert [len(line) for line in split_text(emoji)] == [75, 25]


@settings(max_examples=300, deadline=None)
@given(text, st.integers(min_value=4, max_value=400))
def test_every_line_fits_and_nothing_is_lost(text: str, limit: int) -> None:
    lines = split_text(text, limit)
    for line in lines:
        assert 0 < len(line.encode()) <= limit
        assert text_fault(line) is None and line == line.strip() and "  " not in line
    clean = [w for w in (text_word.translate(DROP) for text_word in words(text)) if w]
    joined = "".join("".join(line.split()) for line in lines)
    assert joined == "".join(clean), "the same characters in the same order"
    for word in clean:
        if len(word.encode()) <= limit:
            assert any(word in line.split() for line in lines), f"{word!r} was split"


DROP = {c: None for c in [*range(0x20), 0x7F]}


@given(st.lists(text, max_size=5))
def test_a_list_of_texts_starts_a_line_at_each(texts: list[str]) -> None:
    assert lines_of(texts) == [line for t in texts for line in split_text(t)]


class Orator(Bot):
    """Says ``talk`` at every turn at the floor."""

    def __init__(self, seed: int, talk: Talk) -> None:
        super().__init__(seed)
        self.talk = talk

    def speech(self, game: GameView[Any], ask: Ask) -> Talk:
        return self.talk


def werewolf_game(talk: Talk) -> tuple[list[tuple[str, str]], list[str]]:
    """One game where alice says ``talk`` at her turns: the referee's record of the
    speeches, and what the referee refused."""
    hub = LocalHub(TimeoutConfig())
    nicks = ["alice", "bob", "carol", "dave", "erin", "frank"]
    for i, nick in enumerate(nicks):
        hub.connect(nick, Orator(i, talk) if nick == "alice" else Bot(i))
    match = hub.play("werewolf", nicks, WerewolfOptions(roleCounts="werewolf:1,seer:1"), 3)
    refused = [line for _, line in match.transcript if line.startswith("ERROR")]
    return [(t.nick, t.text) for t in match.talk if t.nick == "alice"], refused


def test_a_long_speech_reaches_the_record_whole_in_lines() -> None:
    chat, refused = werewolf_game(SPEECH)
    assert refused == []
    lines = split_text(SPEECH)
    assert chat and len(chat) % len(lines) == 0
    assert [t for _, t in chat[: len(lines)]] == lines


def test_a_speech_over_the_turn_is_cut_by_the_sdk_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    talk = [f"point {i}: {PARAGRAPH}" for i in range(FLOOR_LINES + 3)]  # 13 paragraphs, a line each
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        chat, refused = werewolf_game(talk)
    assert refused == [], "nothing reached the referee that it had to refuse"
    turns = [chat[i : i + FLOOR_LINES] for i in range(0, len(chat), FLOOR_LINES)]
    assert turns and all(len(turn) == FLOOR_LINES for turn in turns)
    assert [t for _, t in turns[0]] == lines_of(talk)[:FLOOR_LINES]
    cut = [r for r in caplog.records if "more than a turn holds" in r.getMessage()]
    assert len(cut) == len(turns), "each cut speech is logged"
    assert "is 13 lines, 3 more than a turn holds" in cut[0].getMessage()


class Wolf(WerewolfBot):
    def team_talk(self, game: GameView[Any], ask: Ask) -> Talk:
        state = game.state
        pack = [w for w in state.wolves if w != game.me and state.is_alive(w)]
        return PARAGRAPH * 4 if ask.kind == "wolf_vote" and pack else []

    def on_end(self, game: GameView[Any], msg: object) -> None:
        self.state = game.state


def test_long_pack_talk_goes_out_in_several_team_lines() -> None:
    hub = LocalHub(TimeoutConfig())
    nicks = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
    bots = {nick: Wolf(i) for i, nick in enumerate(nicks)}
    for nick, bot in bots.items():
        hub.connect(nick, bot)
    match = hub.play("werewolf", nicks, WerewolfOptions(roleCounts="werewolf:2,seer:1"), 1)
    assert not [line for _, line in match.transcript if line.startswith("ERROR")]
    relayed = [line for _, line in match.transcript if line.startswith("TEAM")]
    assert relayed and all(len(line.split(" :", 1)[1].encode()) <= MAX_TEXT_BYTES for line in relayed)
    wolves = [n for n, r in zip(match.names, werewolf(match.game).roles) if r == "werewolf"]
    state = bots[wolves[0]].state
    assert isinstance(state, WerewolfState)
    first_night = [line.text for line in state.team_talk if line.night == 1]
    assert " ".join(first_night).split() == (PARAGRAPH * 8).split(), "both wolves' talk, ours included"
