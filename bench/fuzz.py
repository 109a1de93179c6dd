"""Fuzzed lines against a live referee on a local IRC server: exceptions, crashes, games, memory.

Raw connections send mutations of valid lines (over-long tokens, Unicode digits and letters,
control characters, empty and many fields) by DM to a referee service whose lobby keeps
rule bots playing Avalon; afterwards the game in progress must end. The goal: 0 exceptions
in the log, 0 crashes, every game finished, memory growth under 5 MB.

Usage: python bench/fuzz.py [--server ngircd|embedded] [--lines N] [--seed S] [--clients C]

``LineFuzzer`` (the seeded lines a broken or hostile client might send: mutations of valid
ones, so a failure can be replayed exactly) and ``fuzz_over_irc`` serve the tests too.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import random
import socket
import sys
import threading
import time
from dataclasses import dataclass
from collections.abc import Sequence

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import Config, IdentityConfig, LobbyConfig, ServerConfig, TimeoutConfig
from arena.irc.link import ReactorThread
from arena.irc.servers import start_server
from arena.protocol import PROTOCOL_VERSION, Message
from arena.referee.service import RefereeService
from arena.sdk.runner import BotRunner

ODD_DIGITS = ("²", "³", "¹", "٣", "۴", "१", "１２", "𝟙", "߁", "⑦", "½", "Ⅻ", "〇", "0x1", "1e3", "-1", "+2", " 1")
"""Strings that look like numbers to someone: ``str.isdigit()`` is True for several, and
``int()`` refuses some of those ('²') and reads others ('٣', '１２') as ASCII digits."""
ODD_LETTERS = ("é", "ß", "Ω", "я", "名", "🙂", "\u200b", "\u00a0", "\ufeff", "İ", "ǅ", "ﬁ")
CONTROLS = ("\x00", "\x01", "\x07", "\t", "\r", "\n", "\x1b", "\x7f", "\udcff")
VERBS = ("ANSWER", "TEAM", "REGISTER", "UNREGISTER", "WHO", "START", "ERROR", "ASK", "answer", "HELLO", "")


class LineFuzzer:
    """Seeded generator of lines about the games ``gids`` with request ids near ``rids``
    and players ``nicks`` (the valid parts a mutation starts from)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def token(self) -> str:
        """One odd token: long, Unicode, control, empty-ish, or a plain word."""
        rng = self.rng
        kind = rng.randrange(7)
        if kind == 0:
            return rng.choice("a1:=_-,") * rng.choice((17, 21, 64, 200, 380, 600))
        if kind == 1:
            return rng.choice(ODD_DIGITS) * rng.randint(1, 3)
        if kind == 2:
            return "".join(rng.choice(ODD_LETTERS + ("a", "b", "1")) for _ in range(rng.randint(1, 20)))
        if kind == 3:
            return f"x{rng.choice(CONTROLS)}y"
        if kind == 4:
            return rng.choice(("", "=", ":", ",", ",,", "a=", "=b", "::x", "name=", "key="))
        if kind == 5:
            return str(rng.choice((0, 1, 2, 10**6, 2**63, 10**40)))
        return rng.choice(("alice", "bob", "none", "approve", "reject", "success", "fail", "g1", "1"))

    def valid(self, gids: Sequence[str], rids: Sequence[int], nicks: Sequence[str]) -> str:
        """A line the grammar accepts (the referee may still refuse it)."""
        rng = self.rng
        gid = rng.choice(gids) if gids else "g1"
        rid = rng.choice(rids) if rids else 1
        who = rng.choice(nicks) if nicks else "alice"
        return rng.choice(
            (
                f"ANSWER {gid} {rid} {who}",
                f"ANSWER {gid} {rid} {rng.choice(('approve', 'reject', 'success', 'fail', 'none'))}",
                f"ANSWER {gid} {rid} {who},{rng.choice(nicks) if nicks else 'bob'}",
                f"TEAM {gid} :hello",
                f"REGISTER {PROTOCOL_VERSION} name=fz{rng.randrange(50)} owner=fuzz version=1",
                "WHO",
                "UNREGISTER",
            )
        )

    def line(self, gids: Sequence[str], rids: Sequence[int], nicks: Sequence[str]) -> str:
        """A valid line with zero to three mutations."""
        rng = self.rng
        tokens = self.valid(gids, rids, nicks).split(" ")
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            what = rng.randrange(8)
            at = rng.randrange(len(tokens))
            if what == 0:
                tokens[at] = self.token()
            elif what == 1:
                tokens.insert(at, self.token())
            elif what == 2 and len(tokens) > 1:
                del tokens[at]
            elif what == 3:
                tokens.extend(f"k{i}={self.token()}" for i in range(rng.choice((2, 30, 120))))
            elif what == 4:
                tokens.append(f"{rng.choice(('name', 'key', 'owner', 'version', 'more'))}={self.token()}")
            elif what == 5:
                tokens[0] = rng.choice(VERBS)
            elif what == 6:
                cut = rng.randrange(len(tokens[at]) + 1)
                tokens[at] = tokens[at][:cut] + self.token() + tokens[at][cut:]
            else:
                tokens.append(":" + self.token())
        return " ".join(tokens)


