"""Tuvalon through the referee's real code, in memory: the second discussion's relay
audiences over hundreds of games, refused moves in the wire's words, and the abnormal end
(a missed deadline or an overlong speech forfeits at once; the others draw)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import TimeoutConfig
from arena.games.tuvalon.options import TuvalonOptions
from arena.protocol import Message, parse
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.sdk import MoveAsk, Talk, TurnAsk, TuvalonView
from arena.sdk import Session

from ..transcript import record
from .relay import Whisperer, expected_relays
from tests.welcomed import welcomed

NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
DOC = Path(__file__).resolve().parents[2] / "protocol.md"
LENIENT = TimeoutConfig(escalation=("warn", "default", "forfeit"))
"""The referee's general setting, which Tuvalon's own escalation overrides."""


def play(
    bots: Mapping[str, TuvalonRuleBot], seed: int, options: TuvalonOptions = TuvalonOptions()
) -> tuple[Match, list[str]]:
    hub = LocalHub(LENIENT)
    for nick, bot in bots.items():
        hub.connect(nick, bot)
    lines = record(hub)
    return hub.play("tuvalon", list(bots), options, seed, gid="g1"), lines


def test_near_lines_reach_exactly_the_players_in_range_once_each() -> None:
    relays = 0
    for seed in range(300):
        bots = {n: Whisperer(seed=seed * 7 + i) for i, n in enumerate(NICKS)}
        match, _ = play(bots, seed, TuvalonOptions(speech_budget=0))
        assert match.game.result is not None and match.game.result.forfeited is None
        expected, relayed = expected_relays(match.transcript, match.gid, (t for b in bots.values() for t in b.said))
        assert relayed == expected
        assert all(n == 1 for n in relayed.values())
        relays += sum(relayed.values())
        # nothing of the second discussion in the channel, nor in the channel's record
        assert not any(to is None and "psst" in line for to, line in match.transcript)
        assert not any(t.text.startswith("psst") for t in match.talk)
    assert relays >= 50 * 300  # some 130 to 800 relayed lines a game


class Stubborn(TuvalonRuleBot):
    """Answers its first move with a cell four steps away, then plays on."""

    def move(self, game: TuvalonView, ask: MoveAsk) -> str:
        if not game.notes.get("tried"):
            game.notes["tried"] = True
            return "c5"
        return super().move(game, ask)


def test_the_documented_refused_move_is_refused_in_those_words() -> None:
    doc = DOC.read_text(encoding="utf-8")
    shown = next(
        line for line in doc[doc.index("## 10. Tuvalon") :].splitlines() if line.startswith("arena → frank   ERROR")
    )
    bots: dict[str, TuvalonRuleBot] = {n: TuvalonRuleBot(seed=i) for i, n in enumerate(NICKS)}
    bots["frank"] = Stubborn(seed=5)
    match, lines = play(bots, 2)
    assert shown.strip() in [line.strip() for line in lines]
    assert match.game.result is not None and match.game.result.forfeited is None  # corrected in time


def test_a_missed_deadline_forfeits_at_once_whatever_the_referees_escalation() -> None:
    hub = LocalHub(LENIENT)
    for i, nick in enumerate(NICKS):
        hub.connect(nick, TuvalonRuleBot(seed=i))
    lines = record(hub)
    # carol's bot goes away after the proposal: her move is never answered
    original = hub.referee.on_message

    def drop(
        sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        if sender == "carol" and " move" not in text and text.startswith("ANSWER") and len(lines) > 60:
            return
        original(sender, target, text, now, account, msg)

    hub.referee.on_message = drop  # type: ignore[method-assign]
    match = hub.play("tuvalon", NICKS, TuvalonOptions(), 4, gid="g1")
    result = match.game.result
    assert result is not None and result.reason == "forfeit" and result.forfeited == 2
    assert result.winners == frozenset()
    assert not any(" WARN g1 " in line for line in lines)
    timeout = [line for line in lines if " TIMEOUT g1 " in line]
    assert len(timeout) == 1 and "player=carol action=forfeit" in timeout[0]
    end = parse(next(line for line in lines if " END g1 " in line).split("  ", 1)[1].strip())
    assert end.get("forfeit") == "carol" and end.get("why") == "timeout" and end.get("winner") == "none"


class Talkative(TuvalonRuleBot):
    """Says 120 bytes at every turn of both discussions."""

    def speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:  # type: ignore[override]
        return "x" * 120

    def near_speech(self, game: TuvalonView, ask: TurnAsk) -> Talk:
        return "y" * 120


def test_going_over_the_speech_budget_forfeits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a bot that does not keep to its budget (the SDK's guard, tested below, taken away)
    monkeypatch.setattr(Session, "within_budget", staticmethod(lambda game, lines: lines))
    bots: dict[str, TuvalonRuleBot] = {n: TuvalonRuleBot(seed=i) for i, n in enumerate(NICKS)}
    bots["dave"] = Talkative(seed=3)
    match, lines = play(bots, 1, TuvalonOptions(speech_budget=300))
    result = match.game.result
    assert result is not None and result.reason == "forfeit" and result.forfeited == 3
    said = [t for t in match.talk if t.seat == 3]
    relayed = {line for to, line in match.transcript if line.startswith("TEAM g1 from=dave")}
    spoken = sum(len(t.text.encode()) for t in said) + 120 * len(relayed)
    assert spoken <= 300 and len(said) + len(relayed) == 2  # the third line, over 300, was not said
    end = parse(next(line for to, line in match.transcript if line.startswith("END g1")))
    assert end.get("forfeit") == "dave" and end.get("why") == "speech_budget"


def test_refused_lines_do_not_count_against_the_speech_budget() -> None:
    """protocol.md, section 10: a line the referee refuses (its ERROR says so) is no part of
    the game, so it costs nothing of the budget: dave's 1200 refused bytes leave him his
    300, of which he says 240."""
    hub = LocalHub(LENIENT)
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Talkative(seed=3) if nick == "dave" else TuvalonRuleBot(seed=i))
    match = hub.referee.start_game(
        "tuvalon", NICKS, TuvalonOptions(speech_budget=300), 1, hub.channel, hub.now, gid="g1"
    )
    before = len(match.transcript)
    for _ in range(3):
        hub.referee.on_message("dave", hub.referee.nick, "TEAM g1 :" + "z" * 200, hub.now)  # not his turn
        hub.referee.on_message("dave", hub.channel, "w" * 200, hub.now)  # not the floor holder
    refusals = [parse(line).args[0] for to, line in match.transcript[before:] if to == "dave"]
    assert refusals == ["INVALID_PHASE", "NOT_YOUR_TURN"] * 3
    while not match.over:
        hub.run()
        if not match.over:
            hub.now = hub.referee.next_deadline() or hub.now
            hub.referee.poll(hub.now)
    assert match.game.result is not None and match.game.result.forfeited is None
    said = [t.text for t in match.talk if t.seat == 3]
    relayed = {line.split(" :", 1)[1] for to, line in match.transcript if line.startswith("TEAM g1 from=dave")}
    assert said + sorted(relayed) == ["x" * 120, "y" * 120]


def test_where_the_server_has_modes_the_floor_holder_alone_is_voiced_in_the_first_discussion() -> None:
    """protocol.md, sections 4 and 10: a Tuvalon channel is moderated as Werewolf's; each
    speaker of the first discussion is voiced before its ASK and devoiced after its turn;
    nobody is voiced for the second discussion (it is said by TEAM)."""
    hub = LocalHub(LENIENT, messages=False)
    for i, nick in enumerate(NICKS):
        hub.connect(nick, TuvalonRuleBot(seed=i))
    log: list[tuple[str, str]] = []
    send = hub.referee.send

    def logged(target: str, text: str) -> None:
        log.append(("SEND", text))
        send(target, text)

    hub.referee.send = logged
    hub.referee.mode = lambda channel, modes: log.append(("MODE", modes))
    match = hub.play("tuvalon", NICKS, TuvalonOptions(), 1, gid="g1")
    assert match.game.result is not None and log[0] == ("MODE", "+m")
    voiced: str | None = None
    for what, text in log[1:]:
        if what == "MODE":
            sign, nick = text.split(" ")
            voiced = nick if sign == "+v" else None
        elif text.startswith("ASK g1 ") and parse(text).args[2] == "speak":
            assert voiced == parse(text).get("to")
        elif text.startswith("ASK g1 "):  # a move, the second discussion, a vote...: no voice
            assert voiced is None, text


def test_no_budget_when_it_is_zero() -> None:
    bots: dict[str, TuvalonRuleBot] = {n: TuvalonRuleBot(seed=i) for i, n in enumerate(NICKS)}
    bots["dave"] = Talkative(seed=3)
    match, _ = play(bots, 1, TuvalonOptions(speech_budget=0))
    assert match.game.result is not None and match.game.result.forfeited is None


def test_the_sdk_keeps_a_bot_within_its_speech_budget() -> None:
    """A bot that would go over the budget says what the budget holds, and no more: the
    session leaves the rest out, so the game goes on to its end."""
    bots: dict[str, TuvalonRuleBot] = {n: TuvalonRuleBot(seed=i) for i, n in enumerate(NICKS)}
    bots["dave"] = Talkative(seed=3)
    match, _ = play(bots, 1, TuvalonOptions(speech_budget=300))
    assert match.game.result is not None and match.game.result.forfeited is None
    said = [t.text for t in match.talk if t.seat == 3]
    relayed = {line.split(" :", 1)[1] for to, line in match.transcript if line.startswith("TEAM g1 from=dave")}
    assert said + sorted(relayed) == ["x" * 120, "y" * 120]  # a third line would make 360 bytes


def test_the_speech_budget_counts_what_was_said_before_a_resync() -> None:
    """A bot that comes back to its game (``RESYNC``) keeps counting what it said before."""
    said: list[str] = []
    session = welcomed(Session(Talkative(seed=3), "dave", "arena", say=lambda gid, text: said.append(text)))
    start = (
        "START g1 game=tuvalon seats=alice,bob,carol,dave,erin,frank,grace options=speech_budget:300 good=4 "
        "evil=3 quests=2,3,3,4,4 fails=1,1,2,2,1 map=9x9"
    )
    role = "ROLE g1 role=knight side=good sees= hearing=2"
    cells = "MAP g1 cells=alice:a1,bob:b1,carol:c1,dave:d1,erin:e1,frank:f1,grace:g1"
    for line in (start, role, cells):
        session.feed("arena", line)
    assert session.feed(
        "arena", "ASK g1 2 speak to=dave deadline=30 options=done,pass floor=true quest=1 turn=4", "#arena-g1"
    ) == ["ANSWER g1 2 done"]
    assert said == ["x" * 120] and session.games["g1"].speech_left() == 180
    session.feed("arena", "RESYNC g1 begin seat=dave channel=#arena-g1")
    for line in (start, role, cells, "RESYNC g1 end"):
        session.feed("arena", line)
    near = session.feed("arena", "ASK g1 9 speak_near to=dave deadline=30 options=done,pass quest=1 turn=4")
    assert near == ["TEAM g1 :" + "y" * 120, "ANSWER g1 9 done"]
    assert session.games["g1"].speech_left() == 60
    assert session.feed(
        "arena", "ASK g1 16 speak to=dave deadline=30 options=done,pass floor=true quest=1 turn=4", "#arena-g1"
    ) == ["ANSWER g1 16 done"]
    assert said == ["x" * 120], "a third line of 120 bytes would go over 300"
