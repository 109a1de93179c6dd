"""Attacks on bot identities over a real ngircd: a stranger on a departed bot's nick, names
claimed without their key, and an impostor holding the referee's nick. Each test asserts
that the attack is refused, not merely that nothing broke."""

from __future__ import annotations

import base64
import logging
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import scramp

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import IdentityConfig, TimeoutConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import LocalServer
from arena.protocol import Message, pack_scram, parse, unbundle, unpack_scram
from arena.referee.identity import MemoryBook, make_verifier, new_key
from arena.sdk.scram import ScramClient
from arena.store import Store

from .conftest import RawClient, until
from .test_games import FAST, Arena
from arena.sdk.runner import BotRunner

ngircd_only = pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)
"""Modes, topics and multi-target messages as a real network has them."""

KEYED = IdentityConfig(require_key=True)
NICKS = tuple(f"k{i}" for i in range(5))


def keyed_arena(
    server: LocalServer, timeouts: TimeoutConfig, tmp_path: Path | None = None
) -> tuple[Arena, dict[str, str]]:
    """An arena that admits bots by key only, and one key per bot of ``NICKS``, issued as
    ``arena bots add`` does: into the store when there is one (``tmp_path``), else into the
    referee's book in memory."""
    keys = {nick: new_key() for nick in NICKS}
    if tmp_path is None:
        arena = Arena(server, len(NICKS), timeouts, identity=KEYED)
        book = arena.service.referee.identities.book
        assert isinstance(book, MemoryBook)
        for nick, key in keys.items():
            book.add(nick, key)
        return arena, keys
    path = tmp_path / "results.db"
    with Store(path) as store:
        for nick, key in keys.items():
            store.bots.add(nick, "owner", make_verifier(key), None, time.time())
    return Arena(server, len(NICKS), timeouts, identity=KEYED, store=path), keys


def dms_from_referee(lines: list[bytes], nick: str, referee: str = "arena") -> list[str]:
    """The protocol lines ``referee`` sent by DM to ``nick``, out of a raw client's lines."""
    prefix = f":{referee}!".encode()
    marker = f" PRIVMSG {nick} :".encode()
    return [line.split(marker, 1)[1].decode() for line in lines if line.startswith(prefix) and marker in line]


def reply(client: RawClient, line: str, referee: str = "arena") -> str:
    """Send ``line`` to the referee and return its verb and code (``ERROR NOT_REGISTERED``)."""
    client.send(f"PRIVMSG {referee} :{line}\r\n".encode())
    answer = parse(client.expect(f" PRIVMSG {client.nick} :".encode()).split(b" :", 1)[1].decode())
    return " ".join([answer.verb, *answer.args[:1]])


def prove(client: RawClient, name: str, key: str, referee: str = "arena") -> str:
    """Register ``client`` as bot ``name`` proving ``key`` by SCRAM; the referee's last
    answer, as ``reply`` gives it."""
    scram = ScramClient(client.nick, key)
    client.send(f"PRIVMSG {referee} :REGISTER 1 name={name} scram={pack_scram(scram.first())}\r\n".encode())
    answer = parse(client.expect(f" PRIVMSG {client.nick} :".encode()).split(b" :", 1)[1].decode())
    if answer.verb != "CHALLENGE":
        return " ".join([answer.verb, *answer.args[:1]])
    return reply(client, f"PROOF scram={pack_scram(scram.final(unpack_scram(answer.fields['scram'])))}", referee)


