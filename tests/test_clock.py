"""The clocks of local play: on the virtual clock bots think in no time; on the wall clock
the time a bot takes counts against its deadlines, as over IRC, each bot's against its own.

The hub's tests drive a stopwatch that moves only when a bot says it thought, so they are
instant and exact; the command-line tests sleep for real, briefly (deadlines of 0.2 s)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner, Result

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.cli import main
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ERROR, TIMEOUT, WARN, parse
from arena.referee.local import CLOCKS, Clock, LocalHub
from arena.referee.match import Match
from arena.sdk import Ask, Bot, GameView

NICKS = ["slow", "b", "c", "d", "e"]
FAST = TimeoutConfig(decision=0.2, grace=0.2)


class Stopwatch:
    """A clock that moves only when told to: what a bot ``thinks`` is all the time there is."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def think(self, seconds: float) -> None:
        self.now += seconds


class Slow(Bot):
    """Spends ``seconds`` over each vote (on ``watch``), then votes at random."""

    def __init__(self, watch: Stopwatch, seconds: float, seed: int) -> None:
        super().__init__(seed)
        self.watch, self.seconds = watch, seconds

    def vote(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.watch.think(self.seconds)
        return ask.random()


def play(clock: Clock | None, bots: list[Bot], timeouts: TimeoutConfig = FAST) -> tuple[LocalHub, Match]:
    hub = LocalHub(timeouts, clock=clock)
    for nick, bot in zip(NICKS, bots):
        hub.connect(nick, bot)
    return hub, hub.play("avalon", NICKS, AvalonOptions(), 7)


def late(match: Match) -> list[tuple[str | None, str]]:
    """The transcript's warnings and timeouts, as (addressee, verb and its player or action)."""
    out = []
    for to, line in match.transcript:
        msg = parse(line)
        if msg.verb == WARN:
            out.append((to, WARN))
        elif msg.verb == TIMEOUT:
            out.append((msg.get("player"), f"{TIMEOUT} {msg.get('action')}"))
    return out


def test_a_bot_that_thinks_past_its_deadline_gets_the_escalation_on_the_wall_clock_only() -> None:
    watch = Stopwatch()
    bots = [Slow(watch, 0.3, seed=0), *(Bot(seed=i) for i in range(1, 5))]
    _, match = play(None, bots)
    assert late(match) == [] and match.game.result is not None and match.game.result.forfeited is None
    watch = Stopwatch()
    bots = [Slow(watch, 0.3, seed=0), *(Bot(seed=i) for i in range(1, 5))]
    hub, match = play(watch, bots)
    # Its first vote: warned, then its own late answer counts (0.3 s, within 0.2 s of grace);
    # its second: answered by default; its third: the game is forfeited.
    assert late(match) == [("slow", WARN), ("slow", f"{TIMEOUT} default"), ("slow", f"{TIMEOUT} forfeit")]
    assert match.game.result is not None and match.game.result.forfeited == NICKS.index("slow")
    assert hub.now == pytest.approx(3 * 0.3)  # the referee's clock ran as long as the bot thought


def test_each_bot_s_deadline_counts_its_own_thinking_alone() -> None:
    """Five bots that each take 0.15 s to vote, against 0.2 s: nobody is late, though the
    hub makes them think one after another (0.75 s a vote): as on IRC, where each bot thinks
    on its own machine, the referee's clock runs 0.15 s a vote."""
    watch = Stopwatch()
    hub, match = play(watch, [Slow(watch, 0.15, seed=i) for i in range(5)])
    assert late(match) == []
    votes = sum(1 for _, line in match.transcript if parse(line).verb == "VOTES")
    assert watch.now == pytest.approx(5 * 0.15 * votes)
    assert hub.now == pytest.approx(0.15 * votes)


class SlowToLearn(Bot):
    """Spends ``seconds`` over its role, then plays at random in no time."""

    def __init__(self, watch: Stopwatch, seconds: float) -> None:
        super().__init__(0)
        self.watch, self.seconds = watch, seconds

    def on_role(self, game: GameView[Any]) -> None:
        self.watch.think(self.seconds)


def test_a_bot_thinks_of_one_thing_at_a_time() -> None:
    """Time spent on any line counts: the first request reaches a bot still busy with its
    role, which it answers late."""
    watch = Stopwatch()
    _, match = play(watch, [SlowToLearn(watch, 0.5), *(Bot(seed=i) for i in range(1, 5))])
    assert late(match)[0] == ("slow", WARN)


def test_a_grace_of_no_time_never_holds_a_late_answer_back() -> None:
    """Warned forever (the escalation is warn alone) with no grace: the late answer counts
    when it comes, and the game goes on to its end."""
    watch = Stopwatch()
    bots = [Slow(watch, 0.3, seed=0), *(Bot(seed=i) for i in range(1, 5))]
    _, match = play(watch, bots, TimeoutConfig(decision=0.2, grace=0.0, escalation=("warn",)))
    warned = late(match)
    assert warned and set(warned) == {("slow", WARN)}
    assert match.game.result is not None and match.game.result.forfeited is None


def test_a_warning_that_crosses_the_answer_gets_no_second_answer() -> None:
    """On the wall clock a bot hears the WARN of a request only once it has answered it (it
    was thinking meanwhile): the SDK must not answer again, which the referee would refuse
    (ALREADY_ACTED) and ``arena stats`` count as a refused line."""
    watch = Stopwatch()
    bots = [Slow(watch, 0.3, seed=0), *(Bot(seed=i) for i in range(1, 5))]
    _, match = play(watch, bots, TimeoutConfig(decision=0.2, grace=0.2, escalation=("warn",)))
    assert late(match) and set(late(match)) == {("slow", WARN)}
    assert [line for _, line in match.transcript if parse(line).verb == ERROR] == []


def test_talking_bots_keep_their_turns_on_the_wall_clock() -> None:
    """Speeches and the wolves' talk, timed with the real clock, still come before the answer
    that ends the turn: a whole Werewolf game without a refused line or a late bot."""
    wall = CLOCKS["wall"]
    assert wall is not None
    hub = LocalHub(TimeoutConfig(), clock=wall)
    nicks = [f"w{i}" for i in range(8)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, WerewolfRuleBot(seed=i))
    match = hub.play("werewolf", nicks, WerewolfOptions(), 3)
    assert match.game.result is not None and match.talk
    assert [line for _, line in match.transcript if parse(line).verb in (ERROR, WARN, TIMEOUT)] == []


# -- the command line ----------------------------------------------------------------------------

SLOW_BOT = '''
import time

from arena.sdk import Bot


class Slow(Bot):
    """Takes 0.3 s over each of its first three votes."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.slow = 3

    def vote(self, game, ask):
        if self.slow:
            self.slow -= 1
            time.sleep(0.3)
        return ask.random()
'''

RANDOM = ("--bot", "r1=random", "--bot", "r2=random", "--bot", "r3=random", "--bot", "r4=random")


Run = Callable[..., Result]
"""What ``run`` gives: ``arena`` with these arguments, its result."""


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Run]:
    """``arena`` in a folder of its own, with deadlines of 0.2 s and a slow bot in slow.py."""
    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text("store: {path: results.db}\ntimeouts: {decision: 0.2, grace: 0.2}\n")
    Path("slow.py").write_text(SLOW_BOT)
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(main, list(args), catch_exceptions=False)

    yield invoke


