"""Werewolf through protocol lines, in memory: full games between SDK bots, and the secrets
that must never reach the channel (or the wrong player) before END."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.core.seating import Seating
from arena.games import LINES, RESERVED_NICKS
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import (
    ASK,
    END,
    ERROR,
    FLOOR_LINES,
    MAX_LINE_BYTES,
    MAX_TEXT_BYTES,
    TEAM,
    TIMEOUT,
    WARN,
    Message,
    parse,
)
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.sdk import Ask, Bot, GameView

from ..test_match import Puppet, answer, check_refused, install, last_error, random_choice, say, settle
from .helpers import ALL_ROLES, werewolf

PUBLIC_ONLY = {
    "START",
    "RULES",
    "NIGHT",
    "DAWN",
    "DAY",
    "CANDIDACY",
    "LEADER_VOTE",
    "LEADER",
    "ORDER",
    "SPEECH",
    "BALLOT",
    "VOTE_RESULT",
    "EXECUTION",
    "IDIOT",
    "DEATH",
    "SHOT",
    ASK,
    TIMEOUT,
    END,
}
VARIANTS: list[dict[str, Any]] = [
    {},
    {"roleCounts": "werewolf:2,seer:1,witch:1,hunter:1", "leaderEnabled": False},
    {"enabledRoles": ALL_ROLES, "roleCounts": "werewolf:2,seer:1,cupid:1,piper:1,idiot:1", "revealRolesOnDeath": False},
    {
        "enabledRoles": ALL_ROLES,
        "roleCounts": "werewolf:2,bodyguard:1,vigilante:1,jester:1,doctor:1",
        "lastWordsScope": "day_and_night",
        "lastWordsMode": "all",
    },
]


class Chatty(Bot):
    """A random bot that talks: a line at every turn at the floor, and wolf talk at night."""

    def speech(self, game: GameView[Any], ask: Ask) -> list[str]:
        return [f"{game.me} speaking ({ask.kind})"]

    def team_talk(self, game: GameView[Any], ask: Ask) -> list[str]:
        return [f"secret plan of {game.me}"] if ask.kind == "wolf_vote" else []


def flat(out: Any) -> list[Message]:
    """Event lines as Lines gives them (one, several or none per event), in one list."""
    return [m for item in out if item is not None for m in ((item,) if isinstance(item, Message) else item)]


def hub_with(bots: Mapping[str, Bot]) -> LocalHub:
    hub = LocalHub(TimeoutConfig())
    for nick, bot in bots.items():
        hub.connect(nick, bot)
    return hub


def play(hub: LocalHub, nicks: list[str], seed: int, **options: Any) -> Match:
    return hub.play("werewolf", nicks, WerewolfOptions(**options), seed)


def channel(match: Match) -> list[Message]:
    return [parse(line) for to, line in match.transcript if to is None]


def private(match: Match, nick: str) -> list[Message]:
    return [parse(line) for to, line in match.transcript if to == nick]


@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_games_tell_the_channel_only_public_events(variant: int) -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Chatty(seed=i) for i, n in enumerate(nicks)})
    lines = LINES["werewolf"]
    for seed in range(6):
        match = play(hub, nicks, seed, **VARIANTS[variant])
        game = match.game
        assert isinstance(game, WerewolfGame) and game.result is not None
        said = channel(match)
        assert {m.verb for m in said} <= PUBLIC_ONLY
        # The channel is exactly the public events (plus public requests and timeouts).
        events = [m for m in said if m.verb not in (ASK, TIMEOUT)]
        expected = flat(lines.event_message(e, match.gid, match.names) for e in game.view(None))
        assert [m.format() for m in events] == [m.format() for m in expected]
        for m in said:
            if m.verb == ASK:
                assert m.args[2] in game.public_kinds
            if m.verb == TIMEOUT:
                assert m.get("action") == "forfeit" or m.args[2] not in game.secret_kinds
        # Before END no channel line names the role of a living player.
        for m in said[:-1]:
            if m.verb in ("DAWN",):
                assert set(m.pairs("roles")) <= set(m.list("dead"))
        # Each player got exactly the private events of its audience, and nothing else.
        for seat, nick in enumerate(match.names):
            got = [m.format() for m in private(match, nick) if m.verb not in (ASK, WARN, TIMEOUT, ERROR, TEAM)]
            want = flat(
                lines.event_message(e, match.gid, match.names)
                for e in game.events
                if e.audience is not None and seat in e.audience
            )
            assert got == [m.format() for m in want]
            for m in private(match, nick):
                if m.verb == ASK:
                    assert m.get("to") == nick


def test_wolf_talk_reaches_the_living_wolves_only_and_only_at_night() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Chatty(seed=i) for i, n in enumerate(nicks)})
    relayed = 0
    for seed in range(6):
        match = play(hub, nicks, seed)
        game = werewolf(match.game)
        wolves = {match.names[s] for s, r in enumerate(game.roles) if r == "werewolf"}
        team = [(to, parse(line)) for to, line in match.transcript if line.startswith(TEAM)]
        relayed += len(team)
        for to, m in team:
            assert to in wolves and m.get("from") in wolves and to != m.get("from")
            assert m.text == f"secret plan of {m.get('from')}"
        assert not any(TEAM in line or "secret plan" in line for to, line in match.transcript if to is None)
        assert not any("secret plan" in text for text in (t.text for t in match.talk))
    assert relayed > 0


def test_each_wolf_is_asked_its_vote_under_an_id_of_its_own() -> None:
    """protocol.md, section 4: secret requests asked together do not share an id, unlike a
    team's quest cards: each wolf's ``wolf_vote`` names that wolf alone."""
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Bot(seed=i) for i, n in enumerate(nicks)})
    nights = 0
    for seed in range(3):
        match = play(hub, nicks, seed, roleCounts="werewolf:3,seer:1")
        votes: dict[str, list[tuple[str | None, str]]] = {}
        for to, line in match.transcript:
            msg = parse(line)
            if msg.verb == ASK and msg.args[2] == "wolf_vote":
                assert msg.get("to") == to
                votes.setdefault(msg.get("day", ""), []).append((to, msg.args[1]))
        for asked in votes.values():
            if len(asked) > 1:
                nights += 1
                assert len({rid for _, rid in asked}) == len(asked), asked
    assert nights > 0


def test_team_talk_is_refused_by_day_and_to_villagers() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Bot(seed=i) for i, n in enumerate(nicks)})
    match = hub.referee.start_game("werewolf", nicks, WerewolfOptions(), 1, hub.channel, hub.now)
    game = werewolf(match.game)
    villager = next(s for s, r in enumerate(game.roles) if r != "werewolf")
    wolf = next(s for s, r in enumerate(game.roles) if r == "werewolf")
    before = len(match.transcript)
    hub.referee.on_message(nicks[villager], hub.referee.nick, f"TEAM {match.gid} :hello", hub.now)
    refused = [parse(line) for to, line in match.transcript[before:] if to == nicks[villager]]
    assert [m.args[0] for m in refused] == [ErrorCode.INVALID_PHASE.value]
    assert not [to for to, line in match.transcript[before:] if to != nicks[villager]]
    hub.referee.on_message(nicks[wolf], hub.referee.nick, f"TEAM {match.gid} :hello pack", hub.now)
    other = next(s for s, r in enumerate(game.roles) if r == "werewolf" and s != wolf)
    assert match.transcript[-1] == (nicks[other], f"TEAM {match.gid} from={nicks[wolf]} :hello pack")
    before = len(match.transcript)
    hub.referee.on_message(nicks[wolf], hub.referee.nick, f"TEAM {match.gid} :{'x' * (MAX_TEXT_BYTES + 1)}", hub.now)
    (too_long,) = [parse(line) for to, line in match.transcript[before:]]
    assert too_long.args[0] == ErrorCode.MALFORMED.value and "at most 300 bytes" in (too_long.text or "")


def test_only_the_floor_holder_may_talk_and_bots_hear_only_them() -> None:
    heard: list[tuple[str, str, str | None]] = []

    class Ear(Chatty):
        def on_chat(self, game: GameView[Any], nick: str, text: str) -> None:
            heard.append((nick, text, game.floor))

    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Ear(seed=i) for i, n in enumerate(nicks)})
    match = play(hub, nicks, 3)
    assert match.talk and not any(line.startswith(ERROR) for _, line in match.transcript)
    assert heard and all(nick == floor for nick, _, floor in heard)
    assert all(t.text.startswith(t.nick) for t in match.talk)

    # Out of turn: refused with an ERROR, left out of the record, never passed on.
    match = hub.referee.start_game("werewolf", nicks, WerewolfOptions(), 4, hub.channel, hub.now)
    heard.clear()
    hub.referee.on_message("p1", hub.channel, "I am not supposed to talk at night", hub.now)
    assert match.talk == []
    assert parse(match.transcript[-1][1]).args[0] == ErrorCode.NOT_YOUR_TURN.value
    assert match.transcript[-1][0] == "p1"


def test_secret_requests_time_out_in_private_and_ids_leak_nothing() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = LocalHub(TimeoutConfig(escalation=("default",)))
    for i, n in enumerate(nicks):
        hub.connect(n, Bot(seed=i))
    match = hub.referee.start_game("werewolf", nicks, WerewolfOptions(), 2, hub.channel, hub.now)
    hub.sessions.pop("p0")  # p0 never answers again
    while not match.over:
        hub.run()
        if match.over:
            break
        hub.now = hub.referee.next_deadline() or hub.now
        hub.referee.poll(hub.now)
    timeouts = [(to, parse(line)) for to, line in match.transcript if line.startswith(TIMEOUT)]
    assert timeouts
    game = match.game
    asked = {parse(line).args[1]: parse(line).args[2] for to, line in match.transcript if line.startswith(ASK)}
    for to, m in timeouts:
        secret = asked[m.args[1]] in game.secret_kinds
        assert (to == "p0") if secret else (to is None)
    rids = [int(parse(line).args[1]) for _, line in match.transcript if line.startswith(ASK)]
    assert len(set(rids)) == len(rids) and rids != sorted(rids)


def test_answers_mix_nicks_and_words_and_nicks_cannot_shadow_words() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Bot(seed=i) for i, n in enumerate(nicks)})
    match = hub.referee.start_game(
        "werewolf", nicks, WerewolfOptions(roleCounts="werewolf:2,seer:1"), 0, hub.channel, hub.now
    )
    hub.sessions.clear()  # nobody answers by themselves: the test does
    hub.run()
    seer = werewolf(match.game).roles.index("seer")
    ask = next(parse(line) for to, line in reversed(match.transcript) if to == nicks[seer] and line.startswith(ASK))
    assert (
        ask.args[2] == "seer_check" and "none" in ask.list("options") and nicks[(seer + 1) % 8] in ask.list("options")
    )
    gid, rid = ask.args[:2]
    hub.referee.on_message(nicks[seer], "arena", f"ANSWER {gid} {rid} nobody", hub.now)
    assert parse(match.transcript[-1][1]).args[0] == ErrorCode.TARGET_INVALID.value
    hub.referee.on_message(nicks[seer], "arena", f"ANSWER {gid} {rid} none", hub.now)
    assert match.game.history[-1] == (seer, "seer_check", "none")

    assert {"none", "abstain"} <= RESERVED_NICKS
    sent: list[tuple[str, str]] = []
    hub.referee.send = lambda target, text: sent.append((target, text))
    hub.referee.on_message("abstain", "arena", "REGISTER 1", hub.now)
    assert parse(sent[-1][1]).args[0] == ErrorCode.NAME_INVALID.value and "abstain" not in hub.referee.bots


def test_a_deal_seats_the_roles() -> None:
    roles = WerewolfOptions().deal(8)
    deal = [7, 6, 5, 4, 3, 2, 1, 0]
    game = WerewolfGame(8, WerewolfOptions(), 0, deal)
    assert game.roles == [roles[i] for i in deal] and game.deal == tuple(deal)
    assert WerewolfGame(8, WerewolfOptions(), 5).roles == WerewolfGame(8, WerewolfOptions(), 5, None).roles


def test_rule_bot_beats_random_bots_clearly() -> None:
    hub = LocalHub(TimeoutConfig())
    rule = [f"rule{i}" for i in range(4)]
    rand = [f"rand{i}" for i in range(4)]
    for i, nick in enumerate(rule):
        hub.connect(nick, WerewolfRuleBot(seed=i))
    for i, nick in enumerate(rand):
        hub.connect(nick, Bot(seed=100 + i))
    seating = Seating(rule + rand, 16, seed=3)
    wins = {"rule": 0, "rand": 0}
    errors = 0
    for g in range(200):
        match = hub.play("werewolf", list(seating.order(g)), WerewolfOptions(), g)
        result = match.game.result
        assert result is not None and result.forfeited is None
        errors += sum(1 for _, line in match.transcript if line.startswith(ERROR))
        for seat, nick in enumerate(match.names):
            wins[nick[:4]] += seat in result.winners
    assert errors == 0, "the rule bot sent lines the referee refused"
    rates = {k: v / 800 for k, v in wins.items()}
    assert rates["rule"] - rates["rand"] >= 0.08, rates


@pytest.mark.parametrize("transport", ["engine", "protocol"])
def test_simulate_summarises_werewolf(transport: str) -> None:
    from click.testing import CliRunner
    import json

    from arena.cli import main

    result = CliRunner().invoke(
        main,
        [
            "simulate",
            "--game",
            "werewolf",
            "--players",
            "9",
            "--games",
            "30",
            "--seed",
            "4",
            "--transport",
            transport,
            "--option",
            "roleCounts=werewolf:2,seer:1,witch:1",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["players"] == 9 and summary["options"]["roleCounts"] == "werewolf:2,seer:1,witch:1"
    assert set(summary["wins"]) == set(WerewolfGame.sides)
    assert sum(summary["wins"].values()) == sum(
        summary["end_reasons"].get(r, 0) for r in summary["end_reasons"] if r != "day_limit"
    )
    assert set(summary["end_reasons"]) <= set(WerewolfGame.end_reasons)


class Watcher(Bot):
    """Keeps what the SDK handed it: whole messages, however many lines each took."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.seats: list[str] = []
        self.asks: list[Ask] = []

    def on_start(self, game: GameView[Any]) -> None:
        self.seats = game.seats

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.asks.append(ask)
        return super().decide(game, ask)


