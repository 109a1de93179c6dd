"""Tuvalon's rules, checked against tuvalon-rules.zh.md and the rules README.

Expected values are transcribed from the sources (the role descriptions, the team-size table,
the protected quests, the hearing ranges), never computed from the engine's own tables.
"""

from __future__ import annotations

import random

import pytest

from arena.core.errors import ErrorCode, IllegalAction, SetupError
from arena.games.tuvalon import board
from arena.games.tuvalon.engine import TuvalonGame
from arena.games.tuvalon.options import TuvalonOptions
from arena.simulate import play_random

# 二、阵营与角色, and 2.【夜晚】阶段: who sees whom ("V"), for the six roles of the game.
# Knights see nobody and are seen by nobody; Oberon sees nobody and only Merlin sees him.
SEEN = {
    "merlin": {"morgana", "assassin", "oberon"},
    "percival": {"merlin", "morgana"},
    "knight": set(),
    "morgana": {"assassin"},
    "assassin": {"morgana"},
    "oberon": set(),
}
SIDE = {"merlin": "good", "percival": "good", "knight": "good", "morgana": "evil", "assassin": "evil", "oberon": "evil"}
HEARING = {"merlin": 1, "percival": 1, "morgana": 1, "assassin": 1, "knight": 2, "oberon": 2}


def roles_of(game: TuvalonGame) -> list[str]:
    return [e.data["role"] for e in game.events if e.kind == "role"]


def test_the_deal_is_seven_players_with_two_knights() -> None:
    for seed in range(20):
        assert sorted(roles_of(TuvalonGame(7, None, seed))) == sorted(
            ["merlin", "percival", "knight", "knight", "morgana", "assassin", "oberon"]
        )
    with pytest.raises(SetupError):
        TuvalonGame(6)


@pytest.mark.parametrize("seed", range(30))
def test_visibility_every_cell(seed: int) -> None:
    game = TuvalonGame(7, None, seed)
    roles = roles_of(game)
    for e in game.events:
        if e.kind != "role":
            continue
        me, role = e.data["seat"], e.data["role"]
        assert e.audience == frozenset({me})
        assert e.data["side"] == SIDE[role]
        assert e.data["hearing"] == HEARING[role]
        for other in range(7):
            if other != me:
                expected = roles[other] in SEEN[role]
                assert (other in e.data["sees"]) == expected, (role, roles[other])


def test_start_on_distinct_cells_inside_the_map() -> None:
    for seed in range(200):
        cells = next(e.data["cells"] for e in TuvalonGame(7, None, seed).events if e.kind == "positions")
        assert len(set(cells)) == 7
        assert all(board.on_map(board.parse(c)) for c in cells)  # type: ignore[arg-type]


@pytest.mark.parametrize("radius", [1, 2])
def test_hearing_range_is_a_square_clipped_by_the_edges(radius: int) -> None:
    # (cell, cells heard within radius 1, within radius 2), counted by hand on a 9×9 board
    expected = {
        "a1": (4, 9),
        "i9": (4, 9),
        "a9": (4, 9),
        "i1": (4, 9),
        "a5": (6, 15),
        "e1": (6, 15),
        "b2": (9, 16),
        "e5": (9, 25),
        "h8": (9, 16),
        "b5": (9, 20),
    }
    for name, counts in expected.items():
        here = board.parse(name)
        assert here is not None
        heard = [c for c in board.ALL_CELLS if board.distance(here, c) <= radius]
        assert len(heard) == counts[radius - 1], name
    assert board.distance((0, 0), (1, 1)) == 1 and board.distance((0, 0), (2, 2)) == 2
    assert board.distance((0, 0), (2, 1)) == 2 and board.distance((8, 8), (6, 8)) == 2


@pytest.mark.parametrize(
    "speaker_at, near, wide",
    [
        ("a1", 3, 8),
        ("i1", 3, 8),
        ("a9", 3, 8),
        ("i9", 3, 8),  # corners
        ("e1", 5, 14),
        ("a5", 5, 14),
        ("i5", 5, 14),
        ("e9", 5, 14),  # edges
        ("b2", 8, 15),
        ("h8", 8, 15),
        ("e5", 8, 24),  # one cell in, and the middle
    ],
)
def test_the_engine_hears_a_speaker_from_every_cell_of_the_square_clipped_by_the_map(
    speaker_at: str, near: int, wide: int
) -> None:
    """Each listener, of each range, tried on every other cell of the map: it hears the
    speaker exactly from the cells of its square that are on the map (counted by hand)."""
    game = TuvalonGame(7, None, 0)
    roles = roles_of(game)
    speaker = roles.index("merlin")
    here = board.parse(speaker_at)
    assert here is not None
    for radius, listener in ((1, roles.index("morgana")), (2, roles.index("oberon"))):
        others = [s for s in range(7) if s not in (speaker, listener)]
        heard_from = []
        for cell in board.ALL_CELLS:
            if cell == here:
                continue
            away = [c for c in board.ALL_CELLS if board.distance(c, here) > 2 and c != cell]
            cells = [""] * 7
            cells[speaker], cells[listener] = speaker_at, board.name(cell)
            for s, c in zip(others, away):
                cells[s] = board.name(c)
            place(game, cells)
            if listener in game.hearers(speaker):
                heard_from.append(cell)
        assert len(heard_from) == (near if radius == 1 else wide), (speaker_at, radius)
        assert all(board.distance(c, here) <= radius for c in heard_from)


