"""Which referee a bot obeys, and for what, when several referees share its lobby.

The bot registers with the referee it was configured with; that registration holds with
every referee of the lobby, whose nicks a trusted referee lists (``WELCOME referees=``,
``REFEREES nicks=``). Each game is run by one of them, named by its ``TABLE`` or
``RESUME`` (``referee=``): only that referee's lines of the game count, and the bot's lines
of the game go to it alone (protocol.md, section 4, "Several referees"). In a lobby with
one referee no line names any: every game is the configured referee's.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..protocol import CHALLENGE, ERROR, RESUME, RESYNC, TABLE, WELCOME, Message, Reassembler

_NAMING = frozenset({TABLE, RESUME})
"""The lines that name their game's referee (``referee=``; absent: the configured one)."""

_REGISTERING = frozenset({CHALLENGE, WELCOME})
"""The lines of a registration: the configured referee's alone, which the bot registers with."""


class Referees:
    """The referees one bot trusts, and the one that runs each of its games."""

    def __init__(self, home: str) -> None:
        self.home = home
        """The referee the bot was configured with: it registers with it, and sends it every
        line that is not of a game (``REGISTER``, ``PROOF``, ``UNREGISTER``, ``WHO``)."""
        self._home = home.lower()
        self.trusted: set[str] = {self._home}
        """The nicks (folded) whose lines a registered bot obeys. A nick that quits or
        changes nick leaves it: whoever takes that nick next is a stranger. The configured
        referee comes back by welcoming us again; another, when a trusted referee lists it."""
        self.runs: dict[str, str] = {}
        """The referee of each game of ours that another referee than the configured one
        runs: a game without an entry is the configured referee's."""
        self._parts: dict[str, Reassembler] = {}
        """The continued message each other referee is sending (the configured referee's is
        the session's): parts come back to back from one sender, not from all."""

    def is_home(self, nick: str) -> bool:
        """Whether ``nick`` is the configured referee's."""
        return nick.lower() == self._home

    def known(self, nick: str) -> bool:
        """Whether ``nick`` is a referee's: trusted, or the configured referee's (whose lines
        are a registration's while it is not trusted)."""
        low = nick.lower()
        return low in self.trusted or low == self._home

    @property
    def home_trusted(self) -> bool:
        """Whether the configured referee's nick is trusted (it welcomed us and has not left
        its nick since)."""
        return self._home in self.trusted

    def welcomed(self, nicks: Iterable[str]) -> None:
        """The configured referee welcomed us, naming the referees of the lobby (``referees=``;
        none: it is alone)."""
        self.trusted = {self._home, *(nick.lower() for nick in nicks)}

    def listed(self, nicks: Iterable[str]) -> None:
        """A trusted referee named the referees of the lobby now (``REFEREES``): they replace
        the others. The configured referee keeps its own standing: trusted while it has not
        left its nick since it welcomed us, and only then."""
        trusted = {nick.lower() for nick in nicks} - {self._home}
        if self.home_trusted:
            trusted.add(self._home)
        self.trusted = trusted
        self._drop_parts()

    def left(self, nick: str) -> None:
        """``nick`` quit or changed nick: not a referee any more."""
        self.trusted.discard(nick.lower())
        self._drop_parts()

    def forget(self) -> None:
        """No referee knows us (a new connection, or ``BYE``): none is trusted but the
        configured one, whose registration lines alone count until it welcomes us."""
        self.trusted = {self._home}
        self._drop_parts()

    def parts(self, sender: str) -> Reassembler:
        """Where the continued messages of ``sender`` (a trusted nick, folded, not the
        configured referee's) are joined."""
        held = self._parts.get(sender)
        if held is None:
            held = self._parts[sender] = Reassembler()
        return held

    def _drop_parts(self) -> None:
        """Forget what nicks no longer trusted were sending."""
        for nick in set(self._parts) - self.trusted:
            del self._parts[nick]

    def of(self, gid: str) -> str:
        """The nick to send game ``gid``'s lines to: the referee that runs it."""
        return self.runs.get(gid, self.home)

    def run(self, gid: str, nick: str | None) -> None:
        """Game ``gid`` of ours is run by ``nick`` (None: by the configured referee, or the
        game is over or not ours)."""
        if nick is None or nick.lower() == self._home:
            self.runs.pop(gid, None)
        else:
            self.runs[gid] = nick

    def admits(self, sender: str, msg: Message) -> bool:
        """Whether ``msg`` from ``sender`` (a trusted nick) is to be obeyed: a registration's
        line only from the configured referee; a line of a game only from its referee. A
        ``TABLE`` or ``RESUME`` must come from the referee it names; a ``RESUME`` moves a
        game to it (a failover), and a ``TABLE`` that withdraws a table may come from
        whichever referee took over from the table's, and so does the ``RESYNC GID begin`` that brings a game
        back to us (we may have missed its ``RESUME`` while away). Lines of no game (``BYE``,
        ``REFEREES``, an ``ERROR`` without a game) from any trusted referee."""
        verb, args = msg.verb, msg.args
        low = sender.lower()
        if verb in _REGISTERING:
            return low == self._home
        if verb == ERROR:
            if len(args) < 2:
                return True
            gid = args[1]
        elif args:
            gid = args[0]
        else:
            return True
        if verb in _NAMING:
            if msg.fields.get("referee", self.home).lower() != low:
                return False
            # (A new table: any referee's. A table withdrawn in its own name by another
            # referee of the set: its referee stopped before the start, and this one took over.)
            handed = verb == TABLE and "referee" in msg.fields and not msg.fields.get("seats")
            return verb == RESUME or handed or self.runs.get(gid, sender).lower() == low
        if verb == RESYNC and args[1] == "begin":
            self.run(gid, sender)
            return True
        return self.runs.get(gid, self.home).lower() == low
