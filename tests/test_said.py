"""What the players said is kept: their talk in the game's channel and their answer lines,
with their times and places among the referee's lines, in the store (through a schema
migration), in replays and, for the SDK's fallback markers, in ``arena stats``."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.cli import main
from arena.config import TimeoutConfig
from arena.core.said import Answer, Talk
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, TIMEOUT, parse
from arena.referee.local import LocalHub
from arena.referee.floor import CHAT_KEPT
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.sdk import Ask, Bot, GameView
from arena.store import MIGRATIONS, Store, StoredGame
from arena.store.report import stats_lines

from .store.helpers import avalon_record, old_copy

TIMEOUTS = TimeoutConfig(decision=30.0, grace=5.0)
THINKING = 2.5
"""Seconds the slow bot's every decision takes on the test's clock."""


class Talker(WerewolfRuleBot):
    """Says two lines at each turn at the floor."""

    def speech(self, game: GameView[Any], ask: Ask) -> list[str]:
        return [f"{game.me} speaks at {ask.rid}", "and says more"]


class Buggy(Bot):
    """Every decision raises: the SDK answers at random, marked ``fallback=error``."""

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        raise RuntimeError("a bug in the bot")


class Nonsense(Bot):
    def vote(self, game: GameView[Any], ask: Ask) -> str:
        return "maybe"  # refused; the SDK then answers at random


class Ticks:
    """A clock that moves only when a bot thinks (``Slow``)."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


class Slow(Bot):
    def __init__(self, seed: int, ticks: Ticks) -> None:
        super().__init__(seed)
        self.ticks = ticks

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.ticks.t += THINKING
        return super().decide(game, ask)


WOLVES = ["talk1", "talk2", "talk3", "buggy", "plain1", "plain2"]
KNIGHTS = ["slow", "odd", "p3", "p4", "p5"]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Match, Match]]:
    """A store holding a Werewolf game with talk and a buggy bot (``w1``) and an Avalon
    game with a slow bot and one whose votes are refused (``a1``)."""
    path = tmp_path_factory.mktemp("said") / "arena.db"
    with Store(path) as store:
        hub = LocalHub(TIMEOUTS)
        Recorder(store).attach(hub.referee)
        for i, nick in enumerate(WOLVES):
            hub.connect(
                nick, Talker(seed=i) if nick.startswith("talk") else Buggy(seed=i) if nick == "buggy" else Bot(seed=i)
            )
        wolves = hub.play("werewolf", WOLVES, WerewolfOptions(), 7, gid="w1")
        ticks = Ticks()
        hub = LocalHub(TIMEOUTS, clock=ticks)
        Recorder(store).attach(hub.referee)
        hub.connect("slow", Slow(1, ticks))
        hub.connect("odd", Nonsense(seed=2))
        for i, nick in enumerate(KNIGHTS[2:]):
            hub.connect(nick, Bot(seed=10 + i))
        knights = hub.play("avalon", KNIGHTS, AvalonOptions(), 3, gid="a1")
    yield path, wolves, knights


def stored(path: Path, gid: str) -> StoredGame:
    with Store(path) as store:
        game = store.games.load(gid)
    assert game is not None
    return game


def test_a_game_keeps_its_talk_in_order_and_in_place(played: tuple[Path, Match, Match]) -> None:
    path, wolves, _ = played
    game = stored(path, "w1")
    assert game.talk and game.talk == tuple(wolves.talk)
    assert {t.nick for t in game.talk} <= {"talk1", "talk2", "talk3"}
    assert [t.text for t in game.talk if t.text != "and says more"] == [
        f"{t.nick} speaks at {parse(game.transcript[t.after - 1][1]).args[1]}"
        for t in game.talk
        if t.text != "and says more"
    ], "each speech comes right after the ASK that gave its speaker the floor"
    for t in game.talk:
        floors = [
            parse(line) for _, line in game.transcript[: t.after] if line.startswith(ASK + " ") and "floor=true" in line
        ]
        assert floors[-1].fields["to"] == t.nick and WOLVES[t.seat] == t.nick
    assert [t.after for t in game.talk] == sorted(t.after for t in game.talk)
    assert [t.at for t in game.talk] == sorted(t.at for t in game.talk)


def test_a_game_keeps_every_answer_with_its_fallback(played: tuple[Path, Match, Match]) -> None:
    path, wolves, _ = played
    game = stored(path, "w1")
    assert game.answers == tuple(wolves.answers)
    assert not any(line.startswith(TIMEOUT) for _, line in game.transcript)
    accepted = [a for a in game.answers if a.error is None]
    assert [a.seat for a in accepted] == [seat for seat, _, _ in game.history], (
        "every answer the engine took, and no other, is accepted, in order"
    )
    buggy = WOLVES.index("buggy")
    assert {a.fallback for a in game.answers if a.seat == buggy} == {"error"}
    assert {a.fallback for a in game.answers if a.seat != buggy} == {None}
    assert all(a.line.startswith("ANSWER w1 ") for a in game.answers)
    assert all(a.line.endswith(" fallback=error") == (a.seat == buggy) for a in game.answers)


