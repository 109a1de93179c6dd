"""The narrator on IRC: a spectator's connection of its own that posts the narration to the
spectators' channel, with IRC formatting, at its own rate.

The referee's connection, its flood budget and the bots' machine lines are untouched: the
narrator hears the games as any spectator does (``Spectator``) and speaks elsewhere. ``arena
serve`` runs it in a process of its own (``narrating``).

A channel tells a few games at once, not hundreds: past ``narrator.in_full`` games, the
others are told by their result alone (``Focus``). What it has to say waits in a
``Backlog`` and goes to the connection's queue a burst at a time, so that the connection's
own lines (joining a game's channel as it is announced, never paced by the narration's
rate) never wait behind sentences, and a narration that falls behind can skip the play of
games it has yet to tell rather than lines already queued.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from collections.abc import Iterator

import irc.client

from ..config import NarratorConfig, ServerConfig
from ..irc.link import ReactorThread
from ..narrate.sentence import Sentence
from .backlog import Backlog, Post
from .focus import Focus
from .spectator import Spectator

READY_WAIT = 30.0
"""Seconds ``narrating`` waits for the narrator's connection before the body runs anyway."""

FINISH = 3.0
"""Seconds a stopped narrator waits at most for the ends of the games it is telling, until
their referees have quit (a referee may stop right after a game, before its END has crossed
the server)."""


class NarratorService:
    """Narrates the games of one lobby into ``narrator.channel`` (with ``per_game``: each
    game in ``CHANNEL-GID``, the channel itself keeping the tables and the ends)."""

    def __init__(
        self, server: ServerConfig, narrator: NarratorConfig, *, reactor: irc.client.Reactor | None = None
    ) -> None:
        if narrator.channel is None:
            raise ValueError("the narrator needs narrator.channel")
        self.channel = narrator.channel
        self.per_game = narrator.per_game
        self.spectator = Spectator(
            server,
            narrator.nick_for(server.nick),
            self._post,
            channels=[self.channel],
            lines_per_second=narrator.lines_per_second,
            burst=narrator.burst,
            reactor=reactor,
            on_gone=self._gone,
        )
        self.link = self.spectator.link
        self.narrator = self.spectator.narrator
        self.backlog = Backlog(narrator.backlog)
        self.focus = Focus(narrator.in_full)
        self._pumping = False
        """Whether a pump waits for the connection's queue to empty."""
        self._leaving: set[str] = set()
        """Games whose own channel (``per_game``) is left once their last line is queued."""
        self.said: list[tuple[str, Sentence]] = []
        """Every sentence posted, with the channel it went to first."""

    def start(self) -> None:
        self.spectator.start()

    def close(self) -> None:
        """Queue what is left to say (the connection sends what it can before it quits)."""
        with self.link.reactor.mutex:
            self._pump(everything=True)
        self.spectator.close("the narrator is leaving")

    def _game_channel(self, gid: str) -> str:
        return f"{self.channel}-{gid}"

    def _gone(self, gid: str) -> None:
        if self.focus.gone(gid) and self.per_game:  # (a game told by its result has no channel)
            self._leaving.add(gid)
            self._pump()

    def _post(self, sentence: Sentence) -> None:
        for said in self.focus.take(sentence):
            self._say(said)

    def _say(self, sentence: Sentence) -> None:
        targets = [self.channel]
        if self.per_game and sentence.gid is not None:
            if any(fact[0] in ("table", "resume") for fact in sentence.facts):
                self.link.join(self._game_channel(sentence.gid))  # now: its lines may come at once
            else:
                ends = any(fact[0] == "winner" for fact in sentence.facts)
                targets = [self._game_channel(sentence.gid)] + ([self.channel] if ends else [])
        width = min(self.link.max_text_bytes(t) for t in targets)
        lines = [(target, line) for line in sentence.irc_lines(width) for target in targets]
        if lines:
            self.backlog.add(Post(sentence, lines, width=width))
            self._pump()

    def _pump(self, everything: bool = False) -> None:
        """Hand the connection what it can send at once (``burst`` lines, or ``everything``),
        then wait until it has sent them. In the reactor thread, or with its mutex held."""
        while len(self.backlog) and (everything or self.link.queued < self.link.burst):
            post = self.backlog.pop()
            assert post is not None
            for target, line in post.lines:
                self.link.send(target, line, formatting=True)
            self.said.append((post.lines[0][0], post.sentence))
        for gid in [g for g in self._leaving if not self.backlog.has(g)]:
            self._leaving.discard(gid)
            self.link.part(self._game_channel(gid))  # after its lines still queued (``IrcLink.part``)
        if len(self.backlog) and not self._pumping:
            self._pumping = True
            self.link.after_sent(self._sent)

    def _sent(self) -> None:
        self._pumping = False
        self._pump()


def main() -> None:
    """The narrator's own process (``narrating``): its settings come as one JSON line on
    standard input, ``ready`` goes out once it is connected, and the end of standard input
    (the parent closed it, or died) stops it. Ctrl-C is the parent's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s narrator: %(message)s")
    settings = json.loads(sys.stdin.readline())
    thread = ReactorThread(name="narrator")
    service = NarratorService(
        ServerConfig(**settings["server"]), NarratorConfig(**settings["narrator"]), reactor=thread.reactor
    )
    service.start()
    thread.start()
    try:
        if service.link.wait_ready(READY_WAIT):
            print("ready", flush=True)
        sys.stdin.read()  # until the parent closes it
        end = time.monotonic() + FINISH  # a referee that stops after a game: its end is on its way
        while time.monotonic() < end and not service.spectator.settled():
            time.sleep(0.05)
    finally:
        service.close()
        end = time.monotonic() + 2.0
        while service.link.queued and time.monotonic() < end:
            time.sleep(0.05)
        thread.stop()


@contextmanager
def narrating(server: ServerConfig, narrator: NarratorConfig) -> Iterator[subprocess.Popen[str] | None]:
    """The narrator of ``narrator.channel`` (None when that is not set) in a process of its
    own while the body runs: in the referee's process its work, however small, would take
    the interpreter from the referee's thread (measured: games about 15% slower on loopback).
    Yields the process once its connection is up (or ``READY_WAIT`` has passed)."""
    if narrator.channel is None:
        yield None
        return
    process = subprocess.Popen(
        [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(
        json.dumps({"server": dataclasses.asdict(server), "narrator": dataclasses.asdict(narrator)}) + "\n"
    )
    process.stdin.flush()
    waiting = threading.Thread(target=process.stdout.readline, daemon=True)  # "ready", or nothing if it failed
    waiting.start()
    waiting.join(READY_WAIT)
    try:
        yield process
    finally:
        process.stdin.close()
        try:
            process.wait(5.0)
        except subprocess.TimeoutExpired:
            process.terminate()
            process.wait(5.0)


if __name__ == "__main__":
    main()