def test_a_slow_bot_is_late_in_a_wall_clock_tournament_and_not_on_the_virtual_clock(run: Run) -> None:
    begun = time.monotonic()
    virtual = run("tournament", "--id", "v", "--games", "1", "--bot", "slow=slow.py:Slow", *RANDOM)
    assert virtual.exit_code == 0 and "virtual clock" in virtual.output, virtual.output
    assert "late: 0 warned, 0 answered by default, 0 forfeited" in run("stats", "slow").output
    wall = run("tournament", "--id", "w", "--games", "1", "--bot", "slow=slow.py:Slow", *RANDOM, "--clock", "wall")
    assert wall.exit_code == 0 and "wall clock" in wall.output, wall.output
    assert "late: 1 warned, 1 answered by default, 1 forfeited" in run("stats", "slow").output
    assert "forfeit" in run("games", "--limit", "1").output
    assert time.monotonic() - begun < 10


def test_a_tournament_resumes_only_on_the_clock_it_started_with(run: Run) -> None:
    assert run("tournament", "--id", "v", "--games", "1", *RANDOM, "--bot", "r5=random").exit_code == 0
    switched = run("tournament", "--id", "v", "--games", "2", *RANDOM, "--bot", "r5=random", "--clock", "wall")
    assert switched.exit_code == 1 and "(clock differ)" in switched.output, switched.output
    assert (
        run("tournament", "--id", "w", "--games", "1", *RANDOM, "--bot", "r5=random", "--clock", "wall").exit_code == 0
    )
    back = run("tournament", "--id", "w", "--games", "2", *RANDOM, "--bot", "r5=random")
    assert back.exit_code == 1 and "(clock differ)" in back.output, back.output
    same = run("tournament", "--id", "w", "--games", "2", *RANDOM, "--bot", "r5=random", "--clock", "wall")
    assert same.exit_code == 0 and "played 1 game now" in same.output, same.output


def test_the_clock_is_for_local_play_only(run: Run) -> None:
    irc = run("tournament", "--id", "i", *RANDOM, "--bot", "r5=random", "--transport", "irc", "--clock", "wall")
    assert irc.exit_code == 2 and "--clock wall is for --transport local" in irc.output
    engine = run("simulate", "--games", "1", "--clock", "wall")
    assert engine.exit_code == 2 and "--clock wall needs --transport protocol" in engine.output


def test_bots_in_time_play_the_same_games_on_either_clock(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Random bots take microseconds against 30 s: the wall clock changes nothing."""
    monkeypatch.setenv("ARENA_TIMEOUTS_DECISION", "30")
    args = ("simulate", "--transport", "protocol", "--games", "20", "--seed", "4", "--json")
    virtual, wall = run(*args), run(*args, "--clock", "wall")
    assert virtual.exit_code == 0 and wall.exit_code == 0, wall.output
    assert {**json.loads(virtual.stdout), "seconds": 0} == {**json.loads(wall.stdout), "seconds": 0}


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_the_help_tells_both_clocks_apart(run: Run, command: str) -> None:
    text = " ".join(run(command, "--help").output.split())
    assert "--clock [virtual|wall]" in text
    assert "each bot's deadlines count its own thinking only; not reproducible" in text
