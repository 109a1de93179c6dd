"""Games driven through the referee's real code over the in-memory transport (LocalHub):
secrecy of the channel, routing of requests, refused answers, deadlines, renames."""

from __future__ import annotations

import gc
import random
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from arena.config import Step, TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.options import AvalonOptions
from arena.games.avalon.roles import Role, Side
from arena.protocol import ASK, END, ERROR, MAX_LINE_BYTES, ROLE, TIMEOUT, WARN, Message, Reassembler, parse
from arena.referee import gamelines
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.referee import Referee
from arena.sdk import Ask, Bot, GameView, Session
from arena.sdk.answers import Reply

ROLE_NAMES = {r.value for r in Role}
QUEST_FIELDS = {"quest", "team", "result", "fails", "successes", "failures"}


# -- helpers ------------------------------------------------------------------------------------


class RecordingBot(Bot):
    """An SDK bot that plays at random and remembers what its session told it."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.roles: list[GameView[Any]] = []
        self.asks: list[tuple[str, str]] = []

    def on_role(self, game: GameView[Any]) -> None:
        self.roles.append(game)

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.asks.append((ask.kind, ask.rid))
        return super().decide(game, ask)


class Puppet(Session):
    """A seat the test speaks for.

    ``LocalHub`` hands each line for a nick to ``hub.sessions[nick].replies`` and sends
    whatever it returns to the referee. A Puppet records the line and returns nothing, so
    it never answers on its own (neither requests nor the SDK's retries after ERROR/WARN):
    that is how a bot is made silent, and how a test sends exactly the lines it wants
    (through ``say``). It is installed with ``install`` in place of (or instead of) the
    session ``hub.connect`` made.
    """

    def __init__(self, nick: str, referee: str = "arena") -> None:
        super().__init__(Bot(seed=0), nick, referee)
        self.name = nick
        """The nick announced in START: requests keep addressing it after a rename."""
        self.inbox: list[Message] = []
        self.answered: set[tuple[str, str]] = set()
        self.rng = random.Random(nick)

    def replies(self, msg: Message, whole: bool = False) -> list[Reply]:
        self.inbox.append(msg)
        return []

    def addressed(self, msg: Message) -> bool:
        to = msg.get("to", "")
        assert self.name is not None
        return to == "all" or self.name.lower() in to.lower().split(",")

    def open_ask(self, gid: str) -> Message | None:
        """The request the game waits on this seat for, if any (the latest addressed ASK)."""
        for msg in reversed(self.inbox):
            if msg.verb == ASK and msg.args[0] == gid and self.addressed(msg):
                return None if (gid, msg.args[1]) in self.answered else msg
        return None

    def errors(self) -> list[Message]:
        return [m for m in self.inbox if m.verb == ERROR]


def install(hub: LocalHub, puppet: Puppet) -> Puppet:
    hub.sessions[puppet.nick.lower()] = puppet
    return puppet


def say(hub: LocalHub, nick: str, line: str, target: str | None = None) -> None:
    """``nick`` sends ``line`` to the referee (or to ``target``), then the network settles."""
    hub.referee.on_message(nick, target or hub.referee.nick, line, hub.now)
    hub.run()


def random_choice(puppet: Puppet, ask: Message | None) -> str:
    assert ask is not None, f"{puppet.nick} is asked nothing"
    options = ask.list("options")
    pick = ask.int("pick", 1)
    return ",".join(puppet.rng.sample(options, pick))


def answer(hub: LocalHub, puppet: Puppet, ask: Message | None, value: str) -> None:
    assert ask is not None, f"{puppet.nick} is asked nothing"
    gid, rid = ask.args[0], ask.args[1]
    puppet.answered.add((gid, rid))
    say(hub, puppet.nick, f"ANSWER {gid} {rid} {value}")


def settle(
    hub: LocalHub,
    match: Match,
    puppets: list[Puppet],
    choose: Callable[[Puppet, Message], str] = random_choice,
    stop: Callable[[Puppet, Message], bool] | None = None,
) -> tuple[Puppet, Message] | None:
    """Deliver lines, answering for the puppets with ``choose``, until the game ends (None)
    or a puppet is asked something ``stop`` wants the test to handle (returned)."""
    for _ in range(10_000):
        hub.run()
        if match.over:
            return None
        for puppet in puppets:
            ask = puppet.open_ask(match.gid)
            if ask is not None:
                if stop is not None and stop(puppet, ask):
                    return puppet, ask
                answer(hub, puppet, ask, choose(puppet, ask))
                break
        else:
            raise AssertionError("the game waits for nobody the test can answer for")
    raise AssertionError("the game does not end")


def new_hub(
    players: int,
    escalation: Sequence[Step] = ("warn", "default", "forfeit"),
    decision: float = 30.0,
    grace: float = 10.0,
    prefix: str = "p",
) -> tuple[LocalHub, list[str]]:
    hub = LocalHub(TimeoutConfig(decision=decision, grace=grace, escalation=tuple(escalation)))
    nicks = [f"{prefix}{i}" for i in range(1, players + 1)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, RecordingBot(seed=1000 + i))
    return hub, nicks


def start(hub: LocalHub, nicks: list[str], seed: int, options: AvalonOptions | None = None) -> Match:
    """Start a game without delivering a line yet, so the test can seat puppets first."""
    return hub.referee.start_game("avalon", list(nicks), options or AvalonOptions(), seed, hub.channel, hub.now)


def finish(hub: LocalHub, match: Match) -> None:
    del hub.referee.matches[match.gid]


def snapshot(match: Match) -> tuple[object, ...]:
    """Everything a refused line must leave as it was."""
    game = match.game
    return (
        len(game.events),
        list(game.history),
        game.round,
        game.pending(),
        match.next_deadline(),
        [t for t in match.transcript if not t[1].startswith(ERROR)],
    )


def avalon(match: Match) -> AvalonGame:
    """The match's engine, as the Avalon game every match here plays."""
    assert isinstance(match.game, AvalonGame)
    return match.game


def public(match: Match) -> list[str]:
    return [line for to, line in match.transcript if to is None]


def dms(match: Match, nick: str) -> list[str]:
    return [line for to, line in match.transcript if to is not None and to.lower() == nick.lower()]


def seat_names(match: Match, side: Side) -> list[str]:
    return [match.names[s] for s in range(len(match.names)) if avalon(match).sides_now[s] is side]


# -- full games between SDK bots ----------------------------------------------------------------

FULL_GAMES = [
    (5, AvalonOptions(), 1),
    (5, AvalonOptions(percival=True, morgana=True), 2),
    (10, AvalonOptions(), 3),
    (10, AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=3), 4),
]


