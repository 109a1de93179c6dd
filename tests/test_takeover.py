"""A referee that dies mid-game and a new one that takes the game up from the store.

The referee is "killed" by an exception thrown from its journal, just before or just after
it stores a step (nothing of that step sent), at random steps, several times a game; the
bots outlive it, as they do on IRC, and register with the next referee. Every game must end
normally (no forfeit: the bots are honest), be stored once with the result its stored
answers imply, and no line anyone saw may be missing from the store.
"""

from __future__ import annotations

import random
from pathlib import Path
from collections.abc import Callable, Container
from typing import Any

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import Config, TimeoutConfig
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, RESYNC, TIMEOUT, parse
from arena.referee.journal import Journal
from arena.referee.lobby import Lobby
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.referee.room import Room
from arena.sdk import Ask, Bot, GameView, Session
from arena.store import LiveGame, Store

PLACE = "127.0.0.1:6667/#arena"
TIMEOUTS = TimeoutConfig(decision=30.0, grace=5.0)


class Crash(BaseException):
    """The referee's process dies here (a BaseException: nothing in the referee catches it)."""


class DyingJournal(Journal):
    """Dies at its ``at``-th save, before writing it or (``after``) once it is written."""

    def __init__(self, store: Store, at: int, after: bool) -> None:
        super().__init__(store, PLACE)
        self.at, self.after, self.saves = at, after, 0

    def save(self, skip: Container[str] = ()) -> dict[str, tuple[Match, Exception]]:
        self.saves += 1
        if self.saves == self.at and not self.after:
            raise Crash
        failed = super().save(skip)
        if self.saves == self.at and self.after:
            raise Crash
        return failed


class Table:
    """Bots that outlive referees: each new referee gets a new hub they register with."""

    def __init__(self, bots: dict[str, Bot]) -> None:
        self.hub: LocalHub | None = None
        self.sessions = [Session(bot, nick, "arena", say=self._saying(nick)) for nick, bot in bots.items()]

    def _saying(self, nick: str) -> Callable[[str, str], None]:
        """How ``nick``'s session speaks: through whichever hub is current then."""
        return lambda gid, text: self._say(nick, text)

    def _say(self, nick: str, text: str) -> None:
        assert self.hub is not None
        self.hub.say(nick, text)

    def referee(self, store: Store, journal: Journal) -> LocalHub:
        self.hub = LocalHub(TIMEOUTS, journal=journal)
        Recorder(store).attach(self.hub.referee)
        return self.hub


def play_with_crashes(
    tmp_path: Path, game: str, options: Any, bots: dict[str, Bot], seed: int, rng: random.Random, crashes: int
) -> tuple[Store, str, list[list[str]]]:
    """One game whose referee dies ``crashes`` times at random steps; returns the store,
    the game id and, per referee, the channel lines it actually sent."""
    store = Store(tmp_path / "results.db")
    table = Table(bots)
    said: list[list[str]] = []
    gid = None
    died = 0
    for run in range(crashes + 1):
        dying = run < crashes
        journal: Journal = (
            DyingJournal(store, rng.randint(1, 10), rng.random() < 0.5) if dying else Journal(store, PLACE)
        )
        hub = table.referee(store, journal)
        said.append(hub.channel_log)
        try:
            if gid is None:
                for session in table.sessions:
                    hub.register(session)
                gid = "g1"
                hub.play(game, list(bots), options, seed, gid=gid)
            else:
                (live,) = journal.unfinished()
                match = hub.referee.resume_game(live, hub.channel, hub.now)
                for session in table.sessions:
                    hub.register(session)
                hub.referee.go_on(gid, hub.now)
                hub.finish(match)
        except Crash:
            died += 1
        if gid is not None and store.games.has(gid):
            break
    assert gid is not None and died, "the referee never died"
    return store, gid, said


