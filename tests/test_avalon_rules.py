"""The Avalon rules, checked against the rule sources the arena was built from.

Expected values are transcribed from the sources (README decisions, the IRC readme's tables
and the visibility table of the optional rules), never computed from the engine's own tables.
Games are driven to precise situations with scripted answers through the public API.
"""

from __future__ import annotations

import itertools
import pickle
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest
from _pytest.mark import ParameterSet

from arena.core.decisions import Decision
from arena.core.events import Event
from arena.core.errors import ErrorCode, IllegalAction, SetupError
from arena.core.options import OptionError
from arena.games.avalon.engine import AvalonGame
from arena.games.avalon.options import AvalonOptions
from arena.games.avalon.roles import Role, Side

# ---------------------------------------------------------------------------------------------
# Expected tables, from the sources
# ---------------------------------------------------------------------------------------------

# README decisions: good/evil by player count (9 -> 6/3 by default, 5/4 as an override).
GOOD_EVIL = {5: (3, 2), 6: (4, 2), 7: (4, 3), 8: (5, 3), 9: (6, 3), 10: (6, 4)}

# avalon-irc-readme.txt: players on each of the five quests.
QUEST_SIZES = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}

GOOD_ROLES = {Role.MERLIN, Role.PERCIVAL, Role.GOOD_LANCELOT, Role.SERVANT}
EVIL_ROLES = {Role.ASSASSIN, Role.MORDRED, Role.MORGANA, Role.EVIL_LANCELOT, Role.OBERON, Role.MINION}

# The visibility table of avalon-optional-rules.zh.md, copied verbatim (it is authoritative).
VISIBILITY_TABLE = """
             | 梅林 | 派西维尔 | 兰斯洛特(正) | 正 | 刺客 | 莫德雷德 | 莫甘娜 | 兰斯洛特(邪) | 奥伯伦 | 邪
-------------|------|----------|--------------|----|------|----------|--------|--------------|--------|----
梅林         |  .   |   x      |      x       | x  |  V   |    x     |   V    |     V        |    V   | V
派西维尔     |  V   |   .      |      x       | x  |  x   |    x     |   V    |     x        |    x   | x
兰斯洛特(正) |  x   |   x      |      .       | x  |  x   |    x     |   x    |     ?        |    x   | x
正           |  x   |   x      |      x       | .  |  x   |    x     |   x    |     x        |    x   | x
刺客         |  x   |   x      |      x       | x  |  .   |    V     |   V    |     V        |    x   | V
莫德雷德     |  x   |   x      |      x       | x  |  V   |    .     |   V    |     V        |    x   | V
莫甘娜       |  x   |   x      |      x       | x  |  V   |    V     |   .    |     V        |    x   | V
兰斯洛特(邪) |  x   |   x      |      ?       | x  |  ?   |    ?     |   ?    |     ?        |    x   | ?
奥伯伦       |  x   |   x      |      x       | x  |  x   |    x     |   x    |     x        |    .   | x
邪           |  x   |   x      |      x       | x  |  V   |    V     |   V    |     V        |    x   | V
"""

ROLE_NAMES = {
    "梅林": Role.MERLIN,
    "派西维尔": Role.PERCIVAL,
    "兰斯洛特(正)": Role.GOOD_LANCELOT,
    "正": Role.SERVANT,
    "刺客": Role.ASSASSIN,
    "莫德雷德": Role.MORDRED,
    "莫甘娜": Role.MORGANA,
    "兰斯洛特(邪)": Role.EVIL_LANCELOT,
    "奥伯伦": Role.OBERON,
    "邪": Role.MINION,
}


def _parse_table(text: str) -> dict[tuple[Role, Role], str]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    header = [ROLE_NAMES[c.strip()] for c in lines[0].split("|")[1:]]
    cells: dict[tuple[Role, Role], str] = {}
    for line in lines[2:]:
        parts = [c.strip() for c in line.split("|")]
        observer = ROLE_NAMES[parts[0]]
        for seen, cell in zip(header, parts[1:], strict=True):
            assert cell in {".", "x", "V", "?"}
            cells[(observer, seen)] = cell
    return cells


TABLE = _parse_table(VISIBILITY_TABLE)
assert len(TABLE) == 100


def table_sees(observer: Role, seen: Role, variant: int) -> bool:
    cell = TABLE[(observer, seen)]
    return cell == "V" or (cell == "?" and variant == 3)


# ---------------------------------------------------------------------------------------------
# Helpers: build games and play scripted answers through the public API
# ---------------------------------------------------------------------------------------------


def new_game(players: int, seed: int = 0, **options: Any) -> AvalonGame:
    return AvalonGame(players, AvalonOptions(**options), seed)


def seats_of(game: AvalonGame, role: Role) -> list[int]:
    return [s for s, r in enumerate(game.roles) if r is role]


def seat_of(game: AvalonGame, role: Role) -> int:
    (seat,) = seats_of(game, role)
    return seat


def side_seats(game: AvalonGame, side: Side) -> list[int]:
    return [s for s in range(game.players) if game.sides_now[s] is side]


def decision_of(game: AvalonGame, seat: int) -> Decision:
    """What ``seat`` is asked now (it must be asked something)."""
    d = game.decision_for(seat)
    assert d is not None, f"seat {seat} is asked nothing"
    return d


def only_pending(game: AvalonGame, kind: str) -> Decision:
    pending = game.pending()
    assert len(pending) == 1 and pending[0].kind == kind, pending
    return pending[0]


def events_of(game: AvalonGame, kind: str) -> list[Event]:
    return [e for e in game.events if e.kind == kind]


def role_event(game: AvalonGame, seat: int) -> Event:
    found = [e for e in game.events if e.kind == "role" and e.data["seat"] == seat]
    assert len(found) == 1
    return found[0]


