"""The protocol's grammar: the only code that knows what a line looks like.

Both the referee and the bot SDK parse and format lines here, so they cannot drift apart.
``protocol.md`` is the human description of the same grammar.

    line   = VERB *(" " arg) *(" " key "=" value) [" :" text]

A verb is upper-case letters; args are positional tokens; fields are ``key=value`` tokens
(keys lower-case, values without spaces, lists comma-separated, possibly empty); a token
that starts with ``:`` begins free text that runs to the end of the line.
"""

from __future__ import annotations

import base64
import binascii
import builtins
import operator
import re
from collections.abc import Mapping, Sequence
from typing import Any, overload

from .core import kit as kits
from .core.errors import ErrorCode

PROTOCOL_VERSION = 2
"""The protocol the SDK speaks, the newest the referee speaks."""
PROTOCOL_VERSIONS = frozenset({"1", "2"})
"""The protocols a bot may register with, as ``REGISTER`` spells them."""
BUNDLES_SINCE = 2
"""The protocol from which a referee line may bundle several messages (``unbundle``)."""
BUNDLE = " ; "
"""What separates the messages of a bundled referee line (protocol 2): no message holds it
before its free text, since tokens hold no space and ``;`` opens no token."""
MAX_LINE_BYTES = 400
"""What a referee line may carry: IRC's 512 bytes less the relay prefix a server adds."""

MORE = "more"
"""The field that marks every part of a continued message but the last (``Message.lines``)."""
_MORE_TOKEN = " more=true"

MAX_TEXT_BYTES = 300
"""Longest free text a bot may have the referee relay (``TEAM``): with the relay's own
tokens it still fits in one line. A line of speech at the floor has the same limit, so
every line of a game, said or relayed, fits one IRC message with room to spare."""

FLOOR_LINES = 10
"""Lines a player may say in the channel in one turn at the floor: then the referee takes
the floor back, and later lines of the turn are refused."""

MAX_NICK = 16
"""Longest player nick the referee accepts, so ten of them fit in one line."""

MAX_ID = 20
"""Longest game id a line may carry: an ERROR echoes the ids of the line it refuses, and
an unbounded id would make that ERROR too long to send."""
MAX_REQUEST_DIGITS = 9
"""Longest request id, in digits: a game asks far fewer, and a bound keeps ``int()`` cheap
and every echo short."""

# Bot -> referee.
REGISTER = "REGISTER"
UNREGISTER = "UNREGISTER"
WHO = "WHO"
ANSWER = "ANSWER"
PROOF = "PROOF"
# Referee -> bots (and the channel).
CHALLENGE = "CHALLENGE"
WELCOME = "WELCOME"
BYE = "BYE"
REGISTERED = "REGISTERED"
ERROR = "ERROR"
START = "START"
ROLE = "ROLE"
ASK = "ASK"
WARN = "WARN"
TIMEOUT = "TIMEOUT"
END = "END"
TABLE = "TABLE"
RESYNC = "RESYNC"
RESUME = "RESUME"
PAUSE = "PAUSE"
REFEREES = "REFEREES"
# Both ways: private talk among a team (the wolves at night), relayed by the referee.
TEAM = "TEAM"
RATINGS = "RATINGS"

ARITY: dict[str, tuple[int, int]] = {
    REGISTER: (1, 1),  # protocol version
    UNREGISTER: (0, 0),
    WHO: (0, 0),
    ANSWER: (3, 3),  # game id, request id, value
    PROOF: (0, 0),
    CHALLENGE: (0, 0),
    WELCOME: (1, 1),  # the bot's nick
    BYE: (0, 0),
    REGISTERED: (0, 0),
    ERROR: (1, 3),  # code [game id [request id]]
    START: (1, 1),  # game id
    ROLE: (1, 1),
    ASK: (3, 3),  # game id, request id, kind
    WARN: (2, 2),  # game id, request id
    TIMEOUT: (2, 2),
    END: (1, 1),
    TABLE: (1, 1),  # game id
    RESYNC: (2, 2),  # game id, begin or end
    RESUME: (1, 1),  # game id
    PAUSE: (1, 1),  # game id
    REFEREES: (0, 0),  # nicks=: the referees that share the lobby now
    TEAM: (1, 1),  # game id
    RATINGS: (1, 1),  # game id
}
"""Verbs every game shares; each game's own event verbs are added when its kit is registered
(``arena.core.kit``), so a bot that imports only the SDK parses every line a referee can send."""