FullGame = tuple[LocalHub, list[str], Match]


@pytest.fixture(params=FULL_GAMES, ids=[f"{n}p-{i}" for i, (n, _, _) in enumerate(FULL_GAMES)])
def full_game(request: pytest.FixtureRequest) -> FullGame:
    players, options, seed = request.param
    hub, nicks = new_hub(players)
    match = hub.play("avalon", nicks, options, seed)
    return hub, nicks, match


def test_full_game_ends_normally(full_game: FullGame) -> None:
    hub, nicks, match = full_game
    result = match.game.result
    assert result is not None and result.forfeited is None
    assert result.winner in ("good", "evil")
    ends = [line for line in public(match) if line.startswith(END)]
    assert len(ends) == 1 and public(match)[-1] == ends[0]
    assert parse(ends[0]).get("reason") == result.reason
    assert not any(line.startswith((ERROR, WARN, TIMEOUT)) for _, line in match.transcript)
    assert match.gid not in hub.referee.matches


def test_channel_carries_no_secret_before_the_end(full_game: FullGame) -> None:
    hub, nicks, match = full_game
    lines = public(match)
    before_end = lines[: next(i for i, line in enumerate(lines) if line.startswith(END))]
    assert before_end and before_end[0].startswith("START ")
    for line in before_end:
        msg = parse(line)
        assert msg.verb != ROLE, line
        assert "role=" not in line and "roles=" not in line, line
        for key, value in msg.fields.items():
            if msg.verb == "START" and key == "options":
                continue  # option names (merlin:true, ...) are rules, not secrets
            words = set(value.replace(":", ",").split(","))
            assert not words & ROLE_NAMES, f"a role name leaks in {key}= of {line}"
        if msg.verb == "QUEST":
            assert set(msg.fields) == QUEST_FIELDS, line  # counts only, never who played what
        if msg.verb == ASK:
            assert msg.args[2] != "quest", f"a quest request went to the channel: {line}"
    # What the channel actually carried is exactly what the referee recorded as public.
    assert hub.channel_log == lines
    # The END line reveals every role, in seat order.
    end = parse(lines[-1])
    assert end.pairs("roles") == {n: r.value for n, r in zip(match.names, avalon(match).roles)}