@pytest.mark.parametrize("players", [10, 20])
def test_every_line_fits_in_an_irc_line_with_long_nicks(players: int) -> None:
    """Twenty 16-character nicks overflow a line: such messages are continued, and the
    SDK hands bots the whole message."""
    nicks = [f"player{i}_abcdefghij"[:16] for i in range(players)]
    bots = {n: Watcher(seed=i) for i, n in enumerate(nicks)}
    hub = hub_with(bots)
    options = {"enabledRoles": ALL_ROLES, "roleCounts": "werewolf:3,seer:1,witch:1,cupid:1,piper:1,hunter:1"}
    continued = 0
    for seed in range(3):
        match = play(hub, nicks, seed, **options)
        assert match.game.result is not None and match.game.result.forfeited is None
        longest = max(len(line.encode()) for _, line in match.transcript)
        assert longest <= MAX_LINE_BYTES, max(match.transcript, key=lambda t: len(t[1]))
        continued += sum(1 for _, line in match.transcript if line.endswith(" more=true"))
        assert all(bot.seats == nicks for bot in bots.values())
        assert not any("more" in ask.fields for bot in bots.values() for ask in bot.asks)
    assert continued > 0 or players < 20  # twenty long nicks cannot fit one line
    assert not any(line.startswith("ERROR") for _, line in match.transcript)