# Avalon's public events (its kit gives their arities, as every game's kit gives its own).
VOTES = "VOTES"
QUEST = "QUEST"
DECK = "DECK"
LOYALTY = "LOYALTY"
ASSASSINATION = "ASSASSINATION"

_KEY = re.compile(r"[a-z][a-z0-9_]*\Z")
_VERB = re.compile(r"[A-Z][A-Z_]*\Z")
_BAD = re.compile("[\x00-\x20\x7f\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
"""Control characters, and the lone surrogates that stand for bytes that were not UTF-8
(transports decode with ``surrogateescape``): neither is ever valid in a line."""
_NOT_UTF8 = re.compile("[\ud800-\udfff]")
_GOOD_KEYS: set[str] = set()
"""Field names already checked: parsing and formatting are on every hot path, the regex
need not be."""


def _learn(key: str) -> None:
    """Remember a field name that passed the check, while the set is small (a flood of
    made-up names must not grow it without bound)."""
    if len(_GOOD_KEYS) < 4096:
        _GOOD_KEYS.add(key)


_SPLIT_FIELD = operator.methodcaller("split", "=", 1)
"""``key=value`` to ``[key, value]``. Lines are read and written on every hot path, and in
this Python a comprehension costs a call of its own: ``map`` with a C-level function (this,
``"=".join``) builds fields without one."""
_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{MAX_ID}}}\Z")
_NICK = re.compile(r"[A-Za-z\[\]\\^_`{|}][A-Za-z0-9\[\]\\^_`{|}-]*\Z")


class ProtocolError(ValueError):
    """A line that is not valid protocol; ``code`` is the error code to answer with."""

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def register_verbs(arities: Mapping[str, tuple[int, int]]) -> None:
    """Add a game's event verbs (each with its min and max number of args)."""
    for verb, arity in arities.items():
        if not _VERB.match(verb):
            raise ValueError(f"bad verb {verb!r}")
        if ARITY.get(verb, arity) != arity:
            raise ValueError(f"verb {verb} registered twice with different arities")
        ARITY[verb] = arity


_SHARED = frozenset(ARITY)
_from_games: set[str] = set()
"""The verbs in ``ARITY`` that registered games gave."""


def _game_verbs(games: tuple[kits.Kit, ...]) -> None:
    """Know exactly the registered games' verbs (beside the shared ones and any added by
    ``register_verbs``); raises ValueError, changing nothing, if two disagree."""
    wanted: dict[str, tuple[int, int]] = {}
    for game in games:
        for verb, arity in game.verbs.items():
            if not _VERB.match(verb):
                raise ValueError(f"{game.name}: bad verb {verb!r}")
            # (a verb only a game gave before is the registered games' to give again)
            known = wanted[verb] if verb in wanted else None if verb in _from_games else ARITY.get(verb)
            if known not in (None, arity):
                raise ValueError(f"{game.name}: verb {verb} registered twice with different arities")
            wanted[verb] = arity
    for verb in _from_games - set(wanted):
        del ARITY[verb]
    ARITY.update(wanted)
    _from_games.clear()
    _from_games.update(set(wanted) - _SHARED)


SCRAM = "scram"
"""The field that carries a SCRAM message (``REGISTER``, ``CHALLENGE``, ``PROOF``,
``WELCOME``), as the standard base64 of its text: one token, whatever it holds."""
SCRAM_ITERATIONS = (4096, 100_000)
"""The PBKDF2 iteration counts a referee may ask (``arena bots add --iterations``): RFC
7677's minimum, and a most that a bot checks before it pays the count at a squatter's
word."""
SECRET_FIELDS = frozenset({SCRAM, "key"})
"""Fields never written to a log: a proof, and the key that bots of old sent in clear."""


