"""A seat, a rating and a history belong to a bot, and only the connection that proved it is
that bot plays it: attacks on registration and seats, in memory (the same referee code runs
over IRC; tests/irc and tests/services play them on real servers)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from pathlib import Path
from typing import Any, NoReturn

import pytest
import scramp

from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games.avalon.options import AvalonOptions
from arena.protocol import ASK, BYE, ERROR, RESYNC, ROLE, WELCOME, Message, pack_scram, parse, unpack_scram
from arena.referee.identity import AuthError, Challenge, Identities, MemoryBook, make_verifier, new_key
from arena.sdk.scram import ScramClient
from arena.referee.local import LocalHub
from arena.referee.recorder import Recorder
from arena.referee.referee import Referee
from arena.sdk import Bot
from arena.store import MIGRATIONS, Store
from arena.store.records import UNKNOWN_OWNER
from arena.store.report import bots_lines


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

    def register(self, nick: str, name: str, key: str, account: str | None = None) -> list[Message]:
        """``nick`` registers as ``name`` and proves ``key`` by SCRAM, as the SDK does;
        returns what the referee said to it from the CHALLENGE on (the WELCOME's signature
        checked)."""
        client = ScramClient(nick, key)
        reply = self.say(nick, f"REGISTER 1 name={name} scram={pack_scram(client.first())}", account)
        if reply[-1].verb != "CHALLENGE":
            return reply
        final = client.final(unpack_scram(reply[-1].fields["scram"]))
        answer = self.say(nick, f"PROOF scram={pack_scram(final)}", account)
        if answer and answer[0].verb == WELCOME:
            client.verify(unpack_scram(answer[0].fields["scram"]))
        return answer


def code(reply: list[Message]) -> str:
    assert reply, "no reply"
    return reply[-1].args[0] if reply[-1].verb == ERROR else reply[-1].verb


def keyed(*names: str) -> tuple[Identities, dict[str, str]]:
    book = MemoryBook()
    keys = {name: new_key() for name in names}
    for name, key in keys.items():
        book.add(name, key)
    return Identities(book, require_key=True), keys


def test_keys_are_random_tokens_stored_only_as_scram_verifiers() -> None:
    key = new_key()
    assert len(key) == 32 and key.isalnum() and key != new_key()
    verifier = make_verifier(key)
    assert verifier.iterations == 4096 and len(verifier.salt) >= 16
    assert key.encode() not in verifier.salt + verifier.stored_key + verifier.server_key
    assert make_verifier(key).stored_key != verifier.stored_key, "a fresh salt per key"
    with pytest.raises(ValueError):
        make_verifier(key, 1000)


def test_a_bot_with_a_key_is_admitted_only_with_it() -> None:
    identities, keys = keyed("alice")
    wire = Wire(identities)
    assert code(wire.say("alice", "REGISTER 1 name=alice")) == ErrorCode.AUTH_FAILED.value
    assert code(wire.register("eve", "alice", new_key())) == ErrorCode.AUTH_FAILED.value
    assert not wire.referee.bots
    assert code(wire.register("alice", "alice", keys["alice"])) == WELCOME
    alice = wire.referee.bot_named("alice")
    assert alice is not None and alice.nick == "alice"


def test_a_key_is_never_accepted_in_clear() -> None:
    """A bot of old that sends its key is told to prove it instead, and is not admitted."""
    identities, keys = keyed("alice")
    wire = Wire(identities)
    reply = wire.say("alice", f"REGISTER 1 name=alice key={keys['alice']}")
    assert code(reply) == ErrorCode.AUTH_FAILED.value and "SCRAM" in (reply[-1].text or "")
    assert not wire.referee.bots


def test_a_proof_is_bound_to_the_nick_that_sends_it() -> None:
    """The SCRAM user is the sender's nick: a squatter that relays a bot's exchange from
    its own connection to the referee gets nowhere."""
    identities, keys = keyed("alice")
    wire = Wire(identities)
    client = ScramClient("alice", keys["alice"])  # the bot, talking to the squatter
    reply = wire.say("relay", f"REGISTER 1 name=alice scram={pack_scram(client.first())}")
    assert code(reply) == ErrorCode.AUTH_FAILED.value and "your nick" in (reply[-1].text or "")
    assert not wire.referee.bots


def test_unknown_names_need_a_key_where_keys_are_required() -> None:
    wire = Wire(Identities(require_key=True))
    reply = wire.say("mallory", "REGISTER 1 name=mallory")
    assert code(reply) == ErrorCode.AUTH_FAILED.value and "arena bots add mallory" in (reply[-1].text or "")


def test_an_old_scrypt_key_gets_a_clear_message(tmp_path: Path) -> None:
    """A key stored before SCRAM cannot be checked: its bot is told its operator must
    rekey it, and ``arena bots rekey`` makes it work again."""
    path = tmp_path / "r.db"
    with Store(path, migrations=MIGRATIONS[:5]) as before:  # a store from before SCRAM, with a key
        before.conn.execute("INSERT INTO bots (name, key_hash, created) VALUES ('old', 'scrypt$16384$8$1$00$00', 0)")
    with Store(path) as store:
        old = store.bots.get("old")
        assert old is not None and old.old_key and old.verifier is None
        wire = Wire(Identities(store.bots, require_key=True))
        for reply in (wire.say("old", "REGISTER 1 name=old"), wire.register("old", "old", new_key())):
            assert code(reply) == ErrorCode.AUTH_FAILED.value and "arena bots rekey old" in (reply[-1].text or "")
        assert "rekey old" in " ".join(bots_lines(store.bots.all()))
        key = new_key()
        store.bots.set_key("old", make_verifier(key))
        old = store.bots.get("old")
        assert old is not None and not old.old_key
        assert code(wire.register("old", "old", key)) == WELCOME


def test_wrong_proofs_are_slowed_per_connection_and_per_host_never_per_bot() -> None:
    """A wrong proof makes its connection wait (1 s, then 2, 4...), across nick changes;
    past ten wrong proofs a host's exchanges wait too, whatever their nick; a bot elsewhere
    is never kept out by a guesser."""
    clock = [100.0]
    book = MemoryBook()
    key = new_key()
    book.add("alice", key)
    identities = Identities(book, require_key=True, clock=lambda: clock[0])

    def attempt(nick: str, secret: str, host: str = "evil.example") -> None:
        client = ScramClient(nick, secret)
        challenge = identities.prove(nick, "alice", client.first(), None, host)
        assert isinstance(challenge, Challenge)
        identities.finish(nick, client.final(challenge.server_first), host)

    with pytest.raises(AuthError, match="wrong proof"):
        attempt("eve", "x" * 32)
    with pytest.raises(AuthError, match="wait"):
        attempt("eve", key)
    identities.rename("eve", "eve2")
    with pytest.raises(AuthError, match="wait"):
        attempt("eve2", key)  # a new nick is the same connection
    clock[0] += 1.5
    with pytest.raises(AuthError, match="wrong proof"):
        attempt("eve2", "y" * 32)
    clock[0] += 1.5
    with pytest.raises(AuthError, match="wait"):
        attempt("eve2", "y" * 32)  # 2 s after the second wrong proof
    for i in range(20):  # fresh nicks of the host: ten seconds of wrong proofs pass, then the host waits
        try:
            attempt(f"g{i}", "z" * 32)
        except AuthError as exc:  # (eve's two have been paid off meanwhile)
            assert ("wait" in exc.reason) == (i > 10), (i, exc.reason)
    attempt("alice", key, host="home.example")  # the bot, elsewhere: in at once
    with pytest.raises(AuthError, match="wait"):
        attempt("alice2", key)
    clock[0] += 2
    attempt("alice2", key)  # the host's wait is a second per wrong proof past ten


def test_an_open_name_cannot_be_taken_from_a_live_connection() -> None:
    wire = Wire(Identities(require_key=False))
    assert code(wire.say("alice", "REGISTER 1")) == WELCOME
    assert code(wire.say("mallory", "REGISTER 1 name=alice")) == ErrorCode.NAME_TAKEN.value
    wire.referee.on_leave("alice")
    assert code(wire.say("mallory", "REGISTER 1 name=alice")) == WELCOME, "free once its connection is gone"


def test_a_key_takes_the_bot_over_from_its_old_connection() -> None:
    identities, keys = keyed("alice")
    wire = Wire(identities)
    wire.register("alice", "alice", keys["alice"])
    assert code(wire.register("alice2", "alice", keys["alice"])) == WELCOME
    assert wire.to("alice")[-1].verb == BYE
    alice2 = wire.referee.bot_of("alice2")
    assert wire.referee.bot_of("alice") is None and alice2 is not None and alice2.name == "alice"


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


def test_the_operators_owner_is_kept_whatever_the_bot_says_when_it_registers(tmp_path: Path) -> None:
    """``arena bots add NAME --owner O`` names who runs the bot; the ``owner=`` of its
    REGISTER (what the SDK sends: its class's ``owner``) fills in only an owner nobody gave."""
    with Store(tmp_path / "results.db") as store:
        store.bots.add("alice", "ops-team", make_verifier(new_key()), None, 1.0)
        store.bots.add("carol", UNKNOWN_OWNER, make_verifier(new_key()), None, 1.0)
        for name in ("alice", "carol", "dave"):
            store.bots.save(name, "arena", "2.0", None, 2.0)
        store.bots.save("dave", "mallory", "2.1", None, 3.0)
        assert [(b.name, b.owner, b.version) for b in store.bots.all()] == [
            ("alice", "ops-team", "2.0"),
            ("carol", "arena", "2.0"),
            ("dave", "arena", "2.1"),
        ]


def test_in_memory_a_bots_owner_fills_in_only_an_unknown_one() -> None:
    book = MemoryBook()
    book.add("carol")
    book.save("carol", "arena", "1.0", None, 1.0)
    book.save("carol", "mallory", "1.1", None, 2.0)
    record = book.get("carol")
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
        assert code(wire.register(f"{name}_nick", name, keys[name])) == WELCOME
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
    reply = wire.register("back", victim, keys[victim])
    assert [m.verb for m in reply[:2]] == [WELCOME, RESYNC]  # then what the seat was told meanwhile
    assert match.nicks[0] == "back"
    seat = match.seats.of(victim)
    assert seat is not None
    decision = match.game.decision_for(seat)
    if decision is not None:
        rid = next(r.rid for r in match.requests.open.values() if seat in r.seats)
        options: tuple[Any, ...] = decision.options
        value = match.names[options[0]] if decision.targets else options[0]
        if decision.count > 1:
            value = ",".join(match.names[o] for o in options[: decision.count])
        assert wire.say("back", f"ANSWER g1 {rid} {value}") == []


def test_a_renamed_bot_keeps_its_seat_and_its_lines() -> None:
    wire, names, _ = seated()
    match = wire.referee.matches["g1"]
    wire.referee.on_rename(f"{names[1]}_nick", "renamed")
    renamed = wire.referee.bot_of("renamed")
    assert renamed is not None and renamed.name == names[1] and match.nicks[1] == "renamed"
    assert code(wire.say(f"{names[1]}_nick", "ANSWER g1 1 approve")) == ErrorCode.NOT_REGISTERED.value, (
        "the old nick is nobody's now"
    )


def test_ratings_and_history_belong_to_the_bot_not_the_nick(tmp_path: Path) -> None:
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
        board = {r.bot for r in store.ratings.leaderboard("avalon", "elo")}
        assert board == set(names)
        (summary,) = store.games.find()
        assert summary.bots == tuple(names) and summary.nicks == tuple(match.names)
        stored = store.games.load(summary.id)
        assert stored is not None and {o.bot for o in stored.outcomes} == set(names)
        assert all(to is None or to.startswith("nick") for to, _ in match.transcript)
        assert any(parse(t).verb == ROLE for to, t in match.transcript if to == "nick0")
        assert any(parse(t).verb == ASK for to, t in match.transcript if to is None)


def test_a_line_whose_handling_fails_is_logged_without_its_proof(caplog: pytest.LogCaptureFixture) -> None:
    """A registration that raised (a bug) is logged, but never with what proves a key."""
    identities, keys = keyed("alice")
    wire = Wire(identities)

    def broken(*args: object, **kwargs: object) -> NoReturn:
        raise RuntimeError("a bug")

    identities.prove = broken  # type: ignore[method-assign]
    identities.finish = broken  # type: ignore[method-assign]
    secret = pack_scram("c=biws,r=" + "n" * 48 + ",p=" + "P" * 44)
    with caplog.at_level("ERROR"):
        assert code(wire.say("alice", f"REGISTER 1 name=alice owner=o scram={secret}")) == ErrorCode.MALFORMED.value
        assert code(wire.say("alice", f"PROOF scram={secret}")) == ErrorCode.MALFORMED.value
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "could not be handled" in logged and "name=alice" in logged and "scram=***" in logged
    assert secret not in logged and secret not in caplog.text


def vector(line: str) -> tuple[str, str]:
    """A line of protocol.md's test vectors: the name, then (after two spaces or more) the value."""
    found = re.match(r"(.+?)  +(\S+)$", line)
    assert found is not None, line
    return found[1], found[2]


def test_the_documented_scram_vectors_are_what_the_referee_and_the_sdk_compute() -> None:
    """protocol.md's test vectors (section 3) are one exchange between the referee's SCRAM
    library (scramp) and the SDK's standard-library client, with fixed nonces and salt."""
    doc = (Path(__file__).resolve().parents[1] / "protocol.md").read_text()
    block = doc.split("**Test vectors**", 1)[1].split("```", 2)[1]
    vectors = dict(vector(line) for line in block.strip().splitlines())
    lines = doc.split("The same exchange as protocol lines", 1)[1].split("```", 2)[1].strip().splitlines()
    key, nick, salt = vectors["key (32 characters)"], vectors["nick"], base64.b64decode(vectors["salt (bytes 1..16)"])
    assert salt == bytes(range(1, 17)) and len(key) == 32
    count = int(vectors["iterations"])
    mechanism = scramp.ScramMechanism()
    salt, stored_key, server_key, count = mechanism.make_auth_info(key, iteration_count=count, salt=salt)
    server = mechanism.make_server(lambda user: (salt, stored_key, server_key, count), s_nonce=vectors["SNONCE"])
    client = ScramClient(nick, key, nonce=vectors["CNONCE"])
    server.set_client_first(client.first())
    server_first = server.get_server_first()
    client_final = client.final(server_first)
    server.set_client_final(client_final)
    server_final = server.get_server_final()
    client.verify(server_final)
    salted = hashlib.pbkdf2_hmac("sha256", key.encode(), salt, count)
    client_key = hmac.digest(salted, b"Client Key", "sha256")
    computed = {
        "SaltedPassword": salted,
        "ClientKey": client_key,
        "StoredKey": stored_key,
        "ServerKey": server_key,
        "ClientSignature": bytes(a ^ b for a, b in zip(client_key, base64.b64decode(client_final.rsplit("p=", 1)[1]))),
    }
    for name, value in computed.items():
        assert vectors[name] == base64.b64encode(value).decode(), name
    assert [vectors[f"{m}-message"] for m in ("client-first", "server-first", "client-final", "server-final")] == [
        client.first(),
        server_first,
        client_final,
        server_final,
    ]
    assert lines == [
        f"> REGISTER 1 name={nick} owner=me version=1 scram={pack_scram(client.first())}",
        f"< CHALLENGE name={nick} scram={pack_scram(server_first)}",
        f"> PROOF scram={pack_scram(client_final)}",
        f"< WELCOME {nick} protocol=1 name={nick} scram={pack_scram(server_final)}",
    ]


def test_a_welcome_goes_in_line_with_the_games_lines() -> None:
    """A bot obeys nothing before its WELCOME, so the WELCOME must not wait behind the
    games' lines (where the transport puts replies): a returning bot's RESYNC, or a TABLE,
    sent after it would overtake it and be ignored."""
    wire, names, keys = seated()
    queued: list[tuple[str, str]] = []
    wire.referee.reply = lambda target, text: queued.append((target, text))  # behind the games' lines
    wire.referee.on_leave(f"{names[0]}_nick")
    before = len(wire.sent)
    client = ScramClient("back", keys[names[0]])
    wire.referee.on_message("back", "arena", f"REGISTER 1 name={names[0]} scram={pack_scram(client.first())}", 0.0)
    assert [parse(t).verb for _, t in queued] == ["CHALLENGE"]
    final = client.final(unpack_scram(parse(queued[-1][1]).fields["scram"]))
    wire.referee.on_message("back", "arena", f"PROOF scram={pack_scram(final)}", 0.0)
    in_line = [parse(t) for to, t in wire.sent[before:] if to == "back"]
    assert [m.verb for m in in_line[:2]] == [WELCOME, RESYNC] and len(queued) == 1