def test_each_bot_gets_one_role_line_matching_the_engine(full_game: FullGame) -> None:
    hub, nicks, match = full_game
    role_events = {e.data["seat"]: e for e in match.game.events if e.kind == "role"}
    assert sorted(role_events) == list(range(len(nicks)))
    for seat, nick in enumerate(nicks):
        event = role_events[seat]
        assert event.audience == frozenset({seat})
        role_lines = [line for line in dms(match, nick) if line.startswith(ROLE + " ")]
        assert len(role_lines) == 1, (nick, role_lines)
        msg = parse(role_lines[0])
        expected_sees = [match.names[s] for s in event.data["sees"]]
        assert msg.list("sees") == expected_sees
        assert msg.get("role") == event.data["role"] and msg.get("side") == event.data["side"]
        # ... and the bot itself was told exactly that, once.
        bot = hub.sessions[nick.lower()].bot
        assert isinstance(bot, RecordingBot)
        assert len(bot.roles) == 1
        view = bot.roles[0]
        assert (view.role, view.side, view.sees) == (event.data["role"], event.data["side"], expected_sees)
    # No ROLE line went anywhere else (to the channel or to a nick outside the game).
    assert sum(1 for _, line in match.transcript if line.startswith(ROLE + " ")) == len(nicks)


def test_votes_are_asked_in_the_channel_and_quests_by_dm(full_game: FullGame) -> None:
    hub, nicks, match = full_game
    evil = set(seat_names(match, Side.EVIL))  # no Lancelot switch in these games' variants 0/3
    vote_asks = [(to, parse(line)) for to, line in match.transcript if line.startswith("ASK ") and " vote " in line]
    votes = [line for line in public(match) if line.startswith("VOTES ")]
    assert vote_asks and len(vote_asks) == len(votes)
    for to, msg in vote_asks:
        assert to is None and msg.get("to") == "all"
        assert msg.list("options") == ["approve", "reject"]

    # Between an approved VOTES line and its QUEST line, quest requests go by DM to every
    # member of the team, under one request id, and to no one else: neither the ids nor who
    # is asked tell good from evil; only the options each member sees do.
    transcript = match.transcript
    quests_seen = 0
    for i, (to, line) in enumerate(transcript):
        if not (to is None and line.startswith("VOTES ") and parse(line).get("result") == "approved"):
            continue
        j = next(
            k
            for k in range(i + 1, len(transcript))
            if transcript[k][0] is None and transcript[k][1].startswith("QUEST ")
        )
        quest = parse(transcript[j][1])
        team = quest.list("team")
        asks = [(to, parse(line)) for to, line in transcript[i + 1 : j] if line.startswith("ASK ")]
        assert all(m.args[2] == "quest" for _, m in asks)
        asked = [to for to, _ in asks]
        assert all(to is not None for to in asked), "a quest request went to the channel"
        assert sorted(map(str, asked)) == sorted(team)
        assert len({m.args[1] for _, m in asks}) == 1
        for to, m in asks:
            assert sorted(m.list("to")) == sorted(team) and m.list("team") == team
            assert m.list("options") == (["success", "fail"] if to in evil else ["success"])
        quests_seen += 1
    assert quests_seen == len([line for line in public(match) if line.startswith("QUEST ")])


def test_every_line_is_canonical_and_fits_the_payload_limit() -> None:
    """Longest nicks, ten players and the most roles: every line parses, reformats to itself
    and stays within the 400 bytes protocol.md promises."""
    hub = LocalHub(TimeoutConfig())
    nicks = [f"{chr(ord('a') + i)}" * 16 for i in range(10)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    for seed in range(5):
        options = AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=2)
        match = hub.play("avalon", nicks, options, seed)
        for _, line in match.transcript:
            assert parse(line).format() == line
            assert len(line.encode()) <= 400, line


# -- refused lines --------------------------------------------------------------------------------


def last_error(puppet: Puppet) -> Message:
    errors = puppet.errors()
    assert errors, "no ERROR was sent"
    return errors[-1]


def check_refused(
    hub: LocalHub,
    match: Match,
    puppet: Puppet,
    line: str,
    code: ErrorCode,
    *context: str,
    target: str | None = None,
) -> None:
    before = snapshot(match)
    count = len(puppet.errors())
    say(hub, puppet.nick, line, target)
    assert len(puppet.errors()) == count + 1, f"{line!r} got no ERROR"
    error = last_error(puppet)
    assert error.args[0] == code.value, (line, error)
    assert error.args[1:] == context, (line, error)
    assert error.text
    assert snapshot(match) == before, f"{line!r} changed the game"