def test_the_sdk_reads_the_rules_into_the_game_options() -> None:
    seen: dict[str, str] = {}

    class Reader(Bot):
        def vote(self, game: GameView[Any], ask: Ask) -> str:
            seen.update(game.options)
            return ask.random(self.rng)  # type: ignore[return-value]

    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Reader(seed=i) for i, n in enumerate(nicks)})
    play(hub, nicks, 1, revealRolesOnDeath=False)
    assert seen["revealRolesOnDeath"] == "false" and seen["leaderEnabled"] == "true"


def test_runoff_turns_and_votes_say_what_they_are_for() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = hub_with({n: Bot(seed=i) for i, n in enumerate(nicks)})
    for seed in range(40):
        match = play(hub, nicks, seed, dayVoteMajority=False)
        said = channel(match)
        runoff = next((i for i, m in enumerate(said) if m.verb == "VOTE_RESULT" and m.get("outcome") == "runoff"), None)
        if runoff is None:
            continue
        tied = said[runoff].list("candidates")
        after = said[runoff + 1 :]
        speak = next(m for m in after if m.verb == ASK and m.args[2] == "speak")
        assert speak.get("purpose") == "runoff" and speak.get("to") in tied and speak.flag("floor")
        vote = next(m for m in after if m.verb == ASK and m.args[2] == "vote")
        assert vote.get("round") == "2" and set(vote.list("options")) <= set(tied) | {"abstain"}
        return
    pytest.fail("no runoff in 40 games")


