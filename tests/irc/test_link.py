"""IrcLink against real servers on 127.0.0.1 (miniircd and ngircd), plus its pure helpers."""

from __future__ import annotations

import base64
import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from collections.abc import Iterator

import pytest

from arena.irc.link import (
    ReactorThread,
    MAX_LINE_BYTES,
    IrcLink,
    LinkSettings,
    SaslFailed,
    fit_utf8,
    run_in_thread,
    strip_controls,
)
from arena.irc.servers import LocalServer, ServerAddress
from arena.irc.text import fold
from arena.protocol import ProtocolError, parse

from .conftest import MakeLink, MakeRawClient, embedded_server

ROOT = Path(__file__).resolve().parents[2]
WAIT = 5.0  # upper bound for anything that should take milliseconds on loopback

# -- pure helpers ---------------------------------------------------------------------------


def test_strip_controls_removes_every_control_character() -> None:
    dirty = "a\rb\nc\x00d\x01e\x02f\x03g\x0fh\x16i\x1dj\x1ek\x1fl\x7fm\x9bn"
    assert strip_controls(dirty) == "abcdefghijklmn"
    assert strip_controls("héllo wörld ✓") == "héllo wörld ✓"


def test_fit_utf8_cuts_on_a_character_boundary() -> None:
    assert fit_utf8("abc", 10) == "abc"
    assert fit_utf8("ééé", 5) == "éé"  # 6 bytes; 5 would split the last é
    assert fit_utf8("a✓", 3) == "a"
    assert fit_utf8("abc", 0) == ""


def test_invalid_names_are_refused() -> None:
    link = IrcLink("127.0.0.1", 1, "bot")
    for bad in ("", "a b", "a,b", "a\rb", ":x"):
        with pytest.raises(ValueError):
            link.send(bad, "hi")
    with pytest.raises(ValueError):
        IrcLink("127.0.0.1", 1, "bad nick")
    link.close()


def test_names_fold_as_the_server_says() -> None:
    """RFC 1459 folding (jaraco's) unless the server's CASEMAPPING says otherwise: ngircd
    says ``ascii``, where ``[`` and ``{`` are different nicks."""
    assert fold("Bot[1]^", "rfc1459") == fold("bot{1}~", "rfc1459") == fold("BOT{1}~")
    assert fold("Bot[1]", "ascii") == "bot[1]" != fold("bot{1}", "ascii")
    assert fold("Bot[1]", "strict-rfc1459") == fold("bot{1}", "strict-rfc1459")
    assert fold("bot^", "strict-rfc1459") != fold("bot~", "strict-rfc1459")


def test_max_text_bytes_counts_the_relay_prefix() -> None:
    link = IrcLink("127.0.0.1", 1, "referee")
    prefix = f":referee!~referee@{'h' * 63} PRIVMSG #game :"
    assert link.max_text_bytes("#game") == 512 - 2 - len(prefix)
    link.close()


# -- over real servers ----------------------------------------------------------------------


def test_dm_and_channel_messages(make_link: MakeLink) -> None:
    alice, arec = make_link("alice", channels=["#game"])
    bob, brec = make_link("bob", channels=["#game"])
    arec.wait(lambda: ("join", "bob", "#game", None) in arec.membership)
    assert alice.members("#game") == {"alice", "bob"}
    assert bob.members("#GAME") == {"alice", "bob"}

    alice.send("bob", "psst")
    alice.send("#game", "hello all")
    bob.notice("alice", "noted")
    brec.wait(lambda: len(brec.messages) == 2)
    assert brec.messages == [("alice", "bob", "psst"), ("alice", "#game", "hello all")]
    arec.wait(lambda: arec.messages == [("bob", "alice", "noted")])


def test_one_line_reaches_several_nicks_in_as_few_lines_as_the_server_takes(
    make_link: MakeLink, irc_server: LocalServer
) -> None:
    referee, _ = make_link("referee", max_targets=irc_server.max_targets)
    players = [make_link(nick) for nick in ("p1", "p2", "p3")]
    assert referee.send_many(["p1", "p2", "p3"], "ROLE g1 role=servant side=good sees=")
    for _, rec in players:
        rec.wait(lambda: len(rec.messages) == 1)
    got = [rec.messages[0] for _, rec in players]
    assert got == [("referee", nick, "ROLE g1 role=servant side=good sees=") for nick in ("p1", "p2", "p3")]
    # ngircd takes 25 nicks at once; the embedded server one.
    assert referee.sent_messages == (1 if irc_server.max_targets > 1 else 3)


