"""A spectator's connection: hears the lobby and every game channel it announces, and
hands each sentence the narrator makes of them to its owner.

The live narrator (``service``) and ``arena watch`` (``watch``) are both spectators; only
what they do with a sentence differs. It joins a game's channel when the lobby announces
it (``TABLE``, ``RESUME``) and leaves when the game's referee does (after END and the
ratings): in a lobby several referees share, the one that runs that game (``Referees``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import irc.client

from ..config import ServerConfig
from ..irc.link import IrcLink, LinkSettings
from ..narrate.narrator import Narrator
from ..narrate.sentence import Sentence


class Spectator:
    """One IRC connection that listens like any spectator; ``on_sentence`` gets the story."""

    def __init__(
        self,
        server: ServerConfig,
        nick: str,
        on_sentence: Callable[[Sentence], None],
        *,
        channels: Iterable[str] = (),
        only: str | None = None,
        lines_per_second: float = 1.0,
        burst: int = 5,
        reactor: irc.client.Reactor | None = None,
        on_gone: Callable[[str], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``channels``: joined besides the lobby; ``only``: the game id to follow alone;
        ``on_gone(gid)``: a game's channel was left (its story is told)."""
        self.narrator = Narrator(server.channel, server.nick, only=only)
        self.on_sentence = on_sentence
        self._quit: set[str] = set()
        """Referees (folded) of games followed that quit the server and have not joined since:
        all they said is in (a server relays a client's lines in order)."""
        self.on_gone = on_gone
        self.clock = clock
        self.link = IrcLink(
            server.host,
            server.port,
            nick,
            LinkSettings(
                tls=server.tls,
                password=server.password,
                realname="arena spectator",
                lines_per_second=lines_per_second,
                burst=burst,
                paced_joins=False,  # the rate is for what people read: a game's channel is joined at once
            ),
            channels=[server.channel, *channels],
            reactor=reactor,
            on_message=self._on_message,
            on_membership=self._on_membership,
            on_topic=self.narrator.topic,
        )

    def start(self) -> None:
        self.link.connect()

    def close(self, message: str = "") -> None:
        self.link.close(message, drain_timeout=2.0)

    def settled(self) -> bool:
        """Whether every game followed is told to its end, or its referee has quit (none of
        it is on its way any more)."""
        referees = self.narrator.referees
        return all(story.over or referees.of(gid) in self._quit for gid, story in self.narrator.games.items())

    def _on_message(self, sender: str, target: str, text: str) -> None:
        if self.link.is_me(target):
            return  # a DM: nothing of a game
        for sentence in self.narrator.hear(sender, target, text, self.clock()):
            for fact in sentence.facts:
                if fact[0] in ("table", "resume"):
                    self.link.join(fact[3])  # the game's channel, to hear it
            self.on_sentence(sentence)
        while self.narrator.left:  # a resumed game's old channel
            self.link.part(self.narrator.left.pop())

    def _on_membership(self, kind: str, nick: str, channel: str | None, new_nick: str | None) -> None:
        """Follow a game's referee out of its channel: the game is over and told."""
        referees = self.narrator.referees
        if kind in ("quit", "split") and nick.lower() in {referees.of(gid) for gid in self.narrator.games}:
            self._quit.add(nick.lower())
        elif kind == "join":
            self._quit.discard(nick.lower())
        if kind not in ("part", "kick") or channel is None:
            return
        gid = self.narrator.channels.get(channel.lower())
        if gid is not None and referees.of(gid) == nick.lower():
            self.narrator.ended(gid)
            self.link.part(channel)
            if self.on_gone is not None:
                self.on_gone(gid)