def test_bad_lines_from_the_leader_are_refused_and_change_nothing() -> None:
    hub, nicks = new_hub(5)
    match = start(hub, nicks, seed=7)
    leader = install(hub, Puppet(nicks[avalon(match).leader]))
    hub.run()
    ask = leader.open_ask(match.gid)
    assert ask is not None and ask.args[2] == "team"
    gid, rid = ask.args[0], ask.args[1]
    size = ask.int("pick")
    others = [n for n in nicks if n != leader.nick]
    team = ",".join(others[:size])

    # A line the grammar refuses still names the ids it opens with, as far as they read as ids.
    check_refused(hub, match, leader, "ANSWER g1", ErrorCode.MALFORMED, "g1")
    check_refused(hub, match, leader, f"ANSWER {gid} {rid}", ErrorCode.MALFORMED, gid, rid)
    check_refused(hub, match, leader, f"ANSWER {gid} {rid} \x02{team}\x02", ErrorCode.MALFORMED, gid, rid)
    check_refused(hub, match, leader, f"ANSWER {gid} {rid}\x02 {team}", ErrorCode.MALFORMED, gid)
    check_refused(hub, match, leader, "\x01VERSION\x01", ErrorCode.MALFORMED)
    check_refused(hub, match, leader, f"ANSWER {gid} {rid} {team} {team}", ErrorCode.MALFORMED, gid, rid)
    check_refused(hub, match, leader, "HELLO referee", ErrorCode.UNKNOWN_COMMAND)
    check_refused(hub, match, leader, f"START {gid}", ErrorCode.UNKNOWN_COMMAND)
    check_refused(hub, match, leader, f"ANSWER {gid} x{rid} {team}", ErrorCode.MALFORMED, gid)  # not an id: not echoed
    check_refused(
        hub, match, leader, f"ANSWER {gid} 1234567890 {team}", ErrorCode.MALFORMED, gid
    )  # ten digits: neither
    check_refused(hub, match, leader, f"ANSWER {gid} 999 {team}", ErrorCode.STALE_REQUEST, gid, "999")
    check_refused(hub, match, leader, f"ANSWER {gid} 0 {team}", ErrorCode.STALE_REQUEST, gid, "0")
    check_refused(hub, match, leader, f"ANSWER g999 {rid} {team}", ErrorCode.UNKNOWN_GAME, "g999")
    check_refused(hub, match, leader, f"ANSWER {gid} {rid} {others[0]}", ErrorCode.WRONG_COUNT, gid, rid)
    check_refused(
        hub, match, leader, f"ANSWER {gid} {rid} {','.join(others[: size + 1])}", ErrorCode.WRONG_COUNT, gid, rid
    )
    check_refused(
        hub,
        match,
        leader,
        f"ANSWER {gid} {rid} {','.join(others[: size - 1])},nobody",
        ErrorCode.TARGET_INVALID,
        gid,
        rid,
    )
    check_refused(hub, match, leader, f"ANSWER {gid} {rid} {others[0]},{others[0]}", ErrorCode.TARGET_INVALID, gid, rid)

    # Still asked; a correct answer now counts, and the game moves to the vote.
    assert leader.open_ask(gid) is ask
    answer(hub, leader, ask, team)
    assert match.game.history[0] == (avalon(match).leader, "team", tuple(sorted(nicks.index(n) for n in others[:size])))
    vote = leader.open_ask(gid)
    assert vote is not None and vote.args[2] == "vote" and vote.list("team") == others[:size]
    vrid = vote.args[1]
    check_refused(hub, match, leader, f"ANSWER {gid} {vrid} maybe", ErrorCode.ACTION_NOT_ALLOWED, gid, vrid)
    assert last_error(leader).text == "vote: maybe is not one of your options: approve,reject"
    check_refused(hub, match, leader, f"ANSWER {gid} {vrid} approve,reject", ErrorCode.WRONG_COUNT, gid, vrid)
    check_refused(hub, match, leader, f"ANSWER {gid} {rid} {team}", ErrorCode.ALREADY_ACTED, gid, rid)  # old round
    answer(hub, leader, vote, "approve")
    # Answering twice: the second is refused, while the vote is still open for others.
    check_refused(hub, match, leader, f"ANSWER {gid} {vrid} reject", ErrorCode.ALREADY_ACTED, gid, vrid)
    assert last_error(leader).text == f"you already answered request {vrid}"

    assert settle(hub, match, [leader]) is None
    result = match.game.result
    assert result is not None and result.forfeited is None and result.winner in ("good", "evil")
    # A refusal never reached the channel.
    assert not any(line.startswith(ERROR) for line in public(match))


def test_avalon_has_no_private_talk_and_says_so() -> None:
    """``TEAM`` in Avalon is INVALID_PHASE at any time (protocol.md, section 6), explained in
    Avalon's words: it has no wolves to talk to."""
    hub, nicks = new_hub(5)
    match = start(hub, nicks, seed=7)
    player = install(hub, Puppet(nicks[0]))
    hub.run()
    check_refused(hub, match, player, f"TEAM {match.gid} :psst", ErrorCode.INVALID_PHASE, match.gid)
    assert last_error(player).text == "Avalon has no private talk: TEAM is never relayed"