def test_several_nicks_are_split_by_count_and_by_length(make_link: MakeLink, irc_server: LocalServer) -> None:
    referee, _ = make_link("referee", max_targets=min(2, irc_server.max_targets))
    nicks = ["p1", "p2", "p3"]
    recs = [make_link(nick)[1] for nick in nicks]
    referee.send_many(nicks, "hello")
    for rec in recs:
        rec.wait(lambda: len(rec.messages) == 1)
    assert referee.sent_messages == (2 if irc_server.max_targets > 1 else 3)
    # A text that leaves no room for a second nick goes to each alone, uncut.
    text = "x" * referee.max_text_bytes("p1")
    referee.send_many(nicks, text)
    for rec in recs:
        rec.wait(lambda: len(rec.messages) == 2)
        assert rec.messages[1][2] == text
    assert referee.sent_messages == (5 if irc_server.max_targets > 1 else 6)


def test_control_characters_cannot_inject_commands(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    alice, arec = make_link("alice")
    bob, brec = make_link("bob")
    watcher = raw_client("watcher")
    assert alice.send("bob", "hi\rQUIT :x")
    assert alice.send("bob", "two\nJOIN #evil")
    assert alice.send("bob", "\x01VERSION\x01 and \x0304red\x03 \x02bold\x02")
    assert alice.send("watcher", "last")
    watcher.expect(b"PRIVMSG watcher :last")  # after the three lines above: all processed
    brec.wait(lambda: len(brec.messages) == 3)
    assert brec.texts() == ["hiQUIT :x", "twoJOIN #evil", "VERSION and 04red bold"]
    assert alice.is_connected and alice.is_ready
    assert alice.channels == frozenset() and alice.members("#evil") == frozenset()
    assert not any(kind == "quit" for kind, *_ in brec.membership)
    assert not alice.send("bob", "\r\n\x01")  # nothing left: nothing sent


def test_incoming_text_is_delivered_raw_ctcp_and_formatting_included(
    make_link: MakeLink, raw_client: MakeRawClient
) -> None:
    # Whoever parses the text must see what was sent, to refuse it; the library would
    # dequote CTCP into separate events and drop the rest.
    bob, brec = make_link("bob")
    raw = raw_client("raw")
    raw.send(b"PRIVMSG bob :\x01ACTION waves\x01\r\nPRIVMSG bob :\x01VERSION\x01\r\n")
    raw.send(b"PRIVMSG bob :a\tb \x02bold\x02 \x0304red\x03 \x10n\r\nNOTICE bob :\x01PING 1\x01\r\n")
    raw.send(b"PRIVMSG bob :plain\r\n")
    brec.wait(lambda: len(brec.messages) == 5)
    assert brec.texts() == [
        "\x01ACTION waves\x01",
        "\x01VERSION\x01",
        "a\tb \x02bold\x02 \x0304red\x03 \x10n",
        "\x01PING 1\x01",
        "plain",
    ]


class ScriptedServer:
    """A server that registers one client and then sends it the given lines verbatim: for
    what no real server lets a client send (server notices, prefix-less lines)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn, conn.makefile("rb") as incoming:
            for raw in incoming:
                if raw.startswith(b"USER "):
                    script = [":srv 001 bob :welcome", *self.lines]
                    conn.sendall("".join(line + "\r\n" for line in script).encode())

    def close(self) -> None:
        self.listener.close()


def test_server_notices_prefixless_lines_and_services_are_not_messages(reactor_thread: ReactorThread) -> None:
    server = ScriptedServer(
        [
            ":srv NOTICE bob :*** server notice",
            "NOTICE bob :no prefix at all",
            "PRIVMSG bob :no prefix either",
            ":srv PRIVMSG bob :from the server",
            ":NickServ!NickServ@services NOTICE bob :This nickname is registered",
            ":alice!a@h PRIVMSG bob :last",
        ]
    )
    got: list[tuple[str, str, str]] = []
    link = IrcLink(
        "127.0.0.1",
        server.port,
        "bob",
        LinkSettings(lines_per_second=0),
        reactor=reactor_thread.reactor,
        on_message=lambda *m: got.append(m),
    )
    try:
        link.connect()
        deadline = time.monotonic() + WAIT
        while not got and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got == [("alice", "bob", "last")]
    finally:
        link.close()
        server.close()


def test_bytes_that_are_not_utf8_stay_recognisable(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    """Each stray byte arrives as a lone surrogate (never guessed as Latin-1): the parser
    refuses such a line, and the link neither raises nor lets one back out."""
    bob, brec = make_link("bob")
    raw = raw_client("raw")
    raw.send(b"PRIVMSG bob :caf\xe9 \xff\xfe\r\nPRIVMSG bob :ok \xc3\xa9\r\n")
    brec.wait(lambda: len(brec.messages) == 2)
    assert brec.texts() == ["caf\udce9 \udcff\udcfe", "ok é"]
    with pytest.raises(ProtocolError, match="not valid UTF-8"):
        parse(brec.texts()[0])
    assert strip_controls(brec.texts()[0]) == "caf "
    assert bob.is_connected


def test_long_text_is_cut_under_512_bytes(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    alice, _ = make_link("alice", channels=["#game"])
    bob, brec = make_link("bob", channels=["#game"])
    watcher = raw_client("watcher")
    watcher.send(b"JOIN #game\r\n")
    watcher.expect(b" 366 ")
    long_text = "é" * 300 + "x" * 600  # 1200 bytes
    alice.send("bob", long_text)
    alice.send("#game", long_text)
    line = watcher.expect(b"PRIVMSG #game")
    assert len(line) + 2 <= MAX_LINE_BYTES  # as relayed by the server, with its prefix
    brec.wait(lambda: len(brec.messages) == 2)
    for _, target, text in brec.messages:
        assert long_text.startswith(text)
        budget = alice.max_text_bytes(target)
        assert budget - 2 < len(text.encode()) <= budget  # cut on a character boundary
        assert budget > 300
    alice.send("bob", "still here")  # ngircd drops a client that sends > 512 bytes
    brec.wait(lambda: brec.texts()[-1:] == ["still here"])
    assert alice.is_connected


def test_nick_collision_gets_a_suffix(make_link: MakeLink) -> None:
    first, _ = make_link("player")
    second, _ = make_link("player")
    third, rec3 = make_link("player")
    assert (first.nick, second.nick, third.nick) == ("player", "player_", "player1")
    first.send("player1", "to the third")
    rec3.wait(lambda: rec3.messages == [("player", "player1", "to the third")])


def test_without_regain_a_taken_nick_is_reported_not_fought(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    squatter = raw_client("arena")
    link, rec = make_link("arena")
    assert link.nick == "arena_" and not link.has_preferred_nick
    rec.wait(lambda: rec.nick_states)  # told on the reactor's thread, maybe just after ready
    assert rec.nick_states == [(False, "arena_")]
    squatter.send(b"QUIT :gone\r\n")
    time.sleep(0.2)
    assert link.nick == "arena_"


def test_regain_takes_the_nick_when_the_squatter_quits(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    squatter = raw_client("arena")
    squatter.send(b"JOIN #lobby\r\n")
    squatter.expect(b" 366 ")
    # A long interval: the nick must come back because the quit was seen in the channel.
    link, rec = make_link("arena", channels=["#lobby"], regain=True, regain_interval=600)
    assert link.nick == "arena_" and not link.has_preferred_nick
    rec.wait(lambda: rec.nick_states)
    assert rec.nick_states == [(False, "arena_")]
    squatter.send(b"QUIT :gone\r\n")
    rec.wait(lambda: rec.nick_states[-1:] == [(True, "arena")])
    assert link.nick == "arena" and link.has_preferred_nick
    assert link.members("#lobby") == {"arena"}


def test_regain_retries_periodically_without_a_shared_channel(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    squatter = raw_client("arena")
    link, rec = make_link("arena", regain=True, regain_interval=0.2)
    rec.wait(lambda: rec.nick_states)  # told on the reactor's thread, maybe just after ready
    assert rec.nick_states == [(False, "arena_")]
    time.sleep(0.5)  # a few refused retries change nothing
    assert rec.nick_states == [(False, "arena_")] and link.is_ready
    squatter.send(b"NICK other\r\n")
    rec.wait(lambda: rec.nick_states[-1:] == [(True, "arena")])
    assert link.nick == "arena"


def test_losing_the_nick_later_is_reported_and_regained(make_link: MakeLink) -> None:
    link, rec = make_link("arena", channels=["#lobby"], regain=True, regain_interval=0.2)
    rec.wait(lambda: rec.nick_states)
    assert rec.nick_states == [(True, "arena")]
    link.connection.conn.send_raw("NICK elsewhere")  # as if services had renamed us
    rec.wait(lambda: rec.nick_states[-1:] == [(True, "arena")] and len(rec.nick_states) == 3)
    assert rec.nick_states == [(True, "arena"), (False, "elsewhere"), (True, "arena")]


def test_account_tags_on_a_server_without_them(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    link, rec = make_link("ref", channels=["#lobby"], account_tags=True)
    assert not link.accounts_enabled
    raw = raw_client("someone")
    raw.send(b"PRIVMSG ref :hello\r\n")
    rec.wait(lambda: rec.messages == [("someone", "ref", "hello")])
    assert link.account_of("someone") is None


def test_rename_part_and_quit_reach_on_membership(make_link: MakeLink, raw_client: MakeRawClient) -> None:
    ref, rec = make_link("ref", channels=["#game"])
    raw = raw_client("bot")
    raw.send(b"JOIN #game\r\n")
    rec.wait(lambda: ("join", "bot", "#game", None) in rec.membership)
    assert ref.members("#game") == {"ref", "bot"}
    raw.send(b"NICK bot2\r\n")
    rec.wait(lambda: ("nick", "bot", None, "bot2") in rec.membership)
    assert ref.members("#game") == {"ref", "bot2"}
    raw.send(b"PART #game :bye\r\nJOIN #game\r\n")
    rec.wait(lambda: ("part", "bot2", "#game", None) in rec.membership)
    rec.wait(lambda: rec.membership.count(("join", "bot2", "#game", None)) == 1)
    raw.send(b"QUIT :gone\r\n")
    rec.wait(lambda: ("quit", "bot2", None, None) in rec.membership)
    assert ref.members("#game") == {"ref"}


def test_kick_reaches_on_membership(make_link: MakeLink, irc_server: LocalServer) -> None:
    if irc_server.kind != "ngircd":
        pytest.skip("miniircd has no channel operators")
    ref, rec = make_link("ref", channels=["#game"])  # first joiner gets @ on ngircd
    bot, brec = make_link("bot", channels=["#game"])
    ref.mode("#game", "+m")
    ref.mode("#game", "+v bot")
    bot.send("#game", "voiced")
    rec.wait(lambda: rec.texts() == ["voiced"])
    with ref.reactor.mutex:
        ref.connection.conn.kick("#game", "bot", "out")  # no kick() in the API: raw for the test
    rec.wait(lambda: ("kick", "bot", "#game", None) in rec.membership)
    brec.wait(lambda: ("kick", "bot", "#game", None) in brec.membership)
    assert bot.channels == frozenset()  # kicked: not re-joined
    assert ref.members("#game") == {"ref"}


def test_rate_limit_spaces_lines_and_keeps_order(make_link: MakeLink) -> None:
    alice, _ = make_link("alice", lines_per_second=20, burst=5)
    bob, brec = make_link("bob")
    start = time.monotonic()
    for i in range(25):
        alice.send("bob", f"line {i}")
    assert time.monotonic() - start < 0.2  # send never waits for the rate limit
    assert alice.queued >= 15
    brec.wait(lambda: len(brec.messages) == 25)
    elapsed = brec.times[-1] - start
    assert 0.7 <= elapsed <= 3.0, elapsed  # 5 at once, then 20 at 20/s: about 1 s
    assert brec.texts() == [f"line {i}" for i in range(25)]
    assert brec.times[4] - start < 0.3  # the burst went out at once


def test_reconnects_after_server_restart_and_rejoins(make_link: MakeLink, irc_server: LocalServer) -> None:
    alice, arec = make_link("alice", channels=["#game"], reconnect_delay=0.1)
    bob, brec = make_link("bob", channels=["#game"], reconnect_delay=0.1)
    arec.wait(lambda: ("join", "bob", "#game", None) in arec.membership)
    irc_server.restart()
    arec.wait(lambda: arec.disconnects and arec.ready == 2)
    brec.wait(lambda: brec.ready == 2)
    assert alice.nick == "alice" and bob.nick == "bob"
    arec.wait(lambda: alice.members("#game") == {"alice", "bob"})
    alice.send("#game", "back")
    brec.wait(lambda: brec.messages == [("alice", "#game", "back")])


def test_lines_queued_while_disconnected_are_sent_after_reconnection(
    make_link: MakeLink, irc_server: LocalServer
) -> None:
    # Bob must be on the server before alice comes back, or her line meets "no such nick":
    # her reconnection waits long enough for his registration even on a busy machine.
    alice, arec = make_link("alice", reconnect_delay=1.5)
    irc_server.stop()
    arec.wait(lambda: arec.disconnects)
    alice.send("bob", "queued while down")
    assert alice.queued == 1
    irc_server.start()
    bob, brec = make_link("bob")
    arec.wait(lambda: arec.ready == 2, timeout=WAIT)
    brec.wait(lambda: brec.messages == [("alice", "bob", "queued while down")])


def test_keepalive_drops_a_silent_connection(make_link: MakeLink, irc_server: LocalServer) -> None:
    alice, arec = make_link("alice", keepalive=0.3, reconnect_delay=0.1)
    pid = irc_server.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)  # the server stops answering, TCP stays up
    try:
        arec.wait(lambda: arec.disconnects, timeout=WAIT)
    finally:
        os.kill(pid, signal.SIGCONT)
    arec.wait(lambda: arec.ready >= 2, timeout=WAIT)
    assert alice.is_ready


def test_sasl_failure_is_surfaced_and_fatal(make_link: MakeLink) -> None:
    link, rec = make_link("acct", sasl_account="acct", sasl_password="secret", wait=False)
    with pytest.raises(SaslFailed):
        link.wait_ready(WAIT)
    assert isinstance(rec.errors[0], SaslFailed)
    assert link.is_closed and not link.is_ready
    time.sleep(0.2)
    assert not link.is_connected  # and no reconnection


class FakeSaslServer:
    """Just enough of a SASL-capable server (neither miniircd nor ngircd has SASL): CAP LS
    and REQ, AUTHENTICATE PLAIN answered with 903 or 904, then 001 after CAP END."""

    def __init__(self, accounts: dict[str, str]) -> None:
        self.accounts = accounts
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        nick = "*"

        def send(line: str) -> None:
            conn.sendall(line.encode() + b"\r\n")

        with conn, conn.makefile("rb") as lines:
            for raw in lines:
                command, _, rest = raw.decode().rstrip("\r\n").partition(" ")
                if command == "NICK":
                    nick = rest
                elif command == "CAP" and rest.startswith("LS"):
                    send(":fake CAP * LS :sasl multi-prefix")
                elif command == "CAP" and rest.startswith("REQ"):
                    send(":fake CAP * ACK :sasl")
                elif command == "CAP" and rest == "END":
                    send(f":fake 001 {nick} :welcome")
                elif command == "AUTHENTICATE" and rest == "PLAIN":
                    send("AUTHENTICATE +")
                elif command == "AUTHENTICATE":
                    _, account, password = base64.b64decode(rest).decode().split("\0")
                    if self.accounts.get(account) == password:
                        send(f":fake 900 {nick} {nick}!u@h {account} :You are now logged in")
                        send(f":fake 903 {nick} :SASL authentication successful")
                    else:
                        send(f":fake 904 {nick} :SASL authentication failed")
                elif command == "QUIT":
                    return

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def sasl_server() -> Iterator[FakeSaslServer]:
    server = FakeSaslServer({"good": "right", "bad": "right"})
    yield server
    server.close()


def test_sasl_success_and_failure_on_one_reactor(sasl_server: FakeSaslServer, reactor_thread: ReactorThread) -> None:
    # The library's SASL handler is reactor-global; two links doing SASL at once on one
    # reactor must not drive each other's exchange.
    links = [
        IrcLink(
            "127.0.0.1",
            sasl_server.port,
            name,
            LinkSettings(sasl_account=name, sasl_password=pw, lines_per_second=0),
            reactor=reactor_thread.reactor,
        )
        for name, pw in (("good", "right"), ("bad", "wrong"))
    ]
    try:
        for link in links:
            link.connect()
        good, bad = links
        assert good.wait_ready(WAIT) and good.nick == "good"
        with pytest.raises(SaslFailed, match="authentication failed"):
            bad.wait_ready(WAIT)
        assert good.is_connected and bad.is_closed
    finally:
        for link in links:
            link.close()


def test_close_with_drain_sends_queued_lines_then_quits(make_link: MakeLink) -> None:
    alice, _ = make_link("alice", lines_per_second=10, burst=1, channels=["#game"])
    bob, brec = make_link("bob", channels=["#game"])
    for i in range(3):
        alice.send("bob", f"last {i}")
    alice.close("done", drain_timeout=2.0)
    assert not alice.send("bob", "after close")
    brec.wait(lambda: ("quit", "alice", None, None) in brec.membership)
    assert brec.texts() == ["last 0", "last 1", "last 2"]


def test_close_without_drain_drops_the_queue(make_link: MakeLink) -> None:
    alice, arec = make_link("alice", lines_per_second=1, burst=1)
    bob, brec = make_link("bob")
    for i in range(5):
        alice.send("bob", f"m{i}")
    alice.close("now")
    arec.wait(lambda: arec.disconnects == ["now"])
    assert alice.queued == 0
    time.sleep(0.2)
    assert brec.texts() == ["m0"]


def test_callbacks_that_raise_do_not_stop_the_reactor(make_link: MakeLink) -> None:
    calls: list[str] = []

    def broken(sender: str, target: str, text: str) -> None:
        calls.append(text)
        raise RuntimeError("referee bug")

    alice, _ = make_link("alice")
    bob, _ = make_link("bob")
    bob.on_message = broken
    alice.send("bob", "one")
    alice.send("bob", "two")
    deadline = time.monotonic() + WAIT
    while len(calls) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert calls == ["one", "two"]
    assert bob.is_ready


def test_reactor_thread_call_runs_in_the_reactor_thread() -> None:
    import threading

    thread = run_in_thread(tick=0.01)
    try:
        assert thread.call(threading.current_thread).result(WAIT) is thread._thread
        with pytest.raises(ZeroDivisionError):
            thread.call(lambda: 1 / 0).result(WAIT)
    finally:
        thread.stop()
    assert not thread.is_alive


def test_embedded_server_context_manager() -> None:
    with embedded_server() as address:
        assert isinstance(address, ServerAddress)
        host, port = address
        assert host == "127.0.0.1" and port > 0
    server = LocalServer("embedded", port=port)
    with server:
        assert server.port == port and server.startup_seconds is not None


def test_replies_wait_behind_our_lines_and_after_sent_follows_them(make_link: MakeLink) -> None:
    """A reply goes out only once nothing of ours waits and the bucket is full again; a
    full reply queue drops; ``after_sent`` fires once the lines before it are written."""
    rx, rec = make_link("rx")
    tx, _ = make_link("tx", lines_per_second=20, burst=2, max_replies=1)
    sent: list[int] = []
    for i in range(3):
        tx.send("rx", f"ours {i}")
    assert tx.reply("rx", "a reply")
    assert not tx.reply("rx", "one reply too many") and tx.replies_dropped == 1
    tx.send("rx", "ours 3")
    tx.after_sent(lambda: sent.append(len(rec.messages)))
    rec.wait(lambda: len(rec.messages) == 5)
    assert rec.texts() == ["ours 0", "ours 1", "ours 2", "ours 3", "a reply"]
    assert sent and sent[0] <= 4  # called once "ours 3" was written, before the reply was read


def test_join_and_part_go_ahead_of_queued_messages(make_link: MakeLink) -> None:
    """A backlog of messages does not keep a link out of a channel: JOIN goes before it,
    and PART too, but never before the lines still queued for the channel it leaves."""
    seen: list[str] = []
    bob, brec = make_link("bob", channels=["#a", "#b"])

    def on_message(sender: str, target: str, text: str) -> None:
        seen.append(text)
        brec.on_message(sender, target, text)

    def on_membership(kind: str, nick: str, channel: str | None, new: str | None) -> None:
        if nick == "tx":
            seen.append(f"{kind} {channel}")
        brec.on_membership(kind, nick, channel, new)

    bob.on_message, bob.on_membership = on_message, on_membership  # one timeline of both
    tx, _ = make_link("tx", channels=["#a"], lines_per_second=20, burst=1)
    brec.wait(lambda: "join #a" in seen)
    with tx.reactor.mutex:  # all queued at once, whatever the machine's load
        for i in range(10):
            tx.send("bob", f"dm {i}")
        tx.send("#a", "last in #a")
        for i in range(10, 20):
            tx.send("bob", f"dm {i}")
        tx.part("#a")
        tx.join("#b")
    brec.wait(lambda: "dm 19" in seen and "part #a" in seen and "join #b" in seen)
    seen.remove("join #a")
    dms = [f"dm {i}" for i in range(20)]
    assert [line for line in seen if line in dms] == dms
    assert seen.index("join #b") < seen.index("dm 1"), seen  # ahead of the backlog
    assert seen.index("last in #a") < seen.index("part #a") < seen.index("dm 10"), seen


def test_a_port_that_is_not_an_irc_server_is_named(
    reactor_thread: ReactorThread, caplog: pytest.LogCaptureFixture
) -> None:
    """A peer that accepts and says nothing (a web server on the wrong port) gets one clear
    line once the registration timeout runs out, not a silent wait."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        link = IrcLink(
            "127.0.0.1",
            port,
            "bot",
            LinkSettings(keepalive=None, registration_timeout=0.3),
            reactor=reactor_thread.reactor,
        )
        link.connect()
        peer, _ = listener.accept()
        try:
            deadline = time.monotonic() + WAIT
            while "did not speak IRC" not in caplog.text and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            link.close()
            peer.close()
    assert f"127.0.0.1:{port} accepted the connection but did not speak IRC within 0.3 s" in caplog.text