def propose(game: AvalonGame, team: Iterable[int]) -> list[Event]:
    return game.apply(game.leader, "team", tuple(team))


def vote(game: AvalonGame, approvers: Iterable[int]) -> list[Event]:
    approvers = set(approvers)
    new: list[Event] = []
    for s in range(game.players):
        new += game.apply(s, "vote", "approve" if s in approvers else "reject")
    return new


def reject_once(game: AvalonGame) -> dict[str, Any]:
    d = only_pending(game, "team")
    propose(game, range(d.count))
    vote(game, ())
    return events_of(game, "votes")[-1].data


def play_cards(game: AvalonGame, fails: Iterable[int] = ()) -> None:
    for s in game.team:
        game.apply(s, "quest", "fail" if s in fails else "success")


def run_quest(game: AvalonGame, n_fail: int = 0) -> dict[str, Any]:
    """Propose a team with ``n_fail`` currently-evil seats who fail and good seats who succeed."""
    d = only_pending(game, "team")
    evil = side_seats(game, Side.EVIL)[:n_fail]
    good = side_seats(game, Side.GOOD)[: d.count - n_fail]
    assert len(evil) == n_fail and len(evil) + len(good) == d.count
    propose(game, evil + good)
    vote(game, range(game.players))
    play_cards(game, fails=evil)
    return events_of(game, "quest")[-1].data


def run_quests(game: AvalonGame, plan: str) -> None:
    """``plan`` is a string of quests: S (no fail), F (one fail), D (two fails)."""
    for step in plan:
        run_quest(game, "SFD".index(step))


def find_seed(predicate: Callable[[AvalonGame], bool], players: int, limit: int = 2000, **options: Any) -> AvalonGame:
    for seed in range(limit):
        game = new_game(players, seed, **options)
        if predicate(game):
            return game
    raise AssertionError("no seed found")


def all_options() -> Iterator[AvalonOptions]:
    for merlin, percival, morgana, mordred, oberon in itertools.product((False, True), repeat=5):
        for lancelot in range(4):
            for evil_at_nine in (3, 4):
                yield AvalonOptions(
                    merlin=merlin,
                    percival=percival,
                    morgana=morgana,
                    mordred=mordred,
                    oberon=oberon,
                    lancelot=lancelot,
                    evil_at_nine=evil_at_nine,
                )


# ---------------------------------------------------------------------------------------------
# 1. Tables
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(5, 11))
@pytest.mark.parametrize("options", [{}, {"merlin": False}, {"percival": True, "lancelot": 1}])
def test_good_evil_counts(players: int, options: dict[str, bool | int]) -> None:
    good, evil = GOOD_EVIL[players]
    for seed in range(5):
        game = new_game(players, seed, **options)
        setup = game.events[0]
        assert setup.kind == "setup" and setup.public
        assert (setup.data["good"], setup.data["evil"]) == (good, evil)
        assert sum(r in GOOD_ROLES for r in game.roles) == good
        assert sum(r in EVIL_ROLES for r in game.roles) == evil
        assert Counter(s.value for s in game.sides_now) == {"good": good, "evil": evil}


def test_evil_at_nine_override() -> None:
    for options in ({}, {"merlin": False}, {"morgana": True, "mordred": True, "oberon": True}):
        game = new_game(9, 1, evil_at_nine=4, **options)
        assert (game.events[0].data["good"], game.events[0].data["evil"]) == (5, 4)
        assert sum(r in EVIL_ROLES for r in game.roles) == 4
    # Three special evil roles besides the assassin need the override at nine players.
    with pytest.raises(SetupError):
        new_game(9, morgana=True, mordred=True, oberon=True)


@pytest.mark.parametrize("players", [5, 6, 7, 8, 10])
def test_evil_at_nine_only_applies_to_nine(players: int) -> None:
    game = new_game(players, evil_at_nine=4)
    assert (game.events[0].data["good"], game.events[0].data["evil"]) == GOOD_EVIL[players]


@pytest.mark.parametrize("players", range(5, 11))
def test_quest_sizes(players: int) -> None:
    game = new_game(players, 3, merlin=False)
    setup = game.events[0].data
    assert tuple(setup["quest_sizes"]) == QUEST_SIZES[players]
    assert setup["fails_needed"] == [1, 1, 1, 2 if players >= 7 else 1, 1]
    # S F S F reaches the fifth quest; every quest asks for a team of the table's size.
    for quest, step in enumerate("SFSDS" if players >= 7 else "SFSFS"):
        d = only_pending(game, "team")
        assert d.count == QUEST_SIZES[players][quest]
        assert events_of(game, "leader")[-1].data["size"] == QUEST_SIZES[players][quest]
        assert events_of(game, "leader")[-1].data["quest"] == quest + 1
        run_quest(game, "SFD".index(step))
    assert len(events_of(game, "quest")) == 5
    assert [len(e.data["team"]) for e in events_of(game, "quest")] == list(QUEST_SIZES[players])


@pytest.mark.parametrize("players", [7, 8, 9, 10])
def test_fourth_quest_one_fail_succeeds_at_seven_plus(players: int) -> None:
    game = new_game(players, 2)
    run_quests(game, "FSF")
    q4 = run_quest(game, 1)
    assert q4["quest"] == 4 and q4["fails"] == 1 and q4["result"] == "success"
    assert (q4["successes"], q4["failures"]) == (2, 2)
    assert game.result is None and only_pending(game, "team")


@pytest.mark.parametrize("players", [7, 8, 9, 10])
def test_fourth_quest_two_fails_fail_at_seven_plus(players: int) -> None:
    game = new_game(players, 2)
    run_quests(game, "SFS")
    q4 = run_quest(game, 2)
    assert q4["quest"] == 4 and q4["fails"] == 2 and q4["result"] == "fail"
    assert game.result is None


