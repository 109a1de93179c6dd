"""SDK v2's shape: one base class per game declaring every decision, typed requests, loud
warnings for a misnamed method or a wrong table, exceptions summed up, and the generic
``Bot`` (a ``decide`` alone, or methods named by kind) still playing every game."""

from __future__ import annotations

import logging
import pydoc
from pathlib import Path
from typing import Any

import pytest

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import TimeoutConfig
from arena.games import GAMES, RESERVED_NICKS
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import Message
from arena.referee.local import LocalHub
from arena.sdk import (
    Ask,
    AssassinateAsk,
    AvalonBot,
    AvalonView,
    Bot,
    DayVoteAsk,
    GameView,
    QuestAsk,
    Session,
    SpeakAsk,
    TeamAsk,
    TuvalonBot,
    VoteAsk,
    WerewolfAsk,
    WerewolfBot,
)
from arena.sdk.bot import audit
from arena.sdk.fields import WORDS
from arena.sdk.view import SPECS

from .test_sdk import END_LINE, REF, ROLE_LINE, START_LINE, TEAM_ASK, VOTE_ASK
from tests.welcomed import welcomed

ROOT = Path(__file__).resolve().parents[1]
NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
WEREWOLF_START = "START w1 game=werewolf seats=alice,bob,carol,dave,erin,frank roles=seer:1,villager:4,werewolf:1"


def kinds_of(game: str) -> set[str]:
    """Every decision kind the engine of ``game`` can ask."""
    engine = GAMES[game]
    return set(engine.public_kinds) | set(engine.secret_kinds) | set(engine.tallied_kinds)


@pytest.mark.parametrize("base,game", [(AvalonBot, "avalon"), (TuvalonBot, "tuvalon"), (WerewolfBot, "werewolf")])
def test_each_base_class_declares_every_decision_of_its_game(base: type[Bot], game: str) -> None:
    assert base.plays == game
    assert set(SPECS[game].asks) == kinds_of(game), "the SDK knows the engine's decisions, no more, no less"
    text = pydoc.render_doc(base, renderer=pydoc.plaintext)  # type: ignore[attr-defined]  # not in typeshed
    for kind in kinds_of(game):
        method = getattr(base, kind)
        assert f"\n |  {kind}(self, game:" in text, f"help({base.__name__}) does not list {kind}"
        doc = method.__doc__ or ""
        assert "return" in doc.lower() and "Default" in doc, f"{kind}: say what to return and the default"
        assert method.__annotations__["return"] in ("str", "list[Player]", "Player")
    guide = (ROOT / "docs" / "bot-authors.md").read_text(encoding="utf-8")
    classes = guide[guide.index("\n## The base classes\n") : guide.index("\n## Requests\n")]
    rows = "\n".join(line for line in classes.splitlines() if line.strip().startswith(f"| `{base.__name__}`"))
    assert [kind for kind in sorted(kinds_of(game)) if f"`{kind}`" not in rows] == [], (
        "docs/bot-authors.md's table of decisions"
    )


def test_the_words_of_requests_are_the_games_reserved_words() -> None:
    assert WORDS == RESERVED_NICKS


def test_the_package_ships_its_type_hints() -> None:
    assert (ROOT / "arena" / "py.typed").is_file()
    assert "arena = py.typed" in (ROOT / "setup.cfg").read_text()


class Typed(AvalonBot):
    def __init__(self) -> None:
        super().__init__(0)
        self.asks: list[Ask] = []

    def team(self, game: AvalonView, ask: TeamAsk) -> list[str]:
        self.asks.append(ask)
        return ["alice", "dave"]

    def vote(self, game: AvalonView, ask: VoteAsk) -> str:
        self.asks.append(ask)
        return "approve" if ask.rejections == 4 else "reject"


def test_requests_are_typed() -> None:
    bot = Typed()
    s = welcomed(Session(bot, "alice", REF))
    for line in (START_LINE, ROLE_LINE):
        s.feed(REF, line)
    assert s.feed(REF, TEAM_ASK) == ["ANSWER g1 1 alice,dave"]
    assert s.feed(REF, VOTE_ASK.replace("rejections=0", "rejections=4")) == ["ANSWER g1 2 approve"]
    team, vote = bot.asks
    assert isinstance(team, TeamAsk) and (team.quest, team.attempt, team.rejections, team.pick) == (1, 1, 0, 2)
    assert isinstance(vote, VoteAsk)
    assert (vote.quest, vote.leader, vote.team, vote.rejections) == (1, "bob", ["alice", "bob"], 4)
    assert vote.fields["rejections"] == "4", "the raw text stays in ask.fields"
    assert not vote.floor and team.players == ["alice", "bob", "carol", "dave", "erin"]
    with pytest.raises(AttributeError):
        vote.rejections = 3