class QuietHandler(http.server.BaseHTTPRequestHandler):
    """A web server's answer (``400 Bad Request`` with an HTML page) to anything, unlogged."""

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def http_port() -> Iterator[int]:
    """A web server on 127.0.0.1: the port an operator may give by mistake."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), QuietHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_a_web_server_is_named_and_retried(
    reactor_thread: ReactorThread, caplog: pytest.LogCaptureFixture, http_port: int
) -> None:
    """What a web server answers is named in one line, and the link tries again later as for
    a silent peer; the library's parser, which raises on such lines, never sees them."""
    link = IrcLink(
        "127.0.0.1",
        http_port,
        "bot",
        LinkSettings(keepalive=None, reconnect_delay=0.05),
        reactor=reactor_thread.reactor,
    )
    link.connect()
    said = f"bot: 127.0.0.1:{http_port} answered with something that is not IRC ("
    try:
        deadline = time.monotonic() + 10 * WAIT  # only against a hang: two attempts are the event
        while caplog.text.count(said) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        link.close()
    assert caplog.text.count(said) >= 2, caplog.text
    assert reactor_thread.is_alive and "Traceback" not in caplog.text and "raised" not in caplog.text


def test_arena_serve_and_a_sample_bot_at_a_web_server_say_so_and_retry(http_port: int, tmp_path: Path) -> None:
    """``arena serve`` and a bot of the SDK pointed at a web server's port keep running and
    retrying, each saying what answered, instead of dying of the IRC library's parser."""
    config = tmp_path / "config.yaml"
    config.write_text(f"server: {{host: 127.0.0.1, port: {http_port}}}\nstore: {{path: {tmp_path / 'r.db'}}}\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    commands = {
        "arena": [sys.executable, "-m", "arena", "--config", str(config), "serve"],
        "b1": [sys.executable, "-m", "arena.bots.random_bot", "--server", f"127.0.0.1:{http_port}", "--nick", "b1"],
    }
    said = f"127.0.0.1:{http_port} answered with something that is not IRC ("
    processes = {
        name: subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
        )
        for name, command in commands.items()
    }
    errors: dict[str, list[str]] = {name: [] for name in processes}
    readers = [
        threading.Thread(target=lambda p=p, out=errors[name]: out.extend(p.stderr), daemon=True)
        for name, p in processes.items()
    ]
    for reader in readers:
        reader.start()
    try:
        deadline = time.monotonic() + 60  # only against a hang: two attempts each are the event
        while not all(sum(said in line for line in lines) >= 2 for lines in errors.values()):
            assert time.monotonic() < deadline, errors
            assert all(p.poll() is None for p in processes.values()), errors
            time.sleep(0.05)
    finally:
        for process in processes.values():
            process.kill()
            process.wait()
    for name, lines in errors.items():
        assert any(line.startswith(f"{name}: ") or f" {name}: " in line for line in lines if said in line), lines
        assert not any("Traceback" in line or "Error" in line for line in lines), lines


