"""The bot SDK's core: ``Bot`` (what a bot is) and ``Session`` (one bot's conversation
with one referee).

``Session`` turns the referee's lines into calls on a ``Bot`` and the bot's answers into
lines; it knows no transport, so the same bot runs over IRC (``arena.sdk.runner``) or in
memory (``arena.referee.local``). Each game's base class and state are in
``arena.sdk.avalon`` and ``arena.sdk.werewolf``.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import logging
import random
from collections.abc import Callable
from typing import Any, ClassVar, TypeAlias, cast

from ..core.words import counted
from ..protocol import (
    ANSWER,
    ASK,
    BYE,
    CHALLENGE,
    END,
    ERROR,
    FLOOR_LINES,
    MORE,
    PAUSE,
    PROOF,
    PROTOCOL_VERSION,
    REGISTER,
    SCRAM,
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
    pack_scram,
    parse,
    unpack_scram,
)
from .faults import Faults
from .scram import ScramClient, ScramError
from .speech import Talk, lines_of
from .view import Ask, GameView, new_ask, new_view, spec_of, specs

log = logging.getLogger(__name__)

SDK = __name__.rpartition(".")[0]
"""This package: its classes are the SDK's, not a bot's (``audit`` looks at bots' only)."""


Answer: TypeAlias = str | list[str]
"""An answer: one option, or a list of ``pick`` distinct options."""

Decision: TypeAlias = Callable[[GameView[Any], Ask], Answer]
"""A decision method, as ``decide`` finds it by the request's kind."""

Reply: TypeAlias = tuple[str, Message | None]
"""A line for the referee, with the message it carries if the SDK built one (``Session.replies``)."""


class Bot:
    """The generic bot, for any game: ``decide`` gets every request.

    To play one game, subclass ``AvalonBot`` or ``WerewolfBot`` instead: they declare each
    decision of their game as a method. Subclassing ``Bot`` suits a bot that plays any
    game with one piece of code (a language model reading ``ask.kind`` and ``ask.options``);
    its methods named after decision kinds (``vote``, ``team``) are still called, as the
    first SDK did. Whatever a bot leaves undecided gets a random legal answer."""

    owner = "anonymous"
    version = "0.1"
    plays: ClassVar[str | None] = None
    """The game this bot is written for (``avalon``, ``werewolf``); None: any game."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    # -- decisions: return a choice (or a list of choices when ask.pick > 1) ---------

    def decide(self, game: GameView[Any], ask: Ask) -> Answer:
        """The answer to ``ask``: one of ``ask.options``, or a list of ``ask.pick`` distinct
        ones. By default the method named by ``ask.kind`` answers, if the bot has one, else
        a random legal choice."""
        method: Decision | None = getattr(self, ask.kind, None)  # a method found by name: untyped
        if method is None:
            return ask.random(self.rng)
        return method(game, ask)

    def speech(self, game: GameView[Any], ask: Ask) -> Talk:
        """What to say in the game's channel when given the floor (an ASK with
        ``floor=true``), said before the answer that ends the turn; nothing by default.
        One text (its line breaks kept) or a list of texts: the SDK cuts them into lines
        the referee accepts, words whole, and keeps the first ``FLOOR_LINES`` (logging what
        it left out)."""
        return []

    def team_talk(self, game: GameView[Any], ask: Ask) -> Talk:
        """What to tell the bot's team only (Werewolf: the other living wolves, at night),
        sent as ``TEAM`` lines before answering a private request; nothing by default.
        Cut into lines like ``speech``. The referee refuses it when no one may hear the bot
        in private."""
        return []

    # -- callbacks ------------------------------------------------------------------

    def on_chat(self, game: GameView[Any], nick: str, text: str) -> None:
        """``nick``, who has the floor, said ``text`` in the game's channel (lines said out
        of turn never reach a bot: the SDK drops them)."""

    def on_start(self, game: GameView[Any]) -> None:
        """The game started; ``game.seats`` is the seat order."""

    def on_role(self, game: GameView[Any]) -> None:
        """``game.role``, ``game.side`` and ``game.sees`` are now set."""

    def on_event(self, game: GameView[Any], msg: Message) -> None:
        """Any other line of the game (VOTES, QUEST, ...); ``game.state`` has read it already."""

    def on_end(self, game: GameView[Any], msg: Message) -> None:
        """The game ended; ``msg`` reveals every role (so does ``game.state.roles``)."""

    def on_error(self, msg: Message) -> None:
        """The referee refused a line of ours; by default it is logged."""
        log.warning("referee refused our line: %s", msg.format())


HOOKS = frozenset({name for name in vars(Bot) if not name.startswith("_")} | {"rng"})
"""What the SDK itself reads or calls on every bot, beside its decisions."""


class GameBot(Bot):
    """What ``AvalonBot`` and ``WerewolfBot`` share: each names its game (``plays``) and
    declares every decision of that game as a method of the same name, which ``decide``
    calls. At another game's table (a mistake the SDK logs when the game starts) every
    request gets a random legal answer."""

    plays: ClassVar[str]

    def decide(self, game: GameView[Any], ask: Ask) -> Answer:
        """Calls the decision method that ``ask.kind`` names: override those, not this.
        At another game's table, or for a kind this SDK does not know, a random legal
        choice."""
        spec = spec_of(self.plays) if game.kind == self.plays else None
        if spec is not None and ask.kind in spec.asks:
            method: Decision = getattr(self, ask.kind)  # a method found by name: untyped
            return method(game, ask)
        return ask.random(self.rng)

    def _at_random(self, ask: Ask) -> str:
        """The default of every decision of one option: a random legal answer, from the bot's
        own stream. The request's ``pick`` (off the wire) decides its shape; these decisions'
        requests say ``pick=1``, which gives one option."""
        return cast(str, ask.random(self.rng))

    def _some_at_random(self, ask: Ask) -> list[str]:
        """The default of every decision of several options (a team): as ``_at_random``, for
        requests that say ``pick`` > 1."""
        return cast(list[str], ask.random(self.rng))


def decisions_of(game: str | None) -> frozenset[str]:
    """The decision kinds of ``game`` (None: of every game the SDK knows)."""
    if game is not None:
        spec = spec_of(game)
        return frozenset(spec.asks) if spec is not None else frozenset()
    return frozenset(kind for spec in specs() for kind in spec.asks)


def audit(cls: type[Bot]) -> list[str]:
    """What looks wrong in a bot class: a method that the SDK will never call although it
    is most likely meant as a decision or hook. Such a bot plays on, at random where the
    method was meant to decide, so nothing else would ever tell its author.

    Flagged: a decision or hook of another game in a one-game bot (``team`` in a
    ``WerewolfBot``, Tuvalon's ``near_speech`` in a ``WerewolfBot``), a name close to a
    decision or hook (``votes`` for ``vote``, ``on_events``), and a method shaped like a
    decision, ``(game, ask)``, named after a role or the first words of decisions
    (``seer`` for ``seer_check``, ``witch`` for ``witch_save`` and ``witch_poison``).
    Other public methods are the bot's own business; a helper with a close name is best
    renamed with a leading underscore."""
    own: dict[str, Any] = {}
    sdk: set[str] = set()
    for klass in cls.__mro__:
        public = {
            name: value
            for name, value in vars(klass).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, (staticmethod, classmethod)))
        }
        if klass.__module__.startswith(SDK) or klass is object:
            sdk.update(public)
        else:
            for name, value in public.items():
                own.setdefault(name, value)
    mine = decisions_of(cls.plays)
    known = mine | HOOKS | sdk
    game = cls.plays or "any game"
    problems = []
    for name in sorted(set(own) - known):
        elsewhere = [spec.name for spec in specs() if name in spec.asks]
        if elsewhere:
            problems.append(
                f"{cls.__name__}.{name} is a decision of {' and '.join(sorted(elsewhere))}, not of {game}: "
                "it is never called"
            )
            continue
        hooked = sorted(other.__name__ for other in _game_bots() if name in vars(other))
        if hooked:
            problems.append(
                f"{cls.__name__}.{name} is a method of {' and '.join(hooked)}, not of {game}: it is never called"
            )
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.8)
        if close:
            what = "decision" if close[0] in mine else "hook"
            problems.append(
                f"{cls.__name__}.{name} is never called: no {what} has that name (did you mean {close[0]}?)"
            )
            continue
        started = sorted(kind for kind in mine if kind.startswith(name + "_"))
        if started and len(started) <= 3 and _decision_shaped(own[name]):
            problems.append(
                f"{cls.__name__}.{name} is never called: no decision has that name (did you mean "
                f"{' or '.join(started)}?)"
            )
    return problems


def _game_bots() -> list[type[GameBot]]:
    """The SDK's own one-game base classes (``AvalonBot``, ``WerewolfBot``, ...)."""
    found: list[type[GameBot]] = []
    todo: list[type[GameBot]] = [GameBot]
    while todo:
        klass = todo.pop()
        for sub in klass.__subclasses__():
            if sub.__module__.startswith(SDK) and sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def _decision_shaped(method: Any) -> bool:
    """Whether ``method`` takes what a decision takes: ``(self, game, ask)``."""
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) == 3 and all(p.default is p.empty for p in positional)