@pytest.mark.parametrize(
    "line,cls,typed",
    [
        (
            "ASK w1 7 speak to=alice deadline=9 options=done,pass floor=true day=2 purpose=runoff",
            SpeakAsk,
            {"day": 2, "purpose": "runoff", "floor": True, "players": []},
        ),
        (
            "ASK w1 8 vote to=alice deadline=9 options=bob,carol,abstain day=3 round=2",
            DayVoteAsk,
            {"day": 3, "round": 2, "floor": False, "players": ["bob", "carol"]},
        ),
        (
            "ASK w1 9 seer_check to=alice deadline=9 options=bob,erin,none day=1",
            WerewolfAsk,
            {"day": 1, "players": ["bob", "erin"]},
        ),
        (
            "ASK w1 10 cupid_link to=alice deadline=9 options=alice,bob,carol pick=2 day=1",
            WerewolfAsk,
            {"day": 1, "pick": 2},
        ),
    ],
)
def test_werewolf_requests_are_typed(line: str, cls: type[Ask], typed: dict[str, Any]) -> None:
    seen: list[Ask] = []

    class Seer(WerewolfBot):
        def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
            seen.append(ask)
            return super().decide(game, ask)

    s = welcomed(Session(Seer(1), "alice", REF))
    s.feed(REF, WEREWOLF_START)
    (answer,) = s.feed(REF, line)
    (ask,) = seen
    assert type(ask) is cls
    assert {key: getattr(ask, key) for key in typed} == typed
    assert answer.split()[3].split(",")[0] in ask.options


class Misnamed(AvalonBot):
    def votes(self, game: AvalonView, ask: VoteAsk) -> str:  # meant: vote
        return "approve"

    def assasinate(self, game: AvalonView, ask: AssassinateAsk) -> str:  # meant: assassinate
        return "alice"

    def on_events(self, game: GameView[Any], msg: Message) -> None:  # meant: on_event
        pass

    def speak(self, game: GameView[Any], ask: Ask) -> str:  # a Werewolf decision
        return "done"

    def suspicion(self, game: GameView[Any], nick: str) -> float:  # a helper: nothing to say
        return 0.0

    def _votes(self) -> None:  # private: nothing to say
        pass


class OldStyle(Bot):
    """The first SDK's way: a generic bot with methods named by kind."""

    def vote(self, game: GameView[Any], ask: Ask) -> str:
        return "approve"

    def speak(self, game: GameView[Any], ask: Ask) -> str:
        return "done"


def test_methods_that_are_never_called_are_named() -> None:
    problems = audit(Misnamed)
    assert len(problems) == 4, problems
    assert any("Misnamed.votes" in p and "did you mean vote?" in p for p in problems)
    assert any("Misnamed.assasinate" in p and "did you mean assassinate?" in p for p in problems)
    assert any("Misnamed.on_events" in p and "did you mean on_event?" in p for p in problems)
    assert any("Misnamed.speak is a decision of tuvalon and werewolf, not of avalon" in p for p in problems)
    assert audit(OldStyle) == [] and audit(Bot) == [] and audit(AvalonBot) == [] and audit(WerewolfBot) == []
    assert audit(TuvalonBot) == [] and audit(TuvalonRuleBot) == []

    class Votes(Bot):
        def votes(self, game: GameView[Any], ask: Ask) -> str:
            return "approve"

    assert [p for p in audit(Votes) if "did you mean vote?" in p]


class RoleNamed(WerewolfBot):
    """Decisions named after the roles that make them, and another game's hook."""

    def seer(self, game: GameView[Any], ask: Ask) -> str:  # meant: seer_check
        return "none"

    def witch(self, game: GameView[Any], ask: Ask) -> str:  # meant: witch_save or witch_poison
        return "none"

    def dealer(self, game: GameView[Any], ask: Ask) -> str:  # meant: dealer_deal
        return "none"

    def trickster(self, game: GameView[Any], ask: Ask) -> list[str]:  # meant: trickster_forge
        return []

    def near_speech(self, game: GameView[Any], ask: Ask) -> str:  # Tuvalon's, not Werewolf's
        return ""

    def leader(self, game: GameView[Any]) -> str:  # a helper (no ask): nothing to say
        return ""

    def wolf(self, game: GameView[Any], ask: Ask) -> str:  # names too many decisions to guess one
        return ""


