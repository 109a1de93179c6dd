"""Seat order across a series: kept for ``keep`` games, then reshuffled (avalon-irc-readme.txt)."""

from __future__ import annotations

import random

import pytest

from arena.core.seating import DEFAULT_KEEP, Seating

ROSTER = [f"bot{i}" for i in range(10)]


def test_default_keep_is_sixteen() -> None:
    assert DEFAULT_KEEP == 16
    assert Seating(ROSTER).keep == 16


@pytest.mark.parametrize("seed", [0, 1, 7, 2024])
def test_order_kept_for_blocks_of_sixteen(seed: int) -> None:
    seating = Seating(ROSTER, keep=16, seed=seed)
    orders = [seating.order(i) for i in range(40)]
    for block in (range(0, 16), range(16, 32), range(32, 40)):
        assert len({orders[i] for i in block}) == 1
    for order in orders:
        assert sorted(order) == sorted(ROSTER) and len(order) == len(ROSTER)
    # With ten players a reshuffle leaves the order unchanged with probability 1/10!.
    assert orders[15] != orders[16] or orders[31] != orders[32]


def test_reshuffle_at_both_boundaries_for_seed_zero() -> None:
    seating = Seating(ROSTER, keep=16, seed=0)
    assert seating.order(15) != seating.order(16)
    assert seating.order(31) != seating.order(32)
    assert seating.order(0) != seating.order(32)


def test_reshuffles_vary_across_many_blocks() -> None:
    seating = Seating(ROSTER, keep=16, seed=3)
    blocks = {seating.order(16 * b) for b in range(200)}
    assert len(blocks) == 200
    # Every player sits in every seat at some point (a given miss has odds 0.9**200).
    for seat in range(len(ROSTER)):
        assert {order[seat] for order in blocks} == set(ROSTER)


def test_same_seed_same_orders_different_seed_different_orders() -> None:
    a = [Seating(ROSTER, 16, seed=5).order(i) for i in range(40)]
    b = [Seating(ROSTER, 16, seed=5).order(i) for i in range(40)]
    c = [Seating(ROSTER, 16, seed=6).order(i) for i in range(40)]
    assert a == b
    assert a != c


def test_order_independent_of_call_order() -> None:
    """A resumed series seats players exactly as an uninterrupted one."""
    straight = Seating(ROSTER, 16, seed=9)
    expected = [straight.order(i) for i in range(40)]
    indices = list(range(40))
    random.Random(1).shuffle(indices)
    shuffled = Seating(ROSTER, 16, seed=9)
    got = {i: shuffled.order(i) for i in indices}
    assert [got[i] for i in range(40)] == expected
    # Calling again (or on a fresh object, as after a restart) changes nothing.
    assert [Seating(ROSTER, 16, seed=9).order(i) for i in range(39, -1, -1)] == expected[::-1]
    assert [shuffled.order(i) for i in range(40)] == expected


def test_order_independent_of_roster_input_order() -> None:
    reversed_roster = list(reversed(ROSTER))
    for i in (0, 16, 33):
        assert Seating(reversed_roster, 16, seed=4).order(i) == Seating(ROSTER, 16, seed=4).order(i)


def test_keep_one_reshuffles_every_game() -> None:
    seating = Seating(ROSTER, keep=1, seed=2)
    orders = [seating.order(i) for i in range(30)]
    for order in orders:
        assert sorted(order) == sorted(ROSTER)
    assert len(set(orders)) == 30
    assert orders == [Seating(ROSTER, 1, seed=2).order(i) for i in range(30)]


@pytest.mark.parametrize("keep", [3, 16, 100])
def test_block_boundaries_follow_keep(keep: int) -> None:
    seating = Seating(ROSTER, keep=keep, seed=11)
    for i in range(3 * keep):
        assert seating.order(i) == seating.order((i // keep) * keep)
    assert seating.order(keep - 1) != seating.order(keep)


@pytest.mark.parametrize("keep", [0, -1, -16])
def test_invalid_keep(keep: int) -> None:
    with pytest.raises(ValueError):
        Seating(ROSTER, keep=keep)


@pytest.mark.parametrize("roster", [["a", "b", "a"], ["x", "x"], ROSTER + ["bot3"]])
def test_duplicate_names(roster: list[str]) -> None:
    with pytest.raises(ValueError):
        Seating(roster)


def test_small_rosters() -> None:
    assert Seating(["solo"]).order(0) == ("solo",)
    two = Seating(["a", "b"], keep=16, seed=0)
    assert {two.order(i) for i in range(200)} == {("a", "b"), ("b", "a")}


# -- explicit deals: only games stored with one replay by it ----------------------------------------


def test_a_game_refuses_a_deal_that_is_not_a_permutation() -> None:
    from arena.core.errors import SetupError
    from arena.games.avalon.engine import AvalonGame

    with pytest.raises(SetupError):
        AvalonGame(5, None, seed=1, deal=(0, 0, 1, 2, 3))
    assert (
        AvalonGame(5, None, seed=1, deal=(4, 3, 2, 1, 0)).roles == AvalonGame(5, None, 1, (0, 1, 2, 3, 4)).roles[::-1]
    )
