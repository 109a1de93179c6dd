"""Typed request fields: an ASK's ``key=value`` text read as the Python value it means.

A request travels as text (``rejections=4``, ``team=alice,bob``), but a bot should compare
numbers with numbers, not with ``"4"``. Each game's requests are ``Ask`` subclasses whose
fields are declared with the descriptors below, so ``ask.rejections`` is an ``int`` and
``ask.team`` a ``list[Player]``. A field is read from the line when the bot asks for it,
so a bot that never reads one pays nothing for it; ``ask.fields`` keeps the raw text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeAlias, TypeVar, overload

from ..protocol import Message

Player: TypeAlias = str
"""A player, named by its nick as ``START`` seated it: requests, answers and every line
of a game name players that way, whatever nick they use now."""

WORDS: frozenset[str] = frozenset(
    {
        "all",
        "approve",
        "reject",
        "success",
        "fail",
        "none",
        "abstain",
        "done",
        "pass",
        "stand",
        "decline",
        "save",
        "peek",
        "card1",
        "card2",
        "clockwise",
        "counterclockwise",
        "ignite",
    }
)
"""The words that requests use beside nicks (protocol.md, section 1). No player may take
one as nick, so an option that is not one of them is a player."""

T = TypeVar("T")


class _HasMessage(Protocol):
    @property
    def message(self) -> Message: ...


class Field(Generic[T]):
    """A request field read as a ``T``: a data descriptor, so ``help()`` on a request class
    lists each field with what it means."""

    def __init__(self, read: Callable[[Message, str], T], doc: str) -> None:
        self._read = read
        self.key = ""
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    @overload
    def __get__(self, ask: None, owner: type | None = None) -> Field[T]: ...
    @overload
    def __get__(self, ask: _HasMessage, owner: type | None = None) -> T: ...

    def __get__(self, ask: _HasMessage | None, owner: type | None = None) -> Field[T] | T:
        if ask is None:
            return self
        return self._read(ask.message, self.key)

    def __set__(self, ask: Any, value: Any) -> None:
        raise AttributeError(f"{self.key} is read from the request's line; ask.fields holds its text")


def _number(default: int | None) -> Callable[[Message, str], int]:
    return lambda msg, key: msg.int(key, default)


def _player(msg: Message, key: str) -> Player | None:
    value = msg.fields.get(key, "none")
    return None if value in ("none", "") else value


def number(doc: str, default: int | None = None) -> Field[int]:
    """An integer field; without ``default`` a line that lacks it is malformed (reading it
    raises ``ProtocolError``, and the SDK answers that request at random)."""
    return Field(_number(default), doc)


def players(doc: str) -> Field[list[Player]]:
    """A comma-separated list of players (empty when the field is empty or missing)."""
    return Field(Message.list, doc)


def player(doc: str) -> Field[Player | None]:
    """One player, or None where the line says ``none`` (no such player)."""
    return Field(_player, doc)


def word(doc: str, default: str = "") -> Field[str]:
    """A word from a fixed set (``purpose=discussion``)."""
    return Field(lambda msg, key: msg.fields.get(key, default), doc)


def flag(doc: str) -> Field[bool]:
    """A boolean field: ``true`` or anything else."""
    return Field(Message.flag, doc)
