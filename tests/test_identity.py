"""A seat, a rating and a history belong to a bot, and only the connection that proved it is
that bot plays it: attacks on registration and seats, in memory (the same referee code runs
over IRC; tests/irc and tests/services play them on real servers)."""

from __future__ import annotations

import pytest

from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games.avalon.options import AvalonOptions
from arena.protocol import ASK, BYE, ERROR, RESYNC, ROLE, WELCOME, Message, parse
from arena.referee.identity import AuthError, Identities, MemoryBook, check_key, hash_key, new_key
from arena.referee.local import LocalHub
from arena.referee.recorder import Recorder
from arena.referee.referee import Referee
from arena.sdk import Bot
from arena.store import Store
from arena.store.records import UNKNOWN_OWNER


class Wire:
    """A referee with a fake clock whose lines are kept per addressee."""

    def __init__(self, identities: Identities | None = None) -> None:
        self.sent: list[tuple[str, str]] = []
        self.referee = Referee("arena", TimeoutConfig(escalation=("default",)), self._send, identities=identities)

    def _send(self, target: str, text: str) -> None:
        self.sent.append((target, text))

    def say(self, nick: str, text: str, account: str | None = None) -> list[Message]:
        """``nick`` DMs the referee; returns what the referee said to ``nick`` in reply."""
        before = len(self.sent)
        self.referee.on_message(nick, "arena", text, 0.0, account)
        return [parse(t) for to, t in self.sent[before:] if to == nick]

    def to(self, nick: str) -> list[Message]:
        return [parse(t) for to, t in self.sent if to == nick]


def code(reply: list[Message]) -> str:
    assert reply, "no reply"
    return reply[-1].args[0] if reply[-1].verb == ERROR else reply[-1].verb


def keyed(*names: str) -> tuple[Identities, dict[str, str]]:
    book = MemoryBook()
    keys = {name: new_key() for name in names}
    for name, key in keys.items():
        book.add(name, key)
    return Identities(book, require_key=True), keys


def test_keys_are_random_tokens_stored_only_as_a_slow_hash() -> None:
    key = new_key()
    assert len(key) == 32 and key.isalnum() and key != new_key()
    stored = hash_key(key)
    assert key not in stored and stored.startswith("scrypt$")
    assert check_key(key, stored) and not check_key(key[:-1] + ("y" if key.endswith("x") else "x"), stored) and not check_key(key, "garbage")


def test_a_bot_with_a_key_is_admitted_only_with_it() -> None:
    identities, keys = keyed("alice")
    wire = Wire(identities)
    assert code(wire.say("alice", "REGISTER 1 name=alice")) == ErrorCode.AUTH_FAILED.value
    assert code(wire.say("eve", "REGISTER 1 name=alice key=wrongwrongwrong")) == ErrorCode.AUTH_FAILED.value
    assert not wire.referee.bots
    assert code(wire.say("alice", f"REGISTER 1 name=alice key={keys['alice']}")) == WELCOME
    assert wire.referee.bot_named("alice").nick == "alice"


def test_unknown_names_need_a_key_where_keys_are_required() -> None:
    wire = Wire(Identities(require_key=True))
    reply = wire.say("mallory", "REGISTER 1 name=mallory")
    assert code(reply) == ErrorCode.AUTH_FAILED.value and "arena bots add mallory" in reply[-1].text


def test_wrong_keys_are_slowed_down_per_sender() -> None:
    """A wrong key costs the referee a slow hash: a second try within a second is refused
    without checking, even with the right key."""
    clock = [100.0]
    book = MemoryBook()
    key = new_key()
    book.add("alice", key)
    identities = Identities(book, require_key=True, clock=lambda: clock[0])
    with pytest.raises(AuthError, match="wrong key"):
        identities.prove("eve", "alice", "x" * 32, None)
    with pytest.raises(AuthError, match="wait"):
        identities.prove("eve", "alice", key, None)
    clock[0] += 1.5
    assert identities.prove("eve", "alice", key, None).how == "key"


