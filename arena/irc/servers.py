"""Throwaway IRC servers on 127.0.0.1, for ``arena demo`` (and the tests and benchmarks).

Two kinds:

* ``embedded``: miniircd (PyPI, one file, GPLv2) run as a separate process. Only pip
  packages are needed. It has no channel modes but +k, no operators and no SASL, and does
  not understand multi-target PRIVMSG. We run it as a subprocess, never import it: the
  arena (MIT) and miniircd only talk over a socket. ``python -m irc.server`` was rejected:
  it busy-loops one CPU core per connected client.
* ``ngircd``: Debian's ngIRCd with a generated config (modes, first joiner gets ops,
  flood penalties switched off unless asked for).

``LocalServer`` is the handle (start, stop, restart on the same port, pid for tests that
pause it); ``start_server`` is a context manager yielding ``(host, port)``. Every server
started is stopped when the interpreter exits (``RUNNING``).
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
from pathlib import Path
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, Protocol

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


def sbin_path(name: str) -> str | None:
    """Where the server binary ``name`` is (servers live in /usr/sbin, often not on a
    non-root PATH), or None."""
    return shutil.which(name) or shutil.which(name, path=_SBIN_PATH)


def ngircd_path() -> str | None:
    return sbin_path("ngircd")


def ngircd_available() -> bool:
    return ngircd_path() is not None


def free_port() -> int:
    """A port that was free a moment ago (the kernel picks it; another process could
    still take it before the server binds, so starting retries with a new one)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def ngircd_config(
    port: int,
    *,
    flood_penalties: bool = False,
    name: str = "arena.test",
    link_port: int | None = None,
    sections: Sequence[str] = (),
) -> str:
    """An ngircd config for one loopback test server (see the module docstring).

    A server of a linked network (``network``) also listens on ``link_port``, for the
    servers that link to it, and has ``sections`` ([Server], [Operator]) after the rest."""
    # The link port first: it is bound by the time the client port answers.
    ports = str(port) if link_port is None else f"{link_port}, {port}"
    lines = [
        "[Global]",
        f"Name = {name}",
        "Info = arena test server",
        f"Listen = {HOST}",
        f"Ports = {ports}",
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
    if link_port is not None:
        # A link that failed to come up is tried again after 5 s (ngircd's least), not 60.
        lines.append("ConnectRetry = 5")
    lines += ["[Options]", "DNS = no", "Ident = no", "PAM = no", *sections, ""]
    return "\n".join(lines)


def listener_owned_by(pid: int, port: int) -> bool | None:
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


class Stoppable(Protocol):
    def stop(self, timeout: float = 5.0) -> None: ...


RUNNING: weakref.WeakSet[Stoppable] = weakref.WeakSet()
"""Servers started and not yet stopped: the interpreter's exit stops them (servers of other
kinds, the tests' own, add themselves too)."""


class LocalServer:
    """One local IRC server process on 127.0.0.1.

    ``start()`` picks a free port (unless ``port`` is given; after the first start the port
    is kept, so ``stop()`` then ``start()`` comes back where clients expect it), starts the
    process and waits,
    at most ``start_timeout`` seconds, until the port accepts connections; on failure it
    raises ``ServerStartError`` with the server's output. ``restart()`` keeps the port so
    clients can reconnect. Output goes to a file, never a pipe, so a chatty server cannot
    block on a full pipe. ``config``, for ngircd only, stands in for ``ngircd_config``: it
    writes the config for the port the server starts on (a server of a linked network names
    its peers there).
    """

    def __init__(
        self,
        kind: str = "embedded",
        *,
        port: int | None = None,
        flood_penalties: bool = False,
        config: Callable[[int], str] | None = None,
        start_timeout: float = 10.0,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown server kind {kind!r}; expected one of {KINDS}")
        if kind == "embedded" and importlib.util.find_spec("miniircd") is None:
            raise ServerStartError("miniircd is not installed (pip install miniircd)")
        if kind == "ngircd" and not ngircd_available():
            raise ServerStartError("ngircd is not installed (Debian: apt-get install ngircd)")
        if config is not None and kind != "ngircd":
            raise ValueError("only an ngircd server takes a config")
        self.kind = kind
        self.max_targets = MAX_TARGETS[kind]
        self.host = HOST
        self.port = port
        self.flood_penalties = flood_penalties
        self.config = config
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
        if self.config is not None:
            conf.write_text(self.config(port))
        else:
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
                owned = listener_owned_by(self._proc.pid, port)
                if owned or (owned is None and self._proc.poll() is None):
                    break
                # Someone else is listening there; ours will fail to bind and exit.
            if time.monotonic() > deadline:
                raise ServerStartError(
                    f"{self.kind} server not listening on {HOST}:{port} after {self.start_timeout} s:\n{self.output()}"
                )
            time.sleep(0.01)
        self.startup_seconds = time.monotonic() - began
        RUNNING.add(self)

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the process (kill it if it lingers) and delete its files."""
        RUNNING.discard(self)
        proc, self._proc = self._proc, None
        if proc is not None:
            terminate(proc, timeout)
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


def terminate(proc: subprocess.Popen[Any], timeout: float) -> None:
    """Stop a server process politely, and for good if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


@atexit.register
def _stop_all() -> None:
    """Servers run in their own session (a terminal's Ctrl-C is not theirs): make sure an
    interpreter that exits without stopping them does not leave them behind."""
    for server in list(RUNNING):
        server.stop(timeout=1.0)


@contextlib.contextmanager
def start_server(kind: str = "embedded", **options: object) -> Iterator[ServerAddress]:
    """Run a local server of ``kind`` ("embedded" or "ngircd") for the ``with`` block."""
    with LocalServer(kind, **options) as server:  # type: ignore[arg-type]
        yield server.address
