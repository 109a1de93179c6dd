"""Whose lines are a referee's, for a spectator of a lobby that one referee or several run.

The lobby's topic names its referees (one, or all those of a shared lobby: protocol.md,
section 4, "Several referees"), and a nick it no longer names is nobody's referee. A
bot cannot hold a referee's nick while that referee has it, so only a named nick's line can
be a referee's: any other line is talk, whatever it looks like. Each game is run by one of
them, the sender of its ``TABLE`` or ``RESUME`` (which names it, ``referee=``, in a shared
lobby): only that referee's lines count for the game, and a ``RESUME`` from another named
referee moves the game to it (a takeover after its referee stopped). A game whose referee
the topic no longer names goes to the next named referee that speaks for it (a lobby's one
referee, back under a fallback nick).

The spectator's narrator (``arena watch``, the narrated channel) and its connection (which
follows a game's referee out of its channel) both ask here.
"""

from __future__ import annotations

from ..protocol import Message, topic_referees


class Referees:
    """The referees a spectator trusts, and the one that runs each game it follows."""

    def __init__(self, referee: str) -> None:
        """``referee``: the nick to trust until the lobby's topic names the referees."""
        self.named: set[str] = {referee.lower()}
        """The nicks (folded) the lobby's topic names now."""
        self._runs: dict[str, str | None] = {}
        """The referee (folded) of each game followed, by game id; None: the topic names its
        referee no more, and the next named referee to speak for the game runs it (a lobby's
        one referee, under a fallback nick it names in the topic)."""

    def topic(self, text: str) -> None:
        """The lobby's topic is ``text`` now: the referees it names replace the others (a
        topic that names none, set by someone else, changes nothing)."""
        named = topic_referees(text)
        if named is not None:
            self.named = {nick.lower() for nick in named}
            for gid, referee in self._runs.items():
                if referee not in self.named:
                    self._runs[gid] = None

    def named_now(self, nick: str) -> bool:
        """Whether ``nick`` is a referee's: the lobby's topic names it."""
        return nick.lower() in self.named

    def announces(self, sender: str, msg: Message) -> bool:
        """Whether a ``TABLE`` or ``RESUME`` from ``sender`` (a named referee) is its game's:
        it names its sender as the game's referee, or names none (a lobby with one referee)."""
        return msg.get("referee", sender).lower() == sender.lower()

    def speaks_for(self, sender: str, gid: str) -> bool:
        """Whether a line of game ``gid`` from ``sender`` (a named referee) counts: it runs
        the game, or nobody is known to (a game not followed yet; or one whose referee the
        topic names no more: ``sender`` runs it from now on)."""
        low = sender.lower()
        if gid in self._runs and self._runs[gid] is None:
            self._runs[gid] = low
        return self._runs.get(gid, low) == low

    def run(self, gid: str, referee: str) -> None:
        """Game ``gid`` is run by ``referee`` from now on."""
        self._runs[gid] = referee.lower()

    def of(self, gid: str) -> str | None:
        """The referee (folded) that runs game ``gid``, if it is followed."""
        return self._runs.get(gid)

    def ended(self, gid: str) -> None:
        """Game ``gid`` is no longer followed."""
        self._runs.pop(gid, None)