@ngircd_only
def test_a_stranger_on_a_departed_bots_nick_plays_and_hears_nothing(irc_server: LocalServer, tmp_path: Path) -> None:
    # The victim's first miss is warned by DM: a private line of its seat that surely goes
    # out while the stranger holds the nick; every later miss gets the default.
    timeouts = TimeoutConfig(decision=0.6, grace=0.2, escalation=("warn", "default"))
    arena, keys = keyed_arena(irc_server, timeouts, tmp_path)
    runners = {nick: arena.add_bot(nick, RuleBot(seed=i), key=keys[nick]) for i, nick in enumerate(NICKS)}
    victim = runners["k0"]
    with arena:
        until(lambda: victim.session.games, timeout=10)  # START reached it: the game runs
        (gid,) = victim.session.games
        victim.link.close()
        until(lambda: arena.service.referee.bot_named("k0") is None)
        match = arena.service.referee.matches[gid]
        thief = RawClient(irc_server, "k0")
        arena.raw.append(thief)
        held_from = len(match.transcript)
        thief.send(f"JOIN #arena\r\nJOIN #arena-{gid}\r\n".encode())
        asks: list[str] = []
        while not asks:  # the channel's next request (a line may bundle it after a result)
            line = thief.expect(f"PRIVMSG #arena-{gid} :".encode()).split(b" :", 1)[1].decode()
            asks = [message for message in unbundle(line) if message.startswith("ASK ")]
        ask = parse(asks[0])
        assert reply(thief, f"ANSWER {gid} {ask.args[1]} {ask.list('options')[0]}") == "ERROR NOT_REGISTERED"
        assert prove(thief, "k0", keys["k1"]) == "ERROR AUTH_FAILED", "another bot's key"
        thief.expect(f"END {gid} winner=".encode(), timeout=20)  # alone, or bundled after a result
        (match,) = arena.wait()
    private = [line for nick, line in match.transcript[held_from:] if nick is not None and nick.lower() == "k0"]
    assert any(line.startswith("WARN") for line in private), "the seat had no private line to leak"
    leaked = [line for line in dms_from_referee(thief.read, "k0") if not line.startswith(("ERROR", "CHALLENGE"))]
    assert leaked == [], "the stranger on k0's nick was sent the seat's private lines"
    assert match.game.result is not None and match.game.result.forfeited is None
    assert any(line.startswith("TIMEOUT") and "player=k0" in line for line in arena.public_lines(gid))
    (stored,) = arena.stored
    assert stored is not None
    assert sorted(o.bot for o in stored.outcomes) == sorted(NICKS)
    assert stored.outcomes[match.names.index("k0")].bot == "k0"


@ngircd_only
def test_a_name_is_not_registered_without_its_key(irc_server: LocalServer) -> None:
    arena, keys = keyed_arena(irc_server, FAST)
    owner = arena.add_bot("k0", RuleBot(seed=0), key=keys["k0"])
    with arena:
        until(lambda: owner.session.registered)
        thief = RawClient(irc_server, "thief")
        arena.raw.append(thief)
        assert reply(thief, "REGISTER 1 name=k0") == "ERROR AUTH_FAILED"
        assert reply(thief, f"REGISTER 1 name=k0 key={keys['k0']}") == "ERROR AUTH_FAILED", "keys are never sent"
        thief.send(b"JOIN #arena\r\n")  # where the referee sees its nick changes
        thief.expect(b" 366 ")
        assert prove(thief, "k0", new_key()) == "ERROR AUTH_FAILED"
        thief.send(b"NICK thief2\r\n")  # a new nick does not end the wait a wrong proof costs
        thief.expect(b"NICK")
        thief.nick = "thief2"
        assert (
            reply(thief, f"REGISTER 1 name=k0 scram={pack_scram(ScramClient('thief2', keys['k1']).first())}")
            == "ERROR AUTH_FAILED"
        ), "a connection whose proof was wrong waits"
        assert reply(thief, "REGISTER 1 name=nobody") == "ERROR AUTH_FAILED", "a name without a key"
        assert reply(thief, "ANSWER g1 1 approve") == "ERROR NOT_REGISTERED"
        held = arena.service.referee.bot_named("k0")
        assert held is not None and held.nick == "k0", "a failed registration took the bot over"


@ngircd_only
def test_without_keys_a_name_held_by_a_live_connection_is_taken(irc_server: LocalServer) -> None:
    with Arena(irc_server, 5, FAST) as arena:
        holder, intruder = RawClient(irc_server, "holder"), RawClient(irc_server, "intruder")
        arena.raw += [holder, intruder]
        assert reply(holder, "REGISTER 1 name=shared") == "WELCOME holder"
        assert reply(intruder, "REGISTER 1 name=shared") == "ERROR NAME_TAKEN"
        assert prove(intruder, "shared", new_key()) == "ERROR AUTH_FAILED", "a made-up key proves nothing"
        assert reply(intruder, "ANSWER g1 1 approve") == "ERROR NOT_REGISTERED"
        held = arena.service.referee.bot_named("shared")
        assert held is not None and held.nick == "holder"


