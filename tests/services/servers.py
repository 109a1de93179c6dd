"""InspIRCd with Atheme services on 127.0.0.1, for the tests of services accounts (SASL,
``account-tag``, NickServ): ``ServicesServer`` runs both from the config templates in
``tests/servers``, and ``register_accounts`` registers NickServ accounts the way a bot's
owner would."""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from collections.abc import Mapping

from arena.irc.servers import (
    HOST,
    RUNNING,
    ServerAddress,
    ServerStartError,
    free_port,
    listener_owned_by,
    sbin_path,
    terminate,
)


def services_paths() -> tuple[str, str] | None:
    """Where InspIRCd and Atheme are (``inspircd``, ``atheme-services``), or None if either
    is missing."""
    inspircd, atheme = sbin_path("inspircd"), sbin_path("atheme-services")
    return (inspircd, atheme) if inspircd and atheme else None


def services_available() -> bool:
    return services_paths() is not None


class ServicesServer:
    """InspIRCd with Atheme services linked to it, on 127.0.0.1: SASL PLAIN, IRCv3
    ``account-tag``, NickServ.

    ``config_dir`` holds ``inspircd.conf`` and ``atheme.conf``, templates in which
    ``@CLIENT_PORT@``, ``@LINK_PORT@`` and ``@DIR@`` (a fresh scratch directory for pid,
    logs, motd and the services database) are replaced. ``start()`` starts InspIRCd, waits
    until it listens, starts Atheme and waits until Atheme reports its sync with InspIRCd
    ("finished synching with uplink"): before that, NickServ and SASL do not answer.
    Each start has a fresh, empty services database.
    """

    SYNCED = "finished synching with uplink"
    max_targets = 20
    """InspIRCd's ``MAXTARGETS`` (also advertised, so links read it themselves)."""

    def __init__(self, config_dir: Path, *, start_timeout: float = 20.0) -> None:
        paths = services_paths()
        if paths is None:
            raise ServerStartError(
                "InspIRCd and Atheme are not installed (Debian: apt-get install inspircd atheme-services)"
            )
        self.inspircd_binary, self.atheme_binary = paths
        self.config_dir = Path(config_dir)
        self.host = HOST
        self.port: int | None = None
        self.start_timeout = start_timeout
        self.startup_seconds: float | None = None
        self._procs: dict[str, subprocess.Popen[bytes]] = {}  # by name, in start order
        self._dir: tempfile.TemporaryDirectory[str] | None = None

    @property
    def address(self) -> ServerAddress:
        if self.port is None:
            raise RuntimeError("server not started")
        return ServerAddress(self.host, self.port)

    @property
    def running(self) -> bool:
        return len(self._procs) == 2 and all(p.poll() is None for p in self._procs.values())

    def output(self) -> str:
        """What both processes printed so far, InspIRCd first."""
        if self._dir is None:
            return ""
        parts = []
        for name in ("inspircd.out", "inspircd.log", "atheme.out"):
            path = Path(self._dir.name) / name
            if path.exists():
                parts.append(f"--- {name}\n{path.read_text(errors='replace')}")
        return "\n".join(parts)

    def start(self) -> ServerAddress:
        if self.running:
            return self.address
        error: ServerStartError | None = None
        for _ in range(3):  # another process may take a free port before we bind it
            try:
                self._start_on(free_port(), free_port())
                return self.address
            except ServerStartError as exc:
                error = exc
                self.stop()
        assert error is not None
        raise error

    def _start_on(self, port: int, link_port: int) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="arena-services-")
        workdir = Path(self._dir.name)
        for name in ("inspircd.conf", "atheme.conf"):
            text = (self.config_dir / name).read_text()
            text = text.replace("@CLIENT_PORT@", str(port)).replace("@LINK_PORT@", str(link_port))
            (workdir / name).write_text(text.replace("@DIR@", str(workdir)))
        (workdir / "motd").write_text("arena test server\n")
        began = time.monotonic()
        deadline = began + self.start_timeout
        ircd = [self.inspircd_binary, "--nofork", f"--config={workdir / 'inspircd.conf'}"]
        if os.geteuid() == 0:
            ircd.append("--runasroot")  # InspIRCd refuses root otherwise
        inspircd = self._spawn("InspIRCd", ircd, workdir, "inspircd.out")
        while not listener_owned_by(inspircd.pid, port):
            self._check(deadline, f"InspIRCd not listening on {HOST}:{port}")
            time.sleep(0.01)
        self._spawn(
            "Atheme",
            [
                self.atheme_binary,
                "-n",
                "-c",
                str(workdir / "atheme.conf"),
                "-D",
                str(workdir),
                "-p",
                str(workdir / "atheme.pid"),
                "-l",
                str(workdir / "atheme.log"),
            ],
            workdir,
            "atheme.out",
        )
        synced = workdir / "atheme.out"
        while self.SYNCED not in synced.read_text(errors="replace"):
            self._check(deadline, "Atheme did not sync with InspIRCd")
            time.sleep(0.02)
        self.port = port
        self.startup_seconds = time.monotonic() - began
        RUNNING.add(self)

    def _spawn(self, name: str, command: list[str], workdir: Path, output: str) -> subprocess.Popen[bytes]:
        with open(workdir / output, "wb") as log_file:
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                cwd=workdir,
                start_new_session=True,
            )
        self._procs[name] = proc
        return proc

    def _check(self, deadline: float, what: str) -> None:
        for name, proc in self._procs.items():
            if proc.poll() is not None:
                raise ServerStartError(f"{name} exited with {proc.returncode}:\n{self.output()}")
        if time.monotonic() > deadline:
            raise ServerStartError(f"{what} after {self.start_timeout} s:\n{self.output()}")

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate both processes (services first; kill what lingers), delete the files."""
        RUNNING.discard(self)
        procs, self._procs = self._procs, {}
        for proc in reversed(list(procs.values())):
            terminate(proc, timeout)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> ServicesServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<ServicesServer {self.host}:{self.port}>"


class AccountError(RuntimeError):
    """NickServ did not register the account; the message carries what it said."""


def register_account(
    host: str, port: int, account: str, password: str, *, email: str | None = None, timeout: float = 10.0
) -> None:
    """Register ``account`` with NickServ as its owner would: connect with that nick, send
    ``PRIVMSG NickServ :REGISTER password email``, and wait for services to log us in
    (numeric 900, which Atheme sends on success before its notice). Any NickServ notice
    without it is a refusal (taken, bad password...): ``AccountError``."""
    email = email or f"{account}@example.org"
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(f"NICK {account}\r\nUSER {account} 0 * :{account}\r\n".encode())
        buffer = b""
        asked = False
        while True:
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                line = raw.decode(errors="replace").rstrip("\r")
                words = line.split(" ")
                if words[0] == "PING":
                    sock.sendall(f"PONG {' '.join(words[1:])}\r\n".encode())
                elif len(words) < 2:
                    continue
                elif words[1] == "001":
                    sock.sendall(f"PRIVMSG NickServ :REGISTER {password} {email}\r\n".encode())
                    asked = True
                elif words[1] in ("432", "433"):
                    raise AccountError(f"cannot connect as {account}: {line}")
                elif words[1] == "900":
                    sock.sendall(b"QUIT :registered\r\n")
                    return
                elif asked and words[0].lower().startswith(":nickserv!") and words[1] == "NOTICE":
                    raise AccountError(f"NickServ refused {account}: {line.split(' :', 1)[-1]}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AccountError(f"no answer registering {account} within {timeout} s")
            sock.settimeout(remaining)
            data = sock.recv(65536)
            if not data:
                raise AccountError(f"connection closed while registering {account}")
            buffer += data


def register_accounts(host: str, port: int, accounts: Mapping[str, str], *, timeout: float = 10.0) -> None:
    """``register_account`` for each ``account: password``, all at once: InspIRCd takes
    about a second to register any client, so one by one would add up."""
    if not accounts:
        return
    with ThreadPoolExecutor(max_workers=min(len(accounts), 32)) as pool:
        futures = [pool.submit(register_account, host, port, a, p, timeout=timeout) for a, p in accounts.items()]
        for future in futures:
            future.result()
