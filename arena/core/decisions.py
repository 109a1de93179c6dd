"""Decisions a game is waiting for, and the one place their answers are checked.

A decision lists its legal choices in full, so a player never has to recompute legality and
every engine rejects bad answers with the same codes.
"""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any, ClassVar

from .errors import ErrorCode, IllegalAction


class Decision:
    """Seat ``seat`` must pick ``count`` distinct items of ``options`` for ``kind``.

    With ``count == 1`` the answer is one item; otherwise a collection of ``count`` items,
    normalised to a sorted tuple. ``targets`` marks options that are seats, which decides
    the error code of a bad answer.
    """

    __slots__ = ("seat", "kind", "options", "count", "targets", "item_type", "_members")
    explains: ClassVar[bool] = False
    """Whether ``check``'s refusals are already in the wire's words (they name no seats), so
    a driver passes them on as they are rather than rephrasing them from the code."""

    def __init__(
        self,
        seat: int,
        kind: str,
        options: tuple[Hashable, ...],
        count: int = 1,
        targets: bool = False,
    ) -> None:
        if not options:
            raise ValueError(f"{kind}: a decision needs at least one legal choice")
        self.seat = seat
        self.kind = kind
        self.options = options
        self.count = count
        self.targets = targets
        self.item_type = type(options[0])
        """Answers must be of exactly this type: ``True == 1`` must not pass as seat 1."""
        self._members = frozenset(options) if count != 1 else None
        """The options as a set, for checking the items of a choice of several (a tuple
        is searched item by item)."""

    def check(self, value: Any) -> Any:
        """The normalised answer, or IllegalAction naming what is wrong with it.

        Items must have the exact type of the options: ``True`` equals seat 1 and ``1.0``
        equals seat 1 in Python, but neither may reach the event log as a seat.
        """
        if self.count == 1:
            if self._legal(value):
                return value
            if self.targets:
                if type(value) is int and value == self.seat:
                    raise IllegalAction(ErrorCode.CANNOT_SELF_TARGET, f"{self.kind}: you cannot choose yourself")
                raise IllegalAction(
                    ErrorCode.TARGET_INVALID, f"{self.kind}: {value!r} is not one of {list(self.options)}"
                )
            raise IllegalAction(
                ErrorCode.ACTION_NOT_ALLOWED, f"{self.kind}: {value!r} is not allowed; legal: {list(self.options)}"
            )
        if type(value) is tuple:
            picked = value
        elif isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise IllegalAction(ErrorCode.WRONG_COUNT, f"{self.kind}: expected {self.count} choices")
        else:
            picked = tuple(value)
        if len(picked) != self.count:
            raise IllegalAction(ErrorCode.WRONG_COUNT, f"{self.kind}: expected {self.count} choices, got {len(picked)}")
        item_type, members = self.item_type, self._members
        assert members is not None
        ascending = True
        previous: Any = None
        for item in picked:
            if type(item) is not item_type or item not in members:
                raise IllegalAction(
                    ErrorCode.TARGET_INVALID, f"{self.kind}: {item!r} is not one of {list(self.options)}"
                )
            if previous is not None and item <= previous:
                ascending = False
            previous = item
        if ascending:
            return picked  # already normalised: sorted, and no choice repeated
        if len(set(picked)) != self.count:
            raise IllegalAction(ErrorCode.TARGET_INVALID, f"{self.kind}: a choice is repeated")
        return tuple(sorted(picked))

    def _legal(self, item: Any) -> bool:
        """Whether ``item`` is one of the options, of the options' own type (never raises)."""
        return type(item) is self.item_type and item in self.options

    def random_choice(self, rng: random.Random) -> Any:
        """A uniformly random legal answer."""
        if self.count == 1:
            return self.options[int(rng.random() * len(self.options))]
        return tuple(sorted(rng.sample(self.options, self.count)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decision) and (
            (self.seat, self.kind, self.options, self.count, self.targets)
            == (other.seat, other.kind, other.options, other.count, other.targets)
        )

    def __repr__(self) -> str:
        return f"Decision(seat={self.seat}, kind={self.kind!r}, options={self.options!r}, count={self.count})"