def test_quest_cards_good_player_cannot_fail_and_evil_choice_is_checked() -> None:
    """Every seat is a puppet. The leader proposes one good and one evil player; everyone
    approves. Both are asked for a card by DM, under one request id; the good member is
    offered ``success`` only, so their ``fail`` is refused and does not count."""
    hub, nicks = new_hub(5)
    match = start(hub, nicks, seed=11)
    puppets = [install(hub, Puppet(n)) for n in nicks]
    hub.run()
    good = [n for n in seat_names(match, Side.GOOD) if n != nicks[avalon(match).leader]][0]
    evil = seat_names(match, Side.EVIL)[0]
    leader = puppets[avalon(match).leader]
    first = leader.open_ask(match.gid)
    assert first is not None
    assert first.args[2] == "team" and first.int("pick") == 2
    answer(hub, leader, first, f"{good},{evil}")
    for p in puppets:
        vote = p.open_ask(match.gid)
        answer(hub, p, vote, "approve")
    gid = match.gid
    # The quest request: a DM to each member, one request id, options by side.
    quest_asks = [(to, parse(line)) for to, line in match.transcript if line.startswith("ASK ") and " quest " in line]
    assert sorted(str(to) for to, _ in quest_asks) == sorted([good, evil])
    ask = puppets[nicks.index(evil)].open_ask(gid)
    assert ask is not None and ask.list("options") == ["success", "fail"]
    good_ask = puppets[nicks.index(good)].open_ask(gid)
    assert good_ask is not None and good_ask.list("options") == ["success"]
    assert good_ask.args[1] == ask.args[1] and good_ask.get("to") == ask.get("to")
    qrid = ask.args[1]
    good_p, evil_p = puppets[nicks.index(good)], puppets[nicks.index(evil)]
    check_refused(hub, match, good_p, f"ANSWER {gid} {qrid} fail", ErrorCode.ACTION_NOT_ALLOWED, gid, qrid)
    check_refused(hub, match, evil_p, f"ANSWER {gid} {qrid} maybe", ErrorCode.ACTION_NOT_ALLOWED, gid, qrid)
    answer(hub, good_p, good_ask, "success")
    answer(hub, evil_p, ask, "success")
    quest = parse(next(line for line in public(match) if line.startswith("QUEST ")))
    assert quest.get("result") == "success" and quest.get("fails") == "0"
    assert settle(hub, match, puppets) is None
    assert match.game.result is not None
    assert match.game.result.forfeited is None


def test_answer_from_a_non_player_and_channel_chat() -> None:
    hub, nicks = new_hub(5)
    outsider = install(hub, Puppet("outsider"))
    match = start(hub, nicks, seed=3)
    voter = install(hub, Puppet(nicks[(avalon(match).leader + 1) % 5]))
    hub.run()
    vote = voter.open_ask(match.gid)
    assert vote is not None and vote.args[2] == "vote"
    gid, rid = vote.args[0], vote.args[1]
    # A stranger who never registered is told to register; a registered bot that has no
    # seat in the game is told it does not play.
    check_refused(hub, match, outsider, f"ANSWER {gid} {rid} approve", ErrorCode.NOT_REGISTERED, gid)
    say(hub, "outsider", "REGISTER 1 name=outsider")
    check_refused(hub, match, outsider, f"ANSWER {gid} {rid} approve", ErrorCode.NOT_A_PLAYER, gid, rid)

    # Channel lines are chat: ignored, even when they look like answers, and never answered.
    before = snapshot(match)
    log, inboxes = len(hub.channel_log), (len(voter.inbox), len(outsider.inbox))
    queued: list[tuple[str, str]] = []
    send = hub.referee.send

    def record(target: str, text: str) -> None:
        queued.append((target, text))
        send(target, text)

    hub.referee.send = record
    try:
        for line in ("hello everyone, I am loyal", f"ANSWER {gid} {rid} approve", "WHO", "\x01ACTION waves\x01", ""):
            say(hub, voter.nick, line, target=hub.channel)
    finally:
        hub.referee.send = send
    assert queued == []
    assert snapshot(match) == before
    assert len(hub.channel_log) == log and (len(voter.inbox), len(outsider.inbox)) == inboxes

    answer(hub, voter, vote, "approve")
    assert settle(hub, match, [voter]) is None


# -- deadlines --------------------------------------------------------------------------------------


def default_of(match: Match, seat: int, ask: Message) -> object:
    """protocol.md: a silent leader sends themself and the next seats; otherwise the first option."""
    kind = ask.args[2]
    if kind == "team":
        return tuple(sorted((seat + i) % len(match.names) for i in range(ask.int("pick"))))
    if kind == "assassinate":
        return match.names.index(ask.list("options")[0])
    return ask.list("options")[0]


