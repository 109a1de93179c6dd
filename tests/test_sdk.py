"""The bot SDK's Session: only the referee is heard, only requests addressed to us are
answered, decisions see parsed requests, and a broken bot still answers legally."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any, NoReturn

import pytest
import scramp

import arena.games  # noqa: F401  (in this process; the SDK alone is checked in a subprocess below)
from arena.protocol import ANSWER, PROTOCOL_VERSION, REGISTER, Message, pack_scram, parse, unpack_scram
from arena.sdk import Ask, Bot, GameView, Session
from tests.welcomed import welcomed

REF = "arena"
SEATS = ["alice", "bob", "carol", "dave", "erin"]
START_LINE = (
    "START g1 game=avalon seats=alice,bob,carol,dave,erin "
    "options=merlin:true,percival:true,morgana:true,mordred:false,oberon:false,lancelot:0,evil_at_nine:3 "
    "good=3 evil=2 quests=2,3,2,3,3 fails=1,1,1,1,1"
)
ROLE_LINE = "ROLE g1 role=merlin side=good sees=carol,erin"
VOTE_ASK = "ASK g1 2 vote to=all deadline=30 options=approve,reject quest=1 leader=bob team=alice,bob rejections=0"
TEAM_ASK = "ASK g1 1 team to=alice deadline=25 options=alice,bob,carol,dave,erin pick=2 quest=1 attempt=1 rejections=0"
END_LINE = (
    "END g1 winner=good reason=merlin_survived roles=alice:merlin,bob:servant,carol:assassin,dave:percival,erin:morgana"
)


class Recorder(Bot):
    owner = "tests"
    version = "9.9"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.calls: list[tuple[str, GameView[Any], Ask]] = []
        self.starts: list[GameView[Any]] = []
        self.roles: list[GameView[Any]] = []
        self.events: list[Message] = []
        self.ends: list[Message] = []
        self.errors: list[Message] = []

    def vote(self, game: GameView[Any], ask: Ask) -> str:
        self.calls.append(("vote", game, ask))
        return "reject"

    def team(self, game: GameView[Any], ask: Ask) -> list[str]:
        self.calls.append(("team", game, ask))
        return ["alice", "dave"]

    def on_start(self, game: GameView[Any]) -> None:
        self.starts.append(game)

    def on_role(self, game: GameView[Any]) -> None:
        self.roles.append(game)

    def on_event(self, game: GameView[Any], msg: Message) -> None:
        self.events.append(msg)

    def on_end(self, game: GameView[Any], msg: Message) -> None:
        self.ends.append(msg)

    def on_error(self, msg: Message) -> None:
        self.errors.append(msg)


class Broken(Bot):
    def vote(self, game: GameView[Any], ask: Ask) -> NoReturn:
        raise RuntimeError("bug in the bot")

    def team(self, game: GameView[Any], ask: Ask) -> NoReturn:
        raise KeyError("another bug")

    def quest(self, game: GameView[Any], ask: Ask) -> str:
        assert None is not None
        upper: str = getattr(None, "upper")()  # AttributeError
        return upper


def session(bot: Bot | None = None, nick: str = "alice") -> Session:
    s = welcomed(Session(bot or Recorder(), nick, REF))
    assert s.feed(REF, START_LINE) == []
    assert s.feed(REF, ROLE_LINE) == []
    return s


def test_hello_registers_with_protocol_version_1() -> None:
    line = Session(Recorder(), "alice", REF).hello()
    msg = parse(line)
    assert msg.verb == REGISTER
    assert msg.args == (str(PROTOCOL_VERSION),) == ("2",)
    assert (msg.get("name"), msg.get("owner"), msg.get("version")) == ("alice", "tests", "9.9")
    assert parse(Session(Bot(), "x", REF).hello()).fields == {"name": "x", "owner": "anonymous", "version": "0.1"}


KEY = "K3yK3yK3yK3yK3yK3yK3yK3yK3yK3yK3"


def scram_server(key: str = KEY) -> scramp.ScramServer:
    salt, stored, server, count = scramp.ScramMechanism().make_auth_info(key, iteration_count=4096)
    return scramp.ScramMechanism().make_server(lambda user: (salt, stored, server, count))


def test_a_key_is_proven_by_scram_and_never_sent() -> None:
    """REGISTER carries SCRAM's client-first-message (user: the nick), the CHALLENGE gets a
    PROOF, and the session is registered only by a WELCOME whose signature is right."""
    s = Session(Bot(), "x7", REF, name="x", key=KEY)
    line = s.hello()
    hello = parse(line)
    assert hello.get("name") == "x" and "key" not in hello.fields and KEY not in line
    first = unpack_scram(hello.fields["scram"])
    assert first.startswith("n,,n=x7,r=") and len(first) >= len("n,,n=x7,r=") + 24
    server = scram_server()
    server.set_client_first(first)
    (proof_line,) = s.feed(
        REF, Message.make("CHALLENGE", name="x", scram=pack_scram(server.get_server_first())).format()
    )
    proof = parse(proof_line)
    assert proof.verb == "PROOF" and KEY not in proof_line
    server.set_client_final(unpack_scram(proof.fields["scram"]))
    assert not s.registered
    s.feed(
        REF, Message.make("WELCOME", "x7", protocol=1, name="x", scram=pack_scram(server.get_server_final())).format()
    )
    assert s.registered


@pytest.mark.parametrize("signature", [None, "v=" + "A" * 43 + "=", "e=invalid-proof"])
def test_a_referee_that_cannot_sign_is_not_trusted(signature: str | None) -> None:
    """A squatter on the referee's nick cannot sign the WELCOME (it lacks the bot's key's
    ServerKey): the session stays unregistered and obeys none of its lines."""
    joined: list[str] = []
    s = Session(Recorder(), "alice", REF, key=KEY, join=joined.append)
    first = unpack_scram(parse(s.hello()).fields["scram"])
    squatter = scram_server("another key entirely, of course")  # it can make up any challenge
    squatter.set_client_first(first)
    assert s.feed(REF, Message.make("CHALLENGE", scram=pack_scram(squatter.get_server_first())).format())
    welcome = Message.make(
        "WELCOME", "alice", protocol=1, **({} if signature is None else {"scram": pack_scram(signature)})
    )
    assert s.feed(REF, welcome.format()) == []
    assert not s.registered
    assert s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=" + ",".join(SEATS)) == [] and joined == []
    for line in (START_LINE, ROLE_LINE, "ASK g1 1 vote to=all deadline=30 options=approve,reject quest=1"):
        assert s.feed(REF, line) == []
    assert not s.games


def test_an_unregistered_session_obeys_no_game_line() -> None:
    """Before any WELCOME (a bot without a key, or one whose registration went nowhere),
    tables, starts, roles and requests from the referee's nick are ignored."""
    joined: list[str] = []
    s = Session(Recorder(), "alice", REF, join=joined.append)
    s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=" + ",".join(SEATS))
    for line in (START_LINE, ROLE_LINE, "ASK g1 1 vote to=all deadline=30 options=approve,reject quest=1"):
        assert s.feed(REF, line) == []
    assert joined == [] and not s.games


