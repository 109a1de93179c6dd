"""A results store that cannot be written (its disk full) pauses the game, and the game goes
on exactly where it stopped once the store can be written again.

The fault is injected: every write transaction of the store is refused as SQLite refuses one
on a full disk, from a chosen step of a game on. Whatever that step is (a vote, a night, a
speech, the end, the recording), nothing the referee sends is missing from the store, the
channel is told why the game stopped, no deadline runs out while it is paused (the clock
runs far past every deadline meanwhile), and the game ends as an uninterrupted one would:
ranked, no bot warned or forfeited, its replay exact. ``tests/irc/test_full_disk_irc.py``
fills a real filesystem under a referee on a real server.
"""

from __future__ import annotations

import dataclasses

import logging
import sqlite3
from pathlib import Path
from collections.abc import Container
from typing import Any

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig, parse_config
from arena.core.errors import ErrorCode
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ANSWER, ASK, END, ERROR, PAUSE, RESUME, TIMEOUT, WARN, Message, parse
from arena.referee.journal import Journal
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.pause import LONGEST_RETRY, STORE_DOWN
from arena.referee.recorder import Recorder
from arena.referee.service import RefereeService
from arena.sdk import Bot, Session
from arena.store import Store
from arena.store.dialect import Connection, Cursor
from arena.tournament import Settings, TournamentError, play_local
from arena.tournament.run import open_tournament

PLACE = "127.0.0.1:6667/#arena"
TIMEOUTS = TimeoutConfig(decision=30.0, grace=5.0)
PAUSED = f"{PAUSE} g1 :{STORE_DOWN}"


class Disk:
    """Whether the store's disk is full."""

    def __init__(self) -> None:
        self.full = False


class FullDiskConnection:
    """A store's connection whose write transactions fail, while its disk is full, with the
    error SQLite gives on a full disk; reading still works, as on a full disk."""

    def __init__(self, conn: Connection, disk: Disk) -> None:
        self._conn, self._disk = conn, disk

    def execute(self, sql: str, *args: Any) -> Cursor:
        if self._disk.full and sql.startswith("BEGIN IMMEDIATE"):
            raise sqlite3.OperationalError("database or disk is full")
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def full_disk_store(path: Path, disk: Disk) -> Store:
    store = Store(path)
    store.conn = FullDiskConnection(store.conn, disk)
    return store


class FillingJournal(Journal):
    """Fills the disk just before its ``at``-th save."""

    def __init__(self, store: Store, disk: Disk, at: int) -> None:
        super().__init__(store, PLACE)
        self.disk, self.at, self.saves = disk, at, 0

    def save(self, skip: Container[str] = ()) -> dict[str, tuple[Match, Exception]]:
        self.saves += 1
        if self.saves == self.at:
            self.disk.full = True
        return super().save(skip)


def sent_lines(hub: LocalHub) -> list[tuple[str, str]]:
    """From now on, every line the hub's referee sends: (target, line)."""
    sent: list[tuple[str, str]] = []
    referee = hub.referee
    send, post = referee.send, referee.post

    def sending(target: str, text: str) -> None:
        sent.append((target, text))
        send(target, text)

    def posting(target: str, text: str, msg: Message) -> None:
        sent.append((target, text))
        assert post is not None
        post(target, text, msg)

    referee.send = sending
    if post is not None:
        referee.post = posting
    return sent


def game_lines(sent: list[tuple[str, str]], gid: str = "g1") -> list[tuple[str, str]]:
    """The lines of the game itself: not the pause's own line, nor a refusal of a line sent
    while it was paused (neither is part of the game), nor the ratings said after its record."""
    return [
        (to, line)
        for to, line in sent
        if not line.startswith((f"{PAUSE} {gid} ", "RATINGS ", "WELCOME ")) and " is paused: " not in line
    ]


def assert_stored(sent: list[tuple[str, str]], stored: list[tuple[str | None, str]], channel: str) -> None:
    """Every line sent is in the store, in the order it was sent (write-ahead)."""
    wanted = [(None if to == channel else to, line) for to, line in game_lines(sent)]
    assert wanted == stored[: len(wanted)], "a line was sent that the store lacks"


