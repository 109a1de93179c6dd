"""Ten tables at once on one referee process (``arena serve`` on ngircd), against fifty
players on plain sockets that know only protocol.md (``bench/crowd.py``): every game starts
and ends for all its players, and no deadline is missed. ``bench/concurrency.py``'s work at
a small scale, judged by the lines the players read, never by seconds."""

from __future__ import annotations

from bench.concurrency import SEATS, run_wave

from .conftest import require_ngircd

TABLES = 10


def test_ten_tables_at_once_all_end_and_nobody_misses_a_deadline() -> None:
    require_ngircd()
    wave = run_wave(TABLES, 1, seed=7, timeout=60.0)
    crowd = wave.crowd
    assert wave.faults == []
    assert crowd.misses == set()
    assert len(crowd.players) == SEATS * TABLES
    assert len(crowd.games) == TABLES
    for gid, game in crowd.games.items():
        assert (game.starts, game.ends) == (SEATS, SEATS), gid
        assert game.reason in ("three_fails", "five_rejections", "assassinated_merlin", "merlin_survived"), gid
    for player in crowd.players:
        assert player.played == 1, player.nick
        assert len(player.started) == 1 and player.started == player.ended, player.nick
        assert player.answered, player.nick