@pytest.mark.parametrize("players", [5, 6])
def test_fourth_quest_one_fail_fails_below_seven(players: int) -> None:
    game = new_game(players, 2)
    run_quests(game, "SFS")
    q4 = run_quest(game, 1)
    assert q4["quest"] == 4 and q4["fails"] == 1 and q4["result"] == "fail"


@pytest.mark.parametrize("players", [7, 10])
@pytest.mark.parametrize("quest,before", [(1, ""), (2, "S"), (3, "SS"), (5, "SFSD")])
def test_one_fail_sinks_other_quests_at_seven_plus(players: int, quest: int, before: str) -> None:
    game = new_game(players, 4, merlin=False)
    run_quests(game, before)
    data = run_quest(game, 1)
    assert data["quest"] == quest and data["fails"] == 1 and data["result"] == "fail"


def test_first_leader_and_roles_are_random() -> None:
    leaders = Counter(new_game(5, seed).leader for seed in range(200))
    assert set(leaders) == set(range(5))
    merlins = Counter(new_game(5, seed).roles.index(Role.MERLIN) for seed in range(200))
    assert set(merlins) == set(range(5))
    first = [e.data["leader"] for e in (events_of(new_game(5, seed), "leader")[0] for seed in range(20))]
    assert first == [new_game(5, seed).leader for seed in range(20)]


# ---------------------------------------------------------------------------------------------
# 2. Visibility
# ---------------------------------------------------------------------------------------------

ROLE_FLAG = {Role.PERCIVAL: "percival", Role.MORGANA: "morgana", Role.MORDRED: "mordred", Role.OBERON: "oberon"}
LANCELOTS = {Role.GOOD_LANCELOT, Role.EVIL_LANCELOT}
UNIQUE = set(Role) - {Role.SERVANT, Role.MINION}


def _cells() -> Iterator[ParameterSet]:
    for observer, seen in TABLE:
        if observer == seen and observer in UNIQUE:
            continue  # a role of which there is only one never sees itself
        for variant in (0, 1, 2, 3):
            if variant == 0 and (observer in LANCELOTS or seen in LANCELOTS):
                continue
            yield pytest.param(observer, seen, variant, id=f"{observer.value}-sees-{seen.value}-lancelot{variant}")


def _configs_with(observer: Role, seen: Role, variant: int) -> list[tuple[int, AvalonOptions]]:
    """Every (players, options) whose deal contains ``observer`` and ``seen`` (twice if equal)."""
    flags = {ROLE_FLAG[r]: True for r in (observer, seen) if r in ROLE_FLAG}
    found: list[tuple[int, AvalonOptions]] = []
    for players, evil_at_nine in [(5, 3), (6, 3), (7, 3), (8, 3), (9, 3), (9, 4), (10, 3)]:
        options = AvalonOptions(lancelot=variant, evil_at_nine=evil_at_nine, **flags)
        try:
            roles = Counter(options.roles(players))
        except SetupError:
            continue
        if roles[observer] >= 1 + (observer == seen) and roles[seen] >= 1:
            found.append((players, options))
    assert found, (observer, seen, variant)
    return found


def assert_role_events_follow_table(game: AvalonGame, variant: int) -> None:
    roles = game.roles
    role_events = events_of(game, "role")
    assert [e.data["seat"] for e in role_events] == list(range(game.players))
    for seat, event in enumerate(role_events):
        assert event.audience == frozenset({seat})
        assert event.data["role"] == roles[seat].value
        assert event.data["side"] == ("good" if roles[seat] in GOOD_ROLES else "evil")
        expected = [s for s in range(game.players) if s != seat and table_sees(roles[seat], roles[s], variant)]
        assert event.data["sees"] == expected, (roles[seat], [roles[s] for s in event.data["sees"]])
        assert seat not in event.data["sees"]


@pytest.mark.parametrize("observer,seen,variant", list(_cells()))
def test_visibility_cell(observer: Role, seen: Role, variant: int) -> None:
    visible = table_sees(observer, seen, variant)
    for players, options in _configs_with(observer, seen, variant):
        for seed in range(2):
            game = AvalonGame(players, options, seed)
            seen_seats = set(seats_of(game, seen))
            for seat in seats_of(game, observer):
                event = role_event(game, seat)
                assert event.audience == frozenset({seat})
                others = seen_seats - {seat}
                assert others
                got = set(event.data["sees"]) & others
                assert got == (others if visible else set()), (players, options, seed, seat)
            assert_role_events_follow_table(game, variant)


def test_visibility_table_transcription_spot_checks() -> None:
    # A few cells read by hand from the source, so a parsing slip cannot go unnoticed.
    assert TABLE[(Role.MERLIN, Role.MORDRED)] == "x"
    assert TABLE[(Role.MERLIN, Role.OBERON)] == "V"
    assert TABLE[(Role.PERCIVAL, Role.MORGANA)] == "V"
    assert TABLE[(Role.PERCIVAL, Role.ASSASSIN)] == "x"  # the Lua table says otherwise; markdown wins
    assert TABLE[(Role.MINION, Role.MINION)] == "V"
    assert TABLE[(Role.ASSASSIN, Role.OBERON)] == "x"
    assert TABLE[(Role.EVIL_LANCELOT, Role.ASSASSIN)] == "?"
    assert TABLE[(Role.GOOD_LANCELOT, Role.EVIL_LANCELOT)] == "?"
    assert TABLE[(Role.EVIL_LANCELOT, Role.OBERON)] == "x"


