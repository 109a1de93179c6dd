"""The narrator: a lobby's and its games' public lines in, sentences out.

Pure: no sockets, no clock (each line comes with the time it was heard, if known). It
learns the games from the lobby (``TABLE``, ``RESUME``) or from a game channel's own
``START``/``RESUME``, and hands every later line of a game to that game's story (its kit's).
The referees are the nicks the lobby's topic names, when it names any (all those of a
shared lobby; a referee that runs under a fallback nick says so there), and a game's lines
count only from the referee that runs it (``Referees``). Lines from anyone else are talk:
relayed for a seated player in its game's channel, ignored elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core import kit as kits
from ..irc.link import strip_controls
from ..protocol import END, RESUME, START, TABLE, Message, ProtocolError, Reassembler, parse, unbundle
from .referees import Referees
from .sentence import SETUP, Say, Sentence

Heard = tuple[str | None, str] | tuple[str, str, tuple[str, ...]]
"""An item of a retold game: ``(None, line)`` the referee's line, ``(nick, text)`` a player's
talk in the channel, ``(nick, text, hearers)`` what a player said in private."""

REFEREE = "*"
"""The referee's name in a retold game (``retell``): no player can have it."""
GAME_CHANNEL = "#game"
"""The game channel of a retold game."""


class Narrator:
    """Follows one lobby and the games its referees announce."""

    def __init__(self, lobby: str, referee: str, only: str | None = None) -> None:
        """``referee``: the referee's nick until the lobby's topic names the referees;
        ``only``: a game id to tell alone (the lobby's other games are left out)."""
        self.lobby = lobby.lower()
        self.referees = Referees(referee)
        self.only = only
        self.games: dict[str, kits.Story] = {}
        self.channels: dict[str, str] = {}
        """Game channels (lower case) and the game each is for."""
        self._parts: dict[tuple[str, str], Reassembler] = {}
        """The continued message each referee (folded) is sending in each channel: parts come
        back to back from one sender, not from all the referees of a shared lobby."""
        self.left: list[str] = []
        """Game channels given up for a resumed game's new one, for a connection to leave."""

    def topic(self, channel: str, text: str) -> None:
        """The lobby's topic names the referees now."""
        if channel.lower() == self.lobby:
            self.referees.topic(text)
            for key in [key for key in self._parts if not self.referees.named_now(key[1])]:
                del self._parts[key]

    def hear(self, sender: str, channel: str, text: str, at: float | None = None) -> list[Sentence]:
        """What a line said in ``channel`` by ``sender`` makes the narrator say."""
        folded = channel.lower()
        if not self.referees.named_now(sender):
            gid = self.channels.get(folded)
            return [] if gid is None else self._told(self.games[gid].talk(sender, strip_controls(text)))
        parts = self._parts.setdefault((folded, sender.lower()), Reassembler())
        said: list[Sentence] = []
        for line in unbundle(text):  # a line may carry several messages (protocol 2)
            try:
                msg = parse(line)
            except ProtocolError:
                continue  # the referee's free text (answers to !status): no game event
            for whole in parts.add(msg):
                said += self._referee(sender, folded, whole, at)
        return self._told(said)

    def _told(self, said: list[Sentence]) -> list[Sentence]:
        return said if self.only is None else [s for s in said if s.gid == self.only]

    def _referee(self, sender: str, channel: str, msg: Message, at: float | None) -> list[Sentence]:
        """A line of ``sender``, a referee of the lobby (not necessarily the game's)."""
        gid = msg.args[0] if msg.args else ""
        if msg.verb in (TABLE, RESUME):
            return self._announced(sender, channel, gid, msg) if self.referees.announces(sender, msg) else []
        if channel == self.lobby or not self.referees.speaks_for(sender, gid):
            return []
        if gid not in self.games and msg.verb == START and kits.get(msg.get("game", "")) is not None:
            self._follow(gid, msg.get("game", ""), channel, msg.list("seats"), sender)
        elif channel not in self.channels and gid not in self.games:
            joined_late = next((kit.name for kit in kits.kits() if msg.verb in kit.verbs), None)
            if joined_late is not None:  # a game in progress (``arena watch GID``): told from here on
                self._follow(gid, joined_late, channel, [], sender)
        story = self.games.get(gid)
        if story is None or self.channels.get(channel) != gid:
            return []
        return story.hear(msg, at)

    def _announced(self, sender: str, channel: str, gid: str, msg: Message) -> list[Sentence]:
        """A ``TABLE`` or ``RESUME`` (in the lobby, and a ``RESUME`` first in its channel) of
        ``sender``, the game's referee from now on."""
        game, where, seats = msg.get("game", ""), msg.get("channel", ""), msg.list("seats")
        if kits.get(game) is None or not where:
            return []
        known = gid in self.games and self.channels.get(where.lower()) == gid
        self._follow(gid, game, where, seats, sender)
        if known:
            return []
        say = Say(gid, stage=SETUP).fact("table" if msg.verb == TABLE else "resume", gid, game, where)
        if msg.verb == TABLE:
            say.add(f"New {game} game {gid} in {where}: ").names(seats).add(".")
        else:
            say.add(f"The referee restarted: {game} game {gid} goes on in {where} once its players are back: ")
            say.names(seats).add(".")
        return [say.done()]

    def _follow(self, gid: str, game: str, channel: str, seats: list[str], referee: str) -> None:
        """Keep (a resumed game's story goes on) or start the story of ``gid``, told from
        ``channel`` from now on, as ``referee`` runs it."""
        if gid not in self.games:
            self.games[gid] = kits.find(game).story(gid, seats)
        self.referees.run(gid, referee)
        for old in [c for c, g in self.channels.items() if g == gid and c != channel.lower()]:
            del self.channels[old]
            self.left.append(old)
        self.channels[channel.lower()] = gid

    def ended(self, gid: str) -> None:
        """Forget a game whose channel we left (after its END and ratings)."""
        self.games.pop(gid, None)
        self.referees.ended(gid)
        for channel in [c for c, g in self.channels.items() if g == gid]:
            del self.channels[channel]
            for key in [key for key in self._parts if key[0] == channel]:
                del self._parts[key]


def retell(lines: Iterable[Heard], started: float | None = None, finished: float | None = None) -> list[Sentence]:
    """A finished game's story from its channel, in order (``Heard`` items). ``started`` and
    ``finished`` (seconds) give the game's length, which the lines alone do not hold."""
    narrator = Narrator("#lobby", REFEREE)
    said: list[Sentence] = []
    over = False
    for item in lines:
        speaker, text = item[0], item[1]
        if len(item) == 3:
            gid = narrator.channels.get(GAME_CHANNEL)
            if gid is not None and speaker is not None:
                said += narrator.games[gid].whisper(speaker, text, item[2])
            continue
        over = over or speaker is None and text.startswith(END + " ")
        said += narrator.hear(speaker or REFEREE, GAME_CHANNEL, text, finished if over else started)
    return said
