"""The bot SDK: a bot is a small class with one method per decision.

``Session`` turns the referee's lines into calls on a ``Bot`` and the bot's answers into
lines; it knows no transport, so the same bot runs over IRC (``arena.sdk.irc``) or in
memory (``arena.referee.local``).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any, Callable

from ..protocol import (
    ANSWER,
    ASK,
    END,
    ERROR,
    MORE,
    PROTOCOL_VERSION,
    REGISTER,
    RESUME,
    RESYNC,
    ROLE,
    START,
    TABLE,
    TEAM,
    WARN,
    WELCOME,
    Message,
    ProtocolError,
    Reassembler,
    parse,
)

log = logging.getLogger(__name__)


@dataclass
class Ask:
    """A request from the referee: pick ``pick`` of ``options`` before ``deadline`` seconds pass."""

    game: str
    rid: str
    kind: str
    options: list[str]
    pick: int
    deadline: float
    fields: dict[str, str]
    message: Message
    rng: random.Random | None = field(default=None, repr=False, compare=False)
    """The answering bot's random stream (``Session`` sets it): ``random()`` draws from it,
    so a local tournament, which reseeds that stream before every game, replays the same
    answers when resumed; a fresh unseeded stream would differ on every run."""

    def random(self, rng: random.Random | None = None) -> str | list[str]:
        """A random legal answer from ``rng``, else the bot's stream (``self.rng``), else
        (an Ask built by hand) a fresh unseeded one."""
        if rng is None:
            rng = self.rng if self.rng is not None else random.Random()
        if self.pick == 1:
            return rng.choice(self.options)
        return rng.sample(self.options, self.pick)


@dataclass
class GameView:
    """What this bot knows of one game: seats, its own role and what the referee said."""

    gid: str
    kind: str
    me: str
    seats: list[str]
    options: dict[str, str]
    start: Message
    role: str | None = None
    side: str | None = None
    sees: list[str] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    """Every protocol line of this game the bot received, in order."""
    over: bool = False
    notes: dict[str, Any] = field(default_factory=dict)
    """The bot's own memory for this game; the SDK never touches it."""
    floor: str | None = None
    """Who has the floor now (a turn to speak is open for them), or None."""
    chat: list[tuple[str, str]] = field(default_factory=list)
    """What players said at the floor in the game's channel, in order: (nick, text)."""

    @property
    def others(self) -> list[str]:
        return [s for s in self.seats if s.lower() != self.me.lower()]


class Bot:
    """Subclass this. Override the decision methods you care about (``team``, ``vote``,
    ``quest``, ``assassinate`` for Avalon); any decision without a method is answered with a
    random legal choice. Event callbacks are optional."""

    owner = "anonymous"
    version = "0.1"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    # -- decisions: return a choice (or a list of choices when ask.pick > 1) ---------

    def decide(self, game: GameView, ask: Ask) -> str | list[str]:
        method = getattr(self, ask.kind, None)
        if method is None:
            return ask.random(self.rng)
        return method(game, ask)

    def speech(self, game: GameView, ask: Ask) -> list[str]:
        """Lines to say in the game's channel when given the floor (an ASK with
        ``floor=true``), said before the answer that ends the turn; none by default."""
        return []

    def team_talk(self, game: GameView, ask: Ask) -> list[str]:
        """Lines for the bot's team only (Werewolf: the other living wolves, at night), sent
        as ``TEAM`` before answering a private request; none by default. The referee
        refuses them when no one may hear the bot in private."""
        return []

    # -- callbacks ------------------------------------------------------------------

    def on_chat(self, game: GameView, nick: str, text: str) -> None:
        """``nick``, who has the floor, said ``text`` in the game's channel (lines said out
        of turn never reach a bot: the SDK drops them)."""

    def on_start(self, game: GameView) -> None:
        """The game started; ``game.seats`` is the seat order."""

    def on_role(self, game: GameView) -> None:
        """``game.role``, ``game.side`` and ``game.sees`` are now set."""

    def on_event(self, game: GameView, msg: Message) -> None:
        """Any other line of the game (VOTES, QUEST, ...)."""

    def on_end(self, game: GameView, msg: Message) -> None:
        """The game ended; ``msg`` reveals every role."""

    def on_error(self, msg: Message) -> None:
        """The referee refused a line of ours; by default it is logged."""
        log.warning("referee refused our line: %s", msg.format())