def pack_scram(message: str) -> str:
    """A SCRAM message as the value of ``scram=``."""
    return base64.b64encode(message.encode()).decode("ascii")


def unpack_scram(value: str) -> str:
    """The SCRAM message in a ``scram=`` value; ProtocolError if it is not base64 of UTF-8."""
    try:
        return base64.b64decode(value.encode("ascii"), validate=True).decode()
    except (UnicodeError, binascii.Error, ValueError):
        raise ProtocolError(ErrorCode.MALFORMED, "scram= is the base64 of a SCRAM message") from None


def redacted(line: str) -> str:
    """``line`` with the values of ``SECRET_FIELDS`` hidden, for a log."""
    head, colon, text = line.partition(" :")
    tokens = [
        f"{t.partition('=')[0]}=***" if t.partition("=")[0] in SECRET_FIELDS and "=" in t else t
        for t in head.split(" ")
    ]
    return " ".join(tokens) + colon + text


REFEREE_TOPIC = "arena referee: "
"""How the lobby's topic names the referee's nick (``arena referee: NICK``, then, while it
lacks its own nick, `` (NICK is NOT the referee)``): bots learn from it when the nick they
were given is held by someone else."""

REFEREES_TOPIC = "arena referees: "
"""How a shared lobby's topic names its referees (``arena referees: A, B``, by its dealer)."""

TOPIC_STATUS = " | "
"""What separates the lobby topic's naming of the referee from the status it may add for
people (who waits, what runs): bots read only the first word after ``REFEREE_TOPIC``."""


def referee_topic(nick: str, preferred: str | None = None, status: str = "", shared: Sequence[str] = ()) -> str:
    """The lobby topic of a referee running as ``nick``; ``preferred``: its own nick, when
    it cannot have it; ``status``: who waits and what runs, for people; ``shared``: the
    referees of a lobby several share (it names them all)."""
    warning = "" if preferred is None else f" ({preferred} is NOT the referee)"
    named = f"{REFEREES_TOPIC}{', '.join(shared)}" if shared else f"{REFEREE_TOPIC}{nick}"
    return f"{named}{warning}{TOPIC_STATUS + status if status else ''}"


def topic_referees(topic: str) -> list[str] | None:
    """The referees' nicks as a lobby topic names them (one, or all those of a shared
    lobby; the first is the one that set it), or None if the topic names none."""
    if topic.startswith(REFEREE_TOPIC):
        return topic[len(REFEREE_TOPIC) :].split()[:1] or None
    if topic.startswith(REFEREES_TOPIC):
        named = topic[len(REFEREES_TOPIC) :].split(TOPIC_STATUS)[0].split(" (")[0]
        return [nick for nick in (n.strip() for n in named.split(",")) if nick] or None
    return None


def valid_nick(nick: str) -> bool:
    return len(nick) <= MAX_NICK and bool(_NICK.match(nick))


def valid_id(token: str) -> bool:
    """Whether ``token`` can be a game id: 1-20 ASCII letters, digits, ``-`` or ``_``."""
    return bool(_ID.match(token))


def shown(token: str, limit: int = 20) -> str:
    """``token`` cut to ``limit`` characters for an error text: a reply quotes what it
    refuses, and must still fit in one line however long the refused token was."""
    return token if len(token) <= limit else token[:limit] + "..."


def valid_request_id(token: str) -> bool:
    """Whether ``token`` can be a request id: 1-9 ASCII digits. ``str.isdigit()`` alone is
    not enough: it accepts '²', which ``int()`` refuses, and '٣' or fullwidth digits, which
    ``int()`` reads as ASCII ones, so one id would have many spellings."""
    return token.isascii() and token.isdigit() and len(token) <= MAX_REQUEST_DIGITS