@dataclass
class FuzzReport:
    """What a fuzz run against a live referee found (``fuzz_over_irc``)."""

    lines: int
    handled: int
    """Fuzzed lines the referee received and handled (the server refuses a few itself,
    e.g. an empty one)."""
    replies: int
    """Replies the fuzzing clients got; far fewer than the lines, since each sender gets
    only a few ERRORs before the referee falls silent for it (flood protection)."""
    exceptions: list[str]
    """Every log record with an exception, or at ERROR level, while the run lasted."""
    crashed: str | None
    """Why the referee stopped, if it did before it was asked to."""
    games: int
    unfinished: int
    """Games still running when the referee was stopped (after a bounded wait)."""
    rss_growth: int
    """Bytes the process's resident memory grew from after the first tenth of the lines."""
    seconds: float


class _Client:
    """A raw IRC connection that sends whatever it is given (a bot would refuse to) and
    counts the referee's replies, reading all the time so the server never drops it."""

    def __init__(self, host: str, port: int, nick: str) -> None:
        self.sock = socket.create_connection((host, port), timeout=10)
        self.nick = nick
        self.replies = 0
        self.welcomed = threading.Event()
        self.sock.sendall(f"NICK {nick}\r\nUSER {nick} 0 * :fuzz\r\n".encode())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                data = self.sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            buffer += data
            *lines, buffer = buffer.split(b"\r\n")
            for raw in lines:
                words = raw.split(b" ", 3)
                if words[0] == b"PING":
                    self.sock.sendall(b"PONG " + raw[5:] + b"\r\n")
                elif len(words) > 1 and words[1] == b"001":
                    self.welcomed.set()
                elif len(words) > 1 and words[1] in (b"PRIVMSG", b"NOTICE"):
                    self.replies += 1

    def send(self, target: str, line: str) -> None:
        """``line`` as it is, but for what would end or cut the IRC line (CR, LF, NUL), and
        cut to fit one IRC message; lone surrogates go out as the bytes they stand for."""
        data = line.translate(_IRC_BREAKS).encode("utf-8", "surrogateescape")[:400]
        self.sock.sendall(f"PRIVMSG {target} :".encode() + data + b"\r\n")

    def close(self) -> None:
        try:
            self.sock.sendall(b"QUIT :done\r\n")
        except OSError:
            pass
        self.sock.close()


_IRC_BREAKS = {ord("\r"): "?", ord("\n"): "?", 0: "?"}


