"""The line grammar: every message kind round-trips, malformed lines get the right code,
and no input makes ``parse`` raise anything but ProtocolError."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.core.errors import ErrorCode
from arena.protocol import (
    ANSWER,
    ARITY,
    ASK,
    ASSASSINATION,
    BYE,
    DECK,
    END,
    ERROR,
    LOYALTY,
    PROTOCOL_VERSION,
    QUEST,
    REFEREES,
    REGISTER,
    REGISTERED,
    ROLE,
    START,
    TABLE,
    TEAM,
    TIMEOUT,
    UNREGISTER,
    VOTES,
    WARN,
    WELCOME,
    WHO,
    MORE,
    Message,
    ProtocolError,
    Reassembler,
    pack_scram,
    parse,
    redacted,
    register_verbs,
    unbundle,
    unpack_scram,
    valid_nick,
)

SEATS = ["alice", "bob", "carol", "dave", "erin"]

# (message built from Python values, the exact line it must format to)
CANONICAL: list[tuple[Message, str]] = [
    (
        Message.make(REGISTER, PROTOCOL_VERSION, name="rulebot", owner="alice", version="1.2"),
        "REGISTER 2 name=rulebot owner=alice version=1.2",
    ),
    (Message.make(UNREGISTER), "UNREGISTER"),
    (Message.make(WHO), "WHO"),
    (Message.make(ANSWER, "g7", 12, "approve"), "ANSWER g7 12 approve"),
    (Message.make(ANSWER, "g7", 11, ["alice", "carol", "dave"]), "ANSWER g7 11 alice,carol,dave"),
    (Message.make(WELCOME, "bob", protocol=1, name="randombot"), "WELCOME bob protocol=1 name=randombot"),
    # SCRAM messages travel base64'd, "=" padding and all: a value holds "=" after the first.
    (
        Message.make(REGISTER, PROTOCOL_VERSION, name="k", scram=pack_scram("n,,n=bob,r=abc+/=")),
        "REGISTER 2 name=k scram=biwsbj1ib2Iscj1hYmMrLz0=",
    ),
    (
        Message.make("CHALLENGE", name="k", scram="cj1hYmNkZWYscz1BQT09LGk9NDA5Ng=="),
        "CHALLENGE name=k scram=cj1hYmNkZWYscz1BQT09LGk9NDA5Ng==",
    ),
    (Message.make("PROOF", scram="Yz1iaXdzLHI9YWJjZGVmLHA9QUE9PQ=="), "PROOF scram=Yz1iaXdzLHI9YWJjZGVmLHA9QUE9PQ=="),
    (
        Message.make(WELCOME, "bob", protocol=1, name="k", scram="dj1BQT09"),
        "WELCOME bob protocol=1 name=k scram=dj1BQT09",
    ),
    (
        Message.make(WELCOME, "bob", protocol=2, name="k", referees=["arena", "arena2"]),
        "WELCOME bob protocol=2 name=k referees=arena,arena2",
    ),
    (Message.make(BYE), "BYE"),
    (Message.make(REFEREES, nicks=["arena", "arena2"]), "REFEREES nicks=arena,arena2"),
    (
        Message.make(REGISTERED, bots=["alice", "bob"], games=["g1:avalon", "g2:avalon"]),
        "REGISTERED bots=alice,bob games=g1:avalon,g2:avalon",
    ),
    (Message.make(REGISTERED, bots=[], games=[]), "REGISTERED bots= games="),
    (
        Message.make(ERROR, "ACTION_NOT_ALLOWED", "g1", 3, text="quest: 'fail' is not allowed; legal: ['success']"),
        "ERROR ACTION_NOT_ALLOWED g1 3 :quest: 'fail' is not allowed; legal: ['success']",
    ),
    (
        Message.make(ERROR, "MALFORMED", text="ANSWER takes 3 argument(s) before its fields, got 1"),
        "ERROR MALFORMED :ANSWER takes 3 argument(s) before its fields, got 1",
    ),
    (
        Message.make(ERROR, "UNKNOWN_GAME", "g9", text="no game 'g9' is running: a:b::c  two  spaces"),
        "ERROR UNKNOWN_GAME g9 :no game 'g9' is running: a:b::c  two  spaces",
    ),
    (Message.make(ERROR, "STALE_REQUEST", "g1", 4, text=""), "ERROR STALE_REQUEST g1 4 :"),
    (
        Message.make(
            START,
            "g1",
            game="avalon",
            seats=SEATS,
            options="merlin:true,percival:true,morgana:true,mordred:false,oberon:false,lancelot:0,evil_at_nine:3",
            good=3,
            evil=2,
            quests=[2, 3, 2, 3, 3],
            fails=[1, 1, 1, 1, 1],
        ),
        "START g1 game=avalon seats=alice,bob,carol,dave,erin "
        "options=merlin:true,percival:true,morgana:true,mordred:false,oberon:false,lancelot:0,evil_at_nine:3 "
        "good=3 evil=2 quests=2,3,2,3,3 fails=1,1,1,1,1",
    ),
    (Message.make(ROLE, "g1", role="servant", side="good", sees=[]), "ROLE g1 role=servant side=good sees="),
    (
        Message.make(ROLE, "g1", role="merlin", side="good", sees=["alice", "erin"]),
        "ROLE g1 role=merlin side=good sees=alice,erin",
    ),
    (
        Message.make(
            ASK, "g1", 1, "team", to=["alice"], deadline=30, options=SEATS, pick=2, quest=1, attempt=1, rejections=0
        ),
        "ASK g1 1 team to=alice deadline=30 options=alice,bob,carol,dave,erin pick=2 quest=1 attempt=1 rejections=0",
    ),
    (
        Message.make(
            ASK,
            "g1",
            2,
            "vote",
            to="all",
            deadline=30,
            options=["approve", "reject"],
            quest=1,
            leader="alice",
            team=["bob", "carol"],
            rejections=0,
        ),
        "ASK g1 2 vote to=all deadline=30 options=approve,reject quest=1 leader=alice team=bob,carol rejections=0",
    ),
    (
        Message.make(WARN, "g1", 4, seconds=10, text="your deadline passed; answer now or the default applies"),
        "WARN g1 4 seconds=10 :your deadline passed; answer now or the default applies",
    ),
    (Message.make(TIMEOUT, "g1", 4, player="bob", action="default"), "TIMEOUT g1 4 player=bob action=default"),
    (
        Message.make(
            END,
            "g1",
            winner="none",
            reason="forfeit",
            forfeit="bob",
            roles=["alice:assassin", "bob:servant", "carol:percival", "dave:merlin", "erin:morgana"],
        ),
        "END g1 winner=none reason=forfeit forfeit=bob "
        "roles=alice:assassin,bob:servant,carol:percival,dave:merlin,erin:morgana",
    ),
    (
        Message.make(
            END,
            "g2",
            winner="good",
            reason="merlin_survived",
            roles=["a:good_lancelot", "b:evil_lancelot"],
            lancelots=["a:evil", "b:good"],
        ),
        "END g2 winner=good reason=merlin_survived roles=a:good_lancelot,b:evil_lancelot lancelots=a:evil,b:good",
    ),
    (
        Message.make(TABLE, "g3", game="avalon", channel="#arena-g3", seats=SEATS),
        "TABLE g3 game=avalon channel=#arena-g3 seats=alice,bob,carol,dave,erin",
    ),
    (
        Message.make(TABLE, "g4", game="avalon", channel="#arena-g4", seats=SEATS, referee="arena2"),
        "TABLE g4 game=avalon channel=#arena-g4 seats=alice,bob,carol,dave,erin referee=arena2",
    ),
    (
        Message.make("RESYNC", "g3", "begin", seat="alice", channel="#arena-g3"),
        "RESYNC g3 begin seat=alice channel=#arena-g3",
    ),
    (Message.make("RESYNC", "g3", "end"), "RESYNC g3 end"),
    (
        Message.make("RESUME", "g3", game="avalon", channel="#arena-g3-r1", seats=["alice", "bob"], wait=60),
        "RESUME g3 game=avalon channel=#arena-g3-r1 seats=alice,bob wait=60",
    ),
    (
        Message.make("PAUSE", "g3", text="the results store cannot be written"),
        "PAUSE g3 :the results store cannot be written",
    ),
    (
        Message.make(
            VOTES, "g1", approve=["alice", "bob", "carol"], reject=["dave", "erin"], result="approved", rejections=0
        ),
        "VOTES g1 approve=alice,bob,carol reject=dave,erin result=approved rejections=0",
    ),
    (
        Message.make(VOTES, "g1", approve=[], reject=SEATS, result="rejected", rejections=5),
        "VOTES g1 approve= reject=alice,bob,carol,dave,erin result=rejected rejections=5",
    ),
    (
        Message.make(QUEST, "g1", quest=3, team=["alice", "bob"], result="fail", fails=1, successes=2, failures=1),
        "QUEST g1 quest=3 team=alice,bob result=fail fails=1 successes=2 failures=1",
    ),
    (
        Message.make(DECK, "g1", cards=["blank", "switch", "blank", "blank", "switch"]),
        "DECK g1 cards=blank,switch,blank,blank,switch",
    ),
    (Message.make(LOYALTY, "g1", quest=3, card="switch"), "LOYALTY g1 quest=3 card=switch"),
    (
        Message.make(ASSASSINATION, "g1", assassin="alice", target="erin", hit=False),
        "ASSASSINATION g1 assassin=alice target=erin hit=false",
    ),
    (
        Message.make(ASSASSINATION, "g1", assassin="alice", target="dave", hit=True),
        "ASSASSINATION g1 assassin=alice target=dave hit=true",
    ),
    (
        Message.make(
            "RATINGS", "g7", elo=["alice:1516:+16", "bob:1484:-16"], trueskill=["alice:27.0:+2.0", "bob:23.1:-1.9"]
        ),
        "RATINGS g7 elo=alice:1516:+16,bob:1484:-16 trueskill=alice:27.0:+2.0,bob:23.1:-1.9",
    ),
    # Werewolf (protocol.md, "Werewolf").
    (Message.make(TEAM, "g4", text="let us take erin"), "TEAM g4 :let us take erin"),
    (Message.make(TEAM, "g4", text="erin", **{"from": "alice"}), "TEAM g4 from=alice :erin"),
    (
        Message.make("RULES", "g4", options=["leaderEnabled:true", "maxDays:50"]),
        "RULES g4 options=leaderEnabled:true,maxDays:50",
    ),
    (Message.make("WOLVES", "g4", wolves=["alice", "bob"]), "WOLVES g4 wolves=alice,bob"),
    (Message.make("NIGHT", "g4", night=1), "NIGHT g4 night=1"),
    (Message.make("SEER", "g4", night=1, target="bob", side="werewolf"), "SEER g4 night=1 target=bob side=werewolf"),
    (
        Message.make("WOLF_VOTES", "g4", night=1, votes=["alice:erin", "bob:abstain"], target="erin"),
        "WOLF_VOTES g4 night=1 votes=alice:erin,bob:abstain target=erin",
    ),
    (Message.make("WOLF_TARGET", "g4", night=1, target="none"), "WOLF_TARGET g4 night=1 target=none"),
    (Message.make("LOVERS", "g4", lovers=["bob", "erin"], cupid="carol"), "LOVERS g4 lovers=bob,erin cupid=carol"),
    (
        Message.make("CHARMED", "g4", night=2, charmed=["bob", "dave"], new="dave"),
        "CHARMED g4 night=2 charmed=bob,dave new=dave",
    ),
    (Message.make("BLOCKED", "g4", night=2), "BLOCKED g4 night=2"),
    (Message.make("SILENCED", "g4", day=2, players=["bob"]), "SILENCED g4 day=2 players=bob"),
    (Message.make("CLEANSED", "g4", night=2, statuses=["charmed"]), "CLEANSED g4 night=2 statuses=charmed"),
    (
        Message.make("PUNISHED", "g4", day=2, player="bob", punishment="lose_vote"),
        "PUNISHED g4 day=2 player=bob punishment=lose_vote",
    ),
    (
        Message.make("DEALT", "g4", night=2, card="vision", player="bob", side="werewolf"),
        "DEALT g4 night=2 card=vision player=bob side=werewolf",
    ),
    (
        Message.make("CULT", "g4", night=2, leader="ann", members=["ann", "bob"], new="bob"),
        "CULT g4 night=2 leader=ann members=ann,bob new=bob",
    ),
    (Message.make("CARDS", "g4", cards=["witch", "werewolf"]), "CARDS g4 cards=witch,werewolf"),
    (Message.make("CAUGHT", "g4", night=2, player="bob"), "CAUGHT g4 night=2 player=bob"),
    (Message.make("ORACLE", "g4", target="bob", role="werewolf"), "ORACLE g4 target=bob role=werewolf"),
    (Message.make("MASONS", "g4", masons=["bob", "dave"]), "MASONS g4 masons=bob,dave"),
    (
        Message.make("DETECTIVE", "g4", night=1, players=["bob", "dave"], same=False),
        "DETECTIVE g4 night=1 players=bob,dave same=false",
    ),
    (Message.make("TRACKED", "g4", night=1, target="bob", visited=[]), "TRACKED g4 night=1 target=bob visited="),
    (
        Message.make("WATCHED", "g4", night=1, target="bob", visitors=["carol", "erin"]),
        "WATCHED g4 night=1 target=bob visitors=carol,erin",
    ),
    (Message.make("DAWN", "g4", day=1, dead=["erin"], roles=["erin:seer"]), "DAWN g4 day=1 dead=erin roles=erin:seer"),
    (
        Message.make("DAY", "g4", day=1, alive=["alice", "bob"], leader="none"),
        "DAY g4 day=1 alive=alice,bob leader=none",
    ),
    (Message.make("CANDIDACY", "g4", player="bob", stand=True), "CANDIDACY g4 player=bob stand=true"),
    (Message.make("LEADER_VOTE", "g4", player="dave", vote="bob"), "LEADER_VOTE g4 player=dave vote=bob"),
    (
        Message.make("LEADER", "g4", leader="bob", candidates=["bob"], counts=["bob:3"], abstentions=1, tie=False),
        "LEADER g4 leader=bob candidates=bob counts=bob:3 abstentions=1 tie=false",
    ),
    (
        Message.make(
            "ORDER", "g4", start="carol", direction="clockwise", speakers=["carol", "dave", "bob"], leader="bob"
        ),
        "ORDER g4 start=carol direction=clockwise speakers=carol,dave,bob leader=bob",
    ),
    (
        Message.make("SPEECH", "g4", player="carol", purpose="discussion", passed=False),
        "SPEECH g4 player=carol purpose=discussion passed=false",
    ),
    (
        Message.make("BALLOT", "g4", player="carol", vote="abstain", round=1),
        "BALLOT g4 player=carol vote=abstain round=1",
    ),
    (
        Message.make(
            "VOTE_RESULT",
            "g4",
            round=1,
            counts=["bob:2"],
            abstentions=1,
            outcome="execution",
            target="bob",
            candidates=[],
        ),
        "VOTE_RESULT g4 round=1 counts=bob:2 abstentions=1 outcome=execution target=bob candidates=",
    ),
    (
        Message.make("EXECUTION", "g4", day=1, player="bob", spared=False, role="werewolf"),
        "EXECUTION g4 day=1 player=bob spared=false role=werewolf",
    ),
    (Message.make("IDIOT", "g4", player="dave", role="idiot"), "IDIOT g4 player=dave role=idiot"),
    (Message.make("DEATH", "g4", day=2, player="erin", role="villager"), "DEATH g4 day=2 player=erin role=villager"),
    (Message.make("SHOT", "g4", hunter="carol", target="alice"), "SHOT g4 hunter=carol target=alice"),
    # Tuvalon's own (section 10).
    (Message.make("MAP", "g5", cells=["alice:a1", "bob:i9"]), "MAP g5 cells=alice:a1,bob:i9"),
    (
        Message.make("TEAM_PROPOSED", "g5", quest=1, leader="alice", team=["alice", "bob"], forced=False),
        "TEAM_PROPOSED g5 quest=1 leader=alice team=alice,bob forced=false",
    ),
    (Message.make("MOVE", "g5", player="bob", **{"from": "i9", "to": "h7"}), "MOVE g5 player=bob from=i9 to=h7"),
    (
        Message.make("FORCED", "g5", quest=2, leader="bob", team=["alice", "bob", "carol"]),
        "FORCED g5 quest=2 leader=bob team=alice,bob,carol",
    ),
]


@pytest.mark.parametrize(
    "message,line", CANONICAL, ids=[line.split()[0] + f"-{i}" for i, (_, line) in enumerate(CANONICAL)]
)
def test_every_message_kind_round_trips(message: Message, line: str) -> None:
    assert message.format() == line
    assert str(message) == line
    parsed = parse(line)
    assert parsed == message
    assert parsed.format() == line


def test_canonical_set_covers_every_registered_verb() -> None:
    covered = {line.split()[0] for _, line in CANONICAL}
    assert covered == set(ARITY), set(ARITY) ^ covered


def test_trailing_text_keeps_spaces_and_colons() -> None:
    msg = parse("ERROR UNKNOWN_GAME g9 :a :b: c  d ")
    assert msg.args == ("UNKNOWN_GAME", "g9")
    assert msg.text == "a :b: c  d "
    assert msg.fields == {}
    # A token starting with ":" ends the fields: anything after it is text, even "k=v".
    msg = parse("WARN g1 2 seconds=5 :x=1 y=2")
    assert msg.fields == {"seconds": "5"} and msg.text == "x=1 y=2"


def test_field_accessors() -> None:
    msg = parse("END g1 winner=evil reason=three_fails roles=a:merlin,b:assassin hit=true n=7 e=")
    assert msg.list("roles") == ["a:merlin", "b:assassin"]
    assert msg.list("e") == [] and msg.list("missing") == []
    assert msg.pairs("roles") == {"a": "merlin", "b": "assassin"}
    assert msg.int("n") == 7 and msg.int("missing", 3) == 3
    assert msg.flag("hit") is True and msg.flag("winner") is False
    assert msg.get("winner") == "evil" and msg.get("nope") is None
    for key in ("missing", "winner"):
        with pytest.raises(ProtocolError) as info:
            msg.int(key)
        assert info.value.code is ErrorCode.MALFORMED


# -- malformed lines ----------------------------------------------------------------------------

MALFORMED_LINES = {
    "empty": "",
    "blank": "   ",
    "carriage return": "ANSWER g1 1 approve\r",
    "line feed": "WHO\n",
    "ctcp": "\x01VERSION\x01",
    "colour code": "ANSWER g1 1 \x03approve",
    "nul in text": "ERROR MALFORMED :a\x00b",
    "tab": "ANSWER\tg1 1 approve",
    "delete": "WHO\x7f",
    "bad field name (upper case)": "ANSWER g1 1 approve Name=x",
    "bad field name (digit first)": "ANSWER g1 1 approve 1x=2",
    "bad field name (empty)": "ANSWER g1 1 approve =x",
    "bad field name (dash)": "ROLE g1 my-role=x",
    "duplicate field": "ROLE g1 side=good side=evil",
    "positional after fields": "ASK g1 k=v 2 vote",
    "too few args": "ANSWER g1 1",
    "too many args": "ANSWER g1 1 approve extra",
    "args to a no-arg verb": "WHO everyone",
    "error without code": "ERROR",
    "error with four args": "ERROR A g1 2 extra",
    "avalon verb without gid": "VOTES approve=a",
}


@pytest.mark.parametrize("line", MALFORMED_LINES.values(), ids=MALFORMED_LINES.keys())
def test_malformed_lines_raise_malformed(line: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse(line)
    assert info.value.code is ErrorCode.MALFORMED
    assert isinstance(info.value, ValueError) and info.value.reason


@pytest.mark.parametrize(
    "line", ["HELLO", "hello world", "answer g1 1 approve", "Answer g1 1 x", "PRIVMSG #a :x", ":prefix WHO", "GAMES"]
)
def test_unknown_verb_is_unknown_command(line: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse(line)
    assert info.value.code is ErrorCode.UNKNOWN_COMMAND


def test_non_text_input_is_malformed() -> None:
    for value in (b"WHO", None, 42):
        with pytest.raises(ProtocolError) as info:
            parse(value)  # type: ignore[arg-type]
        assert info.value.code is ErrorCode.MALFORMED


def test_unknown_verb_error_is_short() -> None:
    with pytest.raises(ProtocolError) as info:
        parse("X" * 5000)
    assert len(info.value.reason) < 100


# -- format refuses what would not parse back -----------------------------------------------------

BAD_ARGS = ["a b", "", ":x", "a=b", "a\rb", "a\nb", "a\x01", "a\x7f", "\x00"]


@pytest.mark.parametrize("arg", BAD_ARGS)
def test_format_refuses_bad_args(arg: str) -> None:
    with pytest.raises(ValueError):
        Message.make(START, arg).format()


@pytest.mark.parametrize("value", ["a b", " ", "x\r", "x\n", "\x03red", "a\tb"])
def test_format_refuses_bad_field_values(value: str) -> None:
    with pytest.raises(ValueError):
        Message.make(ROLE, "g1", role=value).format()
    with pytest.raises(ValueError):
        Message.make(REGISTERED, bots=["alice", value]).format()


@pytest.mark.parametrize("key", ["Role", "1x", "", "a-b", "a b", "é"])
def test_format_refuses_bad_field_names(key: str) -> None:
    with pytest.raises(ValueError):
        Message(ROLE, ("g1",), {key: "x"}).format()


@pytest.mark.parametrize("text", ["a\nPRIVMSG #x :pwned", "a\rb", "\x00", "bell\x07"])
def test_format_refuses_control_characters_in_text(text: str) -> None:
    with pytest.raises(ValueError):
        Message.make(ERROR, "MALFORMED", text=text).format()


@pytest.mark.parametrize("verb", ["lower", "V1", "", "A B"])
def test_format_refuses_bad_verbs(verb: str) -> None:
    with pytest.raises(ValueError):
        Message(verb).format()


UNICODE_SPACES = ["\xa0", "\u3000", "\u2028", "\u2029", "\x85", "\u2003", "\u1680", "\u205f"]


def test_format_refuses_unicode_whitespace_in_tokens() -> None:
    """``parse`` splits on every whitespace character (str.split), so a token holding a
    non-ASCII space comes back as two tokens: format must refuse it as it refuses " "."""
    broken = []
    for space in UNICODE_SPACES:
        builds: tuple[Callable[[], Message], ...] = (
            lambda: Message.make(START, f"g{space}1"),
            lambda: Message.make(ROLE, "g1", role=f"a{space}b"),
        )
        for build in builds:
            try:
                line = build().format()
            except ValueError:
                continue
            try:
                same = parse(line) == build()
            except ProtocolError:
                same = False
            if not same:
                broken.append(line)
    assert not broken, f"format() produced lines that do not parse back to the same message: {broken}"


def test_register_verbs_checks_names_and_arity() -> None:
    with pytest.raises(ValueError):
        register_verbs({"lower": (1, 1)})
    with pytest.raises(ValueError):
        register_verbs({VOTES: (0, 2)})
    register_verbs({VOTES: (1, 1)})  # the same arity again is fine
    assert ARITY[VOTES] == (1, 1)


# -- nicks -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("nick", ["a", "alice", "Bob_2", "x" * 16, "[bot]", "a-b", "^_^", "`x`", "{b|c}", "a\\b"])
def test_valid_nicks(nick: str) -> None:
    assert valid_nick(nick)


@pytest.mark.parametrize(
    "nick", ["", "x" * 17, "1abc", "-abc", "a b", "a,b", "a:b", "a=b", "#chan", "é", "alice\n", "a.b", "a@b", "a!b"]
)
def test_invalid_nicks(nick: str) -> None:
    assert not valid_nick(nick)


# -- properties --------------------------------------------------------------------------------------

_SAMPLE_TOKENS = sorted(ARITY) + [
    "g1",
    "12",
    "approve",
    "to=all",
    "sees=",
    "k=v=w",
    ":",
    ":text",
    "a,b",
    "Bad=1",
    "\x01",
    "\r",
    "\xa0",
    "é",
    "=",
    "x=",
    "1=2",
]


@st.composite
def protocolish_lines(draw: st.DrawFn) -> str:
    """Lines assembled from protocol-like tokens and arbitrary text, to reach deep into parse."""
    tokens = draw(st.lists(st.one_of(st.sampled_from(_SAMPLE_TOKENS), st.text(max_size=6)), min_size=0, max_size=8))
    seps = draw(st.lists(st.sampled_from([" ", "  ", "\t", "\xa0"]), min_size=len(tokens), max_size=len(tokens)))
    return "".join(s + t for s, t in zip(seps, tokens))


def _parse_or_protocol_error(line: str) -> None:
    try:
        msg = parse(line)
    except ProtocolError as exc:
        assert isinstance(exc.code, ErrorCode)
        return
    assert isinstance(msg, Message)
    # Whatever parses formats to a line that parses to the same message.
    again = parse(msg.format())
    assert again == msg


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_parse_never_raises_anything_but_protocol_error(line: str) -> None:
    _parse_or_protocol_error(line)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(protocolish_lines())
def test_parse_of_protocol_like_lines_is_total_and_stable(line: str) -> None:
    _parse_or_protocol_error(line)


_TOKEN_CHARS = st.characters(
    blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"), blacklist_characters="=\x1c\x1d\x1e\x1f\x85"
)
_ARG = st.builds(
    lambda first, rest: first + rest,
    st.one_of(st.sampled_from("gG1_-,#"), _TOKEN_CHARS.filter(lambda c: c != ":")),
    st.text(_TOKEN_CHARS, max_size=7),
)
_VALUE = st.text(st.one_of(_TOKEN_CHARS, st.sampled_from("=:,")), max_size=8)
_KEYS = st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789_"), max_size=6),
)
_TEXT = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=20)


@st.composite
def valid_messages(draw: st.DrawFn) -> Message:
    verb = draw(st.sampled_from(sorted(ARITY)))
    low, high = ARITY[verb]
    args = tuple(draw(st.lists(_ARG, min_size=low, max_size=high)))
    fields = draw(st.dictionaries(_KEYS, _VALUE, max_size=5))
    text = draw(st.none() | _TEXT)
    return Message(verb, args, fields, text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(valid_messages())
def test_format_then_parse_is_identity(msg: Message) -> None:
    line = msg.format()
    assert parse(line) == msg
    assert parse(line).format() == line


# -- long messages are continued over several lines and joined back ----------------------------

_ITEM = st.text(_TOKEN_CHARS.filter(lambda c: c != ","), min_size=0, max_size=16)


@st.composite
def long_messages(draw: st.DrawFn) -> Message:
    verb = draw(st.sampled_from(sorted(ARITY)))
    low, high = ARITY[verb]
    args = tuple(draw(st.lists(_ARG, min_size=low, max_size=high)))
    keys = draw(st.lists(_KEYS.filter(lambda k: k != MORE), max_size=5, unique=True))
    fields = {key: ",".join(draw(st.lists(_ITEM, max_size=40))) for key in keys}
    return Message(verb, args, fields, draw(st.none() | _TEXT))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(long_messages(), st.integers(min_value=120, max_value=400))
def test_long_messages_are_continued_within_the_limit_and_join_back(msg: Message, limit: int) -> None:
    lines = msg.lines(limit)
    assert all(len(line.encode()) <= limit for line in lines)
    if len(msg.format().encode()) <= limit:
        assert lines == [msg.format()]
    parts = [parse(line) for line in lines]
    assert all(p.verb == msg.verb and p.args == msg.args for p in parts)
    assert [p.get(MORE) for p in parts] == ["true"] * (len(parts) - 1) + [None]
    joiner = Reassembler()
    assert [whole for p in parts for whole in joiner.add(p)] == [msg]


def test_a_twenty_seat_start_with_long_nicks_takes_two_lines() -> None:
    seats = [f"player_{i:02d}_abcdefg"[:16] for i in range(20)]
    msg = Message.make(START, "g12", game="werewolf", seats=seats, roles="seer:1,villager:17,werewolf:2")
    first, second = msg.lines()
    assert first.startswith("START g12 game=werewolf seats=player_00_abcdef,") and first.endswith(" more=true")
    assert second == "START g12 roles=seer:1,villager:17,werewolf:2"  # a short list is not cut
    joiner = Reassembler()
    assert joiner.add(parse(first)) == []
    (whole,) = joiner.add(parse(second))
    assert whole.list("seats") == seats


def test_an_unfinished_message_is_passed_on_when_another_comes() -> None:
    joiner = Reassembler()
    assert joiner.add(parse("DAY g1 day=1 alive=a,b more=true")) == []
    cut, other = joiner.add(parse("VOTES g1 approve=a reject=b"))
    assert cut.format() == "DAY g1 day=1 alive=a,b"
    assert other.format() == "VOTES g1 approve=a reject=b"
    assert joiner.add(parse("QUEST g1 n=1")) == [parse("QUEST g1 n=1")]


def test_what_cannot_be_cut_raises() -> None:
    with pytest.raises(ValueError, match="cannot fit"):
        Message.make(START, "g1", seats=["x" * 200]).lines(100)
    with pytest.raises(ValueError, match="text cannot fit"):
        Message.make(ERROR, "MALFORMED", text="y" * 200).lines(100)


def test_a_scram_value_is_base64_of_utf8_or_malformed() -> None:
    assert unpack_scram(pack_scram("n,,n=bob,r=x")) == "n,,n=bob,r=x"
    for bad in ("not base64!", "////", base64.b64encode(b"\xff\xfe").decode()):
        with pytest.raises(ProtocolError) as caught:
            unpack_scram(bad)
        assert caught.value.code == ErrorCode.MALFORMED


def test_secrets_are_hidden_from_logs() -> None:
    assert (
        redacted("REGISTER 1 name=a scram=abc= key=K3y owner=o :free text key=x")
        == "REGISTER 1 name=a scram=*** key=*** owner=o :free text key=x"
    )


def test_a_bundled_line_splits_into_its_messages_before_its_free_text() -> None:
    """protocol.md, section 2, "Bundled lines": the parts are split at " ; " up to the
    free text, which may hold " ; " itself and stays whole."""
    line = "VOTES g4 approve=bob result=rejected rejections=1 ; ASK g4 9 team to=erin options=a,b"
    assert unbundle(line) == ["VOTES g4 approve=bob result=rejected rejections=1", "ASK g4 9 team to=erin options=a,b"]
    assert unbundle("SPEECH g1 player=a ; ERROR CODE g1 :one ; two") == [
        "SPEECH g1 player=a",
        "ERROR CODE g1 :one ; two",
    ]
    assert unbundle("ERROR CODE g1 :one ; two") == ["ERROR CODE g1 :one ; two"]
    assert unbundle("END g1 winner=good") == ["END g1 winner=good"]
    for part in unbundle(line):
        parse(part)