def test_the_dead_are_told_they_cannot_talk() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = LocalHub(TimeoutConfig(night_step=0.0))  # nothing holds the night's public lines
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    hub.sessions.clear()  # nobody answers: the game waits at night 1
    match = hub.referee.start_game("werewolf", nicks, WerewolfOptions(), 6, hub.channel, hub.now)
    hub.run()
    werewolf(match.game).kill(3, "test")  # a death in the day, as a hunter's shot would be
    match.poll(hub.now)  # and said (the engine was moved behind the match's back): the dead know it from then on
    hub.referee.on_message("p3", hub.channel, "boo", hub.now)
    hub.referee.on_message("p4", hub.channel, "hello", hub.now)
    assert match.talk == []
    codes = [parse(line).args[0] for to, line in match.transcript[-2:]]
    assert codes == [ErrorCode.PLAYER_DEAD.value, ErrorCode.NOT_YOUR_TURN.value]


@pytest.mark.parametrize("minimum", [0.0, 20.0])
def test_a_night_lasts_the_configured_minimum_whoever_is_asked(minimum: float) -> None:
    """Bots that answer at once: with a witch dealt every night then takes exactly the
    longer of ``secret_minimum`` and ``night_step`` (on the hub's virtual clock), however
    many night roles are still alive to be asked, the witch among them."""
    nicks = [f"p{i}" for i in range(8)]
    hub = LocalHub(TimeoutConfig(secret_minimum=minimum, night_step=10.0), messages=False)  # every line through send
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    said: list[tuple[float, str | None, str]] = []
    send = hub.referee.send

    def timed(target: str, text: str) -> None:
        said.append((hub.now, target, text))
        send(target, text)

    hub.referee.send = timed
    nights: list[float] = []
    asked_per_night: set[int] = set()
    for seed in range(6):
        said.clear()
        play(hub, nicks, seed, roleCounts="werewolf:2,seer:1,witch:1,doctor:1")
        start = None
        asked = 0
        ended = None
        for when, target, text in said:
            verb = text.split(" ", 1)[0]
            if target == hub.channel and verb == "NIGHT":
                start, asked = when, 0
            elif start is not None and target != hub.channel and verb == ASK:
                asked += 1
            elif start is not None and target == hub.channel and verb == "DAWN":
                ended = (when - start, asked)
                start = None
            elif target == hub.channel and verb == END:
                ended = None  # a night that decides the game is not held: END tells every role
            elif ended is not None and target == hub.channel and verb != "DAY":
                nights.append(ended[0])
                asked_per_night.add(ended[1])
                ended = None
    assert len(asked_per_night) > 1, "nights asked different numbers of requests"
    assert nights and all(length == max(minimum, 10.0) for length in nights), sorted(set(nights))


