"""The short form of ``bench/fuzz.py``: fuzzed lines over ngircd to a referee with a game in
progress; nothing raises, nothing crashes, the game ends."""

from __future__ import annotations

from arena.irc.servers import LocalServer
from bench.fuzz import fuzz_over_irc


def test_fuzzed_lines_over_irc(irc_server: LocalServer) -> None:
    host, port = irc_server.address
    report = fuzz_over_irc(host, port, 2_000, seed=7, finish_timeout=30.0)
    assert report.exceptions == []
    assert report.crashed is None
    assert report.games >= 1 and report.unfinished == 0
    assert report.handled >= report.lines * 0.9  # every line but those the server itself refused
    assert report.replies > 0