def test_welcome_marks_the_session_registered() -> None:
    s = Session(Recorder(), "alice", REF)
    assert not s.registered
    assert s.feed("mallory", "WELCOME alice protocol=1 name=recorder") == []
    assert not s.registered
    assert s.feed(REF, "WELCOME alice protocol=1 name=recorder") == []
    assert s.registered


@pytest.mark.parametrize("impostor", ["mallory", "arena_", "arena2", "#arena", ""])
def test_lines_not_from_the_referee_are_ignored(impostor: str) -> None:
    bot = Recorder()
    s = welcomed(Session(bot, "alice", REF))
    # A fake START from someone else creates no game...
    assert s.feed(impostor, START_LINE) == []
    assert s.games == {} and bot.starts == []
    # ...so not even the referee's own requests for it are answered.
    assert s.feed(REF, VOTE_ASK) == []
    # With a real game, a fake ASK, ROLE or END from someone else does nothing.
    s = session(bot)
    for line in (
        VOTE_ASK,
        TEAM_ASK,
        "ROLE g1 role=assassin side=evil sees=bob",
        END_LINE,
        "WARN g1 2 seconds=10 :answer now",
        "ERROR STALE_REQUEST g1 2 :nope",
    ):
        assert s.feed(impostor, line) == []
    assert bot.calls == [] and bot.ends == [] and bot.errors == []
    assert s.games["g1"].role == "merlin"
    assert s.games["g1"].messages[-1].verb == "ROLE"