def test_a_decision_named_after_its_role_or_another_games_hook_is_named() -> None:
    problems = audit(RoleNamed)
    assert len(problems) == 5, problems
    assert any("RoleNamed.seer " in p and "did you mean seer_check?" in p for p in problems)
    assert any("RoleNamed.witch " in p and "did you mean witch_poison or witch_save?" in p for p in problems)
    assert any("RoleNamed.dealer " in p and "did you mean dealer_deal?" in p for p in problems)
    assert any("RoleNamed.trickster " in p and "did you mean trickster_forge?" in p for p in problems)
    assert any("RoleNamed.near_speech is a method of TuvalonBot, not of werewolf" in p for p in problems)

    class Typo(TuvalonBot):
        def near_speach(self, game: GameView[Any], ask: Ask) -> str:  # meant: near_speech
            return ""

    assert audit(Typo) == ["Typo.near_speach is never called: no hook has that name (did you mean near_speech?)"]


def test_a_misnamed_method_is_told_once_and_the_bot_plays_at_random(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        hub = LocalHub(TimeoutConfig())
        for i, nick in enumerate(NICKS[:5]):
            hub.connect(nick, Misnamed(i))
        match = hub.play("avalon", NICKS[:5], AvalonOptions(), 1)
    told = [r.getMessage() for r in caplog.records if "Misnamed." in r.getMessage()]
    assert len(told) == 4, "each problem once, not once per bot"
    assert match.game.result is not None and match.game.result.forfeited is None
    assert not [line for _, line in match.transcript if line.startswith("ERROR")]


class AvalonOnly(AvalonBot):
    calls = 0

    def vote(self, game: AvalonView, ask: VoteAsk) -> str:
        AvalonOnly.calls += 1
        return "approve"


def test_a_bot_at_the_wrong_table_is_told_and_plays_at_random(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        hub = LocalHub(TimeoutConfig())
        for i, nick in enumerate(NICKS):
            hub.connect(nick, AvalonOnly(i) if i < 2 else Bot(i))
        for seed in range(3):
            match = hub.play("werewolf", NICKS, WerewolfOptions(), seed)
            assert not [line for _, line in match.transcript if line.startswith("ERROR")]
    told = [r.getMessage() for r in caplog.records if "seated at a werewolf table" in r.getMessage()]
    assert len(told) == 1 and "AvalonOnly plays avalon" in told[0]
    assert AvalonOnly.calls == 0, "Avalon's vote is not Werewolf's"


class Buggy(AvalonBot):
    def quest(self, game: AvalonView, ask: QuestAsk) -> str:
        upper: str = getattr(None, "upper")()  # AttributeError
        return upper

    def on_event(self, game: GameView[Any], msg: Message) -> None:
        if msg.verb == "QUEST":
            raise KeyError("bug in a callback")


def test_exceptions_are_counted_and_summed_up(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="arena.sdk"):
        hub = LocalHub(TimeoutConfig())
        sessions = [hub.connect(nick, Buggy(i) if i == 0 else Bot(i)) for i, nick in enumerate(NICKS[:5])]
        for seed in range(8):
            match = hub.play("avalon", NICKS[:5], AvalonOptions(), seed)
            assert match.game.result is not None and match.game.result.forfeited is None
    faults = sessions[0].faults
    assert faults.counts["quest"] >= 2 and faults.counts["on_event"] >= 8
    assert faults.first["quest"].startswith("AttributeError") and faults.first["on_event"].startswith("KeyError")
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert len(tracebacks) == 2, "one traceback per place, the first time"
    ends = [r.getMessage() for r in caplog.records if "exception(s) in game" in r.getMessage()]
    assert 2 <= len(ends) <= 8 and all("on_event x" in m for m in ends), "a summary for each game with one"
    summary = faults.summary()
    assert summary is not None and f"quest x{faults.counts['quest']}" in summary and "AttributeError" in summary
    assert sessions[1].faults.summary() is None


class Generic(Bot):
    """A bot for every game with one ``decide``, as a language-model bot is written."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.kinds: set[str] = set()

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.kinds.add(ask.kind)
        assert game.state is not None and game.kind in ("avalon", "werewolf")
        return ask.random(self.rng)


def test_a_bot_with_decide_alone_plays_every_game() -> None:
    hub = LocalHub(TimeoutConfig())
    bots = [Generic(i) for i in range(len(NICKS))]
    for nick, bot in zip(NICKS, bots):
        hub.connect(nick, bot)
    for seed in range(3):
        for game, options in (("avalon", AvalonOptions()), ("werewolf", WerewolfOptions())):
            match = hub.play(game, NICKS, options, seed)
            assert match.game.result is not None and match.game.result.forfeited is None
    kinds = set().union(*(b.kinds for b in bots))
    assert {"team", "vote", "quest", "wolf_vote", "seer_check", "speak"} <= kinds


def test_an_old_style_bot_still_decides_by_method_name() -> None:
    s = welcomed(Session(OldStyle(0), "alice", REF))
    s.feed(REF, START_LINE)
    assert s.feed(REF, VOTE_ASK) == ["ANSWER g1 2 approve"]
    s.feed(REF, END_LINE)
