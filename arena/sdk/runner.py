"""Run an SDK bot over IRC: connect, register, follow games into their channels, answer
in time.

Decisions run on worker threads, so the connection stays alive while a bot thinks, and a
bot seated in several games thinks about each at once: a slow decision in one game
delays no other game's. If a bot has not decided when 80% of the deadline is gone, a
random legal answer goes out instead (and the late one is dropped), so a slow bot loses a
choice, not its seat.
"""

from __future__ import annotations

import itertools
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click
import irc.client

from ..core.words import counted
from ..irc.link import IrcLink, LinkSettings, strip_controls
from ..protocol import UNREGISTER, WHO, Message, topic_referees
from .bot import Bot
from .session import Session
from .view import Ask, GameView

log = logging.getLogger(__name__)

_Command = TypeVar("_Command", bound=Callable[..., Any] | click.Command)
"""What a click option decorates: the command's function, or the command it became."""

SAFETY = 0.8
"""Share of a deadline a bot may spend deciding before the SDK answers for it."""


class BotRunner:
    def __init__(
        self,
        bot: Bot,
        host: str,
        port: int,
        nick: str,
        *,
        referee: str = "arena",
        channel: str = "#arena",
        tls: bool = False,
        password: str | None = None,
        lines_per_second: float = 2.0,
        max_games: int | None = None,
        reactor: irc.client.Reactor | None = None,
        name: str | None = None,
        key: str | None = None,
        referee_account: str | None = None,
        sasl_account: str | None = None,
        sasl_password: str | None = None,
        workers: int = 16,
    ) -> None:
        """``name`` is the bot's identity (default: the nick) and ``key`` proves it (see
        ``arena bots add``: it is proven by SCRAM, never sent, and the referee must prove
        it knows it before any of its lines is obeyed); ``sasl_account``/``sasl_password``
        log the bot in to its services account instead. ``referee_account``: the
        referee's services account; then only lines from that account count as the
        referee's, and the bot registers only after the referee has answered from it (the
        other referees of a shared lobby are trusted because it lists them: ``Referees``).
        ``workers``: decisions that may run
        at once (one per game the bot sits in is enough; a decision that overran its
        deadline keeps its worker until it returns)."""
        self.max_games = max_games
        self.channel = channel
        self.referee_account = referee_account
        self.link = IrcLink(
            host,
            port,
            nick,
            LinkSettings(
                tls=tls,
                password=password,
                lines_per_second=lines_per_second,
                account_tags=referee_account is not None,
                sasl_account=sasl_account,
                sasl_password=sasl_password,
            ),
            channels=[channel],
            reactor=reactor,
            on_message=self._on_message,
            on_ready=self._on_ready,
            on_membership=self._on_membership,
            on_topic=self._on_topic,
        )
        self.reactor = self.link.reactor
        self.referee = referee
        self.session = Session(
            bot,
            nick,
            referee,
            join=self.link.join,
            part=self.link.part,
            respond=self._respond,
            say=self._say,
            name=name,
            key=key,
        )
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"{nick}-decide")
        self._lock = threading.Lock()
        self._answered: set[int] = set()
        """The requests answered, by the number ``_respond`` gave them: the decision and the
        fallback race, and only one may answer. Not by request id: a request the referee
        asks again (after a ``RESYNC``) is answered again."""
        self._asks = itertools.count()
        self._referee_proven = False
        """Whether a line from the referee's nick came from the referee's account."""
        self._unregistered = False
        """Whether we unregistered, our ``max_games`` played."""
        self._held_back = False
        """Whether the lobby's topic named another referee since we last registered: when it
        names ours again, register."""
        self._told: list[str] | None = None
        """The other referees a topic named when we last said we wait for ours (said once
        for each topic that holds us back, however often we look at it)."""

    @property
    def done(self) -> bool:
        return self.link.is_closed or (self.max_games is not None and self.session.finished >= self.max_games)

    def start(self) -> None:
        """Connect; something must drive ``reactor`` (``run`` does, in this thread)."""
        self.link.connect()

    def run(self, tick: float = 0.05) -> None:
        self.start()
        try:
            while not self.done:
                self.reactor.process_once(tick)
        finally:
            session = self.session
            log.info(
                "leaving after %s ended; still open: %s",
                counted(session.finished, "game"),
                ", ".join(session.games) or "none",
            )
            self.link.close("bye", drain_timeout=1.0)
            while self.link.queued:
                self.reactor.process_once(0.05)
            self._pool.shutdown(wait=False, cancel_futures=True)
            self.session.faults.report()

    def _on_ready(self) -> None:
        self.session.nick = self.link.nick  # the server may have given us a suffixed nick
        self.session.unregister()  # a new connection: nobody knows it yet
        self._hello()

    def _hello(self) -> None:
        """Register, unless the referee's nick may not be the referee: the lobby's topic
        names another referee (then wait for it to name ours), or the referee's account is
        known and it has not yet spoken from it (then ask WHO, which carries no secret, and
        register when it answers). Never once we unregistered: our games are played."""
        if self._unregistered:
            return
        named = topic_referees(self.link.topic_of(self.channel) or "")
        if not self._names_ours(named):
            if named != self._told:
                log.error(
                    "the lobby says the referee is %s, not %s: waiting before registering",
                    ", ".join(named or ()),
                    self.referee,
                )
            self._held_back, self._told = True, named
            return
        self._held_back, self._told = False, None
        if self.referee_account is not None and not self._referee_proven:
            self.link.send(self.referee, Message.make(WHO).format())
            return
        self.link.send(self.referee, self.session.hello())

    def _names_ours(self, named: list[str] | None) -> bool:
        """Whether a lobby topic naming ``named`` lets us register with our referee: it
        names it (among the referees of a shared lobby), or names none."""
        return named is None or self.referee.lower() in (n.lower() for n in named)

    def _on_topic(self, channel: str, text: str) -> None:
        """A lobby topic that names our referee again lets a bot that waited register."""
        if self.link.fold(channel) == self.link.fold(self.channel) and self.link.is_ready:
            named = topic_referees(text)
            if not self._names_ours(named):
                self._held_back = True  # whoever holds our referee's nick now is not the referee
            elif named is not None and self._held_back:
                self._hello()  # (not on every topic: a registration under way would start over)

    def _on_membership(self, kind: str, nick: str, channel: str | None, new_nick: str | None) -> None:
        """A referee that (re)joins the lobby may have forgotten us, or was not there when
        we registered: register again. One that leaves its nick (quits, or changes nick) is
        not trusted any more: whoever joins under it next must prove itself. Another referee
        of the lobby that leaves its nick is dropped from the referees we trust; we stay
        registered (with the rest of the lobby), and it comes back when a trusted referee
        lists it again."""
        if kind == "nick" and (new_nick or "").lower() == self.referee.lower() and not self.link.is_me(new_nick or ""):
            kind, nick = "join", new_nick or ""  # the referee took its nick back: register with it
        if self.link.is_me(nick):
            return
        if nick.lower() != self.referee.lower():
            if kind in ("quit", "split", "nick"):
                self.session.referee_left(nick)  # (a nick that is no referee's: nothing to drop)
            return
        if kind == "join":
            # Register again (it may be a new referee); still trusted if it is the one that
            # welcomed us (no quit or nick change came between: the same connection).
            self._hello()
        elif kind in ("quit", "split", "nick"):
            # The referee is gone from its nick: whoever takes it next is a stranger until
            # it proves otherwise (registering again, when the referee joins the lobby).
            self._referee_proven = False
            self.session.referee_left(nick)

    def _on_message(self, sender: str, target: str, text: str) -> None:
        if target[:1] in "#&" and not self.session.referees.known(sender):
            # Another player talking in a channel: plain text only, a bot is fed no
            # formatting codes or CTCP (the link delivers lines raw).
            text = strip_controls(text)
            if text:
                self.session.chat(sender, text)
            return
        if sender.lower() == self.referee.lower() and self.referee_account is not None:
            account = self.link.account_of(sender)
            if (account or "").lower() != self.referee_account.lower():
                log.warning(
                    "ignoring a line from %s, not logged in as the referee's account %s: %r",
                    sender,
                    self.referee_account,
                    text[:80],
                )
                return
            if not self._referee_proven:
                self._referee_proven = True
                if not self.session.welcomed:
                    self.link.send(self.referee, self.session.hello())
        for line in self.session.feed(sender, text, target if target[:1] in "#&" else None):
            self.link.send(sender, line)  # (a game's lines come from its referee, and go back to it)
        if self.max_games is not None and self.session.finished >= self.max_games and not self._unregistered:
            # Our last game is over: say so at once, or we may be seated at a table we will not join.
            self._unregistered = True
            self.link.send(self.referee, Message.make(UNREGISTER).format())

    def _say(self, gid: str, text: str) -> None:
        channel = self.session.channel_of(gid)
        if channel is not None:
            self.link.send(channel, text)

    def _respond(self, game: GameView[Any], ask: Ask) -> None:
        """Decide ``ask`` on a worker; at ``SAFETY`` of its deadline, answer at random
        unless the decision has answered already (whichever comes first answers)."""
        key = next(self._asks)
        budget = max(0.0, ask.deadline * SAFETY)
        self.reactor.scheduler.execute_after(
            budget, lambda: self._send(key, ask, ask.random(self.session.bot.rng), late=True)
        )

        def work() -> None:
            # Speech in the channel (unless the turn is over already), TEAM lines to the game's referee.
            for line in self.session.talk(game, ask, live=lambda: key not in self._answered):
                self.link.send(self.session.referees.of(game.gid), line)
            self._send(key, ask, self.session.decide(game, ask), late=False)

        self._pool.submit(work)

    def _send(self, key: int, ask: Ask, choice: str | list[str], late: bool) -> None:
        with self._lock:
            if key in self._answered:
                return
            self._answered.add(key)
        if late:
            log.warning("no decision for request %s of %s in time; answering at random", ask.rid, ask.game)
        self.link.send(
            self.session.referees.of(ask.game), Session.answer(ask, choice, "late" if late else ask.fallback)
        )


