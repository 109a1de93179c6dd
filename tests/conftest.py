"""What every test run shares: a SIGTERM stops it as Ctrl-C does.

A run stopped by SIGTERM (a CI job cancelled, ``timeout``) would otherwise die at once, and
the IRC servers its tests started (each in a session of its own, so that a terminal's Ctrl-C
is not theirs) would outlive it. As a KeyboardInterrupt, pytest tears the fixtures down and
the interpreter's exit stops whatever server is left."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest

from arena.store.pgserver import LocalPostgres, postgres_available


def pytest_configure() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)


def require_postgres() -> None:
    """Skip the test where PostgreSQL is not installed, unless ARENA_REQUIRE_POSTGRES=1 (CI),
    where its absence fails it."""
    if not postgres_available():
        if os.environ.get("ARENA_REQUIRE_POSTGRES") == "1":
            pytest.fail("PostgreSQL is required (ARENA_REQUIRE_POSTGRES=1) but not installed")
        pytest.skip("PostgreSQL not installed (apt-get install postgresql); ARENA_REQUIRE_POSTGRES=1 makes this fail")


@pytest.fixture(scope="session")
def postgres() -> Iterator[LocalPostgres]:
    """One PostgreSQL server for the run (each test takes a database of its own:
    ``postgres.new_database()``)."""
    require_postgres()
    with LocalPostgres() as server:
        yield server