def test_referee_nick_is_case_insensitive() -> None:
    s = session()
    assert s.feed("ARENA", VOTE_ASK) == ["ANSWER g1 2 reject"]


@pytest.mark.parametrize("to", ["all", "alice", "bob,alice,carol", "ALICE", "Alice,erin"])
def test_answers_requests_addressed_to_it(to: str) -> None:
    s = session()
    line = VOTE_ASK.replace("to=all", f"to={to}")
    assert s.feed(REF, line) == ["ANSWER g1 2 reject"]


@pytest.mark.parametrize("to", ["bob", "bob,carol", "", "alicex", "al", "alice_"])
def test_ignores_requests_addressed_to_others(to: str) -> None:
    bot = Recorder()
    s = session(bot)
    assert s.feed(REF, VOTE_ASK.replace("to=all", f"to={to}")) == []
    assert bot.calls == []
    # A bot still sees what others are asked (e.g. whom the leader must pick for).
    assert bot.events and bot.events[-1].verb == "ASK"


def test_requests_of_unknown_games_and_garbage_are_ignored() -> None:
    bot = Recorder()
    s = session(bot)
    assert s.feed(REF, VOTE_ASK.replace("g1", "g2")) == []
    for line in ("", "not protocol", "ASK g1 2", "\x01VERSION\x01", "ANSWER g1 2 approve"):
        assert s.feed(REF, line) == []
    assert bot.calls == []


def test_start_without_our_nick_is_not_our_game() -> None:
    bot = Recorder()
    s = welcomed(Session(bot, "zed", REF))
    assert s.feed(REF, START_LINE) == []
    assert s.games == {} and bot.starts == []
    assert s.feed(REF, VOTE_ASK) == []


def test_decision_methods_get_parsed_game_view_and_ask() -> None:
    bot = Recorder()
    s = session(bot)
    assert len(bot.starts) == 1 and len(bot.roles) == 1
    assert s.feed(REF, TEAM_ASK) == ["ANSWER g1 1 alice,dave"]  # a multi-pick answer is comma-joined
    kind, game, ask = bot.calls[-1]
    assert kind == "team"
    assert (game.gid, game.kind, game.me, game.seats) == ("g1", "avalon", "alice", SEATS)
    assert game.options["percival"] == "true" and game.options["lancelot"] == "0"
    assert (game.role, game.side, game.sees) == ("merlin", "good", ["carol", "erin"])
    assert game.others == ["bob", "carol", "dave", "erin"]
    assert game.start.verb == "START" and not game.over
    assert (ask.game, ask.rid, ask.kind) == ("g1", "1", "team")
    assert ask.options == SEATS
    assert ask.pick == 2 and ask.deadline == 25.0
    assert ask.fields["quest"] == "1" and ask.fields["to"] == "alice"
    assert ask.message == parse(TEAM_ASK)

    assert s.feed(REF, VOTE_ASK) == ["ANSWER g1 2 reject"]
    kind, game, ask = bot.calls[-1]
    assert kind == "vote"
    assert (ask.rid, ask.options, ask.pick, ask.deadline) == ("2", ["approve", "reject"], 1, 30.0)
    assert ask.fields["leader"] == "bob" and ask.message.list("team") == ["alice", "bob"]
    assert [m.verb for m in game.messages] == ["START", "ROLE", "ASK", "ASK"]


def test_undefined_decision_gets_a_random_legal_answer() -> None:
    s = session(Recorder())
    line = "ASK g1 9 assassinate to=alice deadline=30 options=bob,carol,dave,erin"
    (out,) = s.feed(REF, line)
    msg = parse(out)
    assert msg.verb == ANSWER and msg.args[:2] == ("g1", "9") and msg.args[2] in ["bob", "carol", "dave", "erin"]