def asked_entries(match: Match, seat: int) -> list[tuple[str, object]]:
    """The seat's answers in the engine's history: every one of them was asked."""
    return [(k, v) for s, k, v in match.game.history if s == seat]


def test_a_finished_match_is_freed_without_the_cyclic_collector() -> None:
    """No part of a match refers back to it (the floor and the asker hand their forfeits to
    it rather than holding its methods): a game is freed as soon as it is dropped, not later
    by the cyclic collector, whose passes over thousands of finished games cost a tournament."""
    hub, nicks = new_hub(5, escalation=("warn", "default", "forfeit"), decision=30, grace=10)
    match = start(hub, nicks, seed=5)
    install(hub, Puppet(nicks[2]))  # silent: the game ends with a forfeit, through the asker
    match = _play_started(hub, match)
    assert match.game.result is not None and match.game.result.forfeited == 2
    gc.collect()
    gc.disable()
    try:
        freed = weakref.ref(match), weakref.ref(match.game), weakref.ref(match.floor)
        del match
        assert [ref() is None for ref in freed] == [True, True, True]
    finally:
        gc.enable()


def test_silent_bot_is_warned_then_defaulted_then_forfeited() -> None:
    hub, nicks = new_hub(5, escalation=("warn", "default", "forfeit"), decision=30, grace=10)
    match = start(hub, nicks, seed=5)
    seat = (avalon(match).leader + 2) % 5
    silent = install(hub, Puppet(nicks[seat]))
    # hub.play advances virtual time to each deadline and polls the referee.
    match = _play_started(hub, match)

    result = match.game.result
    assert result is not None
    assert (result.winner, result.winners, result.reason, result.forfeited) == (None, frozenset(), "forfeit", seat)
    # 30 s to the first deadline, 10 s of grace, then 30 s on the next request.
    assert hub.now == 70

    flagged = [
        (i, to, parse(line)) for i, (to, line) in enumerate(match.transcript) if line.startswith((WARN, TIMEOUT))
    ]
    assert [(to, m.verb, m.get("action")) for _, to, m in flagged] == [
        (silent.nick, WARN, None),
        (None, TIMEOUT, "default"),
        (None, TIMEOUT, "forfeit"),
    ]
    (_, _, warn), (_, _, default), (i_forfeit, _, forfeit) = flagged
    assert warn.args[0] == match.gid and warn.int("seconds") == 10 and warn.text
    assert default.args[:2] == warn.args[:2], "the default applies to the request that was warned about"
    assert int(forfeit.args[1]) > int(default.args[1])
    assert default.get("player") == forfeit.get("player") == silent.nick
    assert any(m.verb == WARN for m in silent.inbox)

    # The default answer was applied to the warned request, and the game went on.
    missed = next(m for m in silent.inbox if m.verb == ASK and m.args[1] == warn.args[1])
    assert asked_entries(match, seat) == [(missed.args[2], default_of(match, seat, missed))]

    # The forfeit ends the game at once: END is the next and last line.
    assert match.transcript[i_forfeit + 1 :] == [(None, match.transcript[-1][1])]
    end = parse(match.transcript[-1][1])
    assert end.verb == END
    assert (end.get("winner"), end.get("reason"), end.get("forfeit")) == ("none", "forfeit", silent.nick)
    assert set(end.pairs("roles")) == set(nicks)


def _play_started(hub: LocalHub, match: Match) -> Match:
    """``hub.play`` for a match already started (so puppets could be seated first)."""
    while True:
        hub.run()
        if match.over:
            finish(hub, match)
            return match
        deadline = hub.referee.next_deadline()
        assert deadline is not None, "stuck"
        hub.now = max(hub.now, deadline)
        hub.referee.poll(hub.now)


@pytest.mark.parametrize("escalation,warnings", [(("default",), 0), (("warn", "default"), 1)])
def test_defaults_forever_when_escalation_never_forfeits(escalation: tuple[Step, ...], warnings: int) -> None:
    hub, nicks = new_hub(5, escalation=escalation, decision=30, grace=10)
    match = start(hub, nicks, seed=9)
    seat = avalon(match).leader  # asked for the first team too
    silent = install(hub, Puppet(nicks[seat]))
    match = _play_started(hub, match)

    result = match.game.result
    assert result is not None
    assert result.forfeited is None and result.reason != "forfeit" and result.winner in ("good", "evil")
    lines = [(to, parse(line)) for to, line in match.transcript]
    warns = [m for to, m in lines if m.verb == WARN]
    timeouts = [m for to, m in lines if m.verb == TIMEOUT]
    assert len(warns) == warnings and all(to == silent.nick for to, m in lines if m.verb == WARN)
    assert timeouts and all(m.get("action") == "default" and m.get("player") == silent.nick for m in timeouts)
    # One TIMEOUT per request addressed to the silent seat, each applying the default answer;
    # in public only for a public request: a quest card's default would tell the card.
    asked = [m for m in silent.inbox if m.verb == ASK and silent.addressed(m)]
    kinds = {m.args[1]: m.args[2] for m in asked}
    assert any(kinds[m.args[1]] == "quest" for to, m in lines if m.verb == TIMEOUT)
    for to, m in lines:
        if m.verb == TIMEOUT:
            assert to == (None if kinds[m.args[1]] in match.game.public_kinds else silent.nick)
    assert [m.args[1] for m in timeouts] == [m.args[1] for m in asked]
    assert asked_entries(match, seat) == [(m.args[2], default_of(match, seat, m)) for m in asked]
    assert hub.now == 30 * len(asked) + 10 * warnings


