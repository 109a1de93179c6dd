"""What a bot is given: the request it must answer (``Ask``) and what it knows of the game
(``GameView``, with the game's ``GameState`` that the SDK keeps up to date).

Each game's ``GameSpec`` (its state class and one request class per decision kind) is
registered here by its module, or loaded from the game's kit (``Kit.sdk``) on first use. The
session builds every view and request from the spec of the
game's ``START``, so a bot that subclasses the generic ``Bot`` gets the same typed state
and requests as one written for a single game.
"""

from __future__ import annotations

import logging
import random
import time
import threading
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from ..core import kit as kits
from ..protocol import ASK, END, ROLE, Message
from .fields import WORDS, Player

log = logging.getLogger(__name__)


@dataclass
class Ask:
    """A request from the referee: pick ``pick`` of ``options`` before ``deadline`` seconds pass.

    Each decision kind has its own subclass (``arena.sdk.avalon``, ``arena.sdk.werewolf``)
    whose typed fields read the line (``ask.rejections`` is an int); ``fields`` keeps the
    line's raw ``key=value`` text for anything else."""

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
    received: float = field(default_factory=time.monotonic, repr=False, compare=False)
    """When the line arrived (``time.monotonic()``): a bot that budgets its thinking time
    counts from here, not from when a worker got to it, since the referee's deadline runs
    from when it sent the line."""
    fallback: str | None = field(default=None, repr=False, compare=False)
    """Set when the answer is not the bot's own choice: ``error`` (its decision raised and
    the SDK answered at random) or ``own`` (the bot gave up itself: ``fall_back``). The
    answer then says ``fallback=...``, which the referee only counts (``arena stats``)."""
    answered: bool = field(default=False, repr=False, compare=False)
    """Set once the bot's decision has returned (or raised): on a local table a ``WARN``
    that crossed the answer then gets no second one (``Session``)."""

    def fall_back(self, rng: random.Random | None = None) -> str | list[str]:
        """A random legal answer (as ``random``) for a bot that found nothing better itself
        (a language model that gave nothing legal): the answer is marked ``fallback=own``,
        so the bot's stats count it."""
        self.fallback = "own"
        return self.random(rng)

    def random(self, rng: random.Random | None = None) -> str | list[str]:
        """A random legal answer from ``rng``, else the bot's stream (``self.rng``), else
        (an Ask built by hand) a fresh unseeded one."""
        if rng is None:
            rng = self.rng if self.rng is not None else random.Random()
        if self.pick == 1:
            return rng.choice(self.options)
        return rng.sample(self.options, self.pick)

    @property
    def players(self) -> list[Player]:
        """The options that are players, without the words (``none``, ``abstain``, ...)."""
        return [o for o in self.options if o not in WORDS]

    @property
    def floor(self) -> bool:
        """Whether this request gives you the floor: say your speech, then answer."""
        return self.message.flag("floor")


@dataclass
class GameState:
    """What one game's lines have told this bot so far: whenever a bot reads
    ``game.state``, every line received until then has been applied to it, so a callback
    or a decision always reads the game as it stands. Bots read it and never change it
    (their own memory goes in ``GameView.notes``).

    This base class follows what every game shares (your role, the roles made public, the
    end); each game's subclass adds the rest. A game the SDK does not know gets the base."""

    seats: list[Player]
    """Every player, in seat order."""
    role: str | None = None
    """Your role, once ``ROLE`` told it."""
    side: str | None = None
    """Your side as ``ROLE`` told it (an Avalon Lancelot's may switch later: ``switched``)."""
    sees: list[Player] = field(default_factory=list)
    """The players your role lets you see (Avalon; protocol.md, "What `sees` means")."""
    roles: dict[Player, str] = field(default_factory=dict)
    """Roles told to everyone so far (Werewolf reveals the dead's; every role at the end)."""
    winner: str | None = None
    """The winning side once the game has ended (``none`` for a draw or an abort)."""
    reason: str | None = None
    """Why the game ended (an end reason of protocol.md), once it has."""

    def apply(self, msg: Message) -> None:
        """Follow one line of the game (see ``follow``)."""
        self.follow((msg,))

    def follow(self, msgs: Iterable[Message]) -> None:
        """Follow lines of the game, in order. A line the state cannot read (a referee
        sending what protocol.md does not say) is logged and skipped: the bot plays on.
        Most lines change nothing here (no reader): they cost no call."""
        readers = self.READERS
        for msg in msgs:
            verb = msg.verb
            reader = readers.get(f"{verb} {msg.args[2]}" if verb == ASK else verb)
            if reader is None:
                continue
            try:
                reader(self, msg)
            except Exception:
                log.exception("%s could not follow %s", type(self).__name__, msg.format())

    def said(self, player: Player, text: str) -> None:
        """``player``, who has the floor, said ``text`` in the game's channel (a speech
        line; the bot's own lines too). Only games with turns at the floor keep them."""

    def _role(self, msg: Message) -> None:
        self.role, self.side, self.sees = msg.get("role"), msg.get("side"), msg.list("sees")

    def _end(self, msg: Message) -> None:
        self.winner = msg.get("winner")
        self.reason = msg.get("reason")
        self.roles = msg.pairs("roles")

    READERS: ClassVar[Mapping[str, Callable[[Any, Message], None]]] = {ROLE: _role, END: _end}
    """How each line changes the state: by verb, and by ``"ASK kind"`` for a request. A
    subclass lists its readers (its base's included); a line without one changes nothing."""


S = TypeVar("S", bound=GameState)


