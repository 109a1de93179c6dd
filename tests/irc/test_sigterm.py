"""A test run stopped by SIGTERM leaves no IRC server behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.irc.servers import ngircd_available

ROOT = Path(__file__).resolve().parents[2]
HOLD = """
import time
from pathlib import Path

from arena.irc.servers import LocalServer


def test_hold(tmp_path):
    server = LocalServer("ngircd")
    server.start()
    Path({pid!r}).write_text(str(server.pid))
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_run_stopped_by_sigterm_stops_its_servers(tmp_path: Path) -> None:
    if not ngircd_available():
        pytest.skip("ngircd not installed")
    pid_file = tmp_path / "pid"
    (tmp_path / "test_hold.py").write_text(HOLD.format(pid=str(pid_file)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "tests.conftest",
            str(tmp_path / "test_hold.py"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        while not pid_file.exists() or not pid_file.read_text():
            assert run.poll() is None, run.communicate()[0].decode()
            time.sleep(0.05)
        server = int(pid_file.read_text())
        assert _alive(server)
        run.send_signal(signal.SIGTERM)
        run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            run.kill()
    deadline = time.monotonic() + 60  # a guard against a hang only: the server is gone once pytest has exited
    while _alive(server) and time.monotonic() < deadline:
        time.sleep(0.05)
    if _alive(server):
        os.kill(server, signal.SIGKILL)
        pytest.fail("the ngircd server outlived the test run stopped by SIGTERM")