@pytest.mark.parametrize("variant", [0, 1, 2, 3])
def test_visibility_in_rich_deals(variant: int) -> None:
    # Many roles at once, at every player count and evil count that allows them.
    for options in all_options():
        if not options.merlin or options.lancelot != variant:
            continue
        for players in range(5, 11):
            try:
                options.roles(players)
            except SetupError:
                continue
            for seed in range(2):
                assert_role_events_follow_table(AvalonGame(players, options, seed), variant)


@pytest.mark.parametrize("players", range(5, 11))
def test_plain_mode_visibility(players: int) -> None:
    for evil_at_nine in (3, 4):
        for seed in range(3):
            game = new_game(players, seed, merlin=False, evil_at_nine=evil_at_nine)
            assert set(game.roles) == {Role.SERVANT, Role.MINION}
            minions = seats_of(game, Role.MINION)
            for seat in range(players):
                event = role_event(game, seat)
                assert event.audience == frozenset({seat})
                if game.roles[seat] is Role.SERVANT:
                    assert event.data["sees"] == []
                else:
                    assert event.data["sees"] == [s for s in minions if s != seat]


# ---------------------------------------------------------------------------------------------
# 3. End reasons
# ---------------------------------------------------------------------------------------------


def assert_end(game: AvalonGame, winner: str, reason: str) -> None:
    assert game.result is not None
    assert game.result.winner == winner and game.result.reason == reason
    side = Side(winner)
    assert game.result.winners == frozenset(side_seats(game, side))
    assert game.pending() == ()
    end = game.events[-1]
    assert end.kind == "end" and end.public
    assert end.data["winner"] == winner and end.data["reason"] == reason
    assert end.data["roles"] == [r.value for r in game.roles]
    assert end.data["sides"] == [s.value for s in game.sides_now]


@pytest.mark.parametrize("merlin", [True, False])
@pytest.mark.parametrize("plan", ["FFF", "SFSFF", "FSSFF"])
def test_three_fails(merlin: bool, plan: str) -> None:
    game = new_game(5, 7, merlin=merlin)
    run_quests(game, plan[:-1])
    assert game.result is None
    last = run_quest(game, 1)
    assert (last["successes"], last["failures"]) == (plan.count("S"), 3)
    assert_end(game, "evil", "three_fails")
    assert game.result is not None
    assert game.result.winners == frozenset(s for s, r in enumerate(game.roles) if r in EVIL_ROLES)


def test_five_rejections_in_a_row() -> None:
    game = new_game(6, 5)
    for n in range(1, 5):
        assert reject_once(game)["rejections"] == n
        assert game.result is None
        assert events_of(game, "leader")[-1].data["rejections"] == n
        only_pending(game, "team")
    data = reject_once(game)
    assert data["rejections"] == 5 and data["passed"] is False
    assert_end(game, "evil", "five_rejections")


def test_rejections_reset_by_an_approved_team() -> None:
    game = new_game(6, 5)
    for _ in range(4):
        reject_once(game)
    # The fifth proposal of the quest is approved: the count resets.
    d = only_pending(game, "team")
    propose(game, side_seats(game, Side.GOOD)[: d.count])
    vote(game, range(6))
    assert events_of(game, "votes")[-1].data["rejections"] == 0
    play_cards(game)
    assert events_of(game, "leader")[-1].data["rejections"] == 0
    for n in range(1, 5):
        assert reject_once(game)["rejections"] == n
    assert game.result is None
    # Approve again mid-quest; four more rejections still do not end the game.
    run_quest(game, 0)
    for n in range(1, 5):
        assert reject_once(game)["rejections"] == n
    assert game.result is None
    reject_once(game)
    assert_end(game, "evil", "five_rejections")


@pytest.mark.parametrize("players", range(5, 11))
def test_three_successes_without_merlin(players: int) -> None:
    game = new_game(players, 11, merlin=False)
    run_quests(game, "SFS")
    assert game.result is None
    last = run_quest(game, 0)
    assert (last["successes"], last["failures"]) == (3, 1)
    assert_end(game, "good", "three_successes")
    assert not events_of(game, "assassination_phase")


def _game_at_assassination(players: int = 7, seed: int = 13, **options: Any) -> AvalonGame:
    game = new_game(players, seed, **options)
    run_quests(game, "SSFS")
    return game


def test_assassin_gets_the_only_decision_after_three_successes() -> None:
    for players in range(5, 11):
        game = _game_at_assassination(players)
        assassin = seat_of(game, Role.ASSASSIN)
        assert game.result is None
        assert game.pending() == (
            Decision(assassin, "assassinate", tuple(s for s in range(players) if s != assassin), 1, targets=True),
        )
        assert events_of(game, "assassination_phase")[-1].data == {"assassin": assassin}
        # Nobody else may act, and no team is asked for.
        for seat in range(players):
            if seat != assassin:
                with pytest.raises(IllegalAction):
                    game.apply(seat, "assassinate", assassin)
        with pytest.raises(IllegalAction):
            game.apply(game.leader, "team", tuple(range(QUEST_SIZES[players][0])))


@pytest.mark.parametrize("players", range(5, 11))
def test_assassination_outcomes(players: int) -> None:
    options = {"percival": True, "morgana": True} if players >= 7 else {}
    game = _game_at_assassination(players, **options)
    assassin = seat_of(game, Role.ASSASSIN)
    merlin = seat_of(game, Role.MERLIN)
    saved = pickle.dumps(game)
    for target in range(players):
        if target == assassin:
            continue
        trial = pickle.loads(saved)
        trial.apply(assassin, "assassinate", target)
        hit = target == merlin
        assert events_of(trial, "assassination")[-1].data == {"assassin": assassin, "target": target, "hit": hit}
        if hit:
            assert_end(trial, "evil", "assassinated_merlin")
        else:
            assert_end(trial, "good", "merlin_survived")


