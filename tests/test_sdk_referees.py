"""Several referees share one lobby (protocol.md, section 4, "Several referees"): a bot
registers once, with the referee it was configured with, obeys every referee that a trusted
one lists, follows each game's lines only from the referee that runs it, sends that game's
lines to it alone, and drops a referee whose nick leaves. Lines are fed by hand to a session
and to an IRC runner that is not connected."""

from __future__ import annotations

import pytest

from arena.sdk import Bot, Session
from arena.sdk.runner import BotRunner

from .welcomed import welcomed

HOME, OTHER, THIRD = "arena", "arena2", "arena3"
SEATS = "alice,bob,carol,dave,erin"
TABLE = "TABLE g1 game=avalon channel=#arena-g1 seats=" + SEATS + " referee={referee}"
START = "START g1 game=avalon seats=" + SEATS + " quests=2,3,2,3,3 fails=1,1,1,1,1 good=3 evil=2"
VOTE = "ASK g1 {rid} vote to=all deadline=30 options=approve,reject quest=1 leader=bob team=alice,bob rejections=0"
RESUME = "RESUME g1 game=avalon channel=#arena-g1-r1 seats=" + SEATS + " wait=60 referee={referee}"
WELCOME = "WELCOME alice protocol=2 name=alice referees=arena,arena2"


class Approver(Bot):
    def vote(self, game: object, ask: object) -> str:
        return "approve"


def shared(welcome: str = WELCOME) -> tuple[Session, list[str]]:
    """A session welcomed by the configured referee in a lobby it shares with another; the
    channels it joins."""
    joins: list[str] = []
    s = Session(Approver(), "alice", HOME, join=joins.append)
    assert s.feed(HOME, welcome) == [] and s.registered
    return s, joins


def test_a_game_of_another_referee_of_the_set_is_played_with_it() -> None:
    s, joins = shared()
    assert s.feed(OTHER, TABLE.format(referee=OTHER)) == [] and joins == ["#arena-g1"]
    assert s.referees.of("g1") == OTHER
    s.feed(OTHER, START, "#arena-g1")
    assert s.feed(OTHER, VOTE.format(rid=1), "#arena-g1") == ["ANSWER g1 1 approve"]
    assert s.feed(HOME, VOTE.format(rid=2), "#arena-g1") == [], "the game is not the configured referee's"
    assert s.feed(OTHER, "END g1 winner=good reason=merlin_survived roles=", "#arena-g1") == []
    assert s.finished == 1 and s.referees.of("g1") == HOME, "an ended game is forgotten"


def test_without_referees_in_welcome_only_the_configured_referee_is_obeyed() -> None:
    s, joins = shared("WELCOME alice protocol=2 name=alice")
    assert s.feed(OTHER, TABLE.format(referee=OTHER)) == [] and joins == []
    s.feed(HOME, TABLE.format(referee=HOME))
    s.feed(HOME, START)
    assert s.feed(OTHER, VOTE.format(rid=1)) == []
    assert s.feed(HOME, VOTE.format(rid=2)) == ["ANSWER g1 2 approve"] and s.referees.of("g1") == HOME


@pytest.mark.parametrize(
    "sender,line",
    [
        (OTHER, TABLE.format(referee=HOME)),  # another referee's name: not the sender's table
        (HOME, TABLE.format(referee=OTHER)),
        (THIRD, TABLE.format(referee=THIRD)),  # not a referee of the set
        ("mallory", TABLE.format(referee="mallory")),
        (OTHER, "TABLE g1 game=avalon channel=#arena-g1 seats=" + SEATS),  # absent: the configured referee's
    ],
)
def test_a_table_is_followed_only_from_the_referee_it_names(sender: str, line: str) -> None:
    s, joins = shared()
    assert s.feed(sender, line) == [] and joins == [] and s.referees.of("g1") == HOME


def test_registration_lines_count_only_from_the_configured_referee() -> None:
    s = Session(Approver(), "alice", HOME)
    s.feed(OTHER, WELCOME)
    assert not s.registered, "no referee of the lobby is known before the configured one welcomes us"
    s, _ = shared()
    s.feed(OTHER, "WELCOME alice protocol=2 name=alice referees=arena2,arena3")
    assert s.feed(THIRD, TABLE.format(referee=THIRD)) == [] and s.referees.of("g1") == HOME