class _LogCatcher(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(self.format(record))


def _rss() -> int:
    """Resident memory of this process in bytes (Linux; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def fuzz_over_irc(
    host: str,
    port: int,
    lines: int,
    *,
    seed: int = 1,
    players: int = 5,
    clients: int = 4,
    window: int = 64,
    finish_timeout: float = 60.0,
) -> FuzzReport:
    """Send ``lines`` fuzzed DMs from ``clients`` raw connections to a referee service on the
    IRC server at ``host:port`` while ``players`` rule bots play Avalon in its lobby; then
    let the game in progress finish. At most ``window`` lines per client wait to be handled,
    so the run measures the referee, not the server's buffers."""
    config = Config(
        identity=IdentityConfig(require_key=False),
        server=ServerConfig(host=host, port=port, nick="arena", lines_per_second=0.0),
        timeouts=TimeoutConfig(decision=2.0, grace=0.5),
        lobby=LobbyConfig(min_players=players, max_players=players, countdown=0.0, join_timeout=10.0),
    )
    catcher = _LogCatcher()
    root = logging.getLogger()
    root.addHandler(catcher)
    gids: list[str] = []
    ended: list[str] = []
    service = RefereeService(config, key=bytes(32), on_game_end=lambda match: ended.append(match.gid))
    service.referee.on_game_start.append(lambda match: gids.append(match.gid))
    handled = [0]
    inner = service.referee.on_message

    def counted(
        sender: str, target: str, text: str, now: float, account: str | None = None, msg: Message | None = None
    ) -> None:
        inner(sender, target, text, now, account, msg)
        if sender.startswith("fz"):
            handled[0] += 1

    service.referee.on_message = counted  # type: ignore[method-assign]
    bots = ReactorThread(tick=0.01).start()
    runners = [BotRunner(RuleBot(seed=i), host, port, f"bot{i}", reactor=bots.reactor) for i in range(players)]
    thread = threading.Thread(target=service.serve, kwargs={"tick": 0.01}, daemon=True)
    fuzzer = LineFuzzer(seed)
    rng = fuzzer.rng
    senders: list[_Client] = []
    start = time.monotonic()
    try:
        thread.start()
        for runner in runners:
            runner.start()
        senders = [_Client(host, port, f"fz{i}") for i in range(clients)]
        for client in senders:
            client.welcomed.wait(10)
        ready = time.monotonic() + 30.0
        while not gids and time.monotonic() < ready:  # fuzz a referee with a game in progress
            time.sleep(0.01)
        nicks = [f"bot{i}" for i in range(players)]
        base = 0
        for n in range(lines):
            if n == lines // 10:
                gc.collect()
                base = _rss()
            i = n % clients
            client = senders[i]
            patience = time.monotonic() + 2.0  # the server may drop a line: do not wait forever
            while n - handled[0] > window * clients and time.monotonic() < patience:
                time.sleep(0.001)
            recent = gids[-2:] or ["g1"]
            client.send(config.server.nick, fuzzer.line(recent, [1, 2, 3, rng.randrange(1, 40)], nicks))
        gc.collect()
        growth = _rss() - base
        service.room.max_games = service.room.games_ended + len(set(gids) - set(ended))  # let the games in progress end
        thread.join(finish_timeout)
    finally:
        for client in senders:
            client.close()
        service.room.max_games = service.room.games_ended  # stop now if the games did not end in time
        thread.join(10)
        bots.stop()
        root.removeHandler(catcher)
    crashed = service.fatal if service.fatal is not None else ("still running" if thread.is_alive() else None)
    return FuzzReport(
        lines,
        handled[0],
        sum(c.replies for c in senders),
        catcher.records,
        crashed,
        len(ended),
        len(set(gids) - set(ended)),
        growth,
        time.monotonic() - start,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("ngircd", "embedded"), default="ngircd")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    with start_server(args.server) as (host, port):
        report = fuzz_over_irc(host, port, args.lines, seed=args.seed, clients=args.clients)
    print(
        f"{args.server}: {report.lines} fuzzed lines in {report.seconds:.1f} s, "
        f"{report.handled} handled by the referee, "
        f"{report.replies} replies (each sender gets a few, then the referee falls silent for it)"
    )
    print(f"  exceptions in the log: {len(report.exceptions)}; crashes: {0 if report.crashed is None else 1}")
    print(f"  games finished: {report.games}, unfinished: {report.unfinished}")
    print(f"  memory growth (RSS, after the first tenth): {report.rss_growth / 2**20:.2f} MB")
    for record in report.exceptions[:5]:
        print(record)
    if report.exceptions or report.crashed or report.unfinished:
        sys.exit(1)


if __name__ == "__main__":
    main()