# ---------------------------------------------------------------------------------------------
# 4. Votes and leadership
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(5, 11))
def test_strict_majority(players: int) -> None:
    base = pickle.dumps(new_game(players, 21))
    for approvals in range(players + 1):
        game = pickle.loads(base)
        d = only_pending(game, "team")
        propose(game, range(d.count))
        approvers = set(range(players - approvals, players))  # any subset of that size
        vote(game, approvers)
        data = events_of(game, "votes")[-1].data
        assert data["passed"] is (2 * approvals > players)
        assert data["approve"] == sorted(approvers)
        assert data["reject"] == sorted(set(range(players)) - approvers)
        if data["passed"]:
            assert {d.kind for d in game.pending()} == {"quest"}
        else:
            only_pending(game, "team")


@pytest.mark.parametrize(
    "players,approvals,passed",
    [(10, 5, False), (10, 6, True), (5, 3, True), (5, 2, False), (6, 3, False), (6, 4, True)],
)
def test_majority_examples(players: int, approvals: int, passed: bool) -> None:
    game = new_game(players, 1)
    propose(game, range(only_pending(game, "team").count))
    vote(game, range(approvals))
    assert events_of(game, "votes")[-1].data["passed"] is passed


def test_votes_are_revealed_together_after_the_last_vote() -> None:
    game = new_game(8, 2)
    propose(game, range(3))
    order = [5, 2, 7, 0, 3, 6, 1, 4]
    seen_before = len(game.events)
    for i, seat in enumerate(order):
        new = game.apply(seat, "vote", "approve" if seat % 2 else "reject")
        if i < len(order) - 1:
            assert new == []
            assert len(game.events) == seen_before
            assert {d.seat for d in game.pending()} == set(order[i + 1 :])
        else:
            assert new[0].kind == "votes" and new[0].public
            assert new[0].data["approve"] == [1, 3, 5, 7]
            assert new[0].data["reject"] == [0, 2, 4, 6]
            assert len(events_of(game, "votes")) == 1


@pytest.mark.parametrize("players", [5, 7, 10])
def test_leader_passes_to_next_seat_after_every_proposal(players: int) -> None:
    game = new_game(players, 9)
    leaders = [game.leader]
    # Rejections, approvals and quests mixed, long enough to wrap around the table.
    script = ["R", "R", "S", "R", "F", "R", "R", "R", "R", "F", "R", "R", "S"]
    for step in script:
        if not (game.pending() and game.pending()[0].kind == "team"):
            break  # the game ended or the assassin is to choose
        team_events = len(events_of(game, "team"))
        if step == "R":
            reject_once(game)
        else:
            run_quest(game, 0 if step == "S" else 1)
        assert events_of(game, "team")[team_events].data["leader"] == leaders[-1]
        leaders.append(game.leader)
        if game.pending() and game.pending()[0].kind == "team":
            assert events_of(game, "leader")[-1].data["leader"] == game.leader
    assert len(leaders) > players
    for before, after in zip(leaders, leaders[1:]):
        assert after == (before + 1) % players


# ---------------------------------------------------------------------------------------------
# 5. Quest cards
# ---------------------------------------------------------------------------------------------


def _on_team(game: AvalonGame, members: Iterable[int]) -> None:
    """Put exactly ``members`` (padded with good seats) on an approved team."""
    d = only_pending(game, "team")
    members = list(members)
    for s in side_seats(game, Side.GOOD):
        if len(members) == d.count:
            break
        if s not in members:
            members.append(s)
    propose(game, members)
    vote(game, range(game.players))


@pytest.mark.parametrize(
    "options,role",
    [
        ({"merlin": False}, Role.SERVANT),
        ({}, Role.MERLIN),
        ({}, Role.SERVANT),
        ({"percival": True}, Role.PERCIVAL),
        ({"lancelot": 1}, Role.GOOD_LANCELOT),
        ({"lancelot": 3}, Role.GOOD_LANCELOT),
    ],
)
def test_good_must_play_success(options: dict[str, bool | int], role: Role) -> None:
    game = new_game(7, 3, **options)
    seat = seats_of(game, role)[0]
    _on_team(game, [seat])
    assert decision_of(game, seat).options == ("success",)
    before = pickle.dumps(game)
    with pytest.raises(IllegalAction) as err:
        game.apply(seat, "quest", "fail")
    assert err.value.code is ErrorCode.ACTION_NOT_ALLOWED
    assert pickle.dumps(game) == before
    game.apply(seat, "quest", "success")


@pytest.mark.parametrize(
    "options,role",
    [
        ({"merlin": False}, Role.MINION),
        ({}, Role.ASSASSIN),
        ({}, Role.MINION),
        ({"morgana": True}, Role.MORGANA),
        ({"mordred": True}, Role.MORDRED),
        ({"oberon": True}, Role.OBERON),
        ({"lancelot": 1}, Role.EVIL_LANCELOT),
        ({"lancelot": 3}, Role.EVIL_LANCELOT),
    ],
)
@pytest.mark.parametrize("card", ["success", "fail"])
def test_evil_may_play_either_card(options: dict[str, bool | int], role: Role, card: str) -> None:
    game = new_game(7, 3, **options)
    seat = seats_of(game, role)[0]
    _on_team(game, [seat])
    assert set(decision_of(game, seat).options) == {"success", "fail"}
    game.apply(seat, "quest", card)
    for s in game.team:
        if s != seat:
            game.apply(s, "quest", "success")
    data = events_of(game, "quest")[-1].data
    assert data["fails"] == (card == "fail")
    assert data["result"] == ("fail" if card == "fail" else "success")


def _deck(game: AvalonGame) -> list[str]:
    cards: list[str] = events_of(game, "loyalty_deck")[0].data["cards"]
    return cards