def test_referees_replaces_the_set_and_counts_only_from_a_referee_of_it() -> None:
    s, joins = shared()
    s.feed(THIRD, "REFEREES nicks=arena,arena2,arena3")
    s.feed(THIRD, TABLE.format(referee=THIRD))
    assert joins == [], "REFEREES from a nick outside the set changes nothing"
    s.feed(OTHER, "REFEREES nicks=arena2,arena3")
    s.feed(THIRD, TABLE.format(referee=THIRD))
    assert joins == ["#arena-g1"] and s.referees.of("g1") == THIRD
    s.feed(THIRD, "REFEREES nicks=arena3")
    assert s.feed(OTHER, "TABLE g2 game=avalon channel=#arena-g2 seats=alice referee=arena2") == []
    assert joins == ["#arena-g1"], "arena2 is no referee of the set any more"
    s.feed(HOME, "TABLE g3 game=avalon channel=#arena-g3 seats=alice")
    assert joins[-1] == "#arena-g3", "the configured referee stays trusted, listed or not"


def test_a_resume_moves_the_game_to_the_referee_it_names() -> None:
    """A failover: another referee of the set takes the game up; from then on the game's
    lines come from it alone, and ours go to it."""
    s, joins = shared()
    s.feed(HOME, "REFEREES nicks=arena,arena2,arena3")
    s.feed(OTHER, TABLE.format(referee=OTHER))
    s.feed(OTHER, START, "#arena-g1")
    assert s.feed(HOME, RESUME.format(referee=OTHER)) == [] and joins == ["#arena-g1"], "not its sender's name"
    s.feed(THIRD, RESUME.format(referee=THIRD))
    assert joins == ["#arena-g1", "#arena-g1-r1"] and s.referees.of("g1") == THIRD
    s.feed(THIRD, "RESYNC g1 begin seat=alice channel=#arena-g1-r1")
    s.feed(THIRD, START)
    s.feed(THIRD, "RESYNC g1 end")
    assert s.feed(OTHER, VOTE.format(rid=5), "#arena-g1-r1") == [], "the old referee speaks for it no more"
    assert s.feed(THIRD, VOTE.format(rid=6), "#arena-g1-r1") == ["ANSWER g1 6 approve"]


def test_a_resync_from_a_referee_of_the_set_brings_the_game_back_with_it() -> None:
    """A bot that comes back from a new connection knows nothing of where its game went:
    the referee that resyncs it runs it. Another referee's lines of the game count no more."""
    s, joins = shared()
    s.feed(HOME, TABLE.format(referee=HOME))
    s.feed(HOME, START)
    s.feed(OTHER, "RESYNC g1 begin seat=alice channel=#arena-g1-r1")
    assert s.referees.of("g1") == OTHER and joins[-1] == "#arena-g1-r1"
    s.feed(OTHER, START)
    s.feed(OTHER, "RESYNC g1 end")
    assert s.feed(HOME, VOTE.format(rid=3)) == []
    assert s.feed(OTHER, VOTE.format(rid=4)) == ["ANSWER g1 4 approve"]


def test_a_withdrawn_table_is_left_only_at_its_referees_word() -> None:
    parts: list[str] = []
    s = welcomed(Session(Approver(), "alice", HOME, part=parts.append))
    s.feed(HOME, "REFEREES nicks=arena,arena2")
    s.feed(OTHER, TABLE.format(referee=OTHER))
    s.feed(HOME, "TABLE g1 game=avalon channel=#arena-g1 seats=")
    assert parts == [] and s.channel_of("g1") == "#arena-g1"
    s.feed(OTHER, "TABLE g1 game=avalon channel=#arena-g1 seats= referee=arena2")
    assert parts == ["#arena-g1"] and s.channel_of("g1") is None and s.referees.of("g1") == HOME


def test_a_table_whose_referee_stopped_is_withdrawn_by_the_referee_that_took_over() -> None:
    parts: list[str] = []
    s = welcomed(Session(Approver(), "alice", HOME, part=parts.append))
    s.feed(HOME, "REFEREES nicks=arena,arena2,arena3")
    s.feed(OTHER, TABLE.format(referee=OTHER))
    s.feed(THIRD, "TABLE g1 game=avalon channel=#arena-g1 seats=alice referee=arena3")  # not a withdrawal
    assert parts == [] and s.referees.of("g1") == OTHER
    s.feed(THIRD, "TABLE g1 game=avalon channel=#arena-g1 seats= referee=arena3")
    assert parts == ["#arena-g1"] and s.channel_of("g1") is None


