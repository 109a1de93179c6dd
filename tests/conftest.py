"""What every test run shares: a SIGTERM stops it as Ctrl-C does.

A run stopped by SIGTERM (a CI job cancelled, ``timeout``) would otherwise die at once, and
the IRC servers its tests started (each in a session of its own, so that a terminal's Ctrl-C
is not theirs) would outlive it. As a KeyboardInterrupt, pytest tears the fixtures down and
the interpreter's exit stops whatever server is left."""

from __future__ import annotations

import signal
import threading


def pytest_configure() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, signal.default_int_handler)
