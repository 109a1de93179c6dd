"""Typed messages: the base each game's ``messages.py`` builds on.

A game declares each verb its referee sends as a frozen dataclass of ``WireMessage``: the
game id, then the line's ``key=value`` fields in the order the line gives them, each typed
by its annotation. The one codec here turns those annotations into the grammar of
``arena.protocol`` both ways, so the referee's lines (``lines.py``), the SDK's state, the
language-model prompts and the narration read one declaration of a line instead of each
its own string keys, and cannot drift apart.

Field types (the annotation, as written):

- ``str``, ``int``, ``bool`` (``true``/``false``);
- ``Someone``: a player, or ``none`` on the wire for no one (``None``);
- ``tuple[str, ...]``, ``tuple[int, ...]``: comma lists;
- ``dict[str, str]``, ``dict[str, int]``: comma lists of ``name:value`` items;
- any of these ``| None``: a field the line may leave out (``None`` leaves it out).

A field named ``text`` is the line's free text (``:...``); a Python keyword is spelt with a
trailing underscore (``from_`` is ``from=``).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, TypeAlias, TypeVar

from ..core.errors import ErrorCode
from ..protocol import MAX_LINE_BYTES, Message, ProtocolError

NOBODY = "none"
"""How a ``Someone`` field says that it names no one (no leader, no target)."""

Someone: TypeAlias = str | None
"""A player's nick, or None for no one (``none`` on the wire)."""

M = TypeVar("M", bound="WireMessage")


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ProtocolError(ErrorCode.MALFORMED, f"a number, not {value[:20]!r}") from None


def _items(value: str) -> list[str]:
    return value.split(",") if value else []


def _pairs(value: str) -> dict[str, str]:
    return dict(item.partition(":")[::2] for item in _items(value))


def _counts(value: str) -> dict[str, int]:
    return {name: _int(count) for name, count in _pairs(value).items()}


def _join_pairs(value: Mapping[str, Any]) -> str:
    return ",".join([f"{k}:{v}" for k, v in value.items()])


def _none() -> None:
    return None


_CODECS: dict[str, tuple[Callable[[str], Any], Callable[[Any], str], Callable[[], Any]]] = {
    "str": (str, str, str),
    "int": (_int, str, int),
    "bool": ("true".__eq__, lambda v: "true" if v else "false", bool),
    "Someone": (lambda v: None if v == NOBODY else v, lambda v: NOBODY if v is None else v, _none),
    "tuple[str, ...]": (lambda v: tuple(_items(v)), ",".join, tuple),
    "tuple[int, ...]": (lambda v: tuple(map(_int, _items(v))), lambda v: ",".join(map(str, v)), tuple),
    "dict[str, str]": (_pairs, _join_pairs, dict),
    "dict[str, int]": (_counts, _join_pairs, dict),
}
"""Each field type, by its annotation: how a value reads from the wire, how it is written,
and what a line that lacks the field reads as (made afresh for each line)."""
_OPTIONAL = " | None"


class _Field(NamedTuple):
    """A field of a message class: its name, its name on the wire, how its value reads
    and is written, whether a line may leave it out, and what it reads as when left out
    (a tuple: every line of a game unpacks these)."""

    name: str
    wire: str
    read: Callable[[str], Any]
    write: Callable[[Any], str]
    optional: bool
    empty: Callable[[], Any]


@dataclasses.dataclass(frozen=True, kw_only=True)
class WireMessage:
    """One line a referee sends in a game: ``VERB gid key=value ...``, typed."""

    VERB: ClassVar[str]
    gid: str

    @classmethod
    def _codec_of(cls) -> tuple[_Field, ...]:
        """The class's fields with their codecs, built once per class (not per line)."""
        found: tuple[_Field, ...] | None = cls.__dict__.get("_codec")
        if found is None:
            found = tuple(_field(f) for f in dataclasses.fields(cls) if f.name not in ("gid", "text"))
            setattr(cls, "_codec", found)
        return found

    @classmethod
    def parse(cls: type[M], msg: Message) -> M:
        """The message ``msg`` carries; ProtocolError (MALFORMED) if it is not this verb's
        line or a value is not of its field's type. A field the line lacks reads as empty
        (``""``, 0, false, no one, an empty list), as ``Message.get`` and its kin read it,
        so a line written by hand still reads; fields the class does not know are
        ignored."""
        if msg.verb != cls.VERB or not msg.args:
            raise ProtocolError(ErrorCode.MALFORMED, f"not a {cls.VERB} line: {msg.verb}")
        fields = msg.fields
        values: dict[str, Any] = {"gid": msg.args[0]}
        for name, wire, read, _, _, empty in cls._codec_of():
            value = fields.get(wire)
            if value is None:
                values[name] = empty()
            elif read is str:  # text as it is (only a ``str`` field reads with ``str``)
                values[name] = value
            else:
                try:
                    values[name] = read(value)
                except ProtocolError as e:
                    raise ProtocolError(e.code, f"{cls.VERB}: {wire}= must be {e.reason}") from None
        if "text" in cls.__dataclass_fields__:
            values["text"] = msg.text or ""
        # Every field is in ``values``: set them as __init__ would, without its check of
        # each (a state reads every line of a game; a frozen __init__ costs a call a field).
        found = object.__new__(cls)
        found.__dict__.update(values)
        return found

    def message(self) -> Message:
        """The protocol message of this line (``format`` it, or cut it with ``lines``)."""
        fields: dict[str, str] = {}
        mine = self.__dict__
        for name, wire, read, write, optional, _ in self._codec_of():
            value = mine[name]
            if value is not None or not optional:
                fields[wire] = value if read is str else write(value)
        return Message(self.VERB, (self.gid,), fields, mine.get("text"))

    def lines(self, limit: int = MAX_LINE_BYTES) -> list[str]:
        """The line, or lines (``Message.lines``), that carry this message."""
        return self.message().lines(limit)