def test_a_refused_connection_is_named(reactor_thread: ReactorThread, caplog: pytest.LogCaptureFixture) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]  # closed below: nothing listens there any more
    link = IrcLink("127.0.0.1", port, "bot", LinkSettings(keepalive=None), reactor=reactor_thread.reactor)
    link.connect()
    link.close()
    assert f"no IRC server answered at 127.0.0.1:{port} (connection refused)" in caplog.text


def test_what_a_bot_reads_of_a_topic_and_of_a_referee_not_yet_there(
    raw_client: MakeRawClient, irc_server: LocalServer
) -> None:
    """protocol.md, section 3, on every server the tests use: a topic comes as 332 before the
    names list ends (366); a channel without one gets 331 or nothing; a DM to a nick that
    is not on the server (a REGISTER sent before the referee came) gets 401."""
    first = raw_client("first")
    first.send(b"JOIN #plain\r\nPRIVMSG arena :REGISTER 1\r\n")
    joined = first.lines_until(b" 366 ")
    assert not any(b" 332 " in line for line in joined)
    assert any(b" 331 " in line for line in joined) == (irc_server.kind == "embedded")  # ngircd says nothing
    assert b" 401 first arena " in first.expect(b" 401 ")
    first.send(b"TOPIC #plain :arena referee: arena\r\nTOPIC #plain\r\n")
    assert b"arena referee: arena" in first.expect(b" 332 ")
    second = raw_client("second")
    second.send(b"JOIN #plain\r\n")
    joined = second.lines_until(b" 366 ")
    assert any(b" 332 second #plain :arena referee: arena" in line for line in joined)


def test_unpaced_joins_go_out_however_slow_the_rate(make_link: MakeLink) -> None:
    """``paced_joins=False`` (a spectator's link): JOIN and PART spend no token, so a link
    whose messages go out one a minute joins every channel at once, its messages still paced."""
    seen: list[str] = []
    bob, brec = make_link("bob", channels=[f"#u{i}" for i in range(6)])

    def on_membership(kind: str, nick: str, channel: str | None, new: str | None) -> None:
        if nick == "slow":
            seen.append(f"{kind} {channel}")
        brec.on_membership(kind, nick, channel, new)

    bob.on_membership = on_membership
    slow, _ = make_link("slow", lines_per_second=1 / 60, burst=1, paced_joins=False)
    with slow.reactor.mutex:
        slow.send("bob", "first")  # the only token
        slow.send("bob", "second")  # a minute away
        for i in range(6):
            slow.join(f"#u{i}")
        slow.part("#u0")
    brec.wait(lambda: "part #u0" in seen and "first" in brec.texts())
    assert [f"join #u{i}" for i in range(6)] == [line for line in seen if line.startswith("join")]
    assert "second" not in brec.texts() and slow.queued == 1, "the message waits for its token"