def test_answers_keep_their_time_latency_and_refusal(played: tuple[Path, Match, Match]) -> None:
    path, _, knights = played
    game = stored(path, "a1")
    assert game.answers == tuple(knights.answers)
    slow = [a for a in game.answers if a.seat == KNIGHTS.index("slow")]
    assert slow and all(a.latency == pytest.approx(THINKING) and a.error is None for a in slow)
    assert all(a.at >= THINKING for a in slow)
    refused = [a for a in game.answers if a.error is not None]
    assert refused and {(KNIGHTS[a.seat], a.error) for a in refused} == {("odd", "ACTION_NOT_ALLOWED")}
    assert all(a.line.endswith(" maybe") for a in refused)
    for a in refused:  # its ERROR follows it in the transcript
        assert game.transcript[a.after] == ("odd", game.transcript[a.after][1])
        assert game.transcript[a.after][1].startswith("ERROR ACTION_NOT_ALLOWED a1 " + a.rid)


def test_the_store_round_trips_talk_and_answers_exactly(tmp_path: Path) -> None:
    record = avalon_record(1, random.Random(1))
    talk = (Talk(2, "bob", "I am good", 1.25, 3), Talk(0, "al", "ok", 1.5, 3), Talk(2, "bob", "é ;--", 9.0, 7))
    answers = (
        Answer(1, "4", "ANSWER g1 4 approve", 2.0, 0.5, None, None, 4),
        Answer(1, "x", "ANSWER g1 x approve", 2.25, None, "MALFORMED", "late", 4),
        Answer(3, "5", "ANSWER g1 5 a,b fallback=own", 3.0, 1.0, None, "own", 5),
    )
    with Store(tmp_path / "a.db") as store:
        store.games.record(dataclasses.replace(record, talk=talk, answers=answers))
        store.games.record(avalon_record(2, random.Random(2)))
        game, plain = store.games.load("g1"), store.games.load("g2")
    assert game is not None and game.talk == talk and game.answers == answers
    assert plain is not None and plain.talk == () and plain.answers == ()


