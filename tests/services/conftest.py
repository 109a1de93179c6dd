"""Fixtures for tests that need services accounts: InspIRCd with Atheme on 127.0.0.1."""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Iterator

import pytest

from arena.irc.link import ReactorThread

from ..irc.conftest import MakeLink, link_maker, reactor_thread  # noqa: F401 (a fixture)
from .servers import ServicesServer, services_available

CONFIGS = Path(__file__).resolve().parents[1] / "servers"
"""The InspIRCd and Atheme config templates of ``ServicesServer``."""


@pytest.fixture(scope="session")
def services_server() -> Iterator[ServicesServer]:
    """One InspIRCd + Atheme pair for the whole session (it starts in well under a second,
    but each test registers its own accounts, under its own names). Skipped when the
    binaries are absent, unless ARENA_REQUIRE_SERVICES=1 (CI): then their absence fails."""
    if not services_available():
        if os.environ.get("ARENA_REQUIRE_SERVICES") == "1":
            pytest.fail("InspIRCd and Atheme are required (ARENA_REQUIRE_SERVICES=1) but not installed")
        pytest.skip(
            "InspIRCd and Atheme not installed (apt-get install inspircd atheme-services); "
            "ARENA_REQUIRE_SERVICES=1 makes this fail"
        )
    with ServicesServer(CONFIGS) as server:
        yield server


@pytest.fixture
def services_link(
    services_server: ServicesServer,
    reactor_thread: ReactorThread,  # noqa: F811 (the fixture imported above)
) -> Iterator[MakeLink]:
    """``services_link(nick, **options)`` -> (link, its Recorder) on the services server
    (see ``link_maker``)."""
    yield from link_maker(services_server.host, services_server.address.port, reactor_thread.reactor)