class Session:
    """One bot's conversation with one referee.

    ``join``/``part`` let the session follow its games into their channels (IRC);
    ``respond`` lets a transport take decisions off the calling thread (the IRC runner
    answers on its own deadline). Without ``respond``, answers are returned at once.
    """

    def __init__(
        self,
        bot: Bot,
        nick: str,
        referee: str,
        *,
        join: Callable[[str], None] | None = None,
        part: Callable[[str], None] | None = None,
        respond: Callable[[GameView, Ask], None] | None = None,
        say: Callable[[str, str], None] | None = None,
        name: str | None = None,
        key: str | None = None,
    ) -> None:
        self.bot = bot
        self.nick = nick
        self.referee = referee
        self.name = name
        """The bot's identity (its ratings and seats are its own); None: the nick."""
        self.key = key
        """The key that proves the identity (``arena bots add``), sent only to the referee."""
        self.games: dict[str, GameView] = {}
        self.registered = False
        self.ended: set[str] = set()
        """Games of ours that have ended (an end told twice, by a restarted referee, once)."""
        self._join = join
        self._part = part
        self._respond = respond
        self._say = say
        """Says a line in a game's channel: (game id, text)."""
        self._channels: dict[str, str] = {}
        self._open: dict[str, Ask] = {}
        """The latest request addressed to us, per game, for retries."""
        self._parts = Reassembler()
        self._replaying: dict[str, str] = {}
        """Games whose history the referee is replaying (``RESYNC``), with our seat's name
        in them: their requests are past, answered or not, and get no answer."""

    @property
    def finished(self) -> int:
        """How many games of ours have ended."""
        return len(self.ended)

    @property
    def nick(self) -> str:
        return self._nick

    @nick.setter
    def nick(self, value: str) -> None:
        self._nick = value
        self._me = value.lower()

    def hello(self) -> str:
        b = self.bot
        fields = {"name": self.name or self.nick, "owner": b.owner, "version": b.version}
        if self.key:
            fields["key"] = self.key
        return Message.make(REGISTER, PROTOCOL_VERSION, **fields).format()

    def feed(self, sender: str, text: str) -> list[str]:
        """Handle one incoming line; returns the lines to send to the referee.

        Lines not from the referee are ignored, whatever they say: another bot posting
        referee-like lines in the channel fools nobody.
        """
        if sender.lower() != self.referee.lower():
            return []
        try:
            msg = parse(text)
        except ProtocolError:
            return []
        return self.receive(msg)

    def receive(self, msg: Message) -> list[str]:
        """Handle one parsed line known to come from the referee (a part of a continued
        message is held until its last part arrives)."""
        if self._parts.idle and MORE not in msg.fields:  # the common case, on every line
            return self._handle(msg)
        return [line for whole in self._parts.add(msg) for line in self._handle(whole)]

    def _handle(self, msg: Message) -> list[str]:
        verb = msg.verb
        if verb == ASK:
            return self._ask(msg)
        if verb == WELCOME:
            self.registered = True
            return []
        if verb == ERROR or verb == WARN:
            return self._retry(msg)
        if not msg.args:
            return []
        gid = msg.args[0]
        if verb == RESYNC:
            self._resync(gid, msg)
            return []
        if verb == RESUME:
            self._resumed(gid, msg)
            return []
        if verb == TABLE:
            channel = msg.get("channel")
            if channel and self._me in (n.lower() for n in msg.list("seats")):
                self._channels[gid] = channel
                if self._join is not None:
                    self._join(channel)
            return []
        if verb == START:
            seats = msg.list("seats")
            me = self._replaying.get(gid, self.nick)
            if me.lower() not in (s.lower() for s in seats):
                return []
            view = GameView(gid, msg.get("game", ""), me, seats, msg.pairs("options"), msg)
            self.games[gid] = view
            view.messages.append(msg)
            self.bot.on_start(view)
            return []
        game = self.games.get(gid)
        if game is None:
            return []
        game.messages.append(msg)
        if verb == ROLE:
            game.role, game.side, game.sees = msg.get("role"), msg.get("side"), msg.list("sees")
            self.bot.on_role(game)
        elif verb == END:
            game.over = True
            game.floor = None
            self.ended.add(gid)
            log.info("game %s ended (%s): %d games of ours ended so far", gid, msg.get("reason", "?"), self.finished)
            self.bot.on_end(game, msg)
            del self.games[gid]
            self._open.pop(gid, None)
            channel = self._channels.pop(gid, None)
            if channel and self._part is not None:
                self._part(channel)
        else:
            if verb == "RULES":  # a game whose options did not fit in START (Werewolf)
                game.options.update(msg.pairs("options"))
            if game.floor is not None and msg.get("player", "").lower() == game.floor.lower():
                game.floor = None  # SPEECH (or a timeout) closed the turn
            self.bot.on_event(game, msg)
        return []

    def _resync(self, gid: str, msg: Message) -> None:
        """``RESYNC GID begin``: we came back to a game in progress; forget what we had of
        it (the referee now replays all of it) and rejoin its channel. ``RESYNC GID end``:
        the view is whole again, and the next ASK is live."""
        if msg.args[1:] != ("begin",):
            self._replaying.pop(gid, None)
            return
        self.games.pop(gid, None)
        self._open.pop(gid, None)
        self._replaying[gid] = msg.get("seat") or self.nick
        self._follow(gid, msg.get("channel"))

    def _resumed(self, gid: str, msg: Message) -> None:
        """``RESUME GID channel=... seats=...`` (in the lobby, then first in the new
        channel): a restarted referee took up a game in a new channel, and waits for its
        bots to be there. If we play it, go there at once: our ``RESYNC`` may wait behind
        the other bots' at the referee's line rate, and the wait is for all of us."""
        if gid in self._replaying:
            return  # an earlier restart's, replayed in a RESYNC block: the game is elsewhere now
        game = self.games.get(gid)
        me = (game.me if game is not None else self.nick).lower()
        if me in (n.lower() for n in msg.list("seats")):
            self._follow(gid, msg.get("channel"))

    def _follow(self, gid: str, channel: str | None) -> None:
        """Play ``gid`` in ``channel``: join it, and leave the one it had (the game moved:
        a restarted referee takes it up elsewhere)."""
        old = self._channels.get(gid)
        if channel and old != channel:
            self._channels[gid] = channel
            if old is not None and self._part is not None:
                self._part(old)
            if self._join is not None:
                self._join(channel)

    def channel_of(self, gid: str) -> str | None:
        """The channel of one of our games (announced by TABLE), if any."""
        return self._channels.get(gid)

    def chat(self, sender: str, text: str) -> None:
        """A line said in a game channel by another player: passed on only if they have
        the floor in one of our games."""
        low = sender.lower()
        for game in self.games.values():
            if game.floor is not None and game.floor.lower() == low:
                game.chat.append((sender, text))
                self.bot.on_chat(game, sender, text)

    def speech(self, game: GameView, ask: Ask) -> list[str]:
        """The bot's lines for a turn at the floor; a failing bot says nothing."""
        try:
            return [line for line in self.bot.speech(game, ask) if line]
        except Exception:
            log.exception("%s.speech failed", type(self.bot).__name__)
            return []

    def _ask(self, msg: Message) -> list[str]:
        gid, rid, kind = msg.args
        game = self.games.get(gid)
        if game is None:
            return []
        game.messages.append(msg)
        fields = msg.fields
        to = fields.get("to", "")
        if fields.get("floor") == "true":
            game.floor = to
        if gid in self._replaying or to != "all" and game.me.lower() not in to.lower().split(","):
            self.bot.on_event(game, msg)
            return []
        pick = msg.int("pick") if "pick" in fields else 1
        ask = Ask(gid, rid, kind, msg.list("options"), pick, float(msg.int("deadline", 0)), fields, msg,
                  rng=self.bot.rng)
        self._open[gid] = ask
        if self._respond is not None:
            self._respond(game, ask)
            return []
        out = self.talk(game, ask)
        return out + [self.answer(ask, self.decide(game, ask))]

    def talk(self, game: GameView, ask: Ask) -> list[str]:
        """Before answering ``ask``: say the bot's speech in the channel if it has the
        floor (through ``say``), and return the TEAM lines it wants relayed to its team."""
        if ask.message.flag("floor"):
            if self._say is not None:
                for line in self.speech(game, ask):
                    self._say(game.gid, line)
            return []
        if ask.fields.get("to") == "all":
            return []
        try:
            lines = [t for t in self.bot.team_talk(game, ask) if t]
        except Exception:
            log.exception("%s.team_talk failed", type(self.bot).__name__)
            return []
        return [Message.make(TEAM, game.gid, text=t).format() for t in lines]

    def decide(self, game: GameView, ask: Ask) -> str | list[str]:
        """The bot's choice; a bug in a bot must not cost its seat, so an exception
        becomes a random legal choice."""
        try:
            return self.bot.decide(game, ask)
        except Exception:
            log.exception("%s.decide failed on %s; answering at random", type(self.bot).__name__, ask.message.format())
            return ask.random(self.bot.rng)

    def _retry(self, msg: Message) -> list[str]:
        """A refused answer (ERROR) or a passed deadline (WARN) on an open request gets a
        random legal answer at once: legal by construction, so it cannot loop."""
        if msg.verb == ERROR:
            self.bot.on_error(msg)
            gid, rid = (msg.args[1:3] + ("", ""))[:2]
        else:
            gid, rid = msg.args
        ask = self._open.get(gid)
        if ask is None or ask.rid != rid:
            return []
        del self._open[gid]
        log.warning("retrying request %s of %s with a random legal answer after %s", rid, gid, msg.verb)
        return [self.answer(ask, ask.random(self.bot.rng))]

    @staticmethod
    def answer(ask: Ask, choice: str | list[str]) -> str:
        value = choice if isinstance(choice, str) else ",".join(choice)
        return Message(ANSWER, (ask.game, ask.rid, value)).format()