def test_a_v4_store_migrates_and_its_games_have_no_talk(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store(tmp_path / "new.db") as new:
        new.games.record(avalon_record(1, random.Random(1)))
    old_copy(tmp_path / "new.db", path, MIGRATIONS[:4])  # the game as a v4 store keeps it
    with Store(path, migrations=MIGRATIONS[:4]) as old:  # a game in progress, as a v4 referee wrote it
        old.conn.execute("INSERT INTO game_ids (id, reserved) VALUES ('g9', 0)")
        old.conn.execute(
            "INSERT INTO live_games (id, game, options, seed, names, bots, place, started)"
            """ VALUES ('g9', 'avalon', '{}', 1, '["a", "b"]', '["a", "b"]', 'here', 0)"""
        )
        old.conn.execute("""INSERT INTO live_actions VALUES ('g9', 0, 0, 'team', '["a", "b"]')""")
        old.conn.execute("INSERT INTO live_lines VALUES ('g9', 0, NULL, NULL, 'START g9')")
        with pytest.raises(sqlite3.OperationalError):
            old.conn.execute("SELECT * FROM talk")
    with Store(path) as store:
        assert (store.migrated_from, store.version) == (4, len(MIGRATIONS))
        game = store.games.load("g1")
        assert game is not None and game.talk == () and game.answers == ()
        assert all(s.conduct.fallbacks == {} for s in store.stats.bots("avalon").values())
        (live,) = store.live.unfinished(place="here")
        assert live.talk == () and live.answers == () and live.history == ((0, "team", ("a", "b")),)
        said = Talk(0, "a", "hello", 1.0, 1)
        store.live.append("g9", 1, [], 1, [], {}, 0, [said], 0, [])
        assert store.live.unfinished(place="here")[0].talk == (said,)
        store.live.close("g9")
        assert store.conn.execute("SELECT COUNT(*) FROM live_talk").fetchone()[0] == 0


def test_stats_count_fallbacks_per_bot(played: tuple[Path, Match, Match]) -> None:
    path, wolves, _ = played
    buggy = WOLVES.index("buggy")
    n = sum(1 for a in wolves.answers if a.seat == buggy)
    with Store(path) as store:
        found = store.stats.bots("werewolf")
    assert found["buggy"].conduct.fallbacks == {"error": n} and n > 0
    assert found["talk1"].conduct.fallbacks == {}
    assert stats_lines(found["buggy"])[-1] == f"  fallbacks: {n} (error {n}, late 0)"
    assert stats_lines(found["talk1"])[-1] == "  fallbacks: 0 (error 0, late 0)"


def replay(path: Path, *args: str) -> list[str]:
    result = CliRunner().invoke(main, list(args), env={"ARENA_STORE_PATH": str(path)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_replay_shows_the_talk_in_place(played: tuple[Path, Match, Match]) -> None:
    path, wolves, _ = played
    lines = replay(path, "replay", "w1")
    talk = [line for line in lines if line.startswith("#     <")]
    assert talk == [f"#     <{t.nick}> {t.text}" for t in wolves.talk]
    first = lines.index(talk[0])
    asked = parse(lines[first - 1][6:])
    assert asked.verb == ASK and asked.fields["to"] == wolves.talk[0].nick and asked.flag("floor")
    assert not any(line.startswith(("<", ">")) for line in lines), "the channel's view: no private lines"


def test_replay_as_a_player_shows_its_answers_and_what_was_refused(played: tuple[Path, Match, Match]) -> None:
    path, _, knights = played
    lines = replay(path, "replay", "a1", "--as", "odd")
    mine = [line for line in lines if line.startswith("<")]
    odd = [a for a in knights.answers if KNIGHTS[a.seat] == "odd"]
    assert len(mine) == len(odd) and all(line.startswith("<     ANSWER a1 ") for line in mine)
    refused = [i for i, line in enumerate(lines) if "refused: ACTION_NOT_ALLOWED" in line]
    assert refused and all(lines[i + 1].startswith(">     ERROR ACTION_NOT_ALLOWED a1 ") for i in refused)
    slow = replay(path, "replay", "a1", "--as", "slow")
    assert any(line.startswith("<     ANSWER a1 ") and line.endswith(f"({THINKING:.2f} s)") for line in slow)


def test_replay_all_shows_every_answer_by_nick(played: tuple[Path, Match, Match]) -> None:
    path, wolves, _ = played
    lines = replay(path, "replay", "w1", "--all")
    answers = [line for line in lines if line.startswith("< ")]
    assert len(answers) == len(wolves.answers)
    assert {line.split()[1] for line in answers} == set(WOLVES)
    assert any(line.startswith("< buggy ") and "fallback=error" in line for line in answers)
    assert sum(line.startswith("#     <") for line in lines) == len(wolves.talk)


# -- the fallback field on the wire ---------------------------------------------------------


def test_an_answer_may_carry_a_fallback_field() -> None:
    msg = parse("ANSWER g7 12 approve fallback=error")
    assert (msg.args, msg.fields) == (("g7", "12", "approve"), {"fallback": "error"})


@pytest.mark.parametrize("marker,kept", [("error", "error"), ("late", "late"), ("own", "own"), ("bogus", None)])
def test_the_fallback_field_is_kept_and_never_judged(marker: str, kept: str | None) -> None:
    """Two identical games, one whose every answer carries the marker: they play the same,
    and the marker is kept (a value the protocol does not name is not)."""

    class Marking(Bot):
        def decide(self, game: GameView[Any], ask: Ask) -> Any:
            ask.fallback = marker  # what the SDK sends as fallback=
            return super().decide(game, ask)

    def play(mark: bool) -> Match:
        hub = LocalHub(TIMEOUTS)
        for i, nick in enumerate(KNIGHTS):
            hub.connect(nick, (Marking if mark else Bot)(seed=i))
        return hub.play("avalon", KNIGHTS, AvalonOptions(), 5)

    plain, marked = play(False), play(True)
    assert marked.transcript == plain.transcript and marked.game.history == plain.game.history
    assert marked.answers and {a.fallback for a in marked.answers} == {kept}
    assert {a.fallback for a in plain.answers} == {None}
    assert all(a.line.endswith(f" fallback={marker}") for a in marked.answers)


class Chatty(Bot):
    """Chats in the Avalon channel at every vote: three lines, and a flood at the first."""

    def __init__(self, seed: int, hub: LocalHub, nick: str) -> None:
        super().__init__(seed)
        self.hub, self.nick, self.votes = hub, nick, 0

    def vote(self, game: GameView[Any], ask: Ask) -> str:
        self.votes += 1
        for i in range(150 if self.votes == 1 else 1):
            self.hub.say(self.nick, f"{self.nick} before vote {self.votes} ({i})")
        return "approve"


def test_free_chat_in_an_avalon_channel_is_kept_up_to_a_cap(tmp_path: Path) -> None:
    with Store(tmp_path / "arena.db") as store:
        hub = LocalHub(TIMEOUTS)
        Recorder(store).attach(hub.referee)
        hub.connect("chatty", Chatty(1, hub, "chatty"))
        for i, nick in enumerate(KNIGHTS[1:]):
            hub.connect(nick, Bot(seed=10 + i))
        hub.say("stranger", "not seated: not kept")
        match = hub.play("avalon", ["chatty", *KNIGHTS[1:]], AvalonOptions(), 5, gid="c1")
        game = store.games.load("c1")
    assert game is not None and game.talk == tuple(match.talk)
    assert {t.nick for t in game.talk} == {"chatty"} and len(game.talk) == CHAT_KEPT
    assert [t.text for t in game.talk[:3]] == [f"chatty before vote 1 ({i})" for i in range(3)]
    assert not any(line.startswith("ERROR") for _, line in game.transcript), "chat is never refused"
