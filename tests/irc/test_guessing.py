"""Guessing at a bot's key over ngircd costs the referee next to nothing: twenty
connections each trying a wrong proof every second leave the games running as fast as in
quiet. Before SCRAM every wrong key cost the referee's only thread 41 ms of scrypt, and 20
such connections froze every game. Measured as the referee thread's CPU time per line it
sent (its work per game, whatever the machine's load and the games' lengths)."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.config import IdentityConfig
from arena.irc.servers import LocalServer
from arena.protocol import pack_scram, parse, unpack_scram
from arena.referee.identity import MemoryBook, new_key
from arena.referee.match import Match

from .conftest import RawClient, until
from .test_games import FAST, Arena

GUESSERS = 20
QUIET, LOUD = "quiet", "guessed at"


class Guesser(threading.Thread):
    """One connection that tries a wrong proof for bot ``victim`` every second: REGISTER
    with a fresh nonce, and a PROOF of the right form (the referee cannot tell it is made
    up before checking it)."""

    def __init__(self, server: LocalServer, nick: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.client = RawClient(server, nick)
        self.stop = stop
        self.tries = 0
        self.unanswered = 0
        self.answers: list[str] = []

    def run(self) -> None:
        nick = self.client.nick
        marker = f" PRIVMSG {nick} :".encode()
        while not self.stop.is_set():
            began = time.monotonic()
            nonce = secrets.token_urlsafe(18)
            self.client.send(
                f"PRIVMSG arena :REGISTER 1 name=victim scram={pack_scram(f'n,,n={nick},r={nonce}')}\r\n".encode()
            )
            try:
                answer = parse(self.client.expect(marker).split(marker, 1)[1].decode())
                if answer.verb == "CHALLENGE":
                    both = unpack_scram(answer.fields["scram"]).split(",")[0][2:]
                    proof = f"c=biws,r={both},p={pack_scram(secrets.token_hex(16))}"
                    self.client.send(f"PRIVMSG arena :PROOF scram={pack_scram(proof)}\r\n".encode())
                    answer = parse(self.client.expect(marker).split(marker, 1)[1].decode())
            except TimeoutError:  # a reply the referee dropped (a flooder's replies may be) or still owes
                self.unanswered += 1
            else:
                self.tries += 1
                self.answers.append(" ".join([answer.verb, *answer.args[:1]]))
            self.stop.wait(max(0.0, 1.0 - (time.monotonic() - began)))


def referee_cpu(arena: Arena) -> Callable[[], float]:
    clock = time.pthread_getcpuclockid(arena.thread.ident or 0)
    return lambda: time.clock_gettime(clock)


@pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)
def test_twenty_guessers_cost_the_games_nothing(irc_server: LocalServer) -> None:
    games = 20  # per phase
    arena = Arena(irc_server, 5, FAST, games=100_000, identity=IdentityConfig(require_key=False))  # until we stop
    book = arena.service.referee.identities.book
    assert isinstance(book, MemoryBook)
    book.add("victim", new_key())
    for i in range(5):
        arena.add_bot(f"p{i}", RuleBot(seed=i))
    stop = threading.Event()
    costs: dict[str, list[float]] = {QUIET: [], LOUD: []}
    with arena:
        cpu = referee_cpu(arena)
        arena.wait(1)  # warmed up

        def phase(kind: str) -> None:
            done = len(arena.finished)
            start = cpu()
            until(lambda: len(arena.finished) >= done + games, timeout=120)
            played: list[Match] = arena.finished[done : done + games]
            costs[kind].append((cpu() - start) / sum(len(m.transcript) for m in played))

        phase(QUIET)
        guessers = [Guesser(irc_server, f"g{i}", stop) for i in range(GUESSERS)]
        arena.raw += [g.client for g in guessers]
        for g in guessers:
            g.start()
        until(lambda: all(g.tries >= 2 for g in guessers), timeout=60)
        phase(LOUD)
        phase(QUIET)
        phase(LOUD)
        stop.set()
        for g in guessers:
            g.join(10)
    answers = [a for g in guessers for a in g.answers]
    assert answers and set(answers) == {"ERROR AUTH_FAILED"}, set(answers)
    assert sum(g.tries for g in guessers) >= 2 * GUESSERS
    quiet, loud = min(costs[QUIET]), min(costs[LOUD])
    assert loud <= 1.25 * quiet, costs  # games per second under guessing >= 80% of quiet
