"""Werewolf decisions: seats and words in one list, and refusals with precise error codes (protocol.md, section 6).

Most Werewolf choices are "a living player, or nobody" (a night action that may be skipped,
a vote that may abstain). The core ``Decision`` wants options of one type, so ``Choice``
accepts seat numbers (``int``) and the few reserved words below side by side.

``refusals`` maps a value that is *not* legal to the precise error of protocol.md's section 6 (a dead
target, a protection repeated from last night, a potion already used), so a bot learns why
instead of a bare TARGET_INVALID. It never makes an illegal value legal.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from ...core.decisions import Decision
from ...core.errors import ErrorCode, IllegalAction

NONE = "none"
"""A night action or a hunter's shot that is not used this time."""
ABSTAIN = "abstain"
"""A vote (wolves, day, leader) cast for nobody."""
DONE, PASS = "done", "pass"
"""Ends a turn at speaking: finished speaking, or gave up the floor."""
STAND, DECLINE = "stand", "decline"
"""Leader candidacy."""
SAVE = "save"
"""The witch heals the wolves' target."""
PEEK = "peek"
"""The little girl peeks at the wolves."""
CARDS = ("card1", "card2")
"""The thief's two extra cards, in the order ``thief_cards`` told them."""
IGNITE = "ignite"
"""The arsonist sets fire to every doused player."""
CLOCKWISE, COUNTERCLOCKWISE = "clockwise", "counterclockwise"
"""Clockwise is rising seat numbers (seat 0 follows the last seat)."""

WORDS = frozenset({NONE, ABSTAIN, DONE, PASS, STAND, DECLINE, SAVE, PEEK, *CARDS, CLOCKWISE, COUNTERCLOCKWISE, IGNITE})
"""Every reserved word; a transport must not let a nick shadow them."""

Refusal = tuple[ErrorCode, str]


class Choice(Decision):
    """A Decision whose options may mix seats (int, always first) and reserved words (str).

    ``targets`` is true when any option is a seat; ``seats`` and ``words`` split the options
    for a transport that shows seats as nicks. A choice of several is ``ordered`` when the
    order of its picks means something (the trickster's forged visitor, then where they
    went): its answer keeps that order instead of being sorted.
    """

    __slots__ = ("refusals", "ordered")

    def __init__(
        self,
        seat: int,
        kind: str,
        options: tuple[Hashable, ...],
        count: int = 1,
        refusals: Mapping[Any, Refusal] | None = None,
        ordered: bool = False,
    ) -> None:
        # Seats come first in every Choice, so the first option tells whether there are any.
        super().__init__(seat, kind, options, count, targets=type(options[0]) is int)
        self.refusals = refusals or {}
        self.ordered = ordered

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(o for o in self.options if type(o) is int)

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(o for o in self.options if type(o) is str)

    def _legal(self, item: Any) -> bool:
        # Exact types: True == 1 and 1.0 == 1 in Python, but neither is seat 1.
        return (type(item) is int or type(item) is str) and item in self.options

    def check(self, value: Any) -> Any:
        """The normalised answer, or IllegalAction with the most precise code.

        Self-contained (it does not lean on the core's private helpers), with the core's
        codes: CANNOT_SELF_TARGET, TARGET_INVALID, ACTION_NOT_ALLOWED, WRONG_COUNT.
        """
        if self.count == 1:
            if self._legal(value):
                return value
            self._explain(value)
            if self.targets:
                raise IllegalAction(
                    ErrorCode.TARGET_INVALID, f"{self.kind}: {value!r} is not one of {list(self.options)}"
                )
            raise IllegalAction(
                ErrorCode.ACTION_NOT_ALLOWED, f"{self.kind}: {value!r} is not allowed; legal: {list(self.options)}"
            )
        if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list, set, frozenset)):
            raise IllegalAction(ErrorCode.WRONG_COUNT, f"{self.kind}: expected {self.count} choices")
        picked = tuple(value)
        if len(picked) != self.count:
            raise IllegalAction(ErrorCode.WRONG_COUNT, f"{self.kind}: expected {self.count} choices, got {len(picked)}")
        for item in picked:
            if not self._legal(item):
                self._explain(item)
                raise IllegalAction(
                    ErrorCode.TARGET_INVALID, f"{self.kind}: {item!r} is not one of {list(self.options)}"
                )
        if len(set(picked)) != self.count:
            raise IllegalAction(ErrorCode.TARGET_INVALID, f"{self.kind}: a choice is repeated")
        return picked if self.ordered else tuple(sorted(picked))

    def _explain(self, item: Any) -> None:
        """Raise the refusal recorded for an illegal ``item``, or CANNOT_SELF_TARGET."""
        if type(item) is int or type(item) is str:
            found = self.refusals.get(item)
            if found is not None:
                raise IllegalAction(found[0], f"{self.kind}: {found[1]}")
            if self.targets and item == self.seat:
                raise IllegalAction(ErrorCode.CANNOT_SELF_TARGET, f"{self.kind}: you cannot choose yourself")

    def __repr__(self) -> str:
        return f"Choice(seat={self.seat}, kind={self.kind!r}, options={self.options!r}, count={self.count})"


class Cover(Choice):
    """A night request of an actor with nothing to decide (potions spent, blocked...): the
    word that skips the action is its only option, and its answer does nothing. Asked all
    the same, so that how long a night lasts tells nobody that a role is spent or blocked.
    Any other answer is refused with ``why``: RESOURCE_EXHAUSTED for a power used up."""

    __slots__ = ("why",)
    explains = True

    def __init__(self, seat: int, kind: str, word: str, why: Refusal) -> None:
        super().__init__(seat, kind, (word,))
        self.why = why

    def _explain(self, item: Any) -> None:
        raise IllegalAction(self.why[0], f"{self.kind}: {self.why[1]}; answer {self.options[0]}")
