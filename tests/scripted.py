"""A scripted IRC server on 127.0.0.1 for one bot process: the test plays the server (and
the referee), line by line, and reads exactly what the bot writes."""

from __future__ import annotations

import socket
import subprocess
from contextlib import contextmanager
from collections.abc import Iterator, Sequence

import pytest
import scramp

from arena.protocol import Message, pack_scram, parse, unpack_scram


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

    def welcome(self, register: str, key: str, referee: str = "arena", *, signed: bool = True) -> str:
        """Play the referee's side of SCRAM for ``register`` (the bot's REGISTER line, as
        it said it): CHALLENGE, the bot's PROOF checked, then WELCOME with the referee's
        signature (or, ``signed=False``, a squatter's WELCOME that cannot have it).
        Returns the PROOF line."""
        prefix = f"PRIVMSG {referee} :"
        assert register.startswith(prefix + "REGISTER "), register
        first = unpack_scram(parse(register[len(prefix) :]).fields["scram"])
        nick = first.split(",")[2][2:]
        salt, stored, server_key, count = scramp.ScramMechanism().make_auth_info(key, iteration_count=4096)
        server = scramp.ScramMechanism().make_server(lambda user: (salt, stored, server_key, count))
        server.set_client_first(first)
        challenge = Message.make("CHALLENGE", scram=pack_scram(server.get_server_first()))
        self.send(f":{referee}!r@h PRIVMSG {nick} :{challenge.format()}\r\n".encode())
        proof = self.said()
        assert proof.startswith(prefix + "PROOF scram="), proof
        server.set_client_final(unpack_scram(parse(proof[len(prefix) :]).fields["scram"]))  # raises if wrong
        signature = server.get_server_final() if signed else "v=" + pack_scram("not the referee, sorry!!")
        welcome = Message.make("WELCOME", nick, protocol=1, scram=pack_scram(signature))
        self.send(f":{referee}!r@h PRIVMSG {nick} :{welcome.format()}\r\n".encode())
        return proof

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
        bot = subprocess.Popen(
            [*command, "--server", f"127.0.0.1:{server.getsockname()[1]}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            conn, _ = server.accept()
            conn.settimeout(10)
            with conn:
                yield ScriptedPeer(conn)
        finally:
            bot.kill()
            bot.wait()