def place(game: TuvalonGame, cells: list[str]) -> None:
    game.cells = [board.parse(c) for c in cells]  # type: ignore[misc]


def test_hearers_depend_on_the_listeners_range() -> None:
    game = TuvalonGame(7, None, 0)
    roles = roles_of(game)
    speaker = roles.index("merlin")
    wide = [s for s, r in enumerate(roles) if r in ("knight", "oberon")]
    narrow = [s for s, r in enumerate(roles) if r in ("percival", "morgana", "assassin")]
    cells = ["a1"] * 7
    cells[speaker] = "a1"
    cells[wide[0]], cells[wide[1]], cells[wide[2]] = "c3", "c1", "d1"  # 2, 2 and 3 away
    cells[narrow[0]], cells[narrow[1]], cells[narrow[2]] = "b2", "c2", "i9"  # 1, 2 and 8 away
    place(game, cells)
    assert sorted(game.hearers(speaker)) == sorted([wide[0], wide[1], narrow[0]])


def answer_until(game: TuvalonGame, kind: str, choose: dict[str, object] | None = None) -> None:
    """Answer every pending decision (``choose`` by kind, else the first option) until one of ``kind`` is pending."""
    choose = choose or {}
    while game.result is None and not any(d.kind == kind for d in game.pending()):
        d = game.pending()[0]
        game.apply(d.seat, d.kind, choose.get(d.kind, d.options[0] if d.count == 1 else tuple(d.options[: d.count])))


def test_first_leader_is_seat_one_and_passes_in_seat_order() -> None:
    for seed in range(10):
        game = TuvalonGame(7, None, seed)
        leaders = []
        for _ in range(3):
            answer_until(game, "team", {"vote": "reject"})
            leaders.append(game.pending()[0].seat)
            d = game.pending()[0]
            game.apply(d.seat, "team", tuple(d.options[: d.count]))
        assert leaders == [0, 1, 2]


def test_the_lead_passes_in_seat_order_after_every_proposal_approved_or_not() -> None:
    # 1. 队长组队: the first leader is player 1; later leaders follow in number order
    for seed in range(100):
        game, rng, leaders = TuvalonGame(7, None, seed), random.Random(seed), []
        while game.result is None:
            d = game.pending()[0]
            if d.kind == "team":
                leaders.append(d.seat)
            game.apply(d.seat, d.kind, d.random_choice(rng))
        assert leaders == [i % 7 for i in range(len(leaders))]


def test_round_order_speak_move_speak_near_vote_from_the_leader() -> None:
    game = TuvalonGame(7, None, 5)
    answer_until(game, "vote", {"vote": "reject"})
    answer_until(game, "team", {"vote": "reject"})  # the second proposal: leader seat 2 (index 1)
    d = game.pending()[0]
    game.apply(d.seat, "team", (0, 1))
    kinds = []
    while not any(x.kind == "vote" for x in game.pending()):
        x = game.pending()[0]
        kinds.append((x.kind, x.seat))
        game.apply(x.seat, x.kind, x.options[0])
    order = [1, 2, 3, 4, 5, 6, 0]
    assert kinds == [("speak", s) for s in order] + [("move", s) for s in order] + [("speak_near", s) for s in order]


def test_three_rejections_force_the_fourth_leaders_team() -> None:
    game = TuvalonGame(7, None, 3)
    for _ in range(3):
        answer_until(game, "vote")
        for d in game.pending():
            game.apply(d.seat, "vote", "reject")
    answer_until(game, "team")
    d = game.pending()[0]
    assert d.seat == 3 and game.rejections == 3
    game.apply(3, "team", (3, 4))
    answer_until(game, "quest")
    assert not any(e.kind == "votes" and e.data["passed"] for e in game.events)
    forced = [e for e in game.events if e.kind == "forced"]
    assert len(forced) == 1 and forced[0].data["team"] == [3, 4] and forced[0].data["leader"] == 3
    assert sorted(d.seat for d in game.pending()) == [3, 4]
    assert game.rejections == 0


def play_quest(game: TuvalonGame, fails: int) -> dict[str, object]:
    """Approve a team holding as many evil players as possible and have ``fails`` of them fail."""
    answer_until(game, "team")
    d = game.pending()[0]
    evil = [s for s in range(7) if game.sides_now[s].value == "evil"]
    good = [s for s in range(7) if s not in evil]
    team = tuple(sorted((evil + good)[: d.count]))
    game.apply(d.seat, "team", team)
    answer_until(game, "vote")
    for v in game.pending():
        game.apply(v.seat, "vote", "approve")
    failing = [s for s in team if s in evil][:fails]
    assert len(failing) == fails
    for q in game.pending():
        game.apply(q.seat, "quest", "fail" if q.seat in failing else "success")
    return [e for e in game.events if e.kind == "quest"][-1].data