def request_id(token: str) -> int:
    """The request id ``token`` spells; raises ProtocolError (MALFORMED) unless it is one
    (``valid_request_id``)."""
    if not valid_request_id(token):
        raise ProtocolError(
            ErrorCode.MALFORMED, f"a request id is 1-{MAX_REQUEST_DIGITS} ASCII digits, not {shown(token)!r}"
        )
    return int(token)


def game_id(token: str) -> str:
    """``token`` if it can be a game id; raises ProtocolError (MALFORMED) otherwise."""
    if not valid_id(token):
        raise ProtocolError(
            ErrorCode.MALFORMED, f"a game id is 1-{MAX_ID} ASCII letters, digits, - or _, not {shown(token)!r}"
        )
    return token


def render(value: Any) -> str:
    """A Python value as a field or argument reads on the wire: a list or tuple as a
    comma list, a bool as ``true`` or ``false``."""
    cls = value.__class__
    if cls is str:
        text: str = value  # what `is str` proved, which mypy does not narrow
        return text
    if cls is int:
        return str(value)
    if cls is bool:
        return "true" if value else "false"
    if cls is list or cls is tuple:
        try:
            return ",".join(value)  # a list of text, the common case
        except TypeError:
            return ",".join(map(render, value))
    return str(value)


class Message:
    """One parsed line: verb, positional args, ``key=value`` fields and optional free text."""

    __slots__ = ("verb", "args", "fields", "text")

    def __init__(
        self, verb: str, args: tuple[str, ...] = (), fields: dict[str, str] | None = None, text: str | None = None
    ):
        self.verb = verb
        self.args = args
        self.fields = fields if fields is not None else {}
        self.text = text

    @classmethod
    def make(cls, verb: str, *args: Any, text: str | None = None, **fields: Any) -> Message:
        """Build a message from Python values: lists become comma lists, bools true/false."""
        # (a value that is text already, as most are, is kept as it is: no call)
        return cls(
            verb,
            tuple([a if type(a) is str else render(a) for a in args]),
            {k: v if type(v) is str else render(v) for k, v in fields.items()},
            text,
        )

    # -- reading fields -------------------------------------------------------------

    @overload
    def get(self, key: str) -> str | None: ...
    @overload
    def get(self, key: str, default: str) -> str: ...

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.fields.get(key, default)

    def list(self, key: str) -> list[str]:
        value = self.fields.get(key, "")
        return value.split(",") if value else []

    def int(self, key: str, default: int | None = None) -> int:
        value = self.fields.get(key)
        if value is None:
            if default is None:
                raise ProtocolError(ErrorCode.MALFORMED, f"{self.verb}: missing {key}=")
            return default
        try:
            return int(value)
        except ValueError:
            raise ProtocolError(ErrorCode.MALFORMED, f"{self.verb}: {key}= must be a number, got {value!r}") from None

    def flag(self, key: str) -> bool:
        return self.fields.get(key) == "true"

    def pairs(self, key: str) -> dict[str, str]:
        """A field of ``name:value`` items, e.g. ``roles=alice:merlin,bob:assassin``."""
        return dict(item.partition(":")[::2] for item in self.list(key))

    # -- text -----------------------------------------------------------------------

    def format(self) -> str:
        """The line for this message; raises ValueError if a token could break the grammar.

        Every line of a game passes here once, so the checks run on the joined line where
        they can (one C-level scan instead of a Python loop per token); a line that fails
        one is then searched for the token to blame."""
        verb, args, fields = self.verb, self.args, self.fields
        if verb not in ARITY and not _VERB.match(verb):
            raise ValueError(f"bad verb {verb!r}")
        if not _GOOD_KEYS.issuperset(fields):
            for key in fields:
                if key not in _GOOD_KEYS:
                    if not _KEY.match(key):
                        raise ValueError(f"bad field name {key!r} in {verb}")
                    _learn(key)
        head = " ".join((verb, *args))
        # An arg may not be empty, hold "=" (it would read as a field) or start with ":"
        # (free text): the verb holds neither, so " :" in the head can only start an arg
        # (or sit inside one, which the space check below refuses).
        if "" in args or "=" in head or " :" in head:
            for arg in args:
                if not arg or arg[0] == ":" or "=" in arg:
                    raise ValueError(f"bad argument {arg!r} in {verb}")
        line = " ".join((head, *map("=".join, fields.items()))) if fields else head
        # No token may hold a space or a control character: the line then has exactly one
        # space per token boundary and, if it is printable, no control character at all.
        if line.count(" ") != len(args) + len(fields) or (not line.isprintable() and _CONTROL.search(line)):
            bad = [t for t in (*args, *fields.values()) if _BAD.search(t)]
            raise ValueError(f"bad token {bad[0]!r} in {verb}")
        text = self.text
        if text is not None:
            if not text.isprintable() and _CONTROL.search(text):
                raise ValueError(f"control character in text of {verb}")
            return f"{line} :{text}"
        return line

    __str__ = format

    def lines(self, limit: builtins.int = MAX_LINE_BYTES) -> builtins.list[str]:
        """The line, or lines, that carry this message within ``limit`` bytes each.

        IRC cuts long lines, and a big table (twenty long nicks) does not fit in one. A
        message that does not fit is continued: consecutive lines with the same verb and
        args, every one but the last ending in ``more=true``. Fields fill the parts in
        order; a field that does not fit in the room left starts the next part, and only
        a list too long for any line is cut at its commas. ``Reassembler`` (and any bot,
        from protocol.md) joins the parts back. Raises ValueError if a single list item, or
        the text, cannot fit in a line of its own.
        """
        line = self.format()
        if len(line) <= limit and (line.isascii() or len(line.encode()) <= limit):
            return [line]
        head = " ".join((self.verb, *self.args))
        room = limit - len(_MORE_TOKEN)
        parts: builtins.list[str] = []
        part, size = head, len(head.encode())
        for key, value in self.fields.items():
            token = f" {key}={value}"
            grown = size + len(token.encode())
            if grown <= room:
                part, size = part + token, grown
                continue
            if len(head.encode()) + len(token.encode()) <= room:  # whole on a line of its own
                parts.append(part)
                part, size = head + token, len(head.encode()) + len(token.encode())
                continue
            piece = ""  # the items of this list that go into the current part
            for item in value.split(","):
                longer = f"{piece},{item}" if piece else f" {key}={item}"
                if size + len(longer.encode()) <= room:
                    piece = longer
                    continue
                if piece:
                    part += piece
                parts.append(part)
                part, size, piece = head, len(head.encode()), f" {key}={item}"
                if size + len(piece.encode()) > room:
                    raise ValueError(f"{self.verb}: {key}={item[:20]}... cannot fit in a line")
            part, size = part + piece, size + len(piece.encode())
        if self.text is not None:
            tail = f" :{self.text}"
            if size + len(tail.encode()) > limit:
                parts.append(part)
                part, size = head, len(head.encode())
                if size + len(tail.encode()) > limit:
                    raise ValueError(f"{self.verb}: the text cannot fit in a line")
            part += tail
        return [p + _MORE_TOKEN for p in parts] + [part]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.verb, self.args, self.fields, self.text) == (
            other.verb,
            other.args,
            other.fields,
            other.text,
        )

    def __repr__(self) -> str:
        return f"Message({self.format()!r})"


