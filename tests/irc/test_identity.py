"""Attacks on bot identities over a real ngircd: a stranger on a departed bot's nick, names
claimed without their key, and an impostor holding the referee's nick. Each test asserts
that the attack is refused, not merely that nothing broke."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import IdentityConfig, TimeoutConfig
from arena.irc.servers import LocalServer
from arena.protocol import parse
from arena.referee.identity import MemoryBook, hash_key, new_key
from arena.store import Store

from .conftest import RawClient, until
from .test_games import FAST, Arena

ngircd_only = pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)
"""Modes, topics and multi-target messages as a real network has them."""

KEYED = IdentityConfig(require_key=True)
NICKS = tuple(f"k{i}" for i in range(5))


def keyed_arena(server: LocalServer, timeouts: TimeoutConfig,
                tmp_path: Path | None = None) -> tuple[Arena, dict[str, str]]:
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
            store.add_bot(nick, "owner", hash_key(key), None, time.time())
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
        ask = parse(thief.expect(f"PRIVMSG #arena-{gid} :ASK".encode()).split(b" :", 1)[1].decode())
        assert reply(thief, f"ANSWER {gid} {ask.args[1]} {ask.list('options')[0]}") == "ERROR NOT_REGISTERED"
        assert reply(thief, f"REGISTER 1 name=k0 key={keys['k1']}") == "ERROR AUTH_FAILED", "another bot's key"
        thief.expect(f"PRIVMSG #arena-{gid} :END".encode(), timeout=20)
        (match,) = arena.wait()
    private = [line for nick, line in match.transcript[held_from:] if nick is not None and nick.lower() == "k0"]
    assert any(line.startswith("WARN") for line in private), "the seat had no private line to leak"
    leaked = [line for line in dms_from_referee(thief.read, "k0") if not line.startswith("ERROR")]
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
        assert reply(thief, f"REGISTER 1 name=k0 key={new_key()}") == "ERROR AUTH_FAILED"
        assert reply(thief, f"REGISTER 1 name=k0 key={keys['k1']}") == "ERROR AUTH_FAILED", "another bot's key"
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
        assert reply(intruder, f"REGISTER 1 name=shared key={new_key()}") == "ERROR NAME_TAKEN", \
            "a made-up key proves nothing"
        assert reply(intruder, "ANSWER g1 1 approve") == "ERROR NOT_REGISTERED"
        held = arena.service.referee.bot_named("shared")
        assert held is not None and held.nick == "holder"


@ngircd_only
def test_an_impostor_on_the_referees_nick_gets_no_key(irc_server: LocalServer,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    impostor = RawClient(irc_server, "arena")
    impostor.send(b"JOIN #arena\r\n")
    impostor.expect(b" 366 arena #arena ")
    arena, keys = keyed_arena(irc_server, FAST)
    arena.raw.append(impostor)
    warned = "arena referee: arena_ (arena is NOT the referee)"
    with caplog.at_level(logging.ERROR, logger="arena.sdk.runner"), arena:
        assert arena.service.link.nick == "arena_"
        arena.spectator_log.wait(lambda: any(s == "arena_" and t == "#arena" and "is held by someone else" in text
                                             for s, t, text in arena.spectator_log.messages))
        # ngircd gives a channel no modes (no +t): the referee, not an operator there, may set the topic.
        until(lambda: arena.spectator.topic_of("#arena") == warned)
        runners = [arena.add_bot(nick, RuleBot(seed=i), key=keys[nick]) for i, nick in enumerate(NICKS)]
        for runner in runners:
            runner.start()
        until(lambda: all(r.link.is_ready for r in runners))
        waiting = lambda: sum("the lobby says the referee is arena_" in r.getMessage()  # noqa: E731
                              for r in caplog.records)
        end = time.monotonic() + 5
        while waiting() < len(runners) and time.monotonic() < end:  # each bot has decided (not asserted yet:
            time.sleep(0.01)                                           # a bot that sent its key never logs)
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