@ngircd_only
def test_an_impostor_on_the_referees_nick_gets_no_key(
    irc_server: LocalServer, caplog: pytest.LogCaptureFixture
) -> None:
    impostor = RawClient(irc_server, "arena")
    impostor.send(b"JOIN #arena\r\n")
    impostor.expect(b" 366 arena #arena ")
    arena, keys = keyed_arena(irc_server, FAST)
    arena.raw.append(impostor)
    warned = "arena referee: arena_ (arena is NOT the referee)"
    with caplog.at_level(logging.ERROR, logger="arena.sdk.runner"), arena:
        assert arena.service.link.nick == "arena_"
        arena.spectator_log.wait(
            lambda: any(
                s == "arena_" and t == "#arena" and "is held by someone else" in text
                for s, t, text in arena.spectator_log.messages
            )
        )
        # ngircd gives a channel no modes (no +t): the referee, not an operator there, may set the topic.
        until(lambda: arena.spectator.topic_of("#arena") == warned)
        runners = [arena.add_bot(nick, RuleBot(seed=i), key=keys[nick]) for i, nick in enumerate(NICKS)]
        for runner in runners:
            runner.start()
        until(lambda: all(r.link.is_ready for r in runners))

        def waiting() -> int:
            return sum("the lobby says the referee is arena_" in r.getMessage() for r in caplog.records)

        end = time.monotonic() + 5
        while waiting() < len(runners) and time.monotonic() < end:  # each bot has decided (not asserted yet:
            time.sleep(0.01)  # a bot that sent its key never logs)
        impostor.send(b"QUIT :done\r\n")
        impostor.expect(b"ERROR :")
        assert not [line for line in impostor.read if b"key=" in line or b"REGISTER" in line], impostor.read
        assert waiting() == len(runners)
        until(lambda: arena.service.link.nick == "arena")
        until(lambda: arena.spectator.topic_of("#arena") == "arena referee: arena")
        until(lambda: all(r.session.registered for r in runners))
        (match,) = arena.wait()
    assert sorted(match.names) == sorted(NICKS)
    assert match.game.result is not None and match.game.result.forfeited is None
    table = next(text for s, _, text in arena.spectator_log.messages if text.startswith("TABLE"))
    assert re.search(r"seats=\S*k0", table)


ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node") or shutil.which("nodejs")


def squat(squatter: RawClient, nicks: set[str]) -> dict[str, list[str]]:
    """Play a referee that has no key of anyone's: answer each REGISTER with a made-up
    CHALLENGE, until every bot of ``nicks`` has sent its PROOF; returns every line each
    sent to the squatter."""
    told: dict[str, list[str]] = {}
    proved: set[str] = set()
    made_up = scramp.ScramMechanism().make_auth_info(new_key(), iteration_count=4096)
    while proved != nicks:
        line = squatter.expect(b" PRIVMSG arena :", timeout=30)
        nick, text = line[1:].split(b"!", 1)[0].decode(), line.split(b" PRIVMSG arena :", 1)[1].decode()
        told.setdefault(nick, []).append(text)
        msg = parse(text)
        if msg.verb == "REGISTER" and msg.get("scram"):
            server = scramp.ScramMechanism().make_server(lambda user: made_up)
            server.set_client_first(unpack_scram(msg.fields["scram"]))
            challenge = Message.make("CHALLENGE", name=msg.get("name"), scram=pack_scram(server.get_server_first()))
            squatter.send(f"PRIVMSG {nick} :{challenge.format()}\r\n".encode())
        elif msg.verb == "PROOF":
            proved.add(nick)
    return told


