"""A scripted IRC server on 127.0.0.1 for one bot process: the test plays the server (and
the referee), line by line, and reads exactly what the bot writes."""

from __future__ import annotations

import socket
import subprocess
from contextlib import contextmanager
from typing import Iterator, Sequence

import pytest


class ScriptedPeer:
    """The bot's connection, seen from the server's side."""

    def __init__(self, conn: socket.socket) -> None:
        self.conn = conn
        self._lines = conn.makefile("r", encoding="utf-8", newline="\r\n")

    def said(self) -> str:
        """The bot's next line (waits up to 10 s)."""
        return self._lines.readline().rstrip("\r\n")

    def send(self, data: bytes) -> None:
        self.conn.sendall(data)

    def quiet(self, seconds: float = 0.5) -> None:
        """The bot says nothing for ``seconds`` (it waits, as it should)."""
        self.conn.settimeout(seconds)
        with pytest.raises(TimeoutError):
            self.conn.recv(1, socket.MSG_PEEK)
        self.conn.settimeout(10)


@contextmanager
def scripted(command: Sequence[str]) -> Iterator[ScriptedPeer]:
    """Start ``command`` with ``--server HOST:PORT`` of a listening socket, and yield its
    connection once it has connected; the bot is killed afterwards."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(10)
        bot = subprocess.Popen([*command, "--server", f"127.0.0.1:{server.getsockname()[1]}"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            conn, _ = server.accept()
            conn.settimeout(10)
            with conn:
                yield ScriptedPeer(conn)
        finally:
            bot.kill()
            bot.wait()