@pytest.mark.parametrize("seed", range(5))
def test_a_bot_that_raises_still_answers_legally(seed: int) -> None:
    s = session(Broken(seed=seed))
    (out,) = s.feed(REF, VOTE_ASK)
    assert parse(out).args[:2] == ("g1", "2") and parse(out).args[2] in ("approve", "reject")
    (out,) = s.feed(REF, TEAM_ASK.replace("pick=2", "pick=3"))
    picked = parse(out).args[2].split(",")
    assert len(picked) == 3 == len(set(picked)) and set(picked) <= set(SEATS)
    (out,) = s.feed(REF, "ASK g1 3 quest to=alice deadline=30 options=success,fail quest=1 team=alice,bob")
    assert parse(out).args == ("g1", "3", parse(out).args[2]) and parse(out).args[2] in ("success", "fail")


def test_refused_answer_and_warning_get_one_random_legal_retry() -> None:
    bot = Recorder()
    s = session(bot)
    assert s.feed(REF, VOTE_ASK) == ["ANSWER g1 2 reject"]
    # An error about another request (or another game) changes nothing.
    assert s.feed(REF, "ERROR STALE_REQUEST g1 1 :old") == []
    assert s.feed(REF, "ERROR MALFORMED :bad line") == []
    (retry,) = s.feed(REF, "ERROR ACTION_NOT_ALLOWED g1 2 :no")
    assert parse(retry).args[:2] == ("g1", "2") and parse(retry).args[2] in ("approve", "reject")
    assert [e.args[0] for e in bot.errors] == ["STALE_REQUEST", "MALFORMED", "ACTION_NOT_ALLOWED"]
    # Only once: a second refusal cannot start a loop.
    assert s.feed(REF, "ERROR ACTION_NOT_ALLOWED g1 2 :no") == []
    assert s.feed(REF, "WARN g1 2 seconds=10 :late") == []
    # A warning about a request answered in the same process crossed the answer: no second one.
    assert s.feed(REF, TEAM_ASK.replace("g1 1", "g1 5")) == ["ANSWER g1 5 alice,dave"]
    assert s.feed(REF, "WARN g1 5 seconds=10 :late") == []
    # Over a network (answers on workers), a warning about the open request gets an answer
    # at once, whether the decision is still running or its answer was lost on the way.
    asked: list[Ask] = []
    remote = welcomed(Session(Recorder(), "alice", REF, respond=lambda game, ask: asked.append(ask)))
    remote.feed(REF, START_LINE)
    assert remote.feed(REF, TEAM_ASK.replace("g1 1", "g1 5")) == [] and len(asked) == 1
    (retry,) = remote.feed(REF, "WARN g1 5 seconds=10 :late")
    assert parse(retry).args[:2] == ("g1", "5") and len(parse(retry).args[2].split(",")) == 2


def test_end_closes_the_game() -> None:
    bot = Recorder()
    s = session(bot)
    assert s.feed(REF, "VOTES g1 approve=alice reject=bob,carol,dave,erin result=rejected rejections=1") == []
    assert bot.events[-1].verb == "VOTES"
    assert s.feed(REF, END_LINE) == []
    assert len(bot.ends) == 1 and bot.ends[0].pairs("roles")["carol"] == "assassin"
    assert s.games == {} and s.finished == 1
    assert s.feed(REF, VOTE_ASK) == []


def test_answer_formats_choices() -> None:
    ask = Ask("g4", "7", "team", SEATS, 3, 30.0, {}, parse(TEAM_ASK))
    assert Session.answer(ask, ["bob", "erin", "alice"]) == "ANSWER g4 7 bob,erin,alice"
    assert Session.answer(ask, "bob") == "ANSWER g4 7 bob"
    assert Session.answer(ask, ("a", "b")) == "ANSWER g4 7 a,b"  # type: ignore[arg-type]  # a tuple too
    assert Session.answer(ask, "bob", "late") == "ANSWER g4 7 bob fallback=late"