def check(store: Store, gid: str, said: list[list[str]]) -> None:
    stored = store.games.load(gid)
    assert stored is not None, "the game was lost"
    assert stored.summary.kind == "ranked", f"{stored.summary.reason}: an innocent bot was punished"
    assert stored.replay().events == list(stored.events), "the result is not what the stored answers imply"
    assert store.live.unfinished(place=PLACE) == []
    assert store.ratings.rebuild().exact
    channel = [line for to, line in stored.transcript if to is None]
    said = [[line for line in sent if not line.startswith("RATINGS ")] for sent in said]  # said after the record
    for sent in said:  # nothing went out that the store lacks (write-ahead), in order
        assert all(line in channel for line in sent), "a line was sent that was never stored"
    starts = [line for line in channel if line.startswith("START ")]
    assert len(starts) == 1
    rids = [parse(line).args[1] for line in channel if line.startswith(ASK + " ")]
    assert len(rids) == len(set(rids)), "a request id was reused after a restart"
    if not any(line.startswith(TIMEOUT + " ") for _, line in stored.transcript):
        accepted = [a.seat for a in stored.answers if a.error is None]
        assert accepted == [seat for seat, _, _ in stored.history], "an answer the engine took is missing, or extra"
    assert [t.after for t in stored.talk] == sorted(t.after for t in stored.talk)