def test_an_operator_stop_is_said_at_once_even_during_a_long_night() -> None:
    nicks = [f"p{i}" for i in range(8)]
    hub = LocalHub(TimeoutConfig(secret_minimum=60.0))
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=i))
    match = hub.referee.start_game("werewolf", nicks, WerewolfOptions(), 3, hub.channel, hub.now)
    hub.run()  # every night answer is in; the night is held until its minimum
    assert match.next_deadline() == 60.0 and not match.over
    match.abort("stopped by an operator", hub.now)
    hub.run()
    assert match.over and parse(match.transcript[-1][1]).get("reason") == "aborted"


class Killer(Bot):
    """A random bot whose pack kills the first player it may."""

    def decide(self, game: GameView[Any], ask: Ask) -> Any:
        return ask.options[0] if ask.kind == "wolf_vote" else super().decide(game, ask)


def test_while_a_night_is_held_its_players_are_answered_as_they_were_told() -> None:
    """Every night answer is in, but the night lasts its minimum: until DAWN is said, the
    pack still talks, and the night's victim is refused as the living are, since a refusal
    that knew better would tell that the night is over, and who died, before DAWN does."""
    nicks = [f"p{i}" for i in range(8)]
    hub = LocalHub(TimeoutConfig(secret_minimum=60.0))
    for i, nick in enumerate(nicks):
        hub.connect(nick, Killer(seed=i))
    match = hub.referee.start_game(
        "werewolf", nicks, WerewolfOptions(roleCounts="werewolf:2,seer:1"), 1, hub.channel, hub.now
    )
    hub.run()  # every night answer is in; the night is held until its minimum
    game = werewolf(match.game)
    dead = [s for s in range(len(nicks)) if not game.alive[s]]
    assert match.next_deadline() == 60.0 and not any(line.startswith("DAWN") for _, line in match.transcript)
    wolf, other = (s for s, r in enumerate(game.roles) if r == "werewolf")
    (victim,) = dead
    assert game.roles[victim] != "werewolf"

    def reply(seat: int, line: str) -> list[tuple[str | None, str]]:
        before = len(match.transcript)
        hub.referee.on_message(nicks[seat], hub.referee.nick, line, hub.now)
        return match.transcript[before:]

    assert reply(wolf, f"TEAM {match.gid} :is it dawn?") == [
        (nicks[other], f"TEAM {match.gid} from={nicks[wolf]} :is it dawn?")
    ]
    (refused,) = reply(victim, f"ANSWER {match.gid} 1 abstain")
    assert parse(refused[1]).args[0] == ErrorCode.STALE_REQUEST.value, "the victim learns nothing before DAWN"
    hub.now = 60.0
    hub.referee.poll(hub.now)
    assert any(line.startswith("DAWN") for _, line in match.transcript)
    (refused,) = reply(wolf, f"TEAM {match.gid} :is it dawn?")
    assert parse(refused[1]).args[0] == ErrorCode.INVALID_PHASE.value
    (refused,) = reply(victim, f"ANSWER {match.gid} 1 abstain")
    assert parse(refused[1]).args[0] == ErrorCode.PLAYER_DEAD.value


