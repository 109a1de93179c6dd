"""Ten tables at once on one referee process (``arena serve`` on ngircd), against fifty
players on plain sockets that know only protocol.md (``bench/crowd.py``): every game starts
and ends for all its players, and no deadline is missed. ``bench/concurrency.py``'s work at
a small scale, judged by the lines the players read, never by seconds; and keyed bots
registering all at once beside running games (``--storm``); and two referees sharing the
lobby (``bench/referees.py``, PostgreSQL), each game followed to its own referee."""

from __future__ import annotations

from arena.store.pgserver import LocalPostgres
from bench import referees
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


def test_keyed_bots_registering_at_once_cost_no_running_game_a_deadline() -> None:
    """Fifty bots prove their keys by SCRAM all at once while five tables play: every one is
    welcomed (its signature checked), and no player of the running games is warned."""
    require_ngircd()
    wave = run_wave(5, 1, seed=11, timeout=60.0, storm=50)
    assert wave.storm is not None
    storm = wave.storm
    assert storm.welcomed == 50
    assert storm.crowd.faults == [] and wave.faults == []
    assert all(p.registered for p in storm.crowd.players)
    assert wave.crowd.misses == set()
    during = [g for g in wave.crowd.games.values() if g.start < storm.ended and g.end > storm.began]
    assert during  # the storm began once every table had started: it ran beside their games
    for game in during:
        assert (game.starts, game.ends) == (SEATS, SEATS)


def test_two_referees_share_the_tables_and_players_answer_each_game_to_its_referee(postgres: LocalPostgres) -> None:
    """``bench/referees.py`` at a small scale: two referees of one lobby each run some of six
    tables, and players that follow each game's referee (its ``TABLE``'s sender) play every
    game to its end without a miss."""
    require_ngircd()
    run = referees.run_wave(6, 2, postgres, rounds=1, seed=3, timeout=60.0)
    wave = run.wave
    assert wave.faults == [] and wave.crowd.misses == set()
    assert run.referees == ("arena", "arena2")
    assert wave.finished == 6 and sum(run.ran) == 6 and min(run.ran) > 0, run.ran
    for gid, game in wave.crowd.games.items():
        # A table may be withdrawn before its start: the lobby is shared, so a bot that has
        # played its game and is unregistering may be dealt again meanwhile (protocol.md).
        withdrawn = game.withdrawn > 0 and game.starts == game.ends == 0
        assert withdrawn or (game.starts, game.ends) == (SEATS, SEATS), (gid, game)
    homes = {p.home for p in wave.crowd.players}
    assert homes == {"arena", "arena2"}
    assert all(p.referees == homes for p in wave.crowd.players)
