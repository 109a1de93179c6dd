"""A bot that comes back mid-game is resynced: ``RESYNC GID begin``, every line it was
entitled to, ``RESYNC GID end``, then its open request with the time left. A fresh SDK
session rebuilt from that knows what the lost one knew and plays on legally."""

from __future__ import annotations

from typing import Any

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, ERROR, RESYNC, Message, parse
from arena.referee.local import LocalHub
from arena.sdk import Bot, GameView, Session
from arena.sdk.answers import Reply

from .werewolf.helpers import werewolf

NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]


class Hung:
    """A connection whose bot hears everything but whose answers are lost after its first
    ``answers`` (a process that hung): the referee still thinks it is there."""

    def __init__(self, session: Session, answers: int) -> None:
        self.session, self.left = session, answers
        self.nick = session.nick
        self.heard: list[str] = []
        """Every line sent to it privately."""

    def _pass(self, out: list[str]) -> list[str]:
        if self.left <= 0:
            return []
        self.left -= sum(line.startswith("ANSWER") for line in out)
        return out

    def feed(self, sender: str, text: str) -> list[str]:
        self.heard.append(text)
        return self._pass(self.session.feed(sender, text))

    def replies(self, msg: Message) -> list[Reply]:
        out = self.session.replies(msg)
        return out if self._pass([line for line, _ in out]) else []

    def chat(self, sender: str, text: str) -> None:
        self.session.chat(sender, text)

    def channel_of(self, gid: str) -> str | None:
        return self.session.channel_of(gid)


def recording(bot: type[Bot]) -> type[Bot]:
    """``bot`` keeping, in ``views``, what it knew whenever it learned its role."""

    class Recording(bot):  # type: ignore[valid-type,misc]
        def __init__(self, seed: int | None = None) -> None:
            super().__init__(seed)
            self.views: list[tuple[Any, ...]] = []

        def on_role(self, game: GameView[Any]) -> None:
            super().on_role(game)
            self.views.append((game.role, game.side, game.sees, game.seats))

    return Recording


def shown(messages: list[Message]) -> list[str]:
    """A view's lines with the deadlines left out (a re-sent request has less time)."""
    return [
        Message(m.verb, m.args, {k: v for k, v in m.fields.items() if k != "deadline"}, m.text).format()
        for m in messages
    ]


@pytest.mark.parametrize(
    "game, options, players, bot, seed, answers",
    [
        ("avalon", AvalonOptions(), 5, RuleBot, 7, 0),
        ("avalon", AvalonOptions(), 5, RuleBot, 7, 3),
        ("werewolf", WerewolfOptions(), 7, WerewolfRuleBot, 1, 0),
        ("werewolf", WerewolfOptions(), 7, WerewolfRuleBot, 1, 3),
    ],
)
def test_a_bot_replaced_mid_game_is_resynced_and_plays_on(
    game: str,
    options: Any,
    players: int,
    bot: type[Bot],
    seed: int,
    answers: int,
) -> None:
    hub = LocalHub(TimeoutConfig(escalation=("forfeit",)))  # a single missed deadline would forfeit
    nicks = NICKS[:players]
    for nick in nicks:
        hub.connect(nick, bot(seed=1))
    lost = hub.sessions["alice"]
    hub.sessions["alice"] = Hung(lost, answers)  # type: ignore[assignment]
    match = hub.referee.start_game(game, nicks, options, seed, hub.channel, hub.now)
    hub.run()
    assert not match.over and match.game.decision_for(0) is not None, "alice's request must be what the game waits for"
    old = lost.games[match.gid]
    sent = len(match.transcript)

    hub.referee.on_leave("alice")  # the old connection's QUIT, as the server reports it
    fresh = hub.connect("alice", recording(bot)(seed=2))  # the bot's process restarted: it knows nothing
    assert not [text for _, text in match.transcript[sent:] if text.startswith(RESYNC)]  # told, not part of the game
    assert fresh.bot.views == [(old.role, old.side, old.sees, old.seats)]  # type: ignore[attr-defined]
    assert old.role is not None
    while not match.over:
        hub.run()
        if match.over:
            break
        deadline = hub.referee.next_deadline()
        assert deadline is not None
        hub.now = deadline
        hub.referee.poll(hub.now)
    assert match.game.result is not None and match.game.result.reason != "forfeit"
    errors = [text for to, text in match.transcript[sent:] if to == "alice" and text.startswith(ERROR)]
    assert errors == []


