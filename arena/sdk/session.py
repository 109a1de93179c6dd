"""``Session``: one bot's conversation with the referees of its lobby.

A session turns the referees' lines into calls on a ``Bot`` and the bot's answers into
lines; it knows no transport, so the same bot runs over IRC (``arena.sdk.runner``) or in
memory (``arena.referee.local``). Registering is the ``Handshake``'s business, following
games into their channels the ``Tables``', which referee speaks for what the
``Referees``', and answering again after a refusal the ``Requests``'; the session routes
every line (nearly all of them without a call of its own: it is the hot path of a local
table) and keeps the bot's failures from escaping.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from ..core.words import counted
from ..protocol import (
    ASK,
    BUNDLE,
    BYE,
    CHALLENGE,
    END,
    ERROR,
    MORE,
    PAUSE,
    REFEREES,
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
    unbundle,
)
from .answers import Reply, Requests, answer_reply, value_of
from .bot import Answer, Bot, audit
from .faults import Faults
from .handshake import Handshake
from .referees import Referees
from .speech import floor_lines, lines_of, within_budget
from .tables import Tables
from .view import Ask, GameView, new_ask

log = logging.getLogger(__name__)

_told: set[tuple[type, str]] = set()
"""Warnings given already, by bot class: each is worth saying once per process."""


def _tell_once(cls: type, what: str, text: str) -> None:
    if (cls, what) not in _told:
        _told.add((cls, what))
        log.warning("%s", text)


class Session:
    """One bot's conversation with the referees of its lobby: the one it registers with
    (``referee``), and the others that share the lobby with it (``Referees``).

    ``join``/``part`` let the session follow its games into their channels (IRC);
    ``respond`` lets a transport take decisions off the calling thread (the IRC runner
    answers on its own deadline). Without ``respond``, answers are returned at once.
    Exceptions from the bot's code never escape: they are counted in ``faults``.
    """

    def __init__(
        self,
        bot: Bot,
        nick: str,
        referee: str,
        *,
        join: Callable[[str], None] | None = None,
        part: Callable[[str], None] | None = None,
        respond: Callable[[GameView[Any], Ask], None] | None = None,
        say: Callable[[str, str], None] | None = None,
        name: str | None = None,
        key: str | None = None,
    ) -> None:
        self.bot = bot
        self.nick = nick
        """Our nick now (a transport whose nick changes sets it). An attribute, not a
        property: a transport reads it for every line the bot sends."""
        self.referee = referee
        """The referee the bot registers with (see ``Referees.home``)."""
        self.referees = Referees(referee)
        """The referees whose lines count, and the one that runs each game."""
        self._runs = self.referees.runs
        """The referee of each game of ours that another referee runs (the referees'; a game
        that ends leaves it)."""
        self.name = name
        """The bot's identity (its ratings and seats are its own); None: the nick."""
        self.handshake = Handshake(referee, key)
        """Registering, and proving the identity with ``key``."""
        self.registered = False
        """Whether the referee welcomed us (and, with a key, proved it is the referee):
        until then no line of its nick is obeyed but the registration's own. The
        registration holds with every referee of the lobby: it lasts while any of them is
        trusted."""
        self.tables = Tables(join, part)
        """Our games and their channels."""
        self.games = self.tables.games
        """Our view of each game we play (the tables'; read on every line)."""
        self.requests = Requests(bot, at_once=respond is None)
        """The request open in each game, answered again if need be."""
        self.faults = Faults(type(bot).__name__)
        """What the bot's own code raised, counted (see ``Faults``)."""
        self._respond = respond
        self._say = say
        """Says a line in a game's channel: (game id, text)."""
        self._parts = Reassembler()
        self._replaying = self.tables.replaying
        """The games being replayed (the tables'; read on every line said in a channel)."""
        cls = type(bot)
        for problem in audit(cls):
            _tell_once(cls, problem, problem)
        self._on_event = None if cls.on_event is Bot.on_event else bot.on_event
        """The bot's ``on_event``, or None where it is the default, which does nothing: a
        session hears every line of its games, and a call on each costs more than the line."""
        self._talks = cls.speech is not Bot.speech or cls.team_talk is not Bot.team_talk
        """Whether the bot may say anything before an answer (``talk``): one that keeps the
        defaults, which say nothing, is asked nothing on each request."""

    @property
    def key(self) -> str | None:
        """The key that proves the identity (see ``Handshake.key``)."""
        return self.handshake.key

    @property
    def finished(self) -> int:
        """How many games of ours have ended."""
        return len(self.tables.ended)

    def hello(self) -> str:
        """The ``REGISTER`` line, to send on connecting and whenever the referee may have
        forgotten us."""
        return self.handshake.register(self.bot, self.name or self.nick, self.nick)

    @property
    def welcomed(self) -> bool:
        """Whether the configured referee welcomed us and is still trusted (it has not left
        its nick since): if not, register with it when it comes."""
        return self.registered and self.referees.home_trusted

    def referee_left(self, nick: str) -> None:
        """A referee's nick quit or changed nick: whoever takes it next is a stranger. We stay
        registered while another referee of the lobby is trusted."""
        self.referees.left(nick)
        self.registered = self.registered and bool(self.referees.trusted)

    def unregister(self) -> None:
        """No referee knows us any more (a new connection, or ``BYE``)."""
        self.registered = False
        self.referees.forget()

    def feed(self, sender: str, text: str, channel: str | None = None) -> list[str]:
        """Handle one incoming line; returns the lines to send back to ``sender`` (a line
        of a game comes from the referee that runs it, which the game's lines go to).

        Lines not from a trusted referee are ignored, whatever they say: another bot posting
        referee-like lines in the channel fools nobody. ``channel``: where the line was
        said (None: to us alone). While the referee replays a game's past to us (RESYNC),
        that game's channel lines are ignored: the replay holds every one of them, and a
        line said while we were rejoining the channel may come both ways (a game that
        ends meanwhile ends its replay with its END).
        """
        low = sender.lower()
        referees = self.referees
        if low not in referees.trusted:
            if referees.is_home(low):  # its nick left since it welcomed us: only a registration counts
                try:
                    msg = _read(text)
                except ProtocolError:
                    return []
                return [line for line, _ in self._registering(msg.verb, msg)]
            return []
        if BUNDLE in text:  # perhaps several messages (protocol 2)
            parts = unbundle(text)
            if len(parts) > 1:
                return [line for part in parts for line in self.feed(sender, part, channel)]
        try:
            msg = _read(text)
        except ProtocolError:
            return []
        if channel is not None and msg.args and msg.args[0] in self._replaying:
            return []
        held = self._parts if referees.is_home(low) else referees.parts(low)
        wholes = held.add(msg) if MORE in msg.fields or not held.idle else (msg,)
        return [line for whole in wholes if referees.admits(sender, whole) for line, _ in self.replies(whole, True)]

    def receive(self, msg: Message) -> list[str]:
        """Handle one parsed line known to come from the referee (a part of a continued
        message is held until its last part arrives); returns the lines to send to it."""
        return [line for line, _ in self.replies(msg)]

    def replies(self, msg: Message, whole: bool = False) -> list[Reply]:
        """``receive``, each line to send with the message it carries where the SDK built
        one (its answers): a transport in the same process as the referee hands that on,
        and the referee need not parse the line again. ``whole``: ``msg`` is a whole
        message for certain (the parts of a continued one, joined).

        A whole message is handled here, not in a call of its own: every line each bot is
        told passes here."""
        if (MORE in msg.fields or not self._parts.idle) and not whole:  # a part of a continued message
            return [reply for joined in self._parts.add(msg) for reply in self.replies(joined, True)]
        verb = msg.verb
        if verb == ASK and self.registered:  # (the commonest line first)
            return self._ask(msg)
        if not self.registered or verb == CHALLENGE:
            return self._registering(verb, msg)
        if verb in _SESSION_VERBS:
            return self._session_line(verb, msg)
        args = msg.args
        if not args:
            return []
        gid = args[0]
        game = self.games.get(gid)
        if game is None:
            return []
        game.messages.append(msg)
        if verb == ROLE:
            game.role, game.side, game.sees = msg.get("role"), msg.get("side"), msg.list("sees")
            self._hook("on_role", gid, self.bot.on_role, game)
        elif verb == END:
            game.over = True
            game.floor = None
            self._hook("on_end", gid, self.bot.on_end, game, msg)
            self._ended(gid, msg)
        else:
            if verb == "RULES":  # a game whose options did not fit in START (Werewolf)
                game.options.update(msg.pairs("options"))
            if game.floor is not None and msg.get("player", "").lower() == game.floor.lower():
                game.floor = None  # SPEECH (or a timeout) closed the turn
            on_event = self._on_event
            if on_event is not None:
                try:  # inline, not through _hook: this runs on every line
                    on_event(game, msg)
                except Exception as exc:
                    self.faults.record("on_event", gid, exc)
        return []

    def _registering(self, verb: str, msg: Message) -> list[Reply]:
        """A line from the referee's nick before it welcomed us (or a CHALLENGE, whenever
        we register again): only the registration's lines count. Whoever holds the nick may
        be a squatter, whose tables and requests a bot must not follow (``Handshake``)."""
        if verb == ERROR:
            self._hook("on_error", None, self.bot.on_error, msg)
        elif verb == CHALLENGE:
            proof = self.handshake.proof(msg)
            if proof is not None:
                return [(proof, None)]
        elif verb == WELCOME and self.handshake.welcomes(msg):
            self.registered = True
            self.referees.welcomed(msg.list("referees"))
        return []

    def _session_line(self, verb: str, msg: Message) -> list[Reply]:
        """A line about the session or a game's seating rather than a game's course."""
        if verb == WELCOME:
            # Registered again, from the same connection: the referee proved itself already.
            self.referees.welcomed(msg.list("referees"))
            return []
        if verb == REFEREES:
            self.referees.listed(msg.list("nicks"))
            self.registered = bool(self.referees.trusted)  # (none left: nobody has us registered)
            return []
        if verb == BYE:
            self.unregister()
            return []
        if verb == ERROR:
            # A refused answer to an open request gets a random legal one at once (as does a
            # passed deadline, WARN): see ``Requests.retry``.
            self._hook("on_error", None, self.bot.on_error, msg)
            gid, rid = (msg.args[1:3] + ("", ""))[:2]
            return self.requests.retry(verb, gid, rid)
        if verb == WARN:
            gid, rid = msg.args
            return self.requests.retry(verb, gid, rid)
        if not msg.args:
            return []
        gid = msg.args[0]
        if verb == RESYNC:
            if self.tables.resync(gid, msg, self.nick):
                self.requests.drop(gid)
        elif verb == RESUME:
            self.tables.resume(gid, msg, self.nick)
            if self.tables.ours(gid) and gid not in self._replaying:  # (one replayed is past)
                self.referees.run(gid, msg.get("referee"))
        elif verb == PAUSE:
            # Nothing is open until the game goes on and asks again: a refusal of our answer
            # meanwhile needs no random retry.
            if self.tables.ours(gid):
                self.requests.drop(gid)
                log.info("game %s paused by the referee: %s", gid, msg.text or "no reason given")
        elif verb == TABLE:
            self.tables.table(gid, msg, self.nick)
            self.referees.run(gid, msg.get("referee") if self.tables.ours(gid) else None)
        else:
            self._start(gid, msg)  # START
        return []

    def _ended(self, gid: str, msg: Message) -> None:
        """Game ``gid`` of ours is over: count it, leave its channel, sum up its faults."""
        self.tables.end(gid)
        log.info(
            "game %s ended (%s): %s of ours ended so far", gid, msg.get("reason", "?"), counted(self.finished, "game")
        )
        self.faults.game_over(gid)
        self.requests.drop(gid)
        self._runs.pop(gid, None)

    def _start(self, gid: str, msg: Message) -> None:
        game = self.tables.start(gid, msg, self.nick)
        if game is None:
            return
        game.messages.append(msg)
        plays = self.bot.plays
        if plays is not None and game.kind != plays:
            cls = type(self.bot)
            _tell_once(
                cls,
                f"game {game.kind}",
                f"{cls.__name__} plays {plays}, but was seated at a {game.kind or 'unknown'} table (game {gid}): "
                f"it answers every request there at random. Run it where {plays} is played.",
            )
        self._hook("on_start", gid, self.bot.on_start, game)

    def _hook(self, where: str, gid: str | None, hook: Callable[..., None], *args: Any) -> None:
        """Call one of the bot's callbacks; what it raises is counted, not passed on."""
        try:
            hook(*args)
        except Exception as exc:
            self.faults.record(where, gid, exc)

    def channel_of(self, gid: str) -> str | None:
        """The channel of one of our games (announced by TABLE), if any."""
        return self.tables.channels.get(gid)

    def chat(self, sender: str, text: str) -> None:
        """A line said in a game channel by another player: passed on only if they have
        the floor in one of our games."""
        low = sender.lower()
        for game in self.games.values():
            if game.floor is not None and game.floor.lower() == low:
                game.chat.append((sender, text))
                floor = game.floor
                game.hear(lambda state: state.said(floor, text))
                self._hook("on_chat", game.gid, self.bot.on_chat, game, sender, text)

    def speech(self, game: GameView[Any], ask: Ask) -> list[str]:
        """The bot's lines for a turn at the floor, cut to lines the referee accepts (at
        most ``FLOOR_LINES``; the rest is left out, and the log says so). A failing bot
        says nothing."""
        try:
            lines = lines_of(self.bot.speech(game, ask))
        except Exception as exc:
            self.faults.record("speech", game.gid, exc)
            return []
        return self.within_budget(game, floor_lines(lines, type(self.bot).__name__, game.gid))

    within_budget = staticmethod(within_budget)
    """``speech.within_budget``, as the session applies it to all the bot says (``talk``)."""

    def _ask(self, msg: Message) -> list[Reply]:
        gid = msg.args[0]
        game = self.games.get(gid)
        if game is None:
            return []
        game.messages.append(msg)
        fields = msg.fields
        to = fields.get("to", "")
        floor = fields.get("floor") == "true"
        if floor:
            game.floor = to
        if gid in self._replaying or to != "all" and game.me.lower() not in to.lower().split(","):
            on_event = self._on_event
            if on_event is not None:
                try:
                    on_event(game, msg)
                except Exception as exc:
                    self.faults.record("on_event", gid, exc)
            return []
        ask = new_ask(game, msg, self.bot.rng)
        self.requests.open[gid] = ask
        if self._respond is not None:
            self._respond(game, ask)
            return []
        # A public request that grants no floor has nothing to say first (see ``talk``).
        out: list[Reply] | None = (
            [(line, None) for line in self.talk(game, ask)] if self._talks and (floor or to != "all") else None
        )
        choice = self.decide(game, ask)
        # (most answers are one choice, their own value: no call for those)
        answer = answer_reply(gid, ask.rid, choice if type(choice) is str else value_of(choice), ask.fallback)
        if out is None:
            return [answer]
        out.append(answer)
        return out

    def talk(self, game: GameView[Any], ask: Ask, live: Callable[[], bool] | None = None) -> list[str]:
        """Before answering ``ask``: say the bot's speech in the channel if it has the
        floor (through ``say``), and return the TEAM lines it wants relayed to its team.
        ``live`` (checked once the speech is ready) says whether the turn is still ours: a
        speech that took longer than the turn is not said."""
        if ask.floor:
            lines = self.speech(game, ask)
            if lines and (live is None or live()):
                for line in lines:
                    game.spoken += len(line.encode())
                    game.hear(lambda state: state.said(game.me, line))
                    if self._say is not None:
                        self._say(game.gid, line)
            elif lines:
                log.warning(
                    "%s's speech in %s came after its turn had ended; it was not said",
                    type(self.bot).__name__,
                    game.gid,
                )
            return []
        if ask.fields.get("to") == "all":
            return []
        try:
            texts = lines_of(self.bot.team_talk(game, ask))
        except Exception as exc:
            self.faults.record("team_talk", game.gid, exc)
            return []
        out = []
        for text in self.within_budget(game, texts):
            game.spoken += len(text.encode())
            team = Message.make(TEAM, game.gid, text=text)
            ours = Message(TEAM, team.args, {"from": game.me}, text)  # our side of the pack's talk
            game.hear(lambda state: state.apply(ours))
            out.append(team.format())
        return out

    def decide(self, game: GameView[Any], ask: Ask) -> Answer:
        """The bot's choice; a bug in a bot must not cost its seat, so an exception
        becomes a random legal choice (counted in ``faults``, and marked ``fallback=error``
        on the wire: ``ask.fallback``)."""
        try:
            return self.bot.decide(game, ask)
        except Exception as exc:
            self.faults.record(ask.kind, game.gid, exc)
            ask.fallback = "error"
            return ask.random(self.bot.rng)
        finally:
            ask.answered = True

    @staticmethod
    def answer(ask: Ask, choice: Answer, fallback: str | None = None) -> str:
        """The ``ANSWER`` line; ``fallback`` (``error``, ``late``, ``own``) marks a choice
        that is not the bot's own (protocol section 4)."""
        return answer_reply(ask.game, ask.rid, value_of(choice), fallback)[0]


_SESSION_VERBS = frozenset({WELCOME, BYE, REFEREES, ERROR, WARN, RESYNC, RESUME, PAUSE, TABLE, START})
"""The lines ``Session._session_line`` handles: any other is a request or a game's event,
which a session handles first (they are nearly every line it gets)."""

_read = functools.lru_cache(maxsize=64)(parse)
"""``parse``, each text read once while it recurs: bots that share a process (a local
table) are sent the same lines (the quest's ASK to each member of its team, the servants'
ROLE) and share the message, as they share a channel line. Bots never change the messages
they are given."""