def text_fault(text: str) -> str | None:
    """What makes ``text`` unfit for any line (a control character, bytes that were not
    UTF-8), or None: the protocol's lines and the speeches said in a game's channel share
    the rule."""
    if text.isprintable() or not _CONTROL.search(text):  # isprintable: the fast, common case
        return None
    if _NOT_UTF8.search(text):
        return "the line is not valid UTF-8"
    return "control characters are not allowed"


def parse(line: str) -> Message:
    """Parse one line; raises ProtocolError (never anything else) when it is not protocol."""
    if not isinstance(line, str):
        raise ProtocolError(ErrorCode.MALFORMED, "a line must be text")
    if not line.isprintable():  # (the common case needs no call)
        fault = text_fault(line)
        if fault is not None:
            raise ProtocolError(ErrorCode.MALFORMED, fault)
    # Only the ASCII space separates tokens (str.split() would also split on U+00A0 and
    # friends, which format() lets through inside a token).
    head, colon, text_part = line.partition(" :")
    tokens = head.split(" ")
    if "" in tokens:
        tokens = [t for t in tokens if t]
    text = text_part if colon else None
    if not tokens:
        raise ProtocolError(ErrorCode.MALFORMED, "empty line")
    verb = tokens[0]
    arity = ARITY.get(verb)
    if arity is None:
        raise ProtocolError(ErrorCode.UNKNOWN_COMMAND, f"unknown command {shown(verb)!r}")
    # Fast path: the args run up to the first token holding "="; every later token must be
    # a key=value field with a known-good, unrepeated key. Anything else is diagnosed below.
    n = len(tokens)
    first = 1
    while first < n and "=" not in tokens[first]:
        first += 1
    args = tokens[1:first]
    try:
        fields = dict(map(_SPLIT_FIELD, tokens[first:]))
    except ValueError:  # a token without "=": not a field
        fields = {}
    if len(fields) != n - first or not _GOOD_KEYS.issuperset(fields):
        pairs = [token.partition("=") for token in tokens[first:]]
        _check_fields(verb, pairs)  # raises, or only learns new keys
        fields = {key: value for key, _, value in pairs}
    low, high = arity
    if not low <= len(args) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise ProtocolError(ErrorCode.MALFORMED, f"{verb} takes {want} argument(s) before its fields, got {len(args)}")
    return Message(verb, tuple(args), fields, text)


