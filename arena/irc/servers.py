"""Throwaway IRC servers on 127.0.0.1 for tests and local play.

Two kinds:

* ``embedded``: miniircd (PyPI, one file, GPLv2) run as a separate process. Only pip
  packages are needed. It has no channel modes but +k, no operators and no SASL, and does
  not understand multi-target PRIVMSG. We run it as a subprocess, never import it: the
  arena (MIT) and miniircd only talk over a socket. ``python -m irc.server`` was rejected:
  it busy-loops one CPU core per connected client.
* ``ngircd``: Debian's ngIRCd with a generated config (modes, first joiner gets ops,
  flood penalties switched off unless asked for).

``LocalServer`` is the handle (start, stop, restart on the same port, pid for tests that
pause it); ``embedded_server``/``ngircd_server``/``start_server`` are context managers
yielding ``(host, port)``.

For services accounts (SASL, ``account-tag``, NickServ), ``ServicesServer`` runs Debian's
InspIRCd with Atheme linked to it, from config templates the caller provides (the tests
keep theirs in ``tests/servers``), and ``register_accounts`` registers NickServ accounts
the way a bot's owner would.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterator, Mapping, NamedTuple

HOST = "127.0.0.1"
KINDS = ("embedded", "ngircd")
MAX_TARGETS = {"embedded": 1, "ngircd": 25}
"""Nicks one PRIVMSG may name on each kind (measured; neither advertises TARGMAX): the
value for ``server.max_targets``."""
_SBIN_PATH = "/usr/sbin:/usr/local/sbin:/sbin"


class ServerAddress(NamedTuple):
    host: str
    port: int


class ServerStartError(RuntimeError):
    """The server did not come up; the message carries its output."""


def ngircd_path() -> str | None:
    """Where ngircd is (it lives in /usr/sbin, often not on a non-root PATH), or None."""
    return shutil.which("ngircd") or shutil.which("ngircd", path=_SBIN_PATH)


def ngircd_available() -> bool:
    return ngircd_path() is not None


def services_paths() -> tuple[str, str] | None:
    """Where InspIRCd and Atheme are (``inspircd``, ``atheme-services``), or None if either
    is missing."""
    inspircd = shutil.which("inspircd") or shutil.which("inspircd", path=_SBIN_PATH)
    atheme = shutil.which("atheme-services") or shutil.which("atheme-services", path=_SBIN_PATH)
    return (inspircd, atheme) if inspircd and atheme else None


def services_available() -> bool:
    return services_paths() is not None


def free_port() -> int:
    """A port that was free a moment ago (the kernel picks it; another process could
    still take it before the server binds, so starting retries with a new one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def ngircd_config(port: int, *, flood_penalties: bool = False) -> str:
    """An ngircd config for one loopback test server (see the module docstring)."""
    lines = [
        "[Global]",
        "Name = arena.test",
        "Info = arena test server",
        f"Listen = {HOST}",
        f"Ports = {port}",
    ]
    if os.geteuid() == 0:
        # ngircd refuses to keep running as root unless told which uid to run as.
        lines += ["ServerUID = root", "ServerGID = root"]
    lines += [
        "[Limits]",
        "MaxConnectionsIP = 0",
        "MaxNickLength = 30",
        "MaxJoins = 0",
    ]
    if not flood_penalties:
        # Default penalties throttle a client to ~3 lines/s: far too slow for a test.
        lines.append("MaxPenaltyTime = 0")
    lines += ["[Options]", "DNS = no", "Ident = no", "PAM = no", ""]
    return "\n".join(lines)


def _listener_owned_by(pid: int, port: int) -> bool | None:
    """Whether the socket listening on 127.0.0.1:``port`` belongs to process ``pid``
    (Linux /proc); None when that cannot be told. A probe that merely connects could reach
    another process that grabbed the port while ours failed to bind."""
    try:
        inodes = set()
        with open("/proc/net/tcp") as table:
            next(table)
            for row in table:
                fields = row.split()
                if fields[1] == f"0100007F:{port:04X}" and fields[3] == "0A":
                    inodes.add(f"socket:[{fields[9]}]")
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return None
    for fd in fds:
        try:
            if os.readlink(fd) in inodes:
                return True
        except OSError:  # closed meanwhile: the process is busy starting up
            continue
    return False


_running: "weakref.WeakSet[LocalServer | ServicesServer]"


class LocalServer:
    """One local IRC server process on 127.0.0.1.

    ``start()`` picks a free port (unless ``port`` is given; after the first start the port
    is kept, so ``stop()`` then ``start()`` comes back where clients expect it), starts the
    process and waits,
    at most ``start_timeout`` seconds, until the port accepts connections; on failure it
    raises ``ServerStartError`` with the server's output. ``restart()`` keeps the port so
    clients can reconnect. Output goes to a file, never a pipe, so a chatty server cannot
    block on a full pipe.
    """

    def __init__(
        self,
        kind: str = "embedded",
        *,
        port: int | None = None,
        flood_penalties: bool = False,
        start_timeout: float = 10.0,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r}; expected one of {KINDS}")
        if kind == "embedded" and importlib.util.find_spec("miniircd") is None:
            raise ServerStartError("miniircd is not installed (pip install miniircd)")
        if kind == "ngircd" and not ngircd_available():
            raise ServerStartError("ngircd is not installed (Debian: apt-get install ngircd)")
        self.kind = kind
        self.max_targets = MAX_TARGETS[kind]
        self.host = HOST
        self.port = port
        self.flood_penalties = flood_penalties
        self.start_timeout = start_timeout
        self.startup_seconds: float | None = None
        self._fixed_port = port is not None
        self._proc: subprocess.Popen[bytes] | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._log_path: Path | None = None

    @property
    def address(self) -> ServerAddress:
        if self.port is None:
            raise RuntimeError("server not started")
        return ServerAddress(self.host, self.port)

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def output(self) -> str:
        """What the server printed so far (stdout and stderr together)."""
        if self._log_path is None or not self._log_path.exists():
            return ""
        return self._log_path.read_text(errors="replace")

    def _command(self, workdir: Path, port: int) -> list[str]:
        if self.kind == "embedded":
            cmd = [sys.executable, "-m", "miniircd", "--listen", HOST, "--ports", str(port)]
            if os.geteuid() == 0:
                cmd += ["--setuid", "root"]  # miniircd refuses to run as root otherwise
            return cmd
        conf = workdir / "ngircd.conf"
        conf.write_text(ngircd_config(port, flood_penalties=self.flood_penalties))
        binary = ngircd_path()
        assert binary is not None
        return [binary, "-n", "-f", str(conf)]

    def start(self) -> ServerAddress:
        if self.running:
            return self.address
        attempts = 1 if self._fixed_port else 3
        error: ServerStartError | None = None
        for _ in range(attempts):
            port = self.port if self._fixed_port else free_port()
            assert port is not None
            try:
                self._start_on(port)
                # Later starts reuse the port, so clients can reconnect to a restarted server.
                self.port, self._fixed_port = port, True
                return self.address
            except ServerStartError as exc:
                error = exc
                self.stop()
        assert error is not None
        raise error

    def _start_on(self, port: int) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix=f"arena-{self.kind}-")
        workdir = Path(self._dir.name)
        self._log_path = workdir / "server.log"
        began = time.monotonic()
        with open(self._log_path, "wb") as log_file:
            self._proc = subprocess.Popen(
                self._command(workdir, port),
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                cwd=workdir,
                start_new_session=True,  # a Ctrl-C in the terminal is ours to handle
            )
        deadline = began + self.start_timeout
        while True:
            if self._proc.poll() is not None:
                raise ServerStartError(
                    f"{self.kind} server exited with {self._proc.returncode} "
                    f"before listening on {HOST}:{port}:\n{self.output()}"
                )
            try:
                with socket.create_connection((HOST, port), timeout=0.5):
                    pass
            except OSError:
                pass
            else:
                owned = _listener_owned_by(self._proc.pid, port)
                if owned or (owned is None and self._proc.poll() is None):
                    break
                # Someone else is listening there; ours will fail to bind and exit.
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"{self.kind} server not listening on {HOST}:{port} after "
                    f"{self.start_timeout} s:\n{self.output()}"
                )
            time.sleep(0.01)
        self.startup_seconds = time.monotonic() - began
        _running.add(self)

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the process (kill it if it lingers) and delete its files."""
        _running.discard(self)
        proc, self._proc = self._proc, None
        if proc is not None:
            _terminate(proc, timeout)
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None
            self._log_path = None

    def restart(self) -> ServerAddress:
        """Stop and start again on the same port (clients see a disconnection)."""
        self.stop()
        return self.start()

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<LocalServer {self.kind} {self.host}:{self.port} pid={self.pid}>"


def _terminate(proc: subprocess.Popen[Any], timeout: float) -> None:
    """Stop a server process politely, and for good if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


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
        while not _listener_owned_by(inspircd.pid, port):
            self._check(deadline, f"InspIRCd not listening on {HOST}:{port}")
            time.sleep(0.01)
        self._spawn(
            "Atheme",
            [self.atheme_binary, "-n", "-c", str(workdir / "atheme.conf"), "-D", str(workdir),
             "-p", str(workdir / "atheme.pid"), "-l", str(workdir / "atheme.log")],
            workdir, "atheme.out",
        )
        synced = workdir / "atheme.out"
        while self.SYNCED not in synced.read_text(errors="replace"):
            self._check(deadline, "Atheme did not sync with InspIRCd")
            time.sleep(0.02)
        self.port = port
        self.startup_seconds = time.monotonic() - began
        _running.add(self)

    def _spawn(self, name: str, command: list[str], workdir: Path, output: str) -> subprocess.Popen[bytes]:
        with open(workdir / output, "wb") as log_file:
            proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                cwd=workdir, start_new_session=True,
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
        _running.discard(self)
        procs, self._procs = self._procs, {}
        for proc in reversed(list(procs.values())):
            _terminate(proc, timeout)
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


_running = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    """Servers run in their own session (a terminal's Ctrl-C is not theirs): make sure an
    interpreter that exits without stopping them does not leave them behind."""
    for server in list(_running):
        server.stop(timeout=1.0)


@contextlib.contextmanager
def start_server(kind: str = "embedded", **options: object) -> Iterator[ServerAddress]:
    """Run a local server of ``kind`` ("embedded" or "ngircd") for the ``with`` block."""
    with LocalServer(kind, **options) as server:  # type: ignore[arg-type]
        yield server.address


def embedded_server(*, port: int | None = None) -> contextlib.AbstractContextManager[ServerAddress]:
    """miniircd on 127.0.0.1; needs nothing but pip packages."""
    return start_server("embedded", port=port)


def ngircd_server(
    flood_penalties: bool = False, *, port: int | None = None
) -> contextlib.AbstractContextManager[ServerAddress]:
    """ngircd on 127.0.0.1 with a generated config; penalties off unless asked for."""
    return start_server("ngircd", port=port, flood_penalties=flood_penalties)