def table(game: str, seed: int) -> tuple[dict[str, Bot], Any]:
    if game == "avalon":
        return {f"p{i}": (RuleBot if i % 2 else Bot)(seed=seed * 10 + i) for i in range(7)}, AvalonOptions(
            percival=True, morgana=True
        )
    return {f"w{i}": (WerewolfRuleBot if i % 2 else Bot)(seed=seed * 10 + i) for i in range(9)}, WerewolfOptions()


def paused_game(
    tmp_path: Path, game: str, seed: int, at: int
) -> tuple[LocalHub, Store, Disk, Match, list[tuple[str, str]], list[Session]]:
    """Bots play ``game`` until the disk fills at the referee's ``at``-th save."""
    disk = Disk()
    store = full_disk_store(tmp_path / "results.db", disk)
    hub = LocalHub(TIMEOUTS, journal=FillingJournal(store, disk, at))
    Recorder(store).attach(hub.referee)
    sent = sent_lines(hub)
    bots, options = table(game, seed)
    sessions = [hub.connect(nick, bot) for nick, bot in bots.items()]
    match = hub.referee.start_game(game, list(bots), options, seed, hub.channel, hub.now, gid="g1")
    hub.run()
    while not disk.full:  # played on to the deadline that moves it
        deadline = hub.referee.next_deadline()
        assert deadline is not None and not match.over
        hub.now = max(hub.now, deadline)
        hub.referee.poll(hub.now)
        hub.run()
    return hub, store, disk, match, sent, sessions


def live_lines(store: Store) -> list[tuple[str | None, str]]:
    (live,) = store.live.all("g1")
    return [(to, line) for to, _, line in live.lines]


def run_paused(hub: LocalHub, seconds: float) -> None:
    """Let ``seconds`` pass on the referee's clock, trying the store at every retry."""
    end = hub.now + seconds
    while True:
        deadline = hub.referee.next_deadline()
        assert deadline is not None or not hub.referee.paused(), "a paused game must keep a retry scheduled"
        if deadline is None or deadline > end:
            break
        hub.now = max(hub.now, deadline)
        hub.referee.poll(hub.now)
        hub.run()
    hub.now = end


def finish(hub: LocalHub, match: Match) -> None:
    """Play on until the game's END has gone out (an ending game stays paused till then)."""
    while True:
        hub.run()
        if match.over and "g1" not in hub.referee.paused():
            return
        deadline = hub.referee.next_deadline()
        assert deadline is not None, "the game is stuck"
        hub.now = max(hub.now, deadline)
        hub.referee.poll(hub.now)


def check_game(store: Store, sent: list[tuple[str, str]], channel: str) -> None:
    stored = store.games.load("g1")
    assert stored is not None, "the game was lost"
    assert stored.summary.kind == "ranked", f"{stored.summary.reason}: an innocent bot was punished"
    late = [line for _, line in stored.transcript if line.startswith((WARN + " ", TIMEOUT + " "))]
    assert not late, f"a deadline ran out, yet the bots answer at once: {late[:3]}"
    assert stored.replay().events == list(stored.events)
    assert_stored(sent, list(stored.transcript), channel)
    assert store.live.all() == []
    assert store.ratings.rebuild().exact
    rids = [parse(line).args[1] for to, line in stored.transcript if line.startswith(ASK + " ") and to is None]
    assert len(rids) == len(set(rids)), "a request id was used twice"


SAVES = {"avalon": (0, 18), "werewolf": (1, 64)}
"""Per game, a seed and how many steps the referee stores in the game it deals."""


@pytest.mark.parametrize(
    "game, at",
    [("avalon", at) for at in range(1, SAVES["avalon"][1] + 1)]
    + [("werewolf", at) for at in (1, 2, 3, 4, 5, 8, 13, 21, 34, 55, 63, 64)],
)
def test_a_full_disk_pauses_the_game_and_it_goes_on_where_it_stopped(
    tmp_path: Path, game: str, at: int, caplog: pytest.LogCaptureFixture
) -> None:
    """Filled at every step of an Avalon game, and at steps of a Werewolf game from its
    opening through nights, speeches and votes to its end."""
    caplog.set_level(logging.WARNING)
    hub, store, disk, match, sent, _ = paused_game(tmp_path, game, seed=SAVES[game][0], at=at)
    stored = [] if at == 1 else live_lines(store)
    assert_stored(sent, stored, hub.channel)
    assert (hub.channel, PAUSED) in sent, "the channel was not told why the game stopped"
    assert f"game g1 paused: {STORE_DOWN}" in caplog.text
    assert hub.referee.paused() == {"g1": pytest.approx(hub.now)}
    told = len(sent)
    run_paused(hub, 20 * TIMEOUTS.decision)  # far past every deadline: none may run out
    assert not [line for _, line in sent[told:] if not line.startswith(ERROR + " ")], "a paused game sent a line"
    assert "g1" in hub.referee.paused() and not any(line.startswith(END + " ") for _, line in sent)
    assert caplog.text.count("game g1 still paused") >= 5, "the log fell silent"
    disk.full = False
    finish(hub, match)
    assert "game g1 goes on after" in caplog.text
    check_game(store, sent, hub.channel)