# -- errors and the floor, on the wire ---------------------------------------------------------

NAMES = ["ann", "bob", "cid", "dan", "eve", "fay", "gus", "hal"]
"""Nicks without digits: an explanation that shows a seat number is then easy to catch."""


Log = list[tuple[str, str, str]]
"""What the referee did, in order: ("SEND", target, line) or ("MODE", channel, modes)."""


def puppet_game(seed: int, **options: Any) -> tuple[LocalHub, Match, list[Puppet], Log]:
    """A game whose every seat is a puppet the test answers for (through ``settle``), with
    the channel's voice (``MODE``) and every line the referee sends logged in order."""
    hub = LocalHub(TimeoutConfig(), messages=False)  # every line through send
    for i, nick in enumerate(NAMES):
        hub.connect(nick, Bot(seed=i))
    log: Log = []
    send = hub.referee.send

    def logged(target: str, text: str) -> None:
        log.append(("SEND", target, text))
        send(target, text)

    hub.referee.send = logged
    hub.referee.mode = lambda channel, modes: log.append(("MODE", channel, modes))
    match = hub.referee.start_game("werewolf", NAMES, WerewolfOptions(**options), seed, hub.channel, hub.now)
    return hub, match, [install(hub, Puppet(n)) for n in NAMES], log