@dataclass
class GameView(Generic[S]):
    """What this bot knows of one game: seats, its own role, what the referee said, and the
    game's state (``state``: an ``AvalonState`` or a ``WerewolfState``)."""

    gid: str
    kind: str
    """The game: ``avalon`` or ``werewolf``."""
    me: Player
    """Our seat's nick (as START named it: requests name us so)."""
    seats: list[Player]
    options: dict[str, str]
    start: Message
    _state: S = field(repr=False)
    role: str | None = None
    side: str | None = None
    sees: list[Player] = field(default_factory=list)
    """Avalon: the players your role lets you see (protocol.md, "What `sees` means")."""
    messages: list[Message] = field(default_factory=list)
    """Every protocol line of this game the bot received, in order."""
    over: bool = False
    notes: dict[str, Any] = field(default_factory=dict)
    """The bot's own memory for this game; the SDK never touches it."""
    floor: Player | None = None
    """Who has the floor now (a turn to speak is open for them), or None."""
    chat: list[tuple[Player, str]] = field(default_factory=list)
    """What other players said at the floor in the game's channel, in order: (nick, text)."""
    spoken: int = 0
    """Bytes (UTF-8) of text this bot said in the game, at the floor and in ``TEAM`` lines:
    what a speech budget counts (``speech_left``)."""
    _applied: int = field(default=0, init=False, repr=False, compare=False)
    """How many of ``messages`` the state has read."""
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)
    """Held while the state reads: the IRC runner's workers and its reactor may both ask."""

    @property
    def state(self) -> S:
        """The game so far, up to the last line received (see ``GameState``).

        The state reads the lines when a bot asks for it, not as they arrive: ten bots in
        one process hear every line of a game, and a bot that never looks at the state
        should not pay for it on each."""
        if self._applied < len(self.messages):
            with self._lock:
                self._catch_up()
        return self._state

    def _catch_up(self) -> None:
        end = len(self.messages)  # lines that arrive meanwhile wait for the next reading
        new = self.messages[self._applied : end]
        self._applied = end
        self._state.follow(new)

    def hear(self, change: Callable[[S], None]) -> None:
        """Bring the state up to date, then apply ``change`` to it: what the state learns
        from elsewhere than the referee's lines (the speeches said in the channel, the
        bot's own lines). Used by the session."""
        with self._lock:
            self._catch_up()
            change(self._state)

    @property
    def speech_budget(self) -> int | None:
        """Bytes this bot may say in the whole game (the ``speech_budget`` option of
        ``START``, as Tuvalon's), or None: no budget. Going over it forfeits the game."""
        try:
            budget = int(self.options.get("speech_budget", "0"))
        except ValueError:
            return None
        return budget if budget > 0 else None

    def speech_left(self) -> int | None:
        """Bytes this bot may still say in the game (``speech_budget`` less ``spoken``), or
        None: no budget. The session leaves out the lines that would go over it."""
        budget = self.speech_budget
        return None if budget is None else max(0, budget - self.spoken)

    @property
    def others(self) -> list[Player]:
        return [s for s in self.seats if s.lower() != self.me.lower()]


@dataclass(frozen=True)
class GameSpec:
    """What the SDK knows of one game: how to follow it, and its decisions."""

    name: str
    state: type[GameState]
    asks: Mapping[str, type[Ask]]
    """Every decision kind of the game, with the class of its requests."""


SPECS: dict[str, GameSpec] = {}
"""The specs registered or loaded so far, by the name ``START`` gives (``game=avalon``):
``spec_of`` and ``specs`` also load those of games registered since."""


def register(spec: GameSpec) -> GameSpec:
    SPECS[spec.name] = spec
    return spec


def spec_of(game: str) -> GameSpec | None:
    """The spec of ``game``, loaded from its kit the first time; None for a game the SDK
    has no spec of (its bots get the base ``GameState`` and ``Ask``)."""
    spec = SPECS.get(game)
    if spec is None:
        kit = kits.get(game)
        if kit is not None and kit.sdk is not None:
            spec = register(kit.sdk())
    return spec


def specs() -> list[GameSpec]:
    """The specs of every game the SDK knows: each registered game's that has one."""
    return [spec for spec in map(spec_of, kits.names()) if spec is not None]


def new_view(start: Message, me: Player) -> GameView[GameState]:
    """The view of a game that ``start`` (its START line) begins, with a fresh state (which
    reads ``start`` with the other lines, from ``messages``)."""
    seats = start.list("seats")
    kind = start.get("game", "")
    spec = spec_of(kind)
    state = (spec.state if spec is not None else GameState)(seats)
    return GameView(start.args[0], kind, me, seats, start.pairs("options"), start, state)


_read_last: tuple[Message, str, type[Ask], int, float] | None = None
"""The request ``new_ask`` read last, with its game and what it read: its class, ``pick``
and deadline. Bots that share a process (a local table) are handed the same message of a
request said to several of them (ten votes): it is read once for all of them."""


def new_ask(view: GameView[Any], msg: Message, rng: random.Random) -> Ask:
    """The request ``msg`` (an ASK line addressed to us), as its kind's class."""
    global _read_last
    gid, rid, kind = msg.args
    fields = msg.fields
    last = _read_last
    if last is not None and last[0] is msg and last[1] == view.kind:
        cls, pick, deadline = last[2:]
    else:
        spec = spec_of(view.kind)
        cls = spec.asks.get(kind, Ask) if spec is not None else Ask
        pick = msg.int("pick") if "pick" in fields else 1
        deadline = float(msg.int("deadline", 0))
        _read_last = (msg, view.kind, cls, pick, deadline)
    options = fields.get("options")
    return cls(gid, rid, kind, options.split(",") if options else [], pick, deadline, fields, msg, rng)
