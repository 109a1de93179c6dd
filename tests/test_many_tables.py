"""A referee's work per line does not grow with the games in flight.

Counted, not timed: the Python calls the referee's own modules make for each line it is
sent, with a few tables at once against ten times as many, every bot of them in one lobby
(registrations, draws, seating and play included). Before the referee kept its games in a
timetable and its tables by channel and by bot, forty tables cost twice what four did.
"""

from __future__ import annotations

import cProfile
import os
import pstats

from arena.config import Config, LobbyConfig
from arena.referee.announced import Announced
from arena.referee.lobby import Lobby, Table
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.room import Room
from arena.referee.running import Running, Timetable
from arena.irc.roster import Roster
from arena.sdk.bot import Bot

KEY = b"k" * 32
REFEREE = os.path.join("arena", "referee", "")
TRANSPORT = os.path.join("arena", "referee", "local.py")


def calls_per_line(tables: int, waves: int) -> float:
    """The referee's calls per line it is sent, over ``waves`` games at each of ``tables``
    five-player tables running at once (the in-memory hub delivers their lines interleaved)."""
    config = Config(lobby=LobbyConfig(min_players=5, max_players=5, countdown=0.0))
    hub = LocalHub(config.timeouts, channel=config.server.channel)
    ended: list[Match] = []
    lobby = Lobby(config.lobby, config.games["avalon"].options, config.seating.games_per_order, KEY, nonce="n")
    room = Room(
        config, hub.referee, hub, lobby, KEY, max_games=tables * waves, on_game_end=ended.append, clock=lambda: hub.now
    )
    profile = cProfile.Profile()
    profile.enable()
    for i in range(tables * 5):
        hub.connect(f"b{i}", Bot(seed=i))
    hub.serve(room)
    profile.disable()
    assert len(ended) == tables * waves and all(m.game.result is not None for m in ended)
    calls = lines = 0
    for (path, _, name), (_, count, _, _, _) in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
        if REFEREE in path and not path.endswith(TRANSPORT):
            calls += count
            if name == "on_message" and path.endswith("referee.py"):
                lines += count
    return calls / lines


def test_a_line_costs_the_same_with_forty_tables_as_with_four() -> None:
    few, many = calls_per_line(4, 30), calls_per_line(40, 3)
    assert many <= 1.3 * few, (few, many)


def test_the_timetable_says_the_soonest_deadline_and_hands_over_only_what_is_due() -> None:
    class Clocked:
        def __init__(self, gid: str, at: float | None) -> None:
            self.gid, self.at, self.bots = gid, at, [gid]

        def next_deadline(self) -> float | None:
            return self.at

    running = Running()
    games = {gid: Clocked(gid, at) for gid, at in (("a", 5.0), ("b", 3.0), ("c", None))}
    for gid, game in games.items():
        running[gid] = game  # type: ignore[assignment]
    timetable = Timetable(running)
    for gid in games:
        timetable.touch(gid)
    assert timetable.next() == 3.0
    games["b"].at = 9.0  # changed, but not said: still seen at 3
    assert timetable.next() == 3.0
    timetable.touch("b")
    assert timetable.next() == 5.0 and timetable.due(4.0) == []
    assert timetable.due(5.0) == ["a"]
    assert timetable.next() == 5.0, "a game that was due is looked at again after its poll"
    games["a"].at = None
    timetable.due(5.0)
    assert timetable.next() == 9.0
    del running["b"]
    timetable.touch("b")
    assert timetable.next() is None
    for n in range(1000):  # stale entries do not pile up
        games["c"].at = float(n)
        timetable.touch("c")
        timetable.next()
    assert len(timetable._heap) < 200


def test_running_games_are_found_by_their_bots() -> None:
    class Seated:
        def __init__(self, bots: list[str]) -> None:
            self.bots = bots

    running = Running()
    running["g1"] = Seated(["Ann", "bob"])  # type: ignore[assignment]
    running["g2"] = Seated(["ann", "Cy"])  # type: ignore[assignment]
    assert [running[g] for g in ("g1", "g2")] == running.of("ANN") and running.of("dee") == []
    del running["g1"]
    assert running.of("bob") == [] and running.of("ann") == [running["g2"]] and list(running) == ["g2"]
    assert running.get("g1") is None and "g2" in running and len(running) == 1


def test_announced_tables_are_looked_at_when_something_happens_to_them_or_their_wait_ends() -> None:
    tables = Announced(str.lower)
    tables.add("g1", Table("avalon", None, ["A", "b"]), "#Arena-g1")
    tables.add("g2", Table("avalon", None, ["c", "d"]), "#arena-g2")
    assert tables.due(0.0) == ["g1", "g2"] and tables.due(0.0) == []
    tables.touch_channel("#ARENA-G2")
    tables.touch(tables.of_bot("a"))
    assert tables.due(1.0) == ["g2", "g1"]
    tables.told("g1", 30.0, 5.0)
    assert tables.next_time() == 5.0 and tables.due(4.0) == []
    assert tables.due(5.0) == ["g1"] and tables.next_time() == 30.0
    tables.pop("g1")
    assert tables.next_time() is None and tables.of_bot("A") is None and list(tables) == ["g2"]


def test_the_roster_knows_who_is_where_through_parts_quits_and_nick_changes() -> None:
    roster = Roster(str.lower)
    roster.joined("me", "#lobby", me=True)
    roster.names("#lobby", "@me Ann bob", "@+")
    roster.joined("me", "#g1", me=True)
    roster.joined("ann", "#g1", me=False)
    assert roster.present("ANN", "#lobby") and roster.present("ann", "#G1") and not roster.present("bob", "#g1")
    roster.renamed("Ann", "Anne")
    assert roster.present("anne", "#g1") and roster.present("anne", "#lobby") and not roster.present("ann", "#lobby")
    assert roster.members_of("#g1") == {"me", "Anne"}
    roster.left("anne", "#g1", me=False)
    roster.quit("bob")
    assert (
        not roster.present("anne", "#g1") and roster.present("anne", "#lobby") and not roster.present("bob", "#lobby")
    )
    roster.left("me", "#lobby", me=True)
    assert not roster.present("anne", "#lobby") and roster.members_of("#lobby") == frozenset()