def test_answers_sent_into_a_pause_are_refused_outside_the_record_and_asked_again(tmp_path: Path) -> None:
    """A bot that answers while the game is paused gets STALE_REQUEST (not kept in the
    game: it is nobody's fault); once the game goes on its request comes again with a new
    id and the whole deadline, and the answer to that one counts."""
    hub, store, disk, match, sent, _ = paused_game(tmp_path, "avalon", seed=4, at=6)
    asked = [parse(line) for _, line in sent if line.startswith(ASK + " ")]
    last = asked[-1]
    hub.referee.on_message("p0", "arena", f"{ANSWER} g1 {last.args[1]} approve", hub.now)
    hub.run()
    refusal = parse(sent[-1][1])
    assert sent[-1][0] == "p0" and refusal.verb == ERROR and refusal.args[:2] == (ErrorCode.STALE_REQUEST.value, "g1")
    assert "is paused" in (refusal.text or "")
    disk.full = False
    run_paused(hub, LONGEST_RETRY)
    again = [parse(line) for _, line in sent if line.startswith(ASK + " ")][len(asked) :]
    assert again and int(again[0].args[1]) > int(last.args[1]), "the pending request was not asked again"
    assert again[0].get("deadline") == str(int(TIMEOUTS.decision))
    finish(hub, match)
    check_game(store, sent, hub.channel)
    stored = store.games.load("g1")
    assert stored is not None and not any("is paused" in line for _, line in stored.transcript)


def test_a_game_whose_end_cannot_be_recorded_holds_its_end_until_it_is(tmp_path: Path) -> None:
    """The end's step is stored, its record is not: END waits with the game (a bot that
    heard END leaves, and RATINGS must follow it), and once the record is written END and
    RATINGS go out, rated once."""
    disk = Disk()
    store = full_disk_store(tmp_path / "results.db", disk)
    hub = LocalHub(TIMEOUTS, journal=Journal(store, PLACE))
    recorder = Recorder(store)
    recorder.attach(hub.referee)
    record_game = store.games.record

    def full_at_record(record: Any) -> Any:
        disk.full = True
        return record_game(record)

    store.games.record = full_at_record  # type: ignore[method-assign]
    sent = sent_lines(hub)
    bots, options = table("avalon", 3)
    sessions = [hub.connect(nick, bot) for nick, bot in bots.items()]
    match = hub.referee.start_game("avalon", list(bots), options, 3, hub.channel, hub.now, gid="g1")
    hub.run()
    while not disk.full:
        hub.now = max(hub.now, hub.referee.next_deadline() or hub.now)
        hub.referee.poll(hub.now)
        hub.run()
    assert match.over and "g1" in hub.referee.paused()
    assert not any(line.startswith(END + " ") for _, line in sent), "END went out before the game was recorded"
    assert all("g1" in s.games for s in sessions)
    store.games.record = record_game  # type: ignore[method-assign]
    run_paused(hub, 10 * LONGEST_RETRY)
    assert not store.games.has("g1")
    disk.full = False
    finish(hub, match)
    assert recorder.recorded == ["g1"]
    ends = [i for i, (_, line) in enumerate(sent) if line.startswith(END + " ")]
    assert len(ends) == 1 and sent[ends[0] + 1][1].startswith("RATINGS g1 ")
    assert all(s.games == {} and s.finished == 1 for s in sessions)
    check_game(store, sent, hub.channel)


