"""The IRC runner of SDK bots: its command line (click, with ARENA_* environment
variables), and decisions that run at once for different games while the random answer
at 80% of a deadline still comes in time. No server: the runner's link is not connected,
and what it would send is recorded."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest
from click.testing import CliRunner

import arena.sdk.runner as runner_module
from arena.sdk import Ask, Bot, GameView
from arena.sdk.runner import BotRunner, command

REF = "arena"
START = "START {gid} game=avalon seats=alice,bob,carol,dave,erin quests=2,3,2,3,3 fails=1,1,1,1,1 good=3 evil=2"
VOTE = (
    "ASK {gid} {rid} vote to=all deadline={deadline} options=approve,reject "
    "quest=1 leader=bob team=alice,bob rejections=0"
)


class Recorded:
    """Stands in for BotRunner: keeps what the command line built, runs nothing."""

    made: list[dict[str, Any]] = []

    def __init__(self, bot: Bot, host: str, port: int, nick: str, **options: Any) -> None:
        Recorded.made.append({"bot": bot, "host": host, "port": port, "nick": nick, **options})

    def run(self) -> None:
        pass


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    monkeypatch.setattr(runner_module, "BotRunner", Recorded)
    Recorded.made = []
    return Recorded.made


def test_the_launcher_reads_its_options_from_the_environment(made: list[dict[str, Any]]) -> None:
    env = {
        "ARENA_SERVER": "127.0.0.1:6667",
        "ARENA_NICK": "envbot",
        "ARENA_KEY": "s3cret",
        "ARENA_NAME": "mine",
        "ARENA_GAMES": "3",
        "ARENA_REFEREE": "ref",
        "ARENA_CHANNEL": "#lobby",
        "ARENA_SEED": "7",
    }
    result = CliRunner().invoke(command(Bot), [], env=env)
    assert result.exit_code == 0, result.output
    (got,) = made
    assert (got["host"], got["port"], got["nick"], got["key"], got["name"]) == (
        "127.0.0.1",
        6667,
        "envbot",
        "s3cret",
        "mine",
    )
    assert (got["max_games"], got["referee"], got["channel"]) == (3, "ref", "#lobby")
    assert got["bot"].rng.random() == Bot(seed=7).rng.random()


def test_the_launcher_keeps_its_flags(made: list[dict[str, Any]]) -> None:
    args = [
        "--server",
        "127.0.0.1:7000",
        "--nick",
        "b",
        "--name",
        "n",
        "--key",
        "k",
        "--referee",
        "r",
        "--channel",
        "#c",
        "--referee-account",
        "ra",
        "--sasl-account",
        "sa",
        "--sasl-password",
        "sp",
        "--tls",
        "--password",
        "pw",
        "--rate",
        "0",
        "--games",
        "2",
        "--seed",
        "1",
        "--verbose",
        "--workers",
        "4",
    ]
    result = CliRunner().invoke(command(Bot), args, env={"ARENA_NICK": "ignored"})
    assert result.exit_code == 0, result.output
    (got,) = made
    assert (got["port"], got["nick"], got["tls"], got["password"], got["lines_per_second"]) == (
        7000,
        "b",
        True,
        "pw",
        0.0,
    )
    assert (got["referee_account"], got["sasl_account"], got["sasl_password"], got["workers"]) == ("ra", "sa", "sp", 4)
    # A SASL password without an account is not sent anywhere.
    CliRunner().invoke(command(Bot), ["--server", "h:1", "--nick", "b"], env={"ARENA_SASL_PASSWORD": "x"})
    assert made[-1]["sasl_password"] is None


@pytest.mark.parametrize("server", ["nohost", "h:", ":6667", "h:port"])
def test_a_bad_server_is_refused_with_the_option_named(made: list[dict[str, Any]], server: str) -> None:
    result = CliRunner().invoke(command(Bot), ["--server", server, "--nick", "b"])
    assert result.exit_code == 2 and "--server" in result.output and "HOST:PORT" in result.output
    assert made == []


class Ponder(Bot):
    """Slow in the games named in ``slow``: ``delay`` seconds per decision."""

    def __init__(self, slow: set[str], delay: float) -> None:
        super().__init__(0)
        self.slow = slow
        self.delay = delay
        self.done: list[str] = []

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        if game.gid in self.slow:
            time.sleep(self.delay)
        self.done.append(game.gid)
        return "approve"


class Offline:
    """A BotRunner that is fed lines by hand and keeps what it sends, with the time."""

    def __init__(self, bot: Bot) -> None:
        self.runner = BotRunner(bot, "127.0.0.1", 1, "alice", referee=REF)
        self.sent: list[tuple[float, str, str]] = []
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.runner.link.send = self._send  # type: ignore[method-assign]
        self.feed("WELCOME alice protocol=1 name=alice")  # registered: the referee's lines count

    def _send(self, target: str, text: str, *, formatting: bool = False) -> bool:
        with self.lock:
            self.sent.append((time.monotonic() - self.t0, target, text))
        return True

    def feed(self, line: str) -> None:
        self.runner._on_message(REF, "alice", line)

    def answers(self) -> dict[str, tuple[float, str]]:
        with self.lock:
            return {
                text.split()[1] + "/" + text.split()[2]: (t, text.split()[3])
                for t, _, text in self.sent
                if text.startswith("ANSWER")
            }

    def wait(self, count: int, timeout: float) -> None:
        end = time.monotonic() + timeout
        while len(self.answers()) < count and time.monotonic() < end:
            self.runner.reactor.process_once(0.01)


def test_a_slow_decision_in_one_game_does_not_delay_another_game() -> None:
    bot = Ponder({"g1"}, delay=1.0)
    off = Offline(bot)
    for gid in ("g1", "g2"):
        off.feed(START.format(gid=gid))
    off.feed(VOTE.format(gid="g1", rid=1, deadline=30))
    off.feed(VOTE.format(gid="g2", rid=1, deadline=30))
    off.wait(1, 5)
    answers = off.answers()
    assert list(answers) == ["g2/1"] and answers["g2/1"][0] < 0.5, "g2 answered while g1 still thinks"
    off.wait(2, 5)
    assert off.answers()["g1/1"][1] == "approve" and bot.done == ["g2", "g1"]


def test_a_decision_that_overruns_gets_one_random_answer_in_time() -> None:
    bot = Ponder({"g1"}, delay=1.5)
    off = Offline(bot)
    off.feed(START.format(gid="g1"))
    off.feed(VOTE.format(gid="g1", rid=4, deadline=1))
    off.wait(1, 5)
    ((when, choice),) = off.answers().values()
    assert 0.7 <= when < 1.0 and choice in ("approve", "reject"), "at 80% of the deadline"
    assert [text for _, _, text in off.sent if text.startswith("ANSWER")][0].endswith(" fallback=late")
    time.sleep(1.0)
    off.runner.reactor.process_once(0.01)
    assert bot.done == ["g1"] and len([s for s in off.sent if s[2].startswith("ANSWER")]) == 1, (
        "the late decision is dropped"
    )


def test_a_bot_held_back_by_the_topic_says_so_once_for_each_topic(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot looks at the lobby's topic whenever it would register (ready, a referee
    joining...): while a topic names another referee it waits, and says so once for that
    topic, not at every look."""
    runner = BotRunner(Bot(seed=1), "127.0.0.1", 1, "alice", referee=REF)
    topic = ["arena referee: arena_"]
    sent: list[str] = []
    monkeypatch.setattr(runner.link, "topic_of", lambda channel: topic[0])

    def send(target: str, text: str, **kwargs: Any) -> bool:
        sent.append(text)
        return True

    monkeypatch.setattr(runner.link, "send", send)

    def told() -> int:
        return sum("waiting before registering" in r.getMessage() for r in caplog.records)

    with caplog.at_level(logging.ERROR, logger="arena.sdk.runner"):
        runner._hello()
        runner._hello()
        assert (told(), sent) == (1, [])
        topic[0] = "arena referee: arena__"
        runner._hello()
        assert told() == 2
        topic[0] = f"arena referee: {REF}"
        runner._hello()
        assert len(sent) == 1 and sent[0].startswith("REGISTER")
        topic[0] = "arena referee: arena_"
        runner._hello()
        assert told() == 3  # held back again: said again