def test_quests_three_and_four_fail_only_on_two_fail_cards() -> None:
    game = TuvalonGame(7, None, 8)
    assert play_quest(game, 0)["result"] == "success"
    assert play_quest(game, 1)["result"] == "fail"
    third = play_quest(game, 1)
    assert third["result"] == "success" and third["fails"] == 1
    fourth = play_quest(game, 2)
    assert fourth["result"] == "fail" and fourth["fails"] == 2
    setup = game.events[0].data
    assert setup["quest_sizes"] == [2, 3, 3, 4, 4] and setup["fails_needed"] == [1, 1, 2, 2, 1]


def test_team_passes_on_four_approvals_of_seven() -> None:
    for approvals, passed in ((3, False), (4, True)):
        game = TuvalonGame(7, None, 1)
        answer_until(game, "vote")
        for i, v in enumerate(game.pending()):
            game.apply(v.seat, "vote", "approve" if i < approvals else "reject")
        assert [e for e in game.events if e.kind == "votes"][-1].data["passed"] is passed


def move_game() -> tuple[TuvalonGame, int]:
    game = TuvalonGame(7, None, 2)
    answer_until(game, "move")
    seat = game.pending()[0].seat
    return game, seat


@pytest.mark.parametrize(
    "cells, target, why",
    [
        (["a1", "c1", "e5", "g7", "i9", "a9", "i1"], "a0", "a0 is off the map"),
        (["i9", "c1", "e5", "g7", "a1", "a9", "i1"], "j9", "j9 is off the map"),
        (["e5", "e6", "a1", "g7", "i9", "a9", "i1"], "e6", "e6 is taken by another player"),
        (["e5", "c1", "a1", "g7", "i9", "a9", "i1"], "e9", "e9 is 4 steps away: a move is at most 3"),
        (["e5", "e6", "d5", "f5", "i9", "a9", "i1"], "e7", "e7 is 8 steps away around the others: a move is at most 3"),
        (["e5", "c1", "a1", "g7", "i9", "a9", "i1"], "5e", "'5e' is not a cell"),
    ],
)
def test_bad_moves_are_refused_with_a_clear_reason(cells: list[str], target: str, why: str) -> None:
    game, seat = move_game()
    order = [(seat + i) % 7 for i in range(7)]
    placed = [""] * 7
    for s, c in zip(order, cells):
        placed[s] = c
    place(game, placed)
    game._next_turn("move", game.turn)  # the request, made afresh for the new positions
    before = list(game.cells)
    with pytest.raises(IllegalAction) as refused:
        game.apply(seat, "move", target)
    assert refused.value.code is ErrorCode.ACTION_NOT_ALLOWED
    assert why in refused.value.reason
    assert game.cells == before


def test_moves_reach_three_steps_through_free_cells_only() -> None:
    game, seat = move_game()
    order = [(seat + i) % 7 for i in range(7)]
    placed = [""] * 7
    for s, c in zip(order, ["a1", "b1", "a3", "i9", "h9", "g9", "f9"]):
        placed[s] = c
    place(game, placed)
    game._next_turn("move", game.turn)
    d = game.pending()[0]
    # walled in by b1 (east) and a3 (north): a1 -> a2 -> b2 -> c2 / b3, and no further
    assert sorted(map(str, d.options)) == ["a1", "a2", "b2", "b3", "c2"]
    game.apply(seat, "move", "c2")
    assert board.name(game.cells[seat]) == "c2"


def test_random_games_end_and_every_near_speech_lists_exactly_the_players_in_range() -> None:
    reasons = set()
    for seed in range(300):
        game = TuvalonGame(7, None, seed)
        rng = random.Random(seed)
        while game.result is None:
            d = game.pending()[0]
            if d.kind == "speak_near":
                expected = [
                    s
                    for s in range(7)
                    if s != d.seat and board.distance(game.cells[s], game.cells[d.seat]) <= HEARING[roles_of(game)[s]]
                ]
                assert list(game.team_talk(d.seat)) == expected
            game.apply(d.seat, d.kind, d.random_choice(rng))
        reasons.add(game.result.reason)
        cells = game.cells
        assert len(set(cells)) == 7
    assert reasons == {"three_fails", "merlin_survived", "assassinated_merlin"}


def test_replays_to_the_same_events() -> None:
    game = TuvalonGame(7, TuvalonOptions(speech_budget=100), 11)
    play_random(game, random.Random(4))
    again = TuvalonGame(7, TuvalonOptions(speech_budget=100), 11)
    again.replay(game.history)
    assert again.events == game.events