def _field(f: dataclasses.Field[Any]) -> _Field:
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", str(f.type))
    optional = kind.endswith(_OPTIONAL)
    codec = _CODECS.get(kind[: -len(_OPTIONAL)] if optional else kind)
    if codec is None:
        raise TypeError(f"field {f.name}: no wire form for {kind!r}")
    return _Field(f.name, f.name.rstrip("_"), codec[0], codec[1], optional, _none if optional else codec[2])


def verbs(
    *classes: type[WireMessage], base: Mapping[str, type[WireMessage]] | None = None
) -> dict[str, type[WireMessage]]:
    """A game's messages by verb (``base``'s, then ``classes``, which replace a verb of
    ``base`` they share): what reads a line of the game looks its class up here."""
    found = dict(base or {})
    for cls in classes:
        found[cls.VERB] = cls
    return found


def read(verbs: Mapping[str, type[WireMessage]], msg: Message) -> WireMessage | None:
    """The typed message of ``msg`` in a game whose messages are ``verbs``; None for a
    line of another verb (a request, an error) or a line that does not read as its verb's
    (a referee sending what protocol.md does not say)."""
    cls = verbs.get(msg.verb)
    if cls is None:
        return None
    try:
        return cls.parse(msg)
    except ProtocolError:
        return None


@dataclasses.dataclass(frozen=True, kw_only=True)
class Team(WireMessage):
    """``TEAM``, relayed: a line of private talk (the pack's at night, Tuvalon's second
    discussion) and who said it; every game with private talk shares it."""

    VERB = "TEAM"
    from_: str
    text: str


S = TypeVar("S")
R = TypeVar("R")


def parsed(cls: type[M]) -> Callable[[Callable[[S, M], R]], Callable[[S, Message], R]]:
    """A method of a typed message as a method of a line: the line is read as ``cls``
    (``parse``, which raises ProtocolError for a line that is not one) and handed on. For
    code that is called with lines (a narration's ``on_<verb>``)."""

    def wrap(method: Callable[[S, M], R]) -> Callable[[S, Message], R]:
        @functools.wraps(method)
        def reader(self: S, msg: Message) -> R:
            return method(self, cls.parse(msg))

        return reader

    return wrap


_SHARED_LIMIT = 4096
"""Lines whose typed message ``typed`` readers keep, for the other states that read them."""


def typed(readers: Mapping[type[WireMessage], Callable[[Any, Any], None]]) -> dict[str, Callable[[Any, Message], None]]:
    """Readers of typed messages as readers of lines, by verb (``parsed``), for a table
    of readers such as ``GameState.READERS``.

    Bots that share a process (a local table) are handed the same message of a line said
    to several of them, and each bot's state reads it: the typed message is made once for
    all of them (kept with its line, while few lines are kept)."""
    shared: dict[int, tuple[Message, WireMessage]] = {}

    def reading(cls: type[WireMessage], read: Callable[[Any, Any], None]) -> Callable[[Any, Message], None]:
        def reader(state: Any, msg: Message) -> None:
            found = shared.get(id(msg))
            if found is None or found[0] is not msg:
                if len(shared) >= _SHARED_LIMIT:
                    shared.clear()
                found = shared[id(msg)] = (msg, cls.parse(msg))
            read(state, found[1])

        return reader

    return {cls.VERB: reading(cls, read) for cls, read in readers.items()}