def test_an_answer_that_is_not_the_bots_choice_says_so() -> None:
    """A decision that raises is answered at random, marked ``fallback=error``; a bot that
    gives up itself (``Ask.fall_back``) marks it ``fallback=own``; its own choice is unmarked."""

    class Flaky(Bot):
        def __init__(self, how: str) -> None:
            super().__init__(seed=1)
            self.how = how

        def vote(self, game: GameView[Any], ask: Ask) -> str | list[str]:
            if self.how == "raise":
                raise ValueError("oops")
            return ask.fall_back() if self.how == "give up" else "approve"

    for how, tail in (("raise", " fallback=error"), ("give up", " fallback=own"), ("choose", " approve")):
        s = session(Flaky(how))
        (line,) = s.feed(REF, VOTE_ASK)
        assert line.startswith("ANSWER g1 ") and line.endswith(tail), (how, line)


def test_the_sdk_alone_hears_the_game_lines() -> None:
    """A bot program imports ``arena.sdk`` (``run_bot``), not the referee's games: the
    Avalon verbs (VOTES, QUEST, ...) must still reach ``on_event``. Run in a fresh
    interpreter, since this test process has imported ``arena.games`` already."""
    code = textwrap.dedent(f"""
        from arena.sdk import Bot, Session
        seen = []
        class B(Bot):
            def on_event(self, game, msg):
                seen.append(msg.verb)
        s = Session(B(), "alice", "arena")
        s.feed("arena", "WELCOME alice protocol=1 name=alice")
        s.feed("arena", {START_LINE!r})
        for line in [
            "DECK g1 cards=blank,switch,blank,blank,blank",
            "LOYALTY g1 quest=1 card=blank",
            "VOTES g1 approve=alice,bob,carol reject=dave,erin result=approved rejections=0",
            "QUEST g1 quest=1 team=alice,bob result=success fails=0 successes=1 failures=0",
            "ASSASSINATION g1 assassin=carol target=alice hit=true",
        ]:
            s.feed("arena", line)
        print(",".join(seen))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().split(",") == ["DECK", "LOYALTY", "VOTES", "QUEST", "ASSASSINATION"], (
        "game lines were dropped by a bot that imports only arena.sdk"
    )


def test_a_continued_request_is_answered_once_whole() -> None:
    bot = Recorder()
    s = session(bot)
    ask = Message.make("ASK", "g1", 7, "team", to="alice", deadline=25, options=SEATS, pick=2, quest=1)
    *held, last = ask.lines(60)
    assert len(held) == 2 and all(line.endswith(" more=true") for line in held)
    assert [s.feed(REF, line) for line in held] == [[], []]  # held until the last part
    assert s.feed(REF, last) == ["ANSWER g1 7 alice,dave"]
    ((_, _, seen),) = bot.calls
    assert seen.options == SEATS and seen.pick == 2 and "more" not in seen.fields


def test_a_games_channel_is_ignored_while_its_past_is_replayed() -> None:
    """Between ``RESYNC begin`` and ``end`` the referee's DMs carry the game; the same
    lines said in the channel meanwhile would be read twice."""
    bot = Recorder()
    s = welcomed(Session(bot, "alice7", REF))
    assert s.feed(REF, "RESYNC g1 begin seat=alice channel=#arena-g1") == []
    for line in (START_LINE, ROLE_LINE):
        s.feed(REF, line)
    votes = "VOTES g1 approve=alice reject=bob,carol,dave,erin result=rejected rejections=1"
    assert s.feed(REF, votes, "#arena-g1") == []
    s.feed(REF, votes)
    assert s.feed(REF, TEAM_ASK, "#arena-g1") == [] and s.feed(REF, TEAM_ASK) == [], "past requests get no answer"
    s.feed(REF, "RESYNC g1 end")
    assert [m.verb for m in s.games["g1"].messages] == ["START", "ROLE", "VOTES", "ASK"]
    assert s.feed(REF, VOTE_ASK, "#arena-g1") == ["ANSWER g1 2 reject"], "after the end, the channel is live"


def test_a_resumed_game_is_followed_into_its_new_channel_from_its_resume_line() -> None:
    """RESUME (lobby first, then the new channel) moves our game: we go there at once, not
    only when our RESYNC comes, which may wait behind the other bots' at the referee's line
    rate while the game waits for all of us. Someone else's game, or an impostor, moves
    nothing."""
    moves: list[tuple[str, str]] = []
    s = welcomed(
        Session(
            Recorder(),
            "alice",
            REF,
            join=lambda ch: moves.append(("join", ch)),
            part=lambda ch: moves.append(("part", ch)),
        )
    )
    s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=alice,bob,carol,dave,erin")
    s.feed(REF, START_LINE)
    resume = "RESUME g1 game=avalon channel=#arena-g1-r1 seats=alice,bob,carol,dave,erin wait=60"
    assert s.feed("mallory", resume) == []
    s.feed(REF, "RESUME g2 game=avalon channel=#arena-g2-r1 seats=bob,carol,dave,erin,frank wait=60")
    assert moves == [("join", "#arena-g1")]
    assert s.feed(REF, resume) == [] and s.feed(REF, resume) == []  # the lobby's, then the channel's
    assert moves == [("join", "#arena-g1"), ("part", "#arena-g1"), ("join", "#arena-g1-r1")]
    assert s.channel_of("g1") == "#arena-g1-r1"
    s.feed(REF, "RESYNC g1 begin seat=alice channel=#arena-g1-r1")
    assert moves[-1] == ("join", "#arena-g1-r1") and len(moves) == 3, "the RESYNC finds us there"
    s.feed(REF, START_LINE)
    s.feed(REF, "RESUME g1 game=avalon channel=#arena-g1-r0 seats=alice,bob,carol,dave,erin wait=60")
    s.feed(REF, resume)
    s.feed(REF, "RESYNC g1 end")
    assert len(moves) == 3, "the RESUME lines of the game's history (replayed in the block) move nothing"
    s.feed(REF, END_LINE)
    assert s.finished == 1 and moves[-1] == ("part", "#arena-g1-r1")


def test_a_table_withdrawn_before_its_start_is_left() -> None:
    """A TABLE announced again with no seats (one of its bots left before the start) sends
    us back to the lobby: we leave its channel. An impostor's, or one for a game that
    started, moves nothing."""
    moves: list[tuple[str, str]] = []
    s = Session(
        Recorder(), "alice", REF, join=lambda ch: moves.append(("join", ch)), part=lambda ch: moves.append(("part", ch))
    )
    s.feed(REF, "WELCOME alice protocol=1 name=alice")  # a bot without a key
    s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=alice,bob,carol,dave,erin")
    s.feed(REF, "TABLE g2 game=avalon channel=#arena-g2 seats=alice,bob,carol,dave,erin")
    s.feed(REF, START_LINE)
    assert s.feed("mallory", "TABLE g2 game=avalon channel=#arena-g2 seats=") == []
    s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=")
    assert s.channel_of("g1") == "#arena-g1" and len(moves) == 2, "g1 started: its channel stays"
    s.feed(REF, "TABLE g2 game=avalon channel=#arena-g2 seats=")
    assert moves == [("join", "#arena-g1"), ("join", "#arena-g2"), ("part", "#arena-g2")]
    assert s.channel_of("g2") is None and s.finished == 0


def test_a_game_that_ends_while_we_rejoin_its_channel_ends_once_with_its_replay() -> None:
    """A game that ends while its replay waits for us in its channel: its END said in the
    channel is ignored like the rest, and the replay, which then goes out, ends with it;
    its past requests get no answer, and the game ends for us once."""
    parts: list[str] = []
    bot = Recorder()
    s = welcomed(Session(bot, "alice", REF, part=parts.append))
    s.feed(REF, "TABLE g1 game=avalon channel=#arena-g1 seats=alice,bob,carol,dave,erin")
    s.feed(REF, START_LINE)
    assert s.feed(REF, "RESYNC g1 begin seat=alice channel=#arena-g1") == []
    assert s.feed(REF, END_LINE, "#arena-g1") == []
    assert s.finished == 0 and parts == []
    for line in (START_LINE, ROLE_LINE, TEAM_ASK, END_LINE, "RESYNC g1 end"):
        assert s.feed(REF, line) == []
    assert s.finished == 1 and s.games == {} and parts == ["#arena-g1"] and len(bot.ends) == 1