def test_the_resync_block_is_what_the_seat_was_told() -> None:
    """The lines between ``begin`` and ``end`` are the channel's lines and the seat's own
    private lines of that game, in order; the open request comes after ``end``, once,
    with the time left; nobody else's private lines are in it."""
    hub = LocalHub(TimeoutConfig(decision=30.0))
    nicks = NICKS[:5]
    for nick in nicks:
        hub.connect(nick, RuleBot(seed=1))
    lost = hub.sessions["alice"]
    hub.sessions["alice"] = Hung(lost, 0)  # type: ignore[assignment]
    match = hub.referee.start_game("avalon", nicks, AvalonOptions(), 7, hub.channel, hub.now)
    hub.run()
    hub.now += 12.0
    hub.referee.on_leave("alice")  # the old connection's QUIT
    tap = Hung(Session(RuleBot(), "alice", hub.referee.nick), 0)  # a new connection that only listens
    hub.sessions["alice"] = tap  # type: ignore[assignment]
    hub.referee.on_message("alice", hub.referee.nick, tap.session.hello(), hub.now)
    hub.run()
    block = tap.heard[tap.heard.index(f"{RESYNC} {match.gid} begin seat=alice channel={hub.channel}") + 1 :]
    end = block.index(f"{RESYNC} {match.gid} end")
    history, after = block[:end], block[end + 1 :]
    expected = [text for to, text in match.transcript if to in (None, "alice")]
    live = f"{ASK} {match.gid} {parse(after[0]).args[1]} "
    assert history == [line for line in expected if not line.startswith(live)]
    assert shown([parse(line) for line in after]) == shown([parse(line) for line in expected if line.startswith(live)])
    assert parse(after[0]).int("deadline") == 18
    assert shown(lost.games[match.gid].messages) == shown([parse(line) for line in expected])


def test_registering_again_from_the_same_connection_replays_nothing() -> None:
    """A resync costs the game's lines again on a rate-limited link: a bot that registers
    over and over from the connection that already plays it gets a WELCOME each time and
    no replay, so it cannot slow everyone's games at will."""
    hub = LocalHub(TimeoutConfig())
    for nick in NICKS[:5]:
        hub.connect(nick, RuleBot(seed=1))
    tap = Hung(hub.sessions["alice"], 0)  # hears alice's private lines, answers nothing
    hub.sessions["alice"] = tap  # type: ignore[assignment]
    match = hub.referee.start_game("avalon", NICKS[:5], AvalonOptions(), 7, hub.channel, hub.now)
    hub.run()
    before = len(tap.heard)
    for _ in range(3):
        hub.referee.on_message("alice", hub.referee.nick, "REGISTER 1", hub.now)
        hub.run()
    assert [text.split(" ")[0] for text in tap.heard[before:]] == ["WELCOME"] * 3
    assert not match.over


def test_where_a_bot_must_rejoin_the_channel_the_block_waits_for_it() -> None:
    """On a network with channels, the block after ``RESYNC begin`` goes out once the bot
    is seen in the game's channel (or after ``REJOIN_WAIT``): a channel line said while it
    was joining is then in the block, never lost between the two."""
    from arena.referee.rejoin import REJOIN_WAIT

    hub = LocalHub(TimeoutConfig(decision=30.0))
    for nick in NICKS[:5]:
        hub.connect(nick, RuleBot(seed=1))
    inside = {nick for nick in NICKS[:5]}
    hub.referee.member = lambda nick, channel: nick in inside
    hub.sessions["alice"] = Hung(hub.sessions["alice"], 0)  # type: ignore[assignment]  # the game waits for her
    match = hub.referee.start_game("avalon", NICKS[:5], AvalonOptions(), 7, hub.channel, hub.now)
    hub.run()
    hub.referee.on_leave("alice")
    inside.discard("alice")
    tap = Hung(Session(RuleBot(), "alice", hub.referee.nick), 0)
    hub.sessions["alice"] = tap  # type: ignore[assignment]
    hub.referee.on_message("alice", hub.referee.nick, tap.session.hello(), hub.now)
    hub.run()
    assert tap.heard[-1].startswith(f"{RESYNC} {match.gid} begin")  # and nothing more yet
    assert hub.referee.next_deadline() == hub.now + REJOIN_WAIT
    hub.referee.on_join("alice", hub.channel, hub.now + 0.5)
    hub.run()
    assert f"{RESYNC} {match.gid} end" in tap.heard
    assert hub.referee.next_deadline() != hub.now + REJOIN_WAIT
    # A bot that never joins gets the block when the wait is over, and plays by DM.
    hub.referee.on_leave("alice")
    late = Hung(Session(RuleBot(), "alice", hub.referee.nick), 0)
    hub.sessions["alice"] = late  # type: ignore[assignment]
    hub.referee.on_message("alice", hub.referee.nick, late.session.hello(), hub.now)
    hub.run()
    assert f"{RESYNC} {match.gid} end" not in late.heard
    hub.referee.poll(hub.now + REJOIN_WAIT)
    hub.run()
    assert f"{RESYNC} {match.gid} end" in late.heard