def floor_choice(puppet: Puppet, ask: Message) -> str:
    """Random, but a turn at the floor is ended (``pass`` would say the same, less plainly)."""
    return "done" if ask.flag("floor") and "done" in ask.list("options") else random_choice(puppet, ask)


def test_refused_answers_get_the_documented_codes_and_name_players_by_nick() -> None:
    for seed in range(20):
        hub, match, puppets, _ = puppet_game(seed)
        game = match.game
        found = settle(
            hub,
            match,
            puppets,
            floor_choice,
            stop=lambda p, ask: ask.args[2] == "vote" and any(game.is_out(s) for s in range(8)),
        )
        if found is not None:
            break
    else:
        pytest.fail("no day vote after a death in 20 games")
    voter, ask = found
    gid, rid = ask.args[:2]
    dead = next(p for s, p in enumerate(puppets) if game.is_out(s))
    options = ask.list("options")
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} {dead.nick}", ErrorCode.TARGET_ALREADY_DEAD, gid, rid)
    assert last_error(voter).text == f"vote: {dead.nick} is dead"
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} none", ErrorCode.TARGET_INVALID, gid, rid)
    assert last_error(voter).text == f"vote: none is not one of your options: {','.join(options)}"
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} {voter.nick}", ErrorCode.CANNOT_SELF_TARGET, gid, rid)
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} {options[0]},{options[1]}", ErrorCode.WRONG_COUNT, gid, rid)
    # The dead are told they are dead, whatever the request id: a real one or none at all.
    check_refused(hub, match, dead, f"ANSWER {gid} {rid} abstain", ErrorCode.PLAYER_DEAD, gid, rid)
    text = last_error(dead).text
    check_refused(hub, match, dead, f"ANSWER {gid} 1000000 abstain", ErrorCode.PLAYER_DEAD, gid, "1000000")
    assert last_error(dead).text == text
    # Someone else's request and a request that does not exist: one code, one text.
    other = next(p for s, p in enumerate(puppets) if p is not voter and not game.is_out(s))
    check_refused(hub, match, other, f"ANSWER {gid} {rid} abstain", ErrorCode.STALE_REQUEST, gid, rid)
    text = last_error(other).text
    check_refused(hub, match, other, f"ANSWER {gid} 1000000 abstain", ErrorCode.STALE_REQUEST, gid, "1000000")
    unknown = last_error(other).text
    assert unknown is not None
    assert unknown.replace("1000000", rid) == text
    answer(hub, voter, ask, "abstain")
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} abstain", ErrorCode.ALREADY_ACTED, gid, rid)
    # No explanation shows a seat number (a count may show: WRONG_COUNT says how many).
    errors = [
        (m.text or "").replace(rid, "").replace("1000000", "")
        for p in puppets
        for m in p.errors()
        if m.args[0] != ErrorCode.WRONG_COUNT.value
    ]
    assert not any(ch.isdigit() for text in errors for ch in text), errors
    assert settle(hub, match, puppets, floor_choice) is None
    # After END, and after the referee let the match go: GAME_OVER, still with the ids.
    del hub.referee.matches[gid]
    check_refused(hub, match, voter, f"ANSWER {gid} {rid} abstain", ErrorCode.GAME_OVER, gid, rid)
    check_refused(hub, match, dead, f"TEAM {gid} :too late", ErrorCode.GAME_OVER, gid)