@pytest.mark.parametrize("seed", range(20))
def test_avalon_survives_referees_dying_mid_game(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    bots: dict[str, Bot] = {f"p{i}": (RuleBot if i % 2 else Bot)(seed=seed * 10 + i) for i in range(7)}
    store, gid, said = play_with_crashes(
        tmp_path, "avalon", AvalonOptions(percival=True, morgana=True), bots, seed, rng, crashes=3
    )
    check(store, gid, said)


@pytest.mark.parametrize("seed", range(20))
def test_werewolf_survives_referees_dying_mid_game(tmp_path: Path, seed: int) -> None:
    rng = random.Random(100 + seed)
    bots: dict[str, Bot] = {f"w{i}": (WerewolfRuleBot if i % 2 else Bot)(seed=seed * 10 + i) for i in range(9)}
    store, gid, said = play_with_crashes(tmp_path, "werewolf", WerewolfOptions(), bots, seed, rng, crashes=3)
    check(store, gid, said)


def die_mid_game(store: Store, players: int, seed: int, at: int, after: bool) -> tuple[Table, LiveGame]:
    """Rule bots start an Avalon game ``g1`` dealt by ``seed``; its referee dies at its ``at``-th save.
    Returns the bots and the game as the store left it."""
    table = Table({f"p{i}": RuleBot(seed=i) for i in range(players)})
    hub = table.referee(store, DyingJournal(store, at, after))
    for session in table.sessions:
        hub.register(session)
    with pytest.raises(Crash):
        hub.play("avalon", [s.nick for s in table.sessions], AvalonOptions(), seed, gid="g1")
    (live,) = Journal(store, PLACE).unfinished()
    return table, live


def test_bots_come_back_knowing_their_roles_and_nobody_is_left_in_a_game(tmp_path: Path) -> None:
    """After a restart each bot is resynced (it knows its role again) and every bot sees
    the game end: none is stranded in a game that no referee runs."""
    store = Store(tmp_path / "results.db")
    table, live = die_mid_game(store, 5, seed=5, at=12, after=True)
    roles = {s.nick: s.games["g1"].role for s in table.sessions}
    assert all(roles.values())
    hub = table.referee(store, Journal(store, PLACE))
    match = hub.referee.resume_game(live, hub.channel, hub.now)
    for session in table.sessions:
        hub.register(session)
        assert session.games["g1"].role == roles[session.nick]  # rebuilt from the resync alone
    hub.referee.go_on("g1", hub.now)
    hub.finish(match)
    assert all(s.games == {} and s.finished == 1 for s in table.sessions)
    check(store, "g1", [])


def test_a_game_over_in_the_store_is_recorded_on_restart(tmp_path: Path) -> None:
    """A game whose end was written ahead but not recorded (the referee died in between,
    or recording failed) is recorded by the next referee, with the end it had: here a
    forfeit for a missed deadline, which stays that bot's."""
    store = Store(tmp_path / "results.db")
    table = Table({f"p{i}": Bot(seed=i) for i in range(5)})
    hub = table.referee(store, Journal(store, PLACE))
    hub.referee.on_game_end.clear()  # recording "fails": the journal keeps the ended game
    for session in table.sessions[:4]:
        hub.register(session)
    # p4 never registers: it misses every deadline and forfeits.
    hub.play("avalon", [s.nick for s in table.sessions], AvalonOptions(), 3, gid="g1")
    (live,) = Journal(store, PLACE).unfinished()
    assert live.state["end"]["reason"] == "forfeit"
    hub = table.referee(store, Journal(store, PLACE))
    match = hub.referee.resume_game(live, hub.channel, hub.now)
    assert match.over and match.suspended  # until its bots are back to hear the end
    hub.referee.go_on("g1", hub.now)
    stored = store.games.load("g1")
    assert stored is not None and stored.summary.kind == "forfeit" and stored.forfeited == 4
    assert store.live.unfinished(place=PLACE) == []


def test_game_ids_never_repeat_across_restarts_and_referees(tmp_path: Path) -> None:
    path = tmp_path / "results.db"
    with Store(path) as one, Store(path) as two:
        ids = [one.live.new_id(0.0), two.live.new_id(0.0), one.live.new_id(0.0)]
        assert not one.live.reserve(ids[1], 0.0)
        assert one.live.reserve("t-1", 0.0) and not two.live.reserve("t-1", 0.0)
    with Store(path) as again:
        ids.append(again.live.new_id(0.0))
    assert ids == ["g1", "g2", "g3", "g4"]


def test_resync_after_a_restart_replays_only_what_the_seat_was_told(tmp_path: Path) -> None:
    """The store keeps, per line, whose knowledge it is: a resync from a restarted referee
    tells a seat its own private lines and the channel's, never another seat's."""
    store = Store(tmp_path / "results.db")
    table, live = die_mid_game(store, 6, seed=11, at=15, after=False)
    hub = table.referee(store, Journal(store, PLACE))
    sent: list[tuple[str, str]] = []
    hub.referee.send = lambda target, text: sent.append((target, text))
    hub.referee.resume_game(live, hub.channel, hub.now)
    told = {seat: [line for to, s, line in live.lines if s == seat] for seat in range(6)}
    hub.referee.on_message("p2", "arena", table.sessions[2].hello(), hub.now)
    block = [text for target, text in sent if target == "p2"]
    assert block[0].startswith("WELCOME") or block[0].startswith(RESYNC)
    replayed = [text for text in block if not text.startswith(("WELCOME", RESYNC))]
    private = [line for line in replayed if line not in {text for to, _, text in live.lines if to is None}]
    assert private == told[2]
    assert all(line not in told[s] or line in told[2] for s in told for line in replayed if s != 2)


def died_once_recorded(tmp_path: Path) -> tuple[Store, Table]:
    """Game ``g1`` of five bots, its referee killed once it was recorded, its END still held
    back: the store, and the bots (which outlive it)."""

    class DyingRecorder(Recorder):
        def ended(self, match: Any) -> None:
            super().ended(match)
            raise Crash  # recorded; END still held back

    store = Store(tmp_path / "results.db")
    table = Table({f"p{i}": RuleBot(seed=i) for i in range(5)})
    table.hub = hub = LocalHub(TIMEOUTS, journal=Journal(store, PLACE))
    DyingRecorder(store).attach(hub.referee)
    for session in table.sessions:
        hub.register(session)
    with pytest.raises(Crash):
        hub.play("avalon", [s.nick for s in table.sessions], AvalonOptions(), 2, gid="g1")
    return store, table


def test_a_recorded_game_whose_end_never_went_out_is_told_to_its_bots_after_a_restart(tmp_path: Path) -> None:
    """Killed after the game was recorded but before its END was sent: the store keeps it
    in progress until the END is written, so the next referee tells the end to each bot
    as it comes back (none is left holding a game that no referee runs), rates nothing
    twice, and then forgets it."""

    store, table = died_once_recorded(tmp_path)
    assert store.games.has("g1") and all("g1" in s.games for s in table.sessions)  # nobody heard END
    (live,) = Journal(store, PLACE).unfinished()
    assert live.recorded
    ratings = store.ratings.current("avalon", "elo")
    hub = table.referee(store, Journal(store, PLACE))
    match = hub.referee.resume_game(live, hub.channel, hub.now)
    for session in table.sessions:
        hub.register(session)
    assert all(s.games == {} and s.finished == 1 for s in table.sessions)
    hub.referee.go_on("g1", hub.now)
    hub.run()
    assert match.over and store.live.unfinished(place=PLACE) == []
    assert len(store.games.find()) == 1 and store.ratings.current("avalon", "elo") == ratings


def test_a_game_of_its_own_that_is_ending_is_no_game_to_take_up(tmp_path: Path) -> None:
    """Recorded, its END not out yet: the game is still in progress in the store, for a
    restart to tell its end to its bots; the run that is ending it does not take it up
    again (a referee of a shared lobby looks for games to take up whenever it inherits a
    peer's, and would send its bots a ``RESUME`` of a game that is ending)."""
    seen: list[tuple[list[LiveGame], list[LiveGame]]] = []

    class Looking(Recorder):
        def ended(self, match: Any) -> None:
            super().ended(match)
            seen.append((journal.unfinished(), Journal(store, PLACE).unfinished()))

    store = Store(tmp_path / "results.db")
    table = Table({f"p{i}": RuleBot(seed=i) for i in range(5)})
    journal = Journal(store, PLACE)
    table.hub = hub = LocalHub(TIMEOUTS, journal=journal)
    Looking(store).attach(hub.referee)
    for session in table.sessions:
        hub.register(session)
    hub.play("avalon", [s.nick for s in table.sessions], AvalonOptions(), 2, gid="g1")
    ((own, restarted),) = seen
    assert own == [] and [live.id for live in restarted] == ["g1"]
    assert store.live.unfinished(place=PLACE) == []  # forgotten once its END went out


class Talker(WerewolfRuleBot):
    def speech(self, game: GameView[Any], ask: Ask) -> str:
        return f"{game.me} speaks at {ask.rid}"


def test_talk_and_answers_said_before_a_crash_are_in_the_finished_game(tmp_path: Path) -> None:
    """What the players said before the referee died (each line stored as it came, a line
    of speech too, though it sends nothing) is carried into the game the next referee
    records, followed by what they said after, with times that go on from the first run."""
    store = Store(tmp_path / "results.db")
    table = Table({f"w{i}": Talker(seed=i) for i in range(7)})
    hub = table.referee(store, DyingJournal(store, 25, True))
    for session in table.sessions:
        hub.register(session)
    with pytest.raises(Crash):
        hub.play("werewolf", [s.nick for s in table.sessions], WerewolfOptions(), 4, gid="g1")
    died = hub.referee.matches["g1"]
    (live,) = Journal(store, PLACE).unfinished()
    assert live.talk and live.talk == tuple(died.talk) and live.answers == tuple(died.answers)
    hub = table.referee(store, Journal(store, PLACE))
    hub.now = 1000.0  # the new referee's clock reads anything
    match = hub.referee.resume_game(live, hub.channel, hub.now)
    for session in table.sessions:
        hub.register(session)
    hub.referee.go_on("g1", hub.now)
    hub.finish(match)
    check(store, "g1", [])
    stored = store.games.load("g1")
    assert stored is not None and len(stored.talk) > len(live.talk)
    assert stored.talk[: len(live.talk)] == live.talk and stored.answers[: len(live.answers)] == live.answers
    assert [t.at for t in stored.talk] == sorted(t.at for t in stored.talk)
    assert stored.talk[len(live.talk)].after > len(live.lines), "said after the lines the first run sent"


@pytest.mark.parametrize("shared", [False, True])
def test_a_recorded_game_taken_over_in_a_shared_lobby_waits_for_nobody(tmp_path: Path, shared: bool) -> None:
    """A game recorded, and its referee killed before it forgot the game: the next
    referee takes it up. Alone, it waits for the bots to register again (a restart
    loses every registration), to tell them the end. In a shared lobby the registrations
    outlive a referee: the bots still registered are told at once, and those that have
    left will not come back, so the game is forgotten at once."""
    store, table = died_once_recorded(tmp_path)
    config = Config(timeouts=TIMEOUTS)
    journal = Journal(store, PLACE)
    hub = table.referee(store, journal)  # the bots have all left: none registers here
    lobby = Lobby(config.lobby, config.games[config.lobby.game].options, config.seating.games_per_order, b"k" * 32)
    room = Room(config, hub.referee, hub, lobby, b"k" * 32, journal=journal, clock=lambda: hub.now)
    room.resumed.shared = shared
    assert room.resumed.take_up(hub.now) == ["g1"]
    room.resumed.due(hub.now)
    hub.run()
    assert (store.live.unfinished(place=PLACE) == []) == shared
    assert len(store.games.find()) == 1