def test_a_referee_killed_while_paused_loses_nothing_and_forfeits_nobody(tmp_path: Path) -> None:
    """The referee dies during the pause; the next one, on a store that can be written
    again, takes the game up from its last stored step, and it ends normally."""
    hub, store, disk, match, sent, sessions = paused_game(tmp_path, "werewolf", seed=7, at=17)
    run_paused(hub, 5 * TIMEOUTS.decision)
    disk.full = False  # the operator freed the disk, and restarted the referee
    hub = LocalHub(TIMEOUTS, journal=Journal(store, PLACE))
    Recorder(store).attach(hub.referee)
    sent += sent_lines(hub)
    (live,) = hub.referee.journal.unfinished()  # type: ignore[union-attr]
    match = hub.referee.resume_game(live, hub.channel, hub.now)
    for session in sessions:
        hub.register(session)
    hub.referee.go_on("g1", hub.now)
    hub.finish(match)
    stored = store.games.load("g1")
    assert stored is not None and stored.summary.kind == "ranked"
    late = [line for _, line in stored.transcript if line.startswith((WARN + " ", TIMEOUT + " "))]
    assert not late
    assert stored.replay().events == list(stored.events)
    channel = {line for to, line in stored.transcript if to is None}
    assert all(line in channel for to, line in game_lines(sent) if to == hub.channel), (
        "a line was sent that the store lacks"
    )


def test_a_game_stopped_while_paused_ends_aborted_once_the_store_can_be_written(tmp_path: Path) -> None:
    hub, store, disk, match, sent, sessions = paused_game(tmp_path, "avalon", seed=2, at=9)
    assert hub.referee.abort_game("g1", "stopped by op", hub.now)
    hub.run()
    assert not any(line.startswith(END + " ") for _, line in sent)
    disk.full = False
    finish(hub, match)
    stored = store.games.load("g1")
    assert stored is not None and stored.summary.kind == "aborted" and stored.summary.reason == "stopped by op"
    assert all(s.games == {} for s in sessions)