@ngircd_only
def test_a_squatter_holding_the_referees_nick_and_lobby_gets_no_key_and_no_player(
    irc_server: LocalServer, tmp_path: Path
) -> None:
    """A client that holds the referee's nick and the lobby (operator, +t, the referee's
    topic) before the referee connects: SDK bots and both plain bots prove their keys to it
    in vain (nothing it gets is a key or stands for one, nor works at the real referee),
    and none of them trusts its WELCOME, joins its table or answers its request. Then the
    real referee comes, and they all play its game."""
    if NODE is None:
        pytest.skip("node not installed")
    squatter = RawClient(irc_server, "arena")
    squatter.send(b"JOIN #arena\r\n")
    squatter.expect(b" 366 arena #arena ")
    squatter.send(b"MODE #arena +t\r\nTOPIC #arena :arena referee: arena\r\n")
    squatter.expect(b"TOPIC #arena")
    watch = RawClient(irc_server, "watch")  # sees who joins the squatter's table
    watch.send(b"JOIN #fake\r\n")
    watch.expect(b" 366 watch #fake ")
    sdk = [f"s{i}" for i in range(5)]
    nicks = [*sdk, "py0", "js0"]
    keys = {nick: new_key() for nick in nicks}
    arena = Arena(irc_server, len(nicks), FAST, games=2, identity=KEYED)  # still there after the game
    book = arena.service.referee.identities.book
    assert isinstance(book, MemoryBook)
    for nick, key in keys.items():
        book.add(nick, key)
    server = f"{irc_server.host}:{irc_server.port}"
    procs = [
        subprocess.Popen(
            [*program, "--server", server, "--nick", nick, "--games", "1"],
            env={**os.environ, "ARENA_KEY": keys[nick]},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for program, nick in (
            ([sys.executable, str(ROOT / "bots" / "plain_bot.py")], "py0"),
            ([str(NODE), str(ROOT / "bots" / "plain_bot.js")], "js0"),
        )
    ]
    with ReactorThread(tick=0.02) as reactor:
        runners = [
            BotRunner(
                RuleBot(seed=i),
                irc_server.host,
                irc_server.address.port,
                nick,
                lines_per_second=0,
                reactor=reactor.reactor,
                key=keys[nick],
            )
            for i, nick in enumerate(sdk)
        ]
        try:
            for runner in runners:
                runner.start()
            told = squat(squatter, set(nicks))
            # It welcomes them (it cannot sign), seats them at its table and asks them.
            seats = ",".join(nicks)
            for nick in nicks:
                welcome = Message.make(
                    "WELCOME",
                    nick,
                    protocol=1,
                    name=nick,
                    scram=pack_scram("v=" + base64.b64encode(os.urandom(32)).decode()),
                )
                squatter.send(
                    f"PRIVMSG {nick} :{welcome.format()}\r\n"
                    f"PRIVMSG {nick} :ROLE g1 role=merlin side=good sees=\r\n"
                    f"PRIVMSG {nick} :ASK g1 1 vote to={nick} deadline=30 options=approve,reject\r\n".encode()
                )
            squatter.send(
                f"PRIVMSG #arena :TABLE g1 game=avalon channel=#fake seats={seats}\r\n"
                f"PRIVMSG #fake :START g1 game=avalon seats={seats}\r\n"
                f"PRIVMSG #fake :ASK g1 2 team to=all deadline=30 options={seats} pick=2\r\n".encode()
            )
            squatter.send(b"QUIT :done\r\n")
            squatter.expect(b"ERROR :")
            assert not any(r.session.registered for r in runners)
            with arena:  # the real referee: every bot registers with it (after the squatter's lines) and plays
                (match,) = arena.wait()
                # What the squatter captured is worth nothing here: replayed from its own connection, refused.
                replayer = RawClient(irc_server, "replay")
                arena.raw.append(replayer)
                replayed = [reply(replayer, line) for line in (told["s0"][0], told["s0"][-1])]
        finally:
            for runner in runners:
                runner.link.close()
            logs = []
            for proc in procs:
                try:
                    logs.append(proc.communicate(timeout=10)[1])
                except subprocess.TimeoutExpired:
                    proc.kill()
                    logs.append(proc.communicate()[1])
    assert sorted(match.names) == sorted(nicks), logs
    assert match.game.result is not None and match.game.result.forfeited is None
    # What the squatter got: registrations and proofs, nothing that is a key or stands for one.
    everything = "\n".join(line for lines in told.values() for line in lines)
    assert set(told) == set(nicks) and all(
        parse(line).verb in ("REGISTER", "PROOF") for line in everything.splitlines()
    )
    for key in keys.values():
        assert key not in everything and base64.b64encode(key.encode()).decode()[:40] not in everything
        assert "key=" not in everything
    assert any("did not prove it is the referee" in log for log in logs), logs
    # Nobody joined its table or answered it.
    assert not [line for line in squatter.read if b" PRIVMSG arena :ANSWER" in line]
    watch.send(b"PING :flush\r\n")
    watch.expect(b"PONG")
    assert not [line for line in watch.read if b" JOIN " in line and not line.startswith(b":watch!")], watch.read
    assert replayed == ["ERROR AUTH_FAILED"] * 2


@ngircd_only
def test_the_referee_locks_the_lobbys_topic_whenever_it_holds_op(irc_server: LocalServer) -> None:
    """The topic names the referee: once the referee is an operator of the lobby (it made
    the channel, or was given op), only operators may change it (+t)."""
    with Arena(irc_server, 5, FAST) as arena:
        until(lambda: arena.spectator.topic_of("#arena") == "arena referee: arena")
        stranger = RawClient(irc_server, "stranger")
        arena.raw.append(stranger)
        stranger.send(b"JOIN #arena\r\n")
        stranger.expect(b" 366 stranger #arena ")
        stranger.send(b"TOPIC #arena :arena referee: stranger\r\n")  # the channel is open to anyone, as yet
        stranger.expect(b"TOPIC #arena :arena referee: stranger")
        # (the spectator made the channel: the referee is no operator until it is given op)
        arena.spectator.mode("#arena", "+o arena")
        stranger.expect(b":arena!")  # its first line there since: setting +t
        assert stranger.read[-1].endswith(b" MODE #arena +t"), stranger.read[-1]
        stranger.send(b"TOPIC #arena :arena referee: stranger\r\n")
        stranger.expect(b" 482 ")  # not a channel operator
        stranger.send(b"MODE #arena\r\n")
        assert b"t" in stranger.expect(b" 324 ").split(b" #arena ", 1)[1].split(b" ")[0]
