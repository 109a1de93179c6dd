"""bots/plain_bot.js, a bot written in JavaScript from protocol.md alone, plays whole games
over ngircd: an Avalon game of five, a Werewolf game of eight beside SDK bots, and chaos
Werewolf beside bots/plain_bot.py (the same document read in Python). The referee must
refuse none of their lines (no ERROR to it), and no game may end in a forfeit:
what the bot needed to know is in the document."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.games.werewolf.options import WerewolfOptions
from arena.irc.servers import LocalServer, ngircd_available
from arena.protocol import BUNDLE, parse

from ..scripted import scripted
from .test_games import FAST, Arena

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bots" / "plain_bot.js"
PY_BOT = ROOT / "bots" / "plain_bot.py"
NODE = shutil.which("node") or shutil.which("nodejs")


def _require(what: str, present: bool, env: str, install: str) -> None:
    if present:
        return
    if os.environ.get(env) == "1":
        pytest.fail(f"{what} is required ({env}=1) but not installed")
    pytest.skip(f"{what} not installed ({install}); {env}=1 makes this fail")


def _require_node() -> None:
    _require("node", NODE is not None, "ARENA_REQUIRE_NODE", "apt-get install nodejs")


@pytest.fixture
def ngircd() -> Iterator[LocalServer]:
    _require_node()
    _require("ngircd", ngircd_available(), "ARENA_REQUIRE_NGIRCD", "apt-get install ngircd")
    server = LocalServer("ngircd")
    server.start()
    try:
        yield server
    finally:
        server.stop()


class JsBots:
    """plain_bot.js processes (plain_bot.py for the nicks in ``python``: the same document,
    another reader), started once the referee is up, and every line the referee sent them
    (an ERROR among them is a line of theirs it refused)."""

    def __init__(self, arena: Arena, nicks: Sequence[str], python: Sequence[str] = ()) -> None:
        self.arena = arena
        self.nicks = list(nicks) + list(python)
        self.python = set(python)
        self.to_them: list[tuple[str, str]] = []
        referee = arena.service.referee
        send, send_many = referee.send, referee.send_many

        def tap_send(target: str, text: str) -> Any:
            if target.lower() in (n.lower() for n in self.nicks):
                self.to_them.append((target, text))
            return send(target, text)

        def tap_send_many(targets: Sequence[str], text: str) -> Any:
            self.to_them.extend((t, text) for t in targets if t.lower() in (n.lower() for n in self.nicks))
            assert send_many is not None
            return send_many(targets, text)

        referee.send = tap_send
        if send_many is not None:
            referee.send_many = tap_send_many
        self.procs: list[subprocess.Popen[str]] = []

    def start(self, games: int = 1) -> None:
        server = self.arena.server
        for nick in self.nicks:
            program = [sys.executable, str(PY_BOT)] if nick in self.python else [str(NODE), str(BOT)]
            self.procs.append(
                subprocess.Popen(
                    [
                        *program,
                        "--server",
                        f"{server.host}:{server.port}",
                        "--nick",
                        nick,
                        "--referee",
                        self.arena.referee,
                        "--channel",
                        self.arena.config.server.channel,
                        "--games",
                        str(games),
                    ],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )

    def stop(self) -> list[str]:
        """Wait for the bots to leave (they do after their games), and return their logs."""
        logs = []
        for proc in self.procs:
            try:
                _, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            logs.append(err)
        return logs

    def errors(self) -> list[tuple[str, str]]:
        return [(nick, text) for nick, text in self.to_them if parse(text).verb == "ERROR"]


def test_five_js_bots_play_avalon(ngircd: LocalServer) -> None:
    arena = Arena(ngircd, 5, FAST)
    js = JsBots(arena, [f"js{i}" for i in range(5)])
    with arena:
        js.start()
        try:
            (match,) = arena.wait()
        finally:
            logs = js.stop()
    result = match.game.result
    assert result is not None and result.forfeited is None, logs
    assert js.errors() == [], logs
    assert all(p.returncode == 0 for p in js.procs), logs  # --games 1: each left after its END
    # Every JS bot was asked and answered in private (its ROLE, quest cards by DM).
    assert {nick for nick, text in js.to_them if text.startswith("ROLE")} == set(js.nicks)
    # They speak protocol 2: the channel's lines went bundled (section 2), and they read them.
    assert any(BUNDLE in text for sender, _, text in arena.spectator_log.messages if sender == arena.referee)


def test_js_bots_play_werewolf_beside_sdk_bots(ngircd: LocalServer) -> None:
    arena = Arena(ngircd, 8, dataclasses.replace(FAST, night_step=0.2), game="werewolf")
    for i in range(4):
        arena.add_bot(f"sdk{i}", WerewolfRuleBot(seed=i))
    js = JsBots(arena, [f"js{i}" for i in range(4)])
    with arena:
        js.start()
        try:
            (match,) = arena.wait(timeout=40)
        finally:
            logs = js.stop()
    result = match.game.result
    assert result is not None and result.forfeited is None, logs
    assert js.errors() == [], logs
    # A JS bot says one line at each turn it has the floor: every one reached the channel
    # (the server did not drop it: the bot waits to be voiced) and the referee counted it.
    turns = [
        m.fields["to"]
        for target, line in match.transcript
        if target is None
        and (m := parse(line)).verb == "ASK"
        and m.get("floor") == "true"
        and m.fields["to"] in js.nicks
    ]
    spoken = [t.nick for t in match.talk if t.nick in js.nicks]  # the record keeps counted lines only
    assert sorted(spoken) == sorted(turns), (spoken, turns)


def test_plain_bots_play_chaos_werewolf_to_the_end(ngircd: LocalServer) -> None:
    """Five games at decks drawn from every role, twelve of the sixteen seats held by the
    plain bots: whatever they are dealt (a pick of two, in order or not, a dealer's card,
    a cult's recruitment), the document told them enough to answer it; no line of theirs
    is refused and none of them crashes (each leaves by itself after its fifth game)."""
    options = WerewolfOptions(preset="chaos", maxDays=4)
    arena = Arena(ngircd, 16, dataclasses.replace(FAST, night_step=0.1), games=5, game="werewolf", options=options)
    for i in range(4):
        arena.add_bot(f"sdk{i}", WerewolfRuleBot(seed=i))
    bots = JsBots(arena, [f"js{i}" for i in range(6)], python=[f"py{i}" for i in range(6)])
    with arena:
        bots.start(games=5)
        try:
            matches = arena.wait(5, timeout=90)
        finally:
            logs = bots.stop()
    assert all(m.game.result is not None and m.game.result.forfeited is None for m in matches), logs
    assert bots.errors() == [], logs
    assert all(p.returncode == 0 for p in bots.procs), logs
    private = [parse(text) for _, text in bots.to_them if text.startswith("ASK")]  # night requests, by DM
    assert len({ask.args[2] for ask in private}) >= 12 and any(ask.get("pick") == "2" for ask in private)


def test_js_bot_follows_the_document_step_by_step() -> None:
    """The bot, talked to by a scripted server on 127.0.0.1: it waits while the lobby's
    topic names another referee, joins a game's channel from TABLE, joins a continued
    request, speaks only once voiced, and leaves the channel after END."""
    _require_node()
    with scripted([str(NODE), str(BOT), "--nick", "js", "--key", "K" * 32]) as peer:
        assert peer.said().startswith("NICK") and peer.said().startswith("USER")
        peer.send(b":srv 001 js :welcome\r\n")
        assert peer.said() == "JOIN #arena"
        peer.send(
            b":srv 332 js #arena :arena referee: arena_ (arena is NOT the referee)\r\n"
            b":srv 366 js #arena :End of NAMES list\r\n"
        )
        peer.quiet()  # the topic names another referee: no key goes out
        peer.send(b":arena_!a@h TOPIC #arena :arena referee: arena\r\n")
        register = peer.said()
        assert register.startswith("PRIVMSG arena :REGISTER 2 name=js owner=plain_bot.js version=1.0 scram=")
        assert "K" * 32 not in register and "K" * 32 not in peer.welcome(register, "K" * 32, signed=False)
        peer.send(
            b":arena!a@h PRIVMSG #arena :TABLE g5 game=avalon channel=#fake seats=js,b,c,d,e\r\n"
            b":arena!a@h PRIVMSG js :ASK g5 1 vote to=js deadline=30 options=approve,reject\r\n"
        )
        peer.quiet()  # a WELCOME without the referee's signature: nothing of that nick is obeyed
        peer.send(b":arena!a@h QUIT :gone\r\n:arena!r@h JOIN #arena\r\n")  # the real referee comes
        peer.welcome(peer.said(), "K" * 32)
        peer.send(
            b":mallory!m@h PRIVMSG #arena :TABLE g6 game=avalon channel=#evil seats=js\r\n"
            b":arena!a@h PRIVMSG #arena :TABLE g7 game=werewolf channel=#arena-g7 seats=a,b more=true\r\n"
            b":arena!a@h PRIVMSG #arena :TABLE g7 seats=js,c\r\n"
        )
        assert peer.said() == "JOIN #arena-g7"  # not #evil: only the referee's lines count
        peer.send(
            b":arena!a@h PRIVMSG #arena-g7 :ASK g7 5 vote to=a deadline=30 options=b,js,abstain\r\n"
            b":arena!a@h MODE #arena-g7 +m\r\n"
            b":arena!a@h PRIVMSG #arena-g7 :ASK g7 6 speak to=js deadline=30 options=done,pass "
            b"floor=true\r\n"
        )
        peer.quiet()  # not for us, and the floor is not ours until we are voiced
        peer.send(b":arena!a@h MODE #arena-g7 +v js\r\n")
        assert peer.said().startswith("PRIVMSG #arena-g7 :")
        assert peer.said() == "PRIVMSG arena :ANSWER g7 6 done"
        peer.send(
            b":arena!a@h PRIVMSG #arena-g7 :ASK g7 8 wolf_vote to=js deadline=30 options=a,b more=true\r\n"
            b":arena!a@h PRIVMSG #arena-g7 :ASK g7 8 wolf_vote options=c pick=3\r\n"
        )
        answer = peer.said()
        assert answer.startswith("PRIVMSG arena :ANSWER g7 8 ")
        assert sorted(answer.rsplit(" ", 1)[1].split(",")) == ["a", "b", "c"]
        peer.send(
            b":arena!a@h PRIVMSG #arena-g7 :END g7 winner=village reason=all_wolves_eliminated "
            b"roles=villager,werewolf,villager,seer\r\n"
        )
        assert peer.said() == "PART #arena-g7"