def test_an_open_name_cannot_be_taken_from_a_live_connection() -> None:
    wire = Wire(Identities(require_key=False))
    assert code(wire.say("alice", "REGISTER 1")) == WELCOME
    assert code(wire.say("mallory", "REGISTER 1 name=alice")) == ErrorCode.NAME_TAKEN.value
    wire.referee.on_leave("alice")
    assert code(wire.say("mallory", "REGISTER 1 name=alice")) == WELCOME, "free once its connection is gone"


def test_a_key_takes_the_bot_over_from_its_old_connection() -> None:
    identities, keys = keyed("alice")
    wire = Wire(identities)
    wire.say("alice", f"REGISTER 1 name=alice key={keys['alice']}")
    assert code(wire.say("alice2", f"REGISTER 1 name=alice key={keys['alice']}")) == WELCOME
    assert wire.to("alice")[-1].verb == BYE
    assert wire.referee.bot_of("alice") is None and wire.referee.bot_of("alice2").name == "alice"


def test_an_account_binds_its_first_bot_and_then_proves_it() -> None:
    wire = Wire(Identities(require_key=True, accounts=True))
    assert code(wire.say("bob", "REGISTER 1 name=bob", account="bobacct")) == WELCOME
    # Every line of an account-bound bot must come from that account.
    assert wire.referee.bot_of("bob", "bobacct") is not None and wire.referee.bot_of("bob", None) is None
    assert code(wire.say("bob", "ANSWER g1 1 approve")) == ErrorCode.NOT_REGISTERED.value
    wire.referee.on_leave("bob")
    assert code(wire.say("bob", "REGISTER 1 name=bob")) == ErrorCode.AUTH_FAILED.value
    assert code(wire.say("bob", "REGISTER 1 name=bob", account="other")) == ErrorCode.AUTH_FAILED.value
    assert code(wire.say("bob7", "REGISTER 1 name=bob", account="BobAcct")) == WELCOME


def test_the_operators_owner_is_kept_whatever_the_bot_says_when_it_registers(tmp_path) -> None:
    """``arena bots add NAME --owner O`` names who runs the bot; the ``owner=`` of its
    REGISTER (what the SDK sends: its class's ``owner``) fills in only an owner nobody gave."""
    with Store(tmp_path / "results.db") as store:
        store.add_bot("alice", "ops-team", hash_key(new_key()), None, 1.0)
        store.add_bot("carol", UNKNOWN_OWNER, hash_key(new_key()), None, 1.0)
        for name in ("alice", "carol", "dave"):
            store.save_bot(name, "arena", "2.0", None, 2.0)
        store.save_bot("dave", "mallory", "2.1", None, 3.0)
        assert [(b.name, b.owner, b.version) for b in store.bots()] == [
            ("alice", "ops-team", "2.0"), ("carol", "arena", "2.0"), ("dave", "arena", "2.1")]


def test_in_memory_a_bots_owner_fills_in_only_an_unknown_one() -> None:
    book = MemoryBook()
    book.add("carol")
    book.save_bot("carol", "arena", "1.0", None, 1.0)
    book.save_bot("carol", "mallory", "1.1", None, 2.0)
    record = book.bot("carol")
    assert record is not None and (record.owner, record.version) == ("arena", "1.1")


def test_bot_names_follow_nick_rules_and_avoid_reserved_words() -> None:
    wire = Wire()
    for name in ("all", "9lives", "x" * 17, "approve", "Abstain", "none"):
        assert code(wire.say("carol", f"REGISTER 1 name={name}")) == ErrorCode.NAME_INVALID.value


# -- seats ------------------------------------------------------------------------------


def seated(players: int = 5) -> tuple[Wire, list[str], dict[str, str]]:
    """A game of ``players`` keyed bots, registered under nicks unlike their names."""
    names = [f"bot{i}" for i in range(players)]
    identities, keys = keyed(*names)
    wire = Wire(identities)
    for name in names:
        assert code(wire.say(f"{name}_nick", f"REGISTER 1 name={name} key={keys[name]}")) == WELCOME
    wire.referee.start_game("avalon", names, AvalonOptions(), 5, "#g", 0.0, gid="g1")
    return wire, names, keys