# -- renames --------------------------------------------------------------------------------------


def rename(hub: LocalHub, match: Match, puppet: Puppet, new: str) -> Puppet:
    """The server tells the referee that ``puppet`` changed nick; the hub's routing follows,
    and a newcomer (returned) takes the old nick."""
    old = puppet.nick
    hub.referee.on_rename(old, new)
    del hub.sessions[old.lower()]
    puppet.nick = new  # puppet.name stays the nick announced in START
    install(hub, puppet)
    return install(hub, Puppet(old))


def avoiding(name: str) -> Callable[[Puppet, Message], str]:
    """Random legal answers that never name ``name`` (see the rename bug test below)."""

    def choose(puppet: Puppet, ask: Message) -> str:
        options = ask.list("options")
        if name in options and len(options) - 1 >= ask.int("pick", 1):
            options = [o for o in options if o != name]
        return ",".join(puppet.rng.sample(options, ask.int("pick", 1)))

    return choose


def test_rename_keeps_the_seat() -> None:
    hub, nicks = new_hub(5, escalation=("warn", "default", "forfeit"))
    match = start(hub, nicks, seed=13)
    puppets = [install(hub, Puppet(n)) for n in nicks]
    hub.run()
    leader = puppets[avalon(match).leader]
    team_ask = leader.open_ask(match.gid)
    answer(hub, leader, team_ask, random_choice(leader, team_ask))
    seat = (avalon(match).leader + 1) % 5
    player, old = puppets[seat], nicks[seat]
    for p in puppets:
        if p is not player:
            answer(hub, p, p.open_ask(match.gid), "approve")
    vote = player.open_ask(match.gid)
    assert vote is not None and vote.args[2] == "vote"
    gid, rid = vote.args[0], vote.args[1]

    squatter = rename(hub, match, player, "renamed")
    renamed_at = len(match.transcript)
    assert match.nicks[seat] == "renamed" and match.seats.of(old) == seat, "the seat stays its bot's"

    check_refused(hub, match, squatter, f"ANSWER {gid} {rid} reject", ErrorCode.NOT_REGISTERED, gid)

    # DMs follow the rename: the warning for the missed deadline goes to the new nick.
    deadline = match.next_deadline()
    assert deadline is not None
    hub.now = deadline
    hub.referee.poll(hub.now)
    hub.run()
    assert [m.verb for m in player.inbox if m.verb == WARN] == [WARN]
    assert not any(m.verb == WARN for m in squatter.inbox)
    warn_line = next(line for to, line in match.transcript if line.startswith(WARN))
    assert ("renamed", warn_line) in match.transcript

    # An answer from the new nick counts.
    answer(hub, player, vote, "reject")
    assert (seat, "vote", "reject") in match.game.history
    votes = parse(next(line for line in public(match) if line.startswith("VOTES ")))
    assert old in votes.list("reject"), "public lines keep the nicks announced in START"

    assert settle(hub, match, puppets, choose=avoiding(old)) is None
    assert match.game.result is not None
    assert match.game.result.forfeited is None
    assert not any(to == old for to, line in match.transcript[renamed_at:] if not line.startswith(ERROR)), (
        "a line for the seat went to its old nick after the rename"
    )
    assert squatter.errors() and all(m.args[0] == ErrorCode.NOT_REGISTERED.value for m in squatter.errors())


def test_after_a_rename_choices_are_named_as_announced() -> None:
    """Requests keep the START nicks (``options=`` of a team or assassination request lists
    the renamed player under its old nick), so an answer naming it that way must count."""
    hub, nicks = new_hub(5)
    match = start(hub, nicks, seed=13)
    puppets = [install(hub, Puppet(n)) for n in nicks]
    hub.run()
    seat = (avalon(match).leader + 1) % 5
    old = nicks[seat]
    rename(hub, match, puppets[seat], "renamed")
    leader = puppets[avalon(match).leader]
    ask = leader.open_ask(match.gid)
    assert ask is not None
    assert old in ask.list("options")
    team = [old] + [n for n in nicks if n != old][: ask.int("pick") - 1]
    answer(hub, leader, ask, ",".join(team))
    assert not leader.errors(), f"the referee refused the names its own request offered: {leader.errors()}"
    assert match.game.history[:1] == [(avalon(match).leader, "team", tuple(sorted(nicks.index(n) for n in team)))]