def unbundle(line: str) -> list[str]:
    """The messages a referee line carries, in order: several, separated by ``BUNDLE``, in a
    game whose bots all speak protocol 2 or later; only the last may have free text, so the
    text (after the first " :") is never split."""
    head, colon, text = line.partition(" :")
    if BUNDLE not in head:
        return [line]
    parts = head.split(BUNDLE)
    parts[-1] += colon + text
    return parts


def _check_fields(verb: str, pairs: list[tuple[str, str, str]]) -> None:
    """Say what is wrong with the fields of a line the fast path refused; learn good keys."""
    seen: set[str] = set()
    for key, eq, _value in pairs:
        if not eq:
            raise ProtocolError(ErrorCode.MALFORMED, f"{verb}: positional {key[:20]!r} after key=value fields")
        if key not in _GOOD_KEYS:
            if not _KEY.match(key):
                raise ProtocolError(ErrorCode.MALFORMED, f"{verb}: bad field name {key[:20]!r}")
            _learn(key)
        if key in seen:
            raise ProtocolError(ErrorCode.MALFORMED, f"{verb}: field {key} given twice")
        seen.add(key)


class Reassembler:
    """Joins the parts of continued messages (``Message.lines``) from one sender.

    Parts arrive back to back: the referee sends them in one go to one place. A part that
    is not followed by its continuation is passed on as it is.
    """

    def __init__(self) -> None:
        self._held: Message | None = None
        self.idle = True
        """No message is half received: a line without ``more`` is then whole as it is
        (an attribute, not a property: it is read for every line a bot receives)."""

    def add(self, msg: Message) -> list[Message]:
        """The whole messages that ``msg`` completes (none while a message is unfinished)."""
        held, out = self._held, []
        if held is None and msg.fields.get(MORE) is None:
            return [msg]  # the common case: a line that is a whole message
        self._held = None
        fields = {k: v for k, v in msg.fields.items() if k != MORE}
        if held is not None:
            if held.verb == msg.verb and held.args == msg.args:
                for key, value in held.fields.items():
                    fields[key] = f"{value},{fields[key]}" if key in fields else value
                fields = {**held.fields, **fields}
            else:
                out.append(held)
        whole = Message(msg.verb, msg.args, fields, msg.text)
        if msg.fields.get(MORE) == "true":
            self._held = whole
        else:
            out.append(whole)
        self.idle = self._held is None
        return out


kits.on_change(_game_verbs)
kits.kits()  # the built-in games' verbs, so that every line a referee sends parses