_told: set[tuple[type, str]] = set()
"""Warnings given already, by bot class: each is worth saying once per process."""


def _tell_once(cls: type, what: str, text: str) -> None:
    if (cls, what) not in _told:
        _told.add((cls, what))
        log.warning("%s", text)


class Session:
    """One bot's conversation with one referee.

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
        self.name = name
        """The bot's identity (its ratings and seats are its own); None: the nick."""
        self.key = key
        """The key that proves the identity (``arena bots add``). It never leaves the
        process: the session proves it by SCRAM, and trusts the referee only once the
        referee has proven it knows the key too (its signature in ``WELCOME``)."""
        self._scram: ScramClient | None = None
        """The exchange of our last ``REGISTER`` with a key."""
        self.games: dict[str, GameView[Any]] = {}
        self.registered = False
        """Whether the referee welcomed us (and, with a key, proved it is the referee):
        until then no line of its nick is obeyed but the registration's own."""
        self.ended: set[str] = set()
        """Games of ours that have ended (an end told twice, by a restarted referee, once)."""
        self.faults = Faults(type(bot).__name__)
        """What the bot's own code raised, counted (see ``Faults``)."""
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
        self._spoken: dict[str, int] = {}
        """Bytes said in games being replayed (``RESYNC``): the new view takes them up, so a
        speech budget still counts what was said before the bot came back."""
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
    def finished(self) -> int:
        """How many games of ours have ended."""
        return len(self.ended)

    def hello(self) -> str:
        b = self.bot
        fields = {"name": self.name or self.nick, "owner": b.owner, "version": b.version}
        self._scram = None
        if self.key:
            self._scram = ScramClient(self.nick, self.key)
            fields[SCRAM] = pack_scram(self._scram.first())
        return Message.make(REGISTER, PROTOCOL_VERSION, **fields).format()

    def feed(self, sender: str, text: str, channel: str | None = None) -> list[str]:
        """Handle one incoming line; returns the lines to send to the referee.

        Lines not from the referee are ignored, whatever they say: another bot posting
        referee-like lines in the channel fools nobody. ``channel``: where the line was
        said (None: to us alone). While the referee replays a game's past to us (RESYNC),
        that game's channel lines are ignored: the replay holds every one of them, and a
        line said while we were rejoining the channel may come both ways (a game that
        ends meanwhile ends its replay with its END).
        """
        if sender.lower() != self.referee.lower():
            return []
        try:
            msg = _read(text)
        except ProtocolError:
            return []
        if channel is not None and msg.args and msg.args[0] in self._replaying:
            return []
        return self.receive(msg)

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
        if not whole and (not self._parts.idle or MORE in msg.fields):  # a part of a continued message
            return [reply for joined in self._parts.add(msg) for reply in self.replies(joined, True)]
        verb = msg.verb
        if not self.registered or verb == CHALLENGE:
            return self._registering(verb, msg)
        if verb == ASK:
            return self._ask(msg)
        if verb in _SESSION_VERBS:
            return self._session_line(verb, msg)
        if not msg.args:
            return []
        gid = msg.args[0]
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
            del self.games[gid]
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
        we register again): only the registration's lines count. Whoever holds the nick may be
        a squatter, whose tables and requests
        a bot must not follow, and to whom it must not prove anything it could reuse."""
        if verb == ERROR:
            self._hook("on_error", None, self.bot.on_error, msg)
            return []
        if verb == CHALLENGE and self._scram is not None:
            try:
                proof = self._scram.final(unpack_scram(msg.get(SCRAM, "")))
            except (ScramError, ProtocolError) as exc:
                log.error("the challenge from %s is not the referee's: %s", self.referee, exc)
                return []
            return [(Message.make(PROOF, scram=pack_scram(proof)).format(), None)]
        if verb != WELCOME:
            return []
        if self.key:
            if self._scram is None:
                return []  # no registration of ours is under way: a welcome we never asked for
            try:
                self._scram.verify(unpack_scram(msg.get(SCRAM, "")))
            except (ScramError, ProtocolError) as exc:
                log.error("not registered: %s did not prove it is the referee (%s); it is ignored", self.referee, exc)
                return []
            self._scram = None
        self.registered = True
        return []

    def _session_line(self, verb: str, msg: Message) -> list[Reply]:
        """A line about the session or a game's seating rather than a game's course."""
        if verb == WELCOME:
            return []  # registered again, from the same connection: the referee proved itself already
        if verb == BYE:
            self.registered = False
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
        if verb == PAUSE:
            # Nothing is open until the game goes on and asks again: a refusal of our answer
            # meanwhile needs no random retry. (A game paused before its START is ours if
            # its TABLE seated us.)
            if gid in self.games or gid in self._channels:
                self._open.pop(gid, None)
                log.info("game %s paused by the referee: %s", gid, msg.text or "no reason given")
            return []
        if verb == TABLE:
            channel = msg.get("channel")
            me = self.nick.lower()
            if channel and me in (n.lower() for n in msg.list("seats")):
                self._channels[gid] = channel
                if self._join is not None:
                    self._join(channel)
            elif gid not in self.games and (old := self._channels.pop(gid, None)) is not None:
                # Announced again without us (withdrawn before its start): we wait in the lobby.
                if self._part is not None:
                    self._part(old)
            return []
        self._start(gid, msg)  # START
        return []

    def _ended(self, gid: str, msg: Message) -> None:
        """Game ``gid`` of ours is over: count it, sum up its faults, leave its channel."""
        self.ended.add(gid)
        log.info(
            "game %s ended (%s): %s of ours ended so far", gid, msg.get("reason", "?"), counted(self.finished, "game")
        )
        self.faults.game_over(gid)
        self._open.pop(gid, None)
        channel = self._channels.pop(gid, None)
        if channel and self._part is not None:
            self._part(channel)

    def _start(self, gid: str, msg: Message) -> None:
        me = self._replaying.get(gid, self.nick)
        if me.lower() not in msg.get("seats", "").lower().split(","):
            return
        game = new_view(msg, me)
        game.spoken = self._spoken.pop(gid, 0)
        self.games[gid] = game
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

    def _resync(self, gid: str, msg: Message) -> None:
        """``RESYNC GID begin``: we came back to a game in progress; forget what we had of
        it (the referee now replays all of it) and rejoin its channel. ``RESYNC GID end``:
        the view is whole again, and the next ASK is live."""
        if msg.args[1:] != ("begin",):
            self._replaying.pop(gid, None)
            return
        old = self.games.pop(gid, None)
        if old is not None:
            self._spoken[gid] = old.spoken
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
        if len(lines) > FLOOR_LINES:
            cut = lines[FLOOR_LINES:]
            log.warning(
                "%s's speech in %s is %s, %d more than a turn holds: left out, the last %s (%r...)",
                type(self.bot).__name__,
                game.gid,
                counted(len(lines), "line"),
                len(cut),
                counted(sum(len(line.encode()) for line in cut), "byte"),
                cut[0][:40],
            )
            lines = lines[:FLOOR_LINES]
        return self.within_budget(game, lines)

    @staticmethod
    def within_budget(game: GameView[Any], lines: list[str]) -> list[str]:
        """``lines`` up to the last one the game's speech budget still holds (``GameView.
        speech_left``; going over it forfeits a Tuvalon game): the rest is left out, and
        the log says so. The bytes are counted as the lines are said (``spoken``)."""
        left = game.speech_left()
        if left is None:
            return lines
        kept: list[str] = []
        for line in lines:
            size = len(line.encode())
            if size > left:
                break
            kept.append(line)
            left -= size
        if len(kept) < len(lines):
            log.warning(
                "speech budget of %s in %s: %d of %s left out, %s left to say",
                game.me,
                game.gid,
                len(lines) - len(kept),
                counted(len(lines), "line"),
                counted(game.speech_left() or 0, "byte"),
            )
        return kept

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
        self._open[gid] = ask
        if self._respond is not None:
            self._respond(game, ask)
            return []
        # A public request that grants no floor has nothing to say first (see ``talk``).
        out: list[Reply] = (
            [(line, None) for line in self.talk(game, ask)] if self._talks and (floor or to != "all") else []
        )
        choice = self.decide(game, ask)
        # (most answers are one choice, their own value: no call for those)
        out.append(_answer(ask.game, ask.rid, choice if type(choice) is str else _value(choice), ask.fallback))
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

    def _retry(self, msg: Message) -> list[Reply]:
        """A refused answer (ERROR) or a passed deadline (WARN) on an open request gets a
        random legal answer at once: legal by construction, so it cannot loop."""
        if msg.verb == ERROR:
            self._hook("on_error", None, self.bot.on_error, msg)
            gid, rid = (msg.args[1:3] + ("", ""))[:2]
        else:
            gid, rid = msg.args
        ask = self._open.get(gid)
        if ask is None or ask.rid != rid:
            return []
        if msg.verb == WARN and ask.answered and self._respond is None:
            # Answered in the referee's process (a local table), where no line is lost: our
            # answer crossed the warning (on the wall clock a warning reaches a bot that was
            # thinking only once it has answered), and a second one would be refused. Over a
            # network the warning may mean the answer was lost, and gets a new one.
            return []
        del self._open[gid]
        log.warning("retrying request %s of %s with a random legal answer after %s", rid, gid, msg.verb)
        return [_answer(ask.game, ask.rid, _value(ask.random(self.bot.rng)), None)]

    @staticmethod
    def answer(ask: Ask, choice: Answer, fallback: str | None = None) -> str:
        """The ``ANSWER`` line; ``fallback`` (``error``, ``late``, ``own``) marks a choice
        that is not the bot's own (protocol section 4)."""
        return _answer(ask.game, ask.rid, _value(choice), fallback)[0]


_SESSION_VERBS = frozenset({WELCOME, BYE, ERROR, WARN, RESYNC, RESUME, PAUSE, TABLE, START})
"""The lines ``Session._session_line`` handles: any other is a request or a game's event,
which a session handles first (they are nearly every line it gets)."""

_read = functools.lru_cache(maxsize=64)(parse)
"""``parse``, each text read once while it recurs: bots that share a process (a local
table) are sent the same lines (the quest's ASK to each member of its team, the servants'
ROLE) and share the message, as they share a channel line. Bots never change the messages
they are given."""


def _value(choice: Answer) -> str:
    """An answer's value on the wire: a list of choices is comma-separated."""
    return choice if isinstance(choice, str) else ",".join(choice)


@functools.lru_cache(maxsize=64)
def _answer(gid: str, rid: str, value: str, fallback: str | None) -> Reply:
    """``ANSWER gid rid value [fallback=...]``, checked by the grammar, with its message.
    Bots that share a process (a local table) answer a round with the same few lines (ten
    votes are two texts): each is formatted once. A pure function of its arguments, and
    nobody changes a message once made, so sharing it changes nothing."""
    msg = Message(ANSWER, (gid, rid, value), {} if fallback is None else {"fallback": fallback})
    return msg.format(), msg
