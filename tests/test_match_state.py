"""A match's bookkeeping is one typed record (``MatchState``), stored by the journal as the
same JSON object it always was: states stored by an earlier referee load, and load back to
what they were. The request ids a game issued ride in the record, so a restored game
issues none of them again without reading its own lines."""

from __future__ import annotations

import json
from pathlib import Path

from arena.config import TimeoutConfig
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.lines import AvalonLines
from arena.games.avalon.options import AvalonOptions
from arena.protocol import ASK, parse
from arena.referee.journal import Journal, stored_state
from arena.referee.match import Match
from arena.referee.output import MatchOutput
from arena.referee.state import Ending, MatchState, asked
from arena.sdk import Bot
from arena.store import Store

from .test_takeover import PLACE, Table

STORED = {
    "published": 41,
    "misses": [0, 2, 0, 0, 1],
    "spoken": [0, 0, 0, 0, 0],
    "kept": {"1": 20, "-": 3},
    "refusals": {"1": {"STALE_REQUEST": 4, "MALFORMED": 1}},
    "end": {"reason": "forfeit", "seat": 1, "why": "timeout"},
}
"""A state as the referee has stored it since games were first stored."""


def test_a_stored_state_loads_and_stores_again_as_the_same_json() -> None:
    state = MatchState.from_json(STORED, 5)
    assert state.end == Ending("forfeit", 1, "timeout") and state.kept == ((1, 20), (None, 3))
    assert json.dumps(state.to_json()) == json.dumps(STORED)  # keys, their order and values


def test_a_state_stored_before_some_keys_existed_loads_them_as_nothing_yet() -> None:
    state = MatchState.from_json({"published": 7}, 5)
    assert state == MatchState(7, (0,) * 5, (0,) * 5)
    aborted = MatchState.from_json({**STORED, "end": {"reason": "aborted", "seat": None, "why": "stop"}}, 5)
    assert aborted.end == Ending("aborted", None, "stop")


def test_the_journal_stores_a_played_game_s_state_as_it_always_did(tmp_path: Path) -> None:
    """A game that ends in a forfeit (its end is outside its answers): its stored state
    has the keys it always had, and loads back to the match's record."""
    store = Store(tmp_path / "results.db")
    table = Table({f"p{i}": Bot(seed=i) for i in range(5)})
    hub = table.referee(store, Journal(store, PLACE))
    hub.referee.on_game_end.clear()  # not recorded: the journal keeps the ended game
    for session in table.sessions[:4]:
        hub.register(session)
    match = hub.play("avalon", [s.nick for s in table.sessions], AvalonOptions(), 3, gid="g1")
    (live,) = Journal(store, PLACE).unfinished()
    assert list(live.state) == ["published", "misses", "spoken", "kept", "refusals", "end"]
    assert live.state == match.state().to_json()
    assert stored_state(live) == match.state()  # the ids issued included, read from the stored ASKs
    assert stored_state(live).issued == asked("g1", live.lines) != set()


def test_a_restored_game_issues_none_of_the_ids_its_record_carries() -> None:
    """The record alone (no lines at all) says which ids were issued: the next request
    goes on from the highest, where ids count up (Avalon's)."""
    sent: list[str] = []
    output = MatchOutput(say=sent.append, tell=lambda nick, line: sent.append(line))
    names = [f"p{i}" for i in range(5)]
    match = Match("g1", AvalonGame(5, AvalonOptions(), 3), names, AvalonLines(), TimeoutConfig(), output)
    match.restore([], MatchState(0, (0,) * 5, (0,) * 5, issued=frozenset({1, 2, 7})), resumes=0)
    match.go_on(0.0)
    asks = [parse(line) for line in sent if line.startswith(ASK + " ")]
    assert asks and {int(msg.args[1]) for msg in asks} == {8}