def test_a_game_that_ends_while_a_replay_waits_for_its_bot_ends_the_replay() -> None:
    """The block a resync holds back for its bot's JOIN goes out when the game ends
    meanwhile: it ends with END, so the bot is not left in a game that is over."""
    hub = LocalHub(TimeoutConfig(decision=30.0))
    for nick in NICKS[:5]:
        hub.connect(nick, RuleBot(seed=1))
    hub.referee.member = lambda nick, channel: nick != "alice"
    hub.sessions["alice"] = Hung(hub.sessions["alice"], 0)  # type: ignore[assignment]
    match = hub.referee.start_game("avalon", NICKS[:5], AvalonOptions(), 7, hub.channel, hub.now)
    hub.run()
    hub.referee.on_leave("alice")
    tap = Hung(Session(RuleBot(), "alice", hub.referee.nick), 0)
    hub.sessions["alice"] = tap  # type: ignore[assignment]
    hub.referee.on_message("alice", hub.referee.nick, tap.session.hello(), hub.now)
    hub.run()
    assert f"{RESYNC} {match.gid} end" not in tap.heard
    match.abort("stopped", hub.now)
    hub.run()
    block = tap.heard[tap.heard.index(f"{RESYNC} {match.gid} begin seat=alice channel={hub.channel}") :]
    assert any(line.startswith(f"END {match.gid} ") for line in block) and block[-1] == f"{RESYNC} {match.gid} end"


def test_the_resync_block_holds_the_relayed_team_lines_but_not_what_players_said_in_the_channel() -> None:
    """protocol.md, section 4: the block is the referee's lines; the pack talk relayed to
    the seat is in it, the speeches said in the channel are not (the lines closing their
    turns are)."""
    from .werewolf.test_wire import Chatty

    hub = LocalHub(TimeoutConfig(escalation=("default",)))
    for i, nick in enumerate(NICKS):
        hub.connect(nick, Chatty(seed=i))
    match = hub.referee.start_game(
        "werewolf", NICKS, WerewolfOptions(roleCounts="werewolf:2,seer:1"), 3, hub.channel, hub.now
    )
    wolf = NICKS[werewolf(match.game).roles.index("werewolf")]
    hub.sessions[wolf.lower()] = Hung(hub.sessions[wolf.lower()], 0)  # type: ignore[assignment]

    def heard_both() -> bool:
        relayed = any(to == wolf and line.startswith("TEAM") for to, line in match.transcript)
        return relayed and any(t.nick != wolf for t in match.talk)

    while not heard_both():
        hub.run()
        assert not match.over, "the game ended before a night's talk and a day's speech"
        hub.now = hub.referee.next_deadline() or hub.now
        hub.referee.poll(hub.now)
    hub.referee.on_leave(wolf)
    tap = Hung(Session(Bot(), wolf, hub.referee.nick), 0)  # a new connection that only listens
    hub.sessions[wolf.lower()] = tap  # type: ignore[assignment]
    hub.referee.on_message(wolf, hub.referee.nick, tap.session.hello(), hub.now)
    hub.run()
    block = tap.heard[tap.heard.index(f"{RESYNC} {match.gid} begin seat={wolf} channel={hub.channel}") + 1 :]
    block = block[: block.index(f"{RESYNC} {match.gid} end")]
    assert any(line.startswith(f"TEAM {match.gid} from=") for line in block)
    assert any(line.startswith((f"SPEECH {match.gid} ", f"CANDIDACY {match.gid} ")) for line in block)
    assert not any("speaking" in line for line in block), "players' speeches are no line of the referee's"