def _server(ctx: click.Context, param: click.Parameter, text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise click.BadParameter(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def command(bot_class: type[Bot]) -> click.Command:
    """The command line of a bot program that runs ``bot_class`` (``run_bot``). Every
    option can come from the environment instead (``ARENA_SERVER``, ``ARENA_NICK``, ...,
    as ``--help`` shows), which keeps keys and passwords out of the process list."""

    def option(*names: str, env: str, **kwargs: Any) -> Callable[[_Command], _Command]:
        return click.option(*names, envvar=env, show_envvar=True, **kwargs)

    @click.command(
        name=bot_class.__name__,
        context_settings={"help_option_names": ["-h", "--help"]},
        help=f"Run {bot_class.__name__} in an arena over IRC.",
    )
    @option(
        "--server", env="ARENA_SERVER", required=True, metavar="HOST:PORT", callback=_server, help="The IRC server."
    )
    @option("--nick", env="ARENA_NICK", required=True, help="The bot's nick.")
    @option(
        "--name",
        env="ARENA_NAME",
        default=None,
        help="The bot's identity, whose rating it plays for (default: the nick).",
    )
    @option(
        "--key",
        env="ARENA_KEY",
        default=None,
        help="The key that proves the identity (`arena bots add NAME` prints it); never sent, proven by SCRAM.",
    )
    @option(
        "--referee",
        env="ARENA_REFEREE",
        default="arena",
        show_default=True,
        help="The referee's nick (to register with).",
    )
    @option("--channel", env="ARENA_CHANNEL", default="#arena", show_default=True, help="The lobby channel.")
    @option(
        "--referee-account",
        env="ARENA_REFEREE_ACCOUNT",
        default=None,
        help="The referee's services account: trust its nick only when it speaks from it.",
    )
    @option(
        "--sasl-account", env="ARENA_SASL_ACCOUNT", default=None, help="Log in to this services account (SASL PLAIN)."
    )
    @option("--sasl-password", env="ARENA_SASL_PASSWORD", default=None, help="Its password.")
    @option("--tls", env="ARENA_TLS", is_flag=True, help="Connect with TLS.")
    @option("--password", env="ARENA_PASSWORD", default=None, help="The server's password.")
    @option(
        "--rate",
        env="ARENA_RATE",
        type=float,
        default=2.0,
        show_default=True,
        help="Lines per second at most (0: unlimited).",
    )
    @option("--games", env="ARENA_GAMES", type=int, default=None, help="Leave after this many games.")
    @option("--seed", env="ARENA_SEED", type=int, default=None, help="Seed of the bot's random stream.")
    @option(
        "--workers",
        env="ARENA_WORKERS",
        type=click.IntRange(min=1),
        default=16,
        show_default=True,
        help="Decisions that may run at once (in different games).",
    )
    @option("--verbose", env="ARENA_VERBOSE", is_flag=True, help="Log what the bot does, not only what goes wrong.")
    def run(
        server: tuple[str, int],
        nick: str,
        name: str | None,
        key: str | None,
        referee: str,
        channel: str,
        referee_account: str | None,
        sasl_account: str | None,
        sasl_password: str | None,
        tls: bool,
        password: str | None,
        rate: float,
        games: int | None,
        seed: int | None,
        workers: int,
        verbose: bool,
    ) -> None:
        logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format=f"{nick}: %(message)s")
        host, port = server
        runner = BotRunner(
            bot_class(seed=seed),
            host,
            port,
            nick,
            referee=referee,
            channel=channel,
            tls=tls,
            password=password,
            lines_per_second=rate,
            max_games=games,
            name=name,
            key=key,
            referee_account=referee_account,
            sasl_account=sasl_account,
            sasl_password=sasl_password if sasl_account else None,
            workers=workers,
        )
        try:
            runner.run()
        except KeyboardInterrupt:
            pass

    return run


def main(bot_class: type[Bot], argv: Sequence[str] | None = None) -> None:
    """Run ``bot_class`` with the options of ``argv`` (default: the command line)."""
    command(bot_class).main(args=list(argv) if argv is not None else None)
