"""``arena watch``: the narration in a terminal, live, from the lobby and game channels.

It connects like any spectator (``Spectator``) and prints each sentence as it comes: in
ANSI colours on a terminal, as plain text into a pipe or a file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..config import ServerConfig
from ..irc.link import ReactorThread
from ..narrate.sentence import Sentence
from .spectator import Spectator

LINGER = 2.0
"""Seconds ``watch GID`` stays after its game's END, for the ratings that follow it."""


def watch(
    server: ServerConfig,
    echo: Callable[[str], None],
    *,
    gid: str | None = None,
    color: bool = False,
    nick: str = "spectator",
    linger: float = LINGER,
    ready: Callable[[], None] | None = None,
) -> None:
    """Print the lobby's games (or game ``gid`` alone) as they are played; returns once that
    game is over, else runs until interrupted (Ctrl-C). ``gid``'s channel is joined at once
    under the lobby's naming (``LOBBY-GID``), so a game already running is told from now."""
    over = threading.Event()

    def show(sentence: Sentence) -> None:
        echo(sentence.ansi() if color else sentence.plain())
        if gid is not None and any(fact[0] == "winner" for fact in sentence.facts):
            timer = threading.Timer(linger, over.set)
            timer.daemon = True
            timer.start()

    thread = ReactorThread(name="watch")
    spectator = Spectator(
        server,
        nick,
        show,
        channels=[f"{server.channel}-{gid}"] if gid else [],
        only=gid,
        reactor=thread.reactor,
        on_gone=lambda g: over.set() if g == gid else None,
    )
    spectator.start()
    thread.start()
    try:
        if ready is not None and spectator.link.wait_ready(30.0):
            ready()
        while not over.wait(0.2):
            if spectator.link.is_closed:
                raise RuntimeError(str(spectator.link.failure or "the connection closed"))
    finally:
        spectator.close()
        thread.stop()