def test_lancelot2_without_switch_constraints() -> None:
    game = find_seed(lambda g: _deck(g)[0] == "blank", 7, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    assert game.sides_now[good_l] is Side.GOOD and game.sides_now[evil_l] is Side.EVIL
    _on_team(game, [good_l, evil_l])
    assert decision_of(game, good_l).options == ("success",)
    assert decision_of(game, evil_l).options == ("fail",)
    for seat, card in ((good_l, "fail"), (evil_l, "success")):
        before = pickle.dumps(game)
        with pytest.raises(IllegalAction) as err:
            game.apply(seat, "quest", card)
        assert err.value.code is ErrorCode.ACTION_NOT_ALLOWED
        assert pickle.dumps(game) == before
    # Other evil players still choose freely under variant 2.
    game2 = find_seed(lambda g: _deck(g)[0] == "blank", 7, lancelot=2)
    _on_team(game2, [seat_of(game2, Role.ASSASSIN)])
    assert set(decision_of(game2, seat_of(game2, Role.ASSASSIN)).options) == {"success", "fail"}


def test_the_default_quest_card_is_the_first_offered_fail_when_it_is_the_only_one() -> None:
    """protocol.md, section 4: a silent quester's card is ``success``, or ``fail`` where that is
    all it is offered (the Lancelot who is evil now, under variant 2)."""
    game = find_seed(lambda g: _deck(g)[0] == "blank", 7, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    _on_team(game, [good_l, evil_l])
    assert game.default_answer(decision_of(game, good_l)) == "success"
    assert game.default_answer(decision_of(game, evil_l)) == "fail"


def test_lancelot2_switch_at_first_quest_swaps_constraints() -> None:
    game = find_seed(lambda g: _deck(g)[0] == "switch", 7, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    assert events_of(game, "loyalty")[0].data == {"quest": 1, "card": "switch"}
    assert game.sides_now[good_l] is Side.EVIL and game.sides_now[evil_l] is Side.GOOD
    # The role events told each Lancelot their starting side.
    assert role_event(game, good_l).data["side"] == "good"
    assert role_event(game, evil_l).data["side"] == "evil"
    _on_team(game, [good_l, evil_l])
    assert decision_of(game, good_l).options == ("fail",)
    assert decision_of(game, evil_l).options == ("success",)


def test_lancelot1_switch_at_third_quest_swaps_constraints() -> None:
    found = None
    for seed in range(500):
        game = new_game(5, seed, lancelot=1)
        run_quests(game, "SF")
        if events_of(game, "loyalty")[-1].data["card"] == "switch":
            found = game
            break
    assert found is not None
    game = found
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    assert game.sides_now[good_l] is Side.EVIL and game.sides_now[evil_l] is Side.GOOD
    _on_team(game, [good_l, evil_l])
    assert set(decision_of(game, good_l).options) == {"success", "fail"}
    assert decision_of(game, evil_l).options == ("success",)
    with pytest.raises(IllegalAction) as err:
        game.apply(evil_l, "quest", "fail")
    assert err.value.code is ErrorCode.ACTION_NOT_ALLOWED


def test_lancelot_winners_follow_final_side_evil_win() -> None:
    # Variant 2, an odd number of switches among the first three cards, evil wins three fails.
    game = find_seed(lambda g: _deck(g)[:3].count("switch") == 1, 5, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    run_quests(game, "FFF")
    assert_end(game, "evil", "three_fails")
    assert game.result is not None
    assert good_l in game.result.winners and evil_l not in game.result.winners
    assert game.events[-1].data["sides"][good_l] == "evil"


def test_lancelot_winners_follow_final_side_good_win() -> None:
    game = find_seed(lambda g: _deck(g)[:4].count("switch") == 1 and _deck(g)[3] == "blank", 5, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    run_quests(game, "SSFS")
    assassin = seat_of(game, Role.ASSASSIN)
    target = next(s for s in range(5) if s not in (assassin, seat_of(game, Role.MERLIN)))
    game.apply(assassin, "assassinate", target)
    assert_end(game, "good", "merlin_survived")
    assert game.result is not None
    assert evil_l in game.result.winners and good_l not in game.result.winners


def test_lancelot_winners_with_even_switches_keep_starting_sides() -> None:
    game = find_seed(lambda g: _deck(g)[:3].count("switch") == 2, 5, lancelot=2)
    good_l, evil_l = seat_of(game, Role.GOOD_LANCELOT), seat_of(game, Role.EVIL_LANCELOT)
    run_quests(game, "FFF")
    assert_end(game, "evil", "three_fails")
    assert game.result is not None
    assert evil_l in game.result.winners and good_l not in game.result.winners


# ---------------------------------------------------------------------------------------------
# 6. Lancelot loyalty decks
# ---------------------------------------------------------------------------------------------


def _play_to_end_alternating(game: AvalonGame, check: Callable[[AvalonGame], None]) -> None:
    """Play S F S F S (as far as the game goes), calling ``check`` after every quest start."""
    for step in "SFSFS":
        if game.result is not None:
            return
        check(game)
        run_quest(game, 0 if step == "S" else 1)


def _lancelot_sides(game: AvalonGame) -> tuple[Side, Side]:
    return (game.sides_now[seat_of(game, Role.GOOD_LANCELOT)], game.sides_now[seat_of(game, Role.EVIL_LANCELOT)])


def test_variant1_reveals_from_the_third_quest() -> None:
    sequences: Counter[tuple[str, ...]] = Counter()
    first_cards: Counter[str] = Counter()
    for seed in range(300):
        game = new_game(5, seed, lancelot=1)
        assert not events_of(game, "loyalty_deck")
        switches = 0

        def check(g: AvalonGame) -> None:
            nonlocal switches
            quest = len(events_of(g, "quest")) + 1
            loyalty = events_of(g, "loyalty")
            assert len(loyalty) == max(0, quest - 2)
            if quest >= 3:
                event = loyalty[-1]
                assert event.public and event.data["quest"] == quest
                # Revealed at the start of the quest, just before its first leader event.
                i = g.events.index(event)
                assert g.events[i + 1].kind == "leader" and g.events[i + 1].data == {
                    "quest": quest,
                    "attempt": 1,
                    "leader": g.leader,
                    "size": QUEST_SIZES[5][quest - 1],
                    "rejections": 0,
                }
                if event.data["card"] == "switch":
                    switches += 1
            start = (Side.GOOD, Side.EVIL)
            assert _lancelot_sides(g) == (start if switches % 2 == 0 else start[::-1])

        _play_to_end_alternating(game, check)
        cards = tuple(e.data["card"] for e in events_of(game, "loyalty"))
        assert len(events_of(game, "quest")) == 5 and len(cards) == 3
        assert set(cards) <= {"blank", "switch"}
        assert cards.count("switch") <= 2
        sequences[cards] += 1
        first_cards[cards[0]] += 1
    # Three cards from 3 blank + 2 switch: every sequence but three switches occurs.
    assert set(sequences) == set(itertools.product(("blank", "switch"), repeat=3)) - {("switch",) * 3}
    # P(switch first) = 2/5: a loose band, fixed seeds make this deterministic.
    assert 80 <= first_cards["switch"] <= 160


def test_variant1_no_loyalty_when_game_ends_early() -> None:
    game = new_game(5, 0, lancelot=1, merlin=True)
    run_quests(game, "F")
    assert not events_of(game, "loyalty")
    run_quests(game, "F")
    assert [e.data["quest"] for e in events_of(game, "loyalty")] == [3]
    run_quest(game, 1)
    assert game.result is not None
    assert len(events_of(game, "loyalty")) == 1


def test_variant2_deck_is_public_and_applied_in_order() -> None:
    switch_counts: Counter[int] = Counter()
    for seed in range(300):
        game = new_game(5, seed, lancelot=2)
        decks = events_of(game, "loyalty_deck")
        assert len(decks) == 1 and decks[0].public
        cards = decks[0].data["cards"]
        assert len(cards) == 5 and set(cards) <= {"blank", "switch"}
        assert cards.count("switch") <= 2
        switch_counts[cards.count("switch")] += 1
        # Dealt at setup, before the first leader is named.
        assert game.events.index(decks[0]) < game.events.index(events_of(game, "leader")[0])
        switches = 0

        def check(g: AvalonGame) -> None:
            nonlocal switches
            quest = len(events_of(g, "quest")) + 1
            loyalty = events_of(g, "loyalty")
            assert [e.data for e in loyalty] == [{"quest": i + 1, "card": cards[i]} for i in range(quest)]
            assert all(e.public for e in loyalty)
            switches = cards[:quest].count("switch")
            start = (Side.GOOD, Side.EVIL)
            assert _lancelot_sides(g) == (start if switches % 2 == 0 else start[::-1])

        _play_to_end_alternating(game, check)
        assert len(events_of(game, "loyalty")) == 5
    # Five of 5 blank + 2 switch: 0, 1 and 2 switches all occur (0 with probability 1/21).
    assert set(switch_counts) == {0, 1, 2}


@pytest.mark.parametrize("variant", [0, 3])
def test_no_deck_without_variant_1_or_2(variant: int) -> None:
    for seed in range(30):
        game = new_game(5, seed, lancelot=variant)
        start = list(game.sides_now)
        _play_to_end_alternating(game, lambda g: None)
        assert not events_of(game, "loyalty") and not events_of(game, "loyalty_deck")
        assert game.sides_now == start


# ---------------------------------------------------------------------------------------------
# 7. Setup and option errors
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        {"percival": True},
        {"morgana": True},
        {"mordred": True},
        {"oberon": True},
        {"lancelot": 1},
        {"lancelot": 2},
        {"lancelot": 3},
    ],
)
@pytest.mark.parametrize("players", [5, 10])
def test_plain_mode_forbids_other_options(extra: dict[str, Any], players: int) -> None:
    with pytest.raises(SetupError):
        new_game(players, merlin=False, **extra)
    with pytest.raises(SetupError):
        AvalonGame.check_setup(players, AvalonOptions(merlin=False, **extra))


def test_too_many_special_evil_roles() -> None:
    with pytest.raises(SetupError):
        new_game(5, morgana=True, mordred=True)
    with pytest.raises(SetupError):
        new_game(6, lancelot=1, oberon=True)
    with pytest.raises(SetupError):
        new_game(8, morgana=True, mordred=True, oberon=True)
    with pytest.raises(SetupError):
        new_game(10, morgana=True, mordred=True, oberon=True, lancelot=2)
    # Just enough seats is fine.
    new_game(5, morgana=True)
    new_game(7, morgana=True, mordred=True)
    new_game(10, morgana=True, mordred=True, oberon=True)
    new_game(9, morgana=True, mordred=True, oberon=True, evil_at_nine=4)


def test_too_many_special_good_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    # With the real tables every count has at least 3 good seats, enough for Merlin, Percival
    # and the good Lancelot; the check is exercised with a patched count (asked of the
    # options: a game takes its roles from a table worked out once per player count).
    for players in range(5, 11):
        new_game(players, percival=True, lancelot=1)
    from arena.games.avalon import tables

    monkeypatch.setitem(tables.EVIL_COUNT, 5, 3)
    with pytest.raises(SetupError, match="good"):
        AvalonGame.check_setup(5, AvalonOptions(percival=True, lancelot=1))


@pytest.mark.parametrize("players", [-1, 0, 4, 11, 100])
def test_player_count_out_of_range(players: int) -> None:
    for options in (AvalonOptions(), AvalonOptions(merlin=False)):
        with pytest.raises(SetupError):
            AvalonGame(players, options, 0)
        with pytest.raises(SetupError):
            AvalonGame.check_setup(players, options)


def test_setup_validity_oracle_every_combination() -> None:
    """Every option combination at every count: valid exactly when the rules allow it."""
    for options in all_options():
        extras = [options.percival, options.morgana, options.mordred, options.oberon, options.lancelot != 0]
        for players in range(5, 11):
            good_seats, evil_seats = GOOD_EVIL[players]
            if players == 9 and options.evil_at_nine == 4:
                good_seats, evil_seats = 5, 4
            good_specials = options.merlin + options.percival + (options.lancelot != 0)
            evil_specials = (
                options.merlin + options.morgana + options.mordred + options.oberon + (options.lancelot != 0)
            )
            valid = (options.merlin or not any(extras)) and good_specials <= good_seats and evil_specials <= evil_seats
            if not valid:
                with pytest.raises(SetupError):
                    AvalonGame.check_setup(players, options)
                continue
            AvalonGame.check_setup(players, options)
            game = AvalonGame(players, options, players)
            roles = Counter(game.roles)
            expected: Counter[Role] = Counter()
            if options.merlin:
                expected[Role.MERLIN] = expected[Role.ASSASSIN] = 1
            for flag, role in (
                ("percival", Role.PERCIVAL),
                ("morgana", Role.MORGANA),
                ("mordred", Role.MORDRED),
                ("oberon", Role.OBERON),
            ):
                if getattr(options, flag):
                    expected[role] = 1
            if options.lancelot:
                expected[Role.GOOD_LANCELOT] = expected[Role.EVIL_LANCELOT] = 1
            expected[Role.SERVANT] = good_seats - good_specials
            expected[Role.MINION] = evil_seats - evil_specials
            assert roles == +expected


@pytest.mark.parametrize(
    "pairs",
    [
        ["excalibur=true"],
        ["Merlin=true"],
        ["merlin=maybe"],
        ["percival=2"],
        ["lancelot=4"],
        ["lancelot=-1"],
        ["lancelot=one"],
        ["lancelot=true"],
        ["evil_at_nine=5"],
        ["evil_at_nine="],
        ["morgana"],
        ["=true"],
        ["mordred=yes", "nonsense=1"],
    ],
)
def test_option_parsing_errors(pairs: list[str]) -> None:
    with pytest.raises(OptionError):
        AvalonOptions.from_pairs(pairs)


def test_option_parsing_accepts_good_values() -> None:
    opts = AvalonOptions.from_pairs(
        ["percival=yes", "morgana=ON", "mordred=1", "oberon=false", "lancelot=2", "evil_at_nine=4"]
    )
    assert opts == AvalonOptions(percival=True, morgana=True, mordred=True, oberon=False, lancelot=2, evil_at_nine=4)
    assert AvalonOptions.from_pairs([]) == AvalonOptions()
    assert AvalonOptions.from_pairs(["lancelot=3"], base={"lancelot": 1, "percival": True}) == AvalonOptions(
        lancelot=3, percival=True
    )
    assert AvalonOptions().to_dict() == {
        "merlin": True,
        "percival": False,
        "morgana": False,
        "mordred": False,
        "oberon": False,
        "lancelot": 0,
        "evil_at_nine": 3,
    }


def test_apply_round_is_each_answer_in_turn() -> None:
    """A round of votes answered in one call (``apply_round``, the simulator's way) leaves
    the history, the events and the next round as the answers applied one by one do; a
    refused answer refuses the round and changes nothing."""
    for seed in range(20):
        alone, together = new_game(7, seed), new_game(7, seed)
        for game in (alone, together):
            propose(game, range(only_pending(game, "team").count))
        votes = ["approve" if (seat + seed) % 3 else "reject" for seat in range(7)]
        for seat, value in enumerate(votes):
            alone.apply(seat, "vote", value)
        told = len(together.events)
        before = list(together.history)
        with pytest.raises(IllegalAction):
            together.apply_round([*votes[:-1], "maybe"])
        assert together.history == before and len(together.pending()) == 7
        new = together.apply_round(votes)
        assert new == together.events[told:] and new
        assert together.events == alone.events
        assert together.history == alone.history
        assert together.pending() == alone.pending()


def test_apply_round_answers_a_whole_tallied_round_only() -> None:
    game = new_game(5)
    with pytest.raises(ValueError):
        game.apply_round([(0, 1)])  # a team is proposed alone
    propose(game, range(only_pending(game, "team").count))
    with pytest.raises(ValueError):
        game.apply_round(["approve"] * 4)
    assert len(game.pending()) == 5


def test_a_choice_of_several_is_normalised_in_any_order() -> None:
    decision = Decision(0, "team", tuple(range(5)), 3, targets=True)
    answers: list[object] = [(0, 2, 4), [4, 0, 2], (2, 4, 0)]
    for answer in answers:
        assert decision.check(answer) == (0, 2, 4)
    refused: dict[object, ErrorCode] = {
        (0, 0, 1): ErrorCode.TARGET_INVALID,
        (1, 0, 0): ErrorCode.TARGET_INVALID,
        (0, True, 2): ErrorCode.TARGET_INVALID,
        (0, 1, 7): ErrorCode.TARGET_INVALID,
        (0, 1): ErrorCode.WRONG_COUNT,
        "012": ErrorCode.WRONG_COUNT,
        3: ErrorCode.WRONG_COUNT,
    }
    for answer, code in refused.items():
        with pytest.raises(IllegalAction) as refusal:
            decision.check(answer)
        assert refusal.value.code == code
