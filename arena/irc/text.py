"""What may go on the wire and how names compare: the text rules every part of the link shares.

Outgoing text is sanitised because the irc library lets ``\\r`` through (a bot's text echoed
by the referee could inject a command) and raises on lines over 512 bytes; incoming bytes are
decoded leniently because invalid UTF-8 from any peer would otherwise raise.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

import irc.strings
from jaraco.stream.buffer import DecodingLineBuffer

#: RFC 1459 line limit, CR LF included.
MAX_LINE_BYTES = 512
#: Longest host a server may put in the ``nick!user@host`` prefix it adds when relaying.
MAX_HOST_LEN = 63

# C0 controls (CR, LF, NUL, CTCP \x01, bold \x02, colour \x03, reset \x0f, reverse \x16,
# italics \x1d, strike \x1e, underline \x1f, ...), DEL, the C1 controls, and the lone
# surrogates that stand for bytes that were not UTF-8 (``MarkingLineBuffer``).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# The same less IRC's formatting codes (bold, colour, reset, reverse, italics, underline):
# what a line that is meant to be formatted keeps (``send(..., formatting=True)``).
_UNFORMATTED_RE = re.compile("[\x00-\x01\x04-\x0e\x10-\x15\x17-\x1c\x1e\x7f-\x9f\ud800-\udfff]")
# Characters that cannot appear in a target, channel or nick we put on the wire.
_BAD_NAME_RE = re.compile("[\x00-\x20\x7f-\x9f,\ud800-\udfff]")

#: One raw line: optional IRCv3 tags, optional prefix, command, parameters.
LINE_RE = re.compile(r"^(?:@(?P<tags>\S*) +)?(?::(?P<prefix>\S+) +)?(?P<command>\S+)(?P<params>.*)$")
# A line an IRC server may send: its command is a word or a three-digit numeric (RFC 1459
# section 2.3.1). ``HTTP/1.1 400 Bad Request`` and an indented line of HTML are not.
_IRC_LINE_RE = re.compile(r"^(?:@\S+ +)?(?::\S+ +)?(?:[A-Za-z]+|[0-9]{3})(?: .*)?$")


class MarkingLineBuffer(DecodingLineBuffer):  # type: ignore[misc]  # (untyped library)
    """Decodes UTF-8 and keeps each byte that is not UTF-8 as a lone surrogate
    (``surrogateescape``), so a line with bad bytes reaches the protocol parser as such and
    gets ``MALFORMED``, instead of being read as Latin-1 and understood as something else.

    A line that is not IRC never reaches the library, whose parser raises on some (an
    indented line of a web server's answer: ``AttributeError``, out of the event loop). It
    goes to ``not_irc`` instead, which returns whether to stop reading this connection."""

    errors = "surrogateescape"

    def __init__(self, not_irc: Callable[[str], bool]) -> None:
        super().__init__()
        self.not_irc = not_irc
        self.stopped = False

    def lines(self) -> Iterator[str]:
        for line in super().lines():
            if self.stopped:
                return
            if not line or _IRC_LINE_RE.match(line):
                yield line
            elif self.not_irc(line):
                self.stopped = True
                self.buffer = b""
                return


def strip_controls(text: str) -> str:
    """Remove every control character (C0, DEL, C1) and stray byte from ``text``.

    Removing (rather than replacing) keeps printable text intact and makes command
    injection impossible: no CR or LF survives, nor CTCP or formatting codes.
    """
    return _CONTROL_RE.sub("", text)


def clean(text: str, formatting: bool) -> str:
    """``strip_controls``, or with ``formatting`` the same less IRC's formatting codes (for
    text meant for people)."""
    return _UNFORMATTED_RE.sub("", text) if formatting else strip_controls(text)


def fit_utf8(text: str, max_bytes: int) -> str:
    """Cut ``text`` so its UTF-8 encoding is at most ``max_bytes``, on a character boundary."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[: max(max_bytes, 0)].decode("utf-8", "ignore")


def check_name(kind: str, name: str) -> str:
    """``name`` itself, if it can go on the wire as a target, channel or nick; else ValueError."""
    if not name or _BAD_NAME_RE.search(name) or name.startswith(":"):
        raise ValueError(f"invalid IRC {kind}: {name!r}")
    return name


class _StrictFolded(irc.strings.IRCFoldedCase):  # type: ignore[misc]  # (untyped library)
    """``strict-rfc1459``: RFC 1459's folding less ``^``/``~``."""

    translation = {ord(upper): ord(lower) for upper, lower in zip("[]\\", "{}|")}


@functools.lru_cache(maxsize=4096)
def fold(name: str, casemapping: str = "rfc1459") -> str:
    """``name`` (a nick or channel) case-folded as a server with that ``CASEMAPPING`` compares
    names: jaraco's RFC 1459 folding (``irc.strings``, which knows no other mapping), or
    plain lowercase where the server says ``ascii`` (ngircd), where ``[`` and ``{`` differ.
    Cached: names are few and folded on every line."""
    if casemapping == "ascii":
        return name.lower()
    if casemapping == "strict-rfc1459":
        return str(_StrictFolded(name).lower())
    return str(irc.strings.lower(name))


def reason(exc: BaseException) -> str:
    """Why a connection failed, in the operator's words: the socket error's own text
    (``connection refused``), not the library's wrapping of it."""
    cause = exc.__cause__
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror.lower()
    return str(cause or exc)
