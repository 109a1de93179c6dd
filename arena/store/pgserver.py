"""A throwaway PostgreSQL server on 127.0.0.1, for tests and benchmarks of the shared store.

It runs Debian's ``postgresql`` binaries on a new data directory, listening on a free port
and on a socket in that directory only. PostgreSQL refuses to run as root: under root (as
CI runs) the server runs as the ``postgres`` user the Debian package creates. Durability is
off (``fsync=off``) unless asked for: what tests test is the store's transactions, not the
disk's; a benchmark asks for a server as durable as one in service.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ..irc.servers import free_port

SUPERUSER = "arena"
"""The role initdb makes (trusted on loopback: nothing else can reach the server)."""


class PostgresUnavailable(RuntimeError):
    """The PostgreSQL server binaries are not installed."""


def postgres_bin() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are (Debian keeps them off PATH)."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[4]))
    return Path(versions[-1]).parent if versions else None


def postgres_available() -> bool:
    return postgres_bin() is not None


class LocalPostgres:
    """``with LocalPostgres() as pg: url = pg.new_database()``: a server of its own, stopped
    (and its files removed) on exit."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        """Every commit flushed to disk, as PostgreSQL's defaults have it (tests need not)."""
        self.port = 0
        self._bin = postgres_bin()
        self._dir: Path | None = None
        self._databases = 0

    @property
    def _as(self) -> list[str]:
        """The server's own user: PostgreSQL will not run as root."""
        return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str) -> None:
        assert self._bin is not None and self._dir is not None
        done = subprocess.run(
            [*self._as, str(self._bin / args[0]), *args[1:]], capture_output=True, text=True, cwd=self._dir
        )
        if done.returncode:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")

    def start(self) -> LocalPostgres:
        if self._bin is None:
            raise PostgresUnavailable("PostgreSQL is not installed (apt-get install postgresql)")
        self._dir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        if self._as:
            shutil.chown(self._dir, "postgres")
        data = self._dir / "data"
        self._run("initdb", "-D", str(data), "-A", "trust", "-U", SUPERUSER, "-E", "UTF8", "--locale=C.UTF-8", "-N")
        self.port = free_port()
        self.up()
        return self

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database's URL."""
        import psycopg

        self._databases += 1
        name = f"arena{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def pids(self) -> list[int]:
        """The server's processes (its postmaster and those it started): for a benchmark to
        place them on the cores it measures."""
        assert self._dir is not None
        main = int((self._dir / "data" / "postmaster.pid").read_text().split()[0])
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            if int(fields[1]) == main:
                children.append(int(stat.parent.name))
        return [main, *children]

    def down(self) -> None:
        """The server stops (its clients' connections break), keeping its databases."""
        assert self._dir is not None
        self._run("pg_ctl", "-D", str(self._dir / "data"), "-m", "immediate", "-w", "stop")

    def up(self) -> None:
        """The server starts again on the same port, with the databases it had."""
        assert self._dir is not None
        options = f"-p {self.port} -k {self._dir} -c listen_addresses=127.0.0.1"
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off"
        log = str(self._dir / "log")
        self._run("pg_ctl", "-D", str(self._dir / "data"), "-o", options, "-l", log, "-w", "-t", "60", "start")

    def stop(self) -> None:
        if self._dir is None:
            return
        try:
            if (self._dir / "data" / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self._dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> LocalPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
