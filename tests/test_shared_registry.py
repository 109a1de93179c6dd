"""The registrations of a lobby several referees share, as one referee's registry keeps
them: what it admits, renames and sees end is told to the others (``Sharing``), what they
admitted it plays too (``Registry.adopt``), and a netsplit's quit ends nothing shared."""

from __future__ import annotations

from arena.config import TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.protocol import RESYNC, WELCOME, Message, parse
from arena.referee.referee import Referee
from arena.referee.registry import BotInfo


class Told:
    """The other referees, as a registry tells them (``Sharing``)."""

    def __init__(self) -> None:
        self.said: list[tuple[str, str, str]] = []

    def admitted(self, info: BotInfo) -> None:
        info.token = info.token or f"t-{info.name}"
        self.said.append(("admitted", info.name, info.nick))

    def renamed(self, info: BotInfo) -> None:
        self.said.append(("renamed", info.name, info.nick))

    def gone(self, info: BotInfo) -> None:
        self.said.append(("gone", info.name, info.nick))

    def lost(self, info: BotInfo) -> None:
        self.said.append(("lost", info.name, info.nick))

    def referees(self) -> list[str]:
        return ["arena", "arena2"]


def referee() -> tuple[Referee, Told, list[tuple[str, str]]]:
    sent: list[tuple[str, str]] = []
    ref = Referee("arena", TimeoutConfig(escalation=("default",)), lambda to, text: sent.append((to, text)))
    told = Told()
    ref.registry.sharing = told
    return ref, told, sent


def to(sent: list[tuple[str, str]], nick: str) -> list[Message]:
    return [parse(text) for target, text in sent if target == nick]


def test_what_this_referee_admits_renames_and_sees_end_is_told_and_a_split_ends_nothing() -> None:
    ref, told, sent = referee()
    ref.on_message("alice", "arena", "REGISTER 2 name=alice", 0.0, None)
    welcome = to(sent, "alice")[-1]
    assert welcome.verb == WELCOME and welcome.fields["referees"] == "arena,arena2"
    ref.on_message("alice", "arena", "REGISTER 2 name=alice", 0.0, None)  # the same connection again
    info = ref.bot_named("alice")
    assert info is not None and info.token == "t-alice"  # (one registration, told again)
    ref.on_rename("alice", "alice_")
    ref.on_leave("alice_", split=True)  # out of reach, maybe playing on with the others
    assert ref.bot_named("alice") is None
    ref.on_message("bob", "arena", "REGISTER 2 name=bob", 0.0, None)
    ref.on_leave("bob")
    assert told.said == [
        ("admitted", "alice", "alice"),
        ("admitted", "alice", "alice"),
        ("renamed", "alice", "alice_"),
        ("lost", "alice", "alice_"),
        ("admitted", "bob", "bob"),
        ("gone", "bob", "bob"),
    ]


def test_a_registration_another_referee_admitted_is_played_here_and_a_new_connection_resynced() -> None:
    ref, told, sent = referee()
    names = ["alice", "bob", "carol", "dave", "erin"]
    for name in names:
        ref.registry.adopt(BotInfo(name, name, "me", "1", None, 2, f"t-{name}"), name, 0.0)
    assert ref.bot_of("carol") is not None and told.said == []  # (the other referee told it, not this one)
    ref.start_game("avalon", names, AvalonOptions(), 7, "#arena-g1", 0.0, gid="g1")
    before = len(to(sent, "carol2"))
    ref.registry.adopt(BotInfo("carol", "carol", "me", "1", None, 2, "t-carol"), "carol", 1.0)  # nothing new
    assert len(to(sent, "carol2")) == before
    ref.registry.adopt(BotInfo("carol", "carol2", "me", "1", None, 2, "t-carol-2"), "carol", 1.0)  # a new connection
    assert ref.bot_of("carol") is None and ref.bot_of("carol2") is not None
    assert [m.verb for m in to(sent, "carol2")][:1] == [RESYNC]
    ref.registry.adopt(
        BotInfo("carol", "carol3", "me", "1", None, 2, "t-carol-2"), "carol", 2.0
    )  # renamed out of sight
    assert ref.bot_of("carol3") is not None and ref.bot_of("carol2") is None
    ref.registry.adopt(None, "carol", 3.0)  # its registration is over
    assert ref.bot_named("carol") is None and told.said == []