def test_continued_messages_of_two_referees_are_joined_apart() -> None:
    """Each referee sends the parts of a long message back to back, but two referees' lines
    interleave: each sender's parts are joined with its own."""
    s, joins = shared()
    s.feed(OTHER, "TABLE g1 game=avalon channel=#arena-g1 seats=bob,carol referee=arena2 more=true")
    s.feed(HOME, "TABLE g2 game=avalon channel=#arena-g2 seats=alice,bob")
    s.feed(OTHER, "TABLE g1 seats=alice,dave")
    assert joins == ["#arena-g2", "#arena-g1"] and s.referees.of("g1") == OTHER and s.referees.of("g2") == HOME


class Offline:
    """A BotRunner fed lines by hand that keeps what it would send, and to whom."""

    def __init__(self, max_games: int | None = None) -> None:
        self.runner = BotRunner(Approver(), "127.0.0.1", 1, "alice", referee=HOME, workers=1, max_games=max_games)
        self.sent: list[tuple[str, str]] = []
        self.runner.link.send = self._send  # type: ignore[method-assign]
        self.runner.link.is_me = lambda nick: nick.lower() == "alice"  # type: ignore[method-assign]
        self.feed(HOME, WELCOME)

    def _send(self, target: str, text: str, *, formatting: bool = False) -> bool:
        self.sent.append((target, text))
        return True

    def feed(self, sender: str, line: str, target: str = "alice") -> None:
        self.runner._on_message(sender, target, line)

    def answered(self, count: int) -> list[tuple[str, str]]:
        """What was sent once ``count`` answers went out (decisions run on a worker)."""
        for _ in range(500):
            if sum(text.startswith("ANSWER") for _, text in self.sent) >= count:
                break
            self.runner.reactor.process_once(0.01)
        return self.sent


def test_the_runner_answers_each_game_to_its_referee_and_the_rest_to_its_own() -> None:
    off = Offline(max_games=1)
    off.feed(OTHER, TABLE.format(referee=OTHER), "#arena")
    off.feed(OTHER, START, "#arena-g1")
    off.feed(OTHER, VOTE.format(rid=1), "#arena-g1")
    assert off.answered(1) == [(OTHER, "ANSWER g1 1 approve")]
    off.feed(OTHER, "ERROR ACTION_NOT_ALLOWED g1 1 :not now")
    assert off.sent[-1][0] == OTHER and off.sent[-1][1].startswith("ANSWER g1 1 "), "a retry, to the game's referee"
    off.feed(OTHER, "END g1 winner=good reason=merlin_survived roles=", "#arena-g1")
    assert off.sent[-1] == (HOME, "UNREGISTER"), "a line of no game goes to the configured referee"


def test_the_runner_drops_a_referee_that_leaves_and_registers_only_when_its_own_comes_back() -> None:
    off = Offline()
    runner = off.runner
    off.feed(OTHER, TABLE.format(referee=OTHER), "#arena")
    off.feed(OTHER, START, "#arena-g1")
    runner._on_membership("quit", OTHER, None, None)
    assert off.sent == [], "another referee leaving: no new registration"
    off.feed(OTHER, VOTE.format(rid=1), "#arena-g1")
    assert off.answered(1) == [], "whoever holds its nick now is a stranger"
    off.feed(HOME, "REFEREES nicks=arena,arena2")
    off.feed(OTHER, VOTE.format(rid=2), "#arena-g1")
    assert off.answered(1) == [(OTHER, "ANSWER g1 2 approve")], "listed again by a trusted referee"
    runner._on_membership("quit", HOME, None, None)
    assert runner.session.registered and not runner.session.welcomed, "still registered with arena2"
    off.feed(OTHER, VOTE.format(rid=3), "#arena-g1")
    assert off.answered(2)[-1] == (OTHER, "ANSWER g1 3 approve"), "arena2's game goes on"
    off.feed(HOME, "TABLE g2 game=avalon channel=#arena-g2 seats=alice", "#arena")
    assert runner.session.channel_of("g2") is None, "the configured referee's nick is a stranger's now"
    runner._on_membership("join", HOME, "#arena", None)
    assert off.sent[-1][0] == HOME and off.sent[-1][1].startswith("REGISTER "), "it came back: register again"
    off.feed(HOME, "WELCOME alice protocol=2 name=alice referees=arena,arena2")
    assert runner.session.welcomed
    runner._on_membership("nick", OTHER, None, "arena9")
    runner._on_membership("quit", HOME, None, None)
    assert not runner.session.registered, "no referee of the lobby is left"