def test_a_seat_is_played_by_its_bot_never_by_whoever_holds_its_nick() -> None:
    wire, names, keys = seated()
    match = wire.referee.matches["g1"]
    assert match.names == [f"{n}_nick" for n in names], "START names the seats by their bots' nicks"
    victim = names[0]
    wire.referee.on_leave(f"{victim}_nick")  # its connection drops
    before = len(wire.sent)
    # A stranger takes the nick: it is not the bot, so its answers are refused and the
    # seat's private lines do not reach it.
    for rid in range(1, 4):
        assert code(wire.say(f"{victim}_nick", f"ANSWER g1 {rid} approve")) == ErrorCode.NOT_REGISTERED.value
    assert code(wire.say(f"{victim}_nick", f"REGISTER 1 name={victim}")) == ErrorCode.AUTH_FAILED.value
    wire.referee.poll(1000.0)  # deadlines pass: defaults go to... nobody
    private = [(to, t) for to, t in wire.sent[before:] if to == f"{victim}_nick" and not t.startswith(ERROR)]
    assert private == [], f"the stranger got the seat's lines: {private}"
    # The bot comes back under another nick, proves itself, and plays its seat again.
    reply = wire.say("back", f"REGISTER 1 name={victim} key={keys[victim]}")
    assert [m.verb for m in reply[:2]] == [WELCOME, RESYNC]  # then what the seat was told meanwhile
    assert match.nicks[0] == "back"
    seat = match.seat_of(victim)
    decision = match.game.decision_for(seat)
    if decision is not None:
        rid = next(r.rid for r in match._requests.values() if seat in r.seats)
        options = decision.options
        value = match.names[options[0]] if decision.targets else options[0]
        if decision.count > 1:
            value = ",".join(match.names[o] for o in options[: decision.count])
        assert wire.say("back", f"ANSWER g1 {rid} {value}") == []


def test_a_renamed_bot_keeps_its_seat_and_its_lines() -> None:
    wire, names, _ = seated()
    match = wire.referee.matches["g1"]
    wire.referee.on_rename(f"{names[1]}_nick", "renamed")
    assert wire.referee.bot_of("renamed").name == names[1] and match.nicks[1] == "renamed"
    assert code(wire.say(f"{names[1]}_nick", "ANSWER g1 1 approve")) == ErrorCode.NOT_REGISTERED.value, \
        "the old nick is nobody's now"


def test_ratings_and_history_belong_to_the_bot_not_the_nick(tmp_path) -> None:
    """The same bot under two nicks is one rating; two bots under one nick are two."""
    with Store(tmp_path / "r.db") as store:
        hub = LocalHub(TimeoutConfig())
        Recorder(store).attach(hub.referee)
        names = [f"b{i}" for i in range(5)]
        for i, name in enumerate(names):
            hub.connect(f"nick{i}", Bot(seed=i)).name = name
            hub.run()
        # Registered under their names (the hub connected them before the name was set):
        for i, name in enumerate(names):
            hub.referee.on_message(f"nick{i}", "arena", f"REGISTER 1 name={name}", hub.now)
        hub.run()
        match = hub.play("avalon", names, AvalonOptions(), 3)
        assert match.names == [f"nick{i}" for i in range(5)] and match.bots == names
        board = {r.bot for r in store.leaderboard("avalon", "elo")}
        assert board == set(names)
        (summary,) = store.list_games()
        assert summary.bots == tuple(names) and summary.nicks == tuple(match.names)
        assert {o.bot for o in store.load_game(summary.id).outcomes} == set(names)
        assert all(to is None or to.startswith("nick") for to, _ in match.transcript)
        assert any(parse(t).verb == ROLE for to, t in match.transcript if to == "nick0")
        assert any(parse(t).verb == ASK for to, t in match.transcript if to is None)