def test_one_line_goes_to_several_nicks_where_the_transport_can() -> None:
    """With ``send_many`` (IRC's multi-target PRIVMSG) a quest request or a role that is the
    same for several players is sent once for all of them; the transcript still names each,
    and every player gets the same lines in the same order as without it."""
    hub, nicks = new_hub(10)
    plain = hub.play("avalon", nicks, AvalonOptions(), 4)
    hub, nicks = new_hub(10)
    batches: list[tuple[tuple[str, ...], str]] = []

    def send_many(targets: Sequence[str], text: str) -> None:
        batches.append((tuple(targets), text))
        for target in targets:
            hub._from_referee(target, text)

    hub.referee.send_many = send_many
    match = hub.play("avalon", nicks, AvalonOptions(), 4)
    assert match.game.result is not None and match.game.result.forfeited is None
    quests = [(to, text) for to, text in batches if " quest " in text]
    assert quests and all(len(to) >= 2 for to, _ in quests)
    for to, text in quests:
        assert all((nick, text) in match.transcript for nick in to)
    sent_each = [line for to, line in match.transcript if to is not None and " quest " in line]
    assert len(sent_each) > len(quests)  # fewer lines than the DMs they carry
    assert any(text.startswith("ROLE ") and "role=servant" in text and len(to) == 5 for to, text in batches)
    for nick in nicks:  # what each player saw, channel and DMs interleaved
        assert [line for to, line in match.transcript if to in (None, nick)] == [
            line for to, line in plain.transcript if to in (None, nick)
        ]


def test_who_with_many_long_nicks_is_continued_and_joins_back() -> None:
    sent: list[tuple[str, str]] = []
    referee = Referee("arena", TimeoutConfig(), lambda target, text: sent.append((target, text)))
    nicks = [f"bot{i:02d}_{'x' * 10}" for i in range(40)]
    for nick in nicks:
        referee.on_message(nick, "arena", "REGISTER 1 owner=o version=1", 0.0)
    sent.clear()
    referee.on_message("asker", "arena", "WHO", 0.0)
    assert len(sent) > 1 and all(target == "asker" and len(text.encode()) <= MAX_LINE_BYTES for target, text in sent)
    joiner = Reassembler()
    (whole,) = [m for _, text in sent for m in joiner.add(parse(text))]
    assert whole.verb == "REGISTERED" and whole.list("bots") == sorted(nicks, key=str.lower)


def test_lines_for_an_ended_game_get_game_over_while_the_referee_remembers_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The match is let go at the end; the referee keeps the ids and bots of the last
    ``ENDED_MEMORY`` games, so a late answer hears GAME_OVER, and an old one UNKNOWN_GAME."""
    monkeypatch.setattr(gamelines, "ENDED_MEMORY", 2)
    hub, nicks = new_hub(5)
    outsider = install(hub, Puppet("outsider"))
    say(hub, "outsider", "REGISTER 1 name=outsider")
    matches = [hub.play("avalon", nicks, AvalonOptions(), seed) for seed in range(3)]
    assert not hub.referee.matches
    player = install(hub, Puppet(nicks[0]))
    first, *recent = matches
    for match in recent:
        check_refused(hub, match, player, f"ANSWER {match.gid} 3 approve", ErrorCode.GAME_OVER, match.gid, "3")
        assert last_error(player).text == f"game {match.gid} is over"
        check_refused(hub, match, player, f"TEAM {match.gid} :hello", ErrorCode.GAME_OVER, match.gid)
        check_refused(hub, match, outsider, f"ANSWER {match.gid} 3 approve", ErrorCode.NOT_A_PLAYER, match.gid, "3")
    check_refused(hub, first, player, f"ANSWER {first.gid} 3 approve", ErrorCode.UNKNOWN_GAME, first.gid)


def test_a_match_that_is_over_says_game_over_itself() -> None:
    hub, nicks = new_hub(5)
    match = start(hub, nicks, seed=2)
    player = install(hub, Puppet(nicks[0]))
    hub.run()
    match.abort("test", hub.now)
    assert match.gid in hub.referee.matches
    check_refused(hub, match, player, f"ANSWER {match.gid} 1 approve", ErrorCode.GAME_OVER, match.gid, "1")
    check_refused(hub, match, player, f"TEAM {match.gid} :hello", ErrorCode.GAME_OVER, match.gid)