def test_no_game_starts_while_the_store_cannot_be_written(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The lobby's bots wait while the store refuses to be written (its seating and a new
    game's id are written), none is lost from the lobby, the log says why, and the first
    table opens at the first try after the store can be written again."""
    disk = Disk()
    store = full_disk_store(tmp_path / "results.db", disk)
    config = parse_config({"lobby": {"min_players": 5, "max_players": 5, "countdown": 0}})
    now = [100.0]
    service = RefereeService(config, recorder=Recorder(store), key=bytes(32), clock=lambda: now[0])
    bots = ["a1", "b2", "c3", "d4", "e5"]
    for nick in bots:
        service.room.lobby.add(nick, now[0])
    disk.full = True
    service.room.after(now[0])
    assert not service.room._tables and sorted(service.room.lobby.waiting) == bots
    assert f"no game starts: {STORE_DOWN}" in caplog.text
    retry = service.referee.store_retry
    assert retry is not None and retry > now[0]
    now[0] = retry - 0.1
    service.room.after(now[0])
    assert not service.room._tables and caplog.text.count("no game starts") == 1, "tried again before the wait was over"
    disk.full = False
    now[0] = retry
    service.room.after(now[0])
    assert len(service.room._tables) == 1 and service.referee.store_retry is None
    (waiting,) = service.room._tables.tables.values()
    assert sorted(waiting.table.seats) == bots


def test_a_referee_restarted_on_a_store_still_full_takes_the_game_up_paused(tmp_path: Path) -> None:
    """Killed while paused and restarted before the disk is freed: the game is taken up,
    but its RESUME and the bots' resyncs wait with it; the bots register all the same, and
    their go-ahead waits for the store. Once it can be written the game goes on, and ends
    normally."""
    hub, store, disk, match, sent, sessions = paused_game(tmp_path, "avalon", seed=0, at=7)
    hub = LocalHub(TIMEOUTS, journal=Journal(store, PLACE))
    Recorder(store).attach(hub.referee)
    sent = sent_lines(hub)
    (live,) = hub.referee.journal.unfinished()  # type: ignore[union-attr]
    resume = Message.make(RESUME, "g1", game="avalon", channel=hub.channel, seats=list(live.names), wait=60)
    match = hub.referee.resume_game(live, hub.channel, hub.now, announce=resume)
    assert "g1" in hub.referee.paused() and sent == [(hub.channel, PAUSED)]
    for session in sessions:
        hub.register(session)
    hub.referee.go_on("g1", hub.now)
    assert [line for _, line in sent if not line.startswith("WELCOME ")] == [PAUSED], "a line went out unstored"
    run_paused(hub, 3 * TIMEOUTS.decision)
    disk.full = False
    finish(hub, match)
    stored = store.games.load("g1")
    assert stored is not None and stored.summary.kind == "ranked"
    assert not [line for _, line in stored.transcript if line.startswith((WARN + " ", TIMEOUT + " "))]
    assert stored.replay().events == list(stored.events)
    channel = [line for to, line in stored.transcript if to is None]
    assert sum(line.startswith("RESUME g1 ") for line in channel) == 1
    assert all(s.games == {} and s.finished == 1 for s in sessions)


def test_a_local_tournament_stops_cleanly_on_a_full_disk_and_resumes_the_same(tmp_path: Path) -> None:
    """A local tournament (no journal: its games replay whole) stops with one clear error
    when a game cannot be recorded, and the same command, once the disk has room, plays
    that game and the rest exactly as an uninterrupted run does."""
    bots = ("rule1=avalon_rule", "rule2=avalon_rule", "rand1=random", "rand2=random", "rand3=random")
    settings = Settings(
        id="t1",
        game="avalon",
        games=6,
        players=5,
        bots=bots,
        options=AvalonOptions().to_dict(),
        transport="local",
        keep=16,
    )
    config = parse_config({"store": {"path": str(tmp_path / "full.db")}})
    disk = Disk()
    store = full_disk_store(tmp_path / "full.db", disk)
    open_tournament(store, settings)  # its secret key, which an uninterrupted copy shares
    copy = sqlite3.connect(tmp_path / "whole.db")
    getattr(store.conn, "backup")(copy)  # the sqlite3 connection's, through the full disk's
    copy.close()
    first = dataclasses.replace(settings, games=3)
    assert play_local(first, AvalonOptions(), store, config) == 3
    disk.full = True
    with pytest.raises(TournamentError, match=f"{STORE_DOWN} .*before game t1-4, which is not stored"):
        play_local(settings, AvalonOptions(), store, config)
    assert [g.id for g in store.games.find(limit=None)] == ["t1-3", "t1-2", "t1-1"]
    disk.full = False
    assert play_local(settings, AvalonOptions(), store, config) == 3
    with Store(tmp_path / "whole.db") as whole:
        play_local(settings, AvalonOptions(), whole, parse_config({"store": {"path": str(tmp_path / "whole.db")}}))
        for gid in (f"t1-{i}" for i in range(1, 7)):
            a, b = store.games.load(gid), whole.games.load(gid)
            assert a is not None and b is not None and a.events == b.events and a.transcript == b.transcript
        assert store.ratings.current("avalon", "elo") == whole.ratings.current("avalon", "elo")


def test_the_sdk_reads_a_pause_and_does_not_retry_a_refused_answer(caplog: pytest.LogCaptureFixture) -> None:
    """A bot seated by TABLE hears PAUSE (even before START) and says so in its log; an
    answer refused during the pause gets no random retry: the game asks again."""
    caplog.set_level(logging.INFO, logger="arena.sdk")
    session = Session(Bot(seed=1), "p0", "arena")
    session.feed("arena", "WELCOME p0 protocol=1 name=p0")
    session.feed("arena", "TABLE g1 game=avalon channel=#arena-g1 seats=p0,p1,p2,p3,p4", "#arena")
    session.feed("arena", f"PAUSE g1 :{STORE_DOWN}", "#arena-g1")
    assert f"game g1 paused by the referee: {STORE_DOWN}" in caplog.text
    session.feed(
        "arena", "START g1 game=avalon seats=p0,p1,p2,p3,p4 good=3 evil=2 quests=2,3,2,3,3 fails=1,1,1,1,1", "#arena-g1"
    )
    ask = "ASK g1 2 vote to=all deadline=30 options=approve,reject quest=1 leader=p1 team=p1,p2 rejections=0"
    assert session.feed("arena", ask, "#arena-g1")[0].startswith("ANSWER g1 2 ")
    refused = f"ERROR STALE_REQUEST g1 2 :game g1 is paused: {STORE_DOWN}"
    assert session.feed("arena", refused) != [], "without a PAUSE a refused answer is retried"
    assert session.feed("arena", ask.replace(" 2 ", " 3 "), "#arena-g1")[0].startswith("ANSWER g1 3 ")
    session.feed("arena", f"PAUSE g1 :{STORE_DOWN}", "#arena-g1")
    assert session.feed("arena", refused.replace(" 2 ", " 3 ")) == []