def test_the_dead_may_not_talk_to_the_pack() -> None:
    hub, match, puppets, _ = puppet_game(3)
    game = werewolf(match.game)
    wolf = next(s for s, r in enumerate(game.roles) if r == "werewolf")
    game.kill(wolf, "test")
    hub.now = match.next_deadline() or hub.now  # the night's public lines are due: the death is said
    hub.referee.poll(hub.now)
    assert any(line.startswith("DEATH ") for to, line in match.transcript if to is None)
    check_refused(hub, match, puppets[wolf], f"TEAM {match.gid} :still here", ErrorCode.PLAYER_DEAD, match.gid)


def voiced_at_each_floor_ask(log: Log, channel: str) -> list[tuple[str, set[str]]]:
    """Each floor ASK the channel got, with who was voiced when it went out."""
    voiced: set[str] = set()
    out = []
    for what, target, text in log:
        if what == "MODE" and text[:2] in ("+v", "-v"):
            (voiced.add if text[0] == "+" else voiced.discard)(text[3:])
        elif what == "SEND" and target == channel and text.startswith(ASK) and parse(text).flag("floor"):
            out.append((parse(text).get("to", ""), set(voiced)))
    return out


def test_the_floor_is_voiced_before_its_request_goes_out() -> None:
    hub, match, puppets, log = puppet_game(5)
    assert settle(hub, match, puppets, floor_choice) is None
    turns = voiced_at_each_floor_ask(log, hub.channel)
    assert turns and all(voiced == {to} for to, voiced in turns), turns


def test_a_speech_is_capped_in_lines_and_bytes_and_the_floor_taken_back() -> None:
    hub, match, puppets, log = puppet_game(1)
    found = settle(hub, match, puppets, floor_choice, stop=lambda p, ask: ask.args[2] == "speak")
    assert found is not None
    speaker, ask = found
    say(hub, speaker.nick, "x" * (MAX_TEXT_BYTES + 1), target=hub.channel)
    assert last_error(speaker).args[:2] == (ErrorCode.MALFORMED.value, match.gid)
    for i in range(1, FLOOR_LINES + 3):
        say(hub, speaker.nick, f"line {i}", target=hub.channel)
        if i == FLOOR_LINES:
            assert log[-1] == ("MODE", hub.channel, f"-v {speaker.nick}")
    assert [(t.nick, t.text) for t in match.talk] == [(speaker.nick, f"line {i}") for i in range(1, FLOOR_LINES + 1)]
    refused = [m for m in speaker.errors() if m.args[0] == ErrorCode.NOT_YOUR_TURN.value]
    assert len(refused) == 2 and all(m.args[1:] == (match.gid,) for m in refused)
    # The turn is still open: the answer ends it, and the next speaker is voiced (once).
    marks = len(log)
    answer(hub, speaker, ask, "done")
    modes = [text for what, _, text in log[marks:] if what == "MODE"]
    assert f"-v {speaker.nick}" not in modes
    assert settle(hub, match, puppets, floor_choice) is None
    assert all(nick != speaker.nick or text.startswith("line") for nick, text in ((t.nick, t.text) for t in match.talk))
