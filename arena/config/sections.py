"""The sections of config.yaml, each a frozen pydantic dataclass of declared settings
(``arena.core.settings.setting``), and ``Config``, which gathers them with the games'
defaults. Pydantic checks every section from those declarations; ``errors`` words what it
finds wrong from the same declarations.
"""

from __future__ import annotations

import os

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import field
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, PlainValidator, StringConstraints, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import PydanticCustomError

from ..core import kit as kits
from ..core.options import Options
from ..core.settings import SECTION, Section, setting, whole
from ..games import GAMES
from ..ratings.settings import RatingsConfig
from .games import GameDefaults, default_games, read_games


def section(cls: type, *, help: str) -> Any:
    """A nested section; a factory, so each Config gets its own (frozen) instance."""
    return field(default_factory=cls, metadata={"description": help})


# IRC (RFC 2812) nick and channel rules; a bad value here would only show up as a refused
# NICK or JOIN at connect time, long after the operator has walked away.
_NICK = r"[A-Za-z\[\]\\^_`{|}][A-Za-z0-9\-\[\]\\^_`{|}]{0,29}"
_CHANNEL = r"[#&][^\x00-\x20,\x7f]{1,49}"
_SECRET = r"[^\x00\r\n]+"  # a line break in a password would smuggle extra IRC commands
Nick = Annotated[str, StringConstraints(strict=True, pattern=whole(_NICK))]


@dataclass(frozen=True, config=SECTION)
class ServerConfig(Section):
    """Where the referee connects and how it presents itself."""

    host: str = setting(
        "127.0.0.1",
        help="IRC server host name or address",
        pattern=r"\S+",
        form="a non-empty host name or address without spaces",
    )
    port: int = setting(6667, help="IRC server port (6697 is the usual TLS port)", ge=1, le=65535)
    tls: bool = setting(False, help="connect with TLS")
    password: str | None = setting(
        None, help="server password sent with PASS", pattern=_SECRET, form="a non-empty string without line breaks"
    )
    nick: str = setting(
        "arena",
        help="the referee's nick",
        pattern=_NICK,
        form="an IRC nick of 1 to 30 characters: a letter or one of [\\]^_`{|}, then letters, digits, - or [\\]^_`{|}",
    )
    channel: str = setting(
        "#arena",
        help="the lobby channel",
        pattern=_CHANNEL,
        form='a channel name in quotes such as "#arena": # or & then 1 to 49 '
        "characters, no spaces, commas or control characters",
    )
    sasl_account: str | None = setting(
        None, help="SASL PLAIN account", pattern=_SECRET, form="a non-empty string without line breaks"
    )
    sasl_password: str | None = setting(
        None,
        help="SASL PLAIN password, set exactly when sasl_account is",
        pattern=_SECRET,
        form="a non-empty string without line breaks",
    )
    network: str | None = setting(
        None,
        help="the IRC network's name, the same in the configuration of every referee of one lobby: referees "
        "of one network and lobby channel, each under its own nick, share the lobby (a PostgreSQL store.url "
        "is then required); null: the lobby is this referee's alone",
        pattern=r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}",
        form="1 to 64 letters, digits, dots, dashes or underscores",
    )
    lines_per_second: float = setting(
        2.0,
        help="referee's outgoing line rate, to stay under flood limits; "
        "0 = unlimited (a private server without flood limits)",
        ge=0,
    )
    burst: int = setting(5, help="lines that may go out at once before the rate applies", ge=1)
    max_targets: int = setting(
        1,
        help="nicks one direct message may name at once (PRIVMSG a,b,c) when the server "
        "does not advertise TARGMAX or MAXTARGETS; ngircd takes up to 25 without saying "
        "so; 1 is always safe",
        ge=1,
    )

    @model_validator(mode="after")
    def _sasl_pair(self) -> ServerConfig:
        # Messages raised here start with the field name; the formatter prefixes the section.
        if self.sasl_account is not None and self.sasl_password is None:
            raise ValueError("sasl_password must be set (a non-empty string) when sasl_account is set")
        if self.sasl_password is not None and self.sasl_account is None:
            raise ValueError("sasl_account must be set (a non-empty string) when sasl_password is set")
        return self


@dataclass(frozen=True, config=SECTION)
class FloodConfig(Section):
    """What anyone can make the referee say: its lines share one rate-limited connection
    with the games, so answers to direct messages and lobby commands are rationed."""

    reply_burst: int = setting(
        10,
        help="replies (ERROR, WELCOME, REGISTERED...) one sender gets back to back before the interval applies",
        ge=1,
    )
    reply_interval: float = setting(
        5.0,
        help="seconds between two replies to one sender once its burst is spent; replies past that are "
        "dropped (the lines are still handled); 0 = no limit per sender",
        ge=0,
    )
    reply_queue: int = setting(
        50,
        help="replies waiting at most, all senders together, behind the games' lines; a reply that finds "
        "it full is dropped",
        ge=1,
    )
    command_interval: float = setting(
        5.0,
        help="seconds between two answers to !help or !status from others than operators; the rest are "
        "ignored; 0 = answer every one",
        ge=0,
    )


Step = Literal["warn", "default", "forfeit"]
ESCALATION_STEPS: tuple[Step, ...] = typing.get_args(Step)


@dataclass(frozen=True, config=SECTION)
class TimeoutConfig(Section):
    """How long bots get to answer, and what happens to those who do not."""

    decision: float = setting(30.0, help="seconds a bot has to answer a request", gt=0)
    grace: float = setting(10.0, help="extra seconds given after a warning", ge=0)
    escalation: tuple[Step, ...] = setting(
        ESCALATION_STEPS,
        help="step applied at a player's n-th missed deadline in a game; the last repeats",
        choices=ESCALATION_STEPS,
        min_length=1,
    )
    secret_minimum: float = setting(
        0.0,
        help="seconds a stretch of secret requests (a Werewolf night) lasts at least, so its length does not "
        "tell which roles are still asked; 0 = it ends as soon as its answers are in",
        ge=0,
    )
    resume: float = setting(
        60.0,
        help="seconds a game taken up after a referee restart waits for its bots to come back; past them it "
        "ends aborted (no rating moves)",
        ge=0,
    )
    failover: float = setting(
        10.0,
        help="seconds a referee's hold on its lobby lasts unrenewed: a standby (a second arena serve with the "
        "same configuration and store) takes the lobby and its games over once the referee has not renewed it "
        "for this long",
        gt=0,
    )
    night_step: float | None = setting(
        None,
        help="seconds after a Werewolf night begins before a request that needs another's answer (the "
        "witch's, after the wolves') goes out, so its timing does not tell who answered or who is alive; "
        "null = the deadline of the night's first requests (nightActionTime)",
        ge=0,
    )


@dataclass(frozen=True, config=SECTION)
class SeatingConfig(Section):
    """Seat order is kept for a block of games so seat effects even out without reseating every game."""

    games_per_order: int = setting(
        16,
        help="games a table plays with the same bots in one seat order before new tables are drawn from everyone "
        "waiting",
        ge=1,
    )


@dataclass(frozen=True, config=SECTION)
class IdentityConfig(Section):
    """How a connection proves which bot it plays: a seat, a rating and a history belong to
    a bot, so whoever can claim a name can take all three."""

    require_key: bool = setting(
        True,
        help="a bot must prove itself with its key (arena bots add NAME) or a services account; false: "
        "an unknown name is admitted on its word (first come, while no live connection holds it)",
    )
    accounts: bool = setting(
        False,
        help="recognise bots by their services account (IRCv3 account-tag; needs a network with "
        "services): a logged-in bot's first registration binds its name to its account",
    )


@dataclass(frozen=True, config=SECTION)
class StoreConfig(Section):
    """Where results persist; resolved to an absolute path so a daemon's working directory does not matter."""

    path: str = setting(
        "arena.db",
        help="results database; relative paths start at the config file's folder",
        pattern=r"[^\x00]+",
        form="a non-empty file path",
    )
    url: str = setting(
        "",
        help="a PostgreSQL database instead (postgresql://USER:PASSWORD@HOST/DB), which several "
        "referees share; empty: the SQLite file at path",
        pattern=r"(postgres(ql)?://[^\x00\s]+)?",
        form="empty or a postgresql:// URL",
    )

    @property
    def location(self) -> str:
        """The database the store opens: the URL if one is given, else the file."""
        return self.url or self.path

    def made(self) -> bool:
        """Whether there may be results to read: a database server is asked; a file that
        does not exist has none (and a command that only reads leaves none behind)."""
        return bool(self.url) or os.path.exists(self.path)


def _a_game(name: str) -> str:
    """A game registered now (a game of a kit registered at run time too)."""
    if name not in GAMES:
        raise PydanticCustomError("string_pattern_mismatch", "not a game")
    return name


GameName = Annotated[str, AfterValidator(_a_game)]
"""The name of a game: one of those registered when the configuration is read."""


@dataclass(frozen=True, config=SECTION)
class LobbyConfig(Section):
    """When the referee starts games on its own, and who may start them by hand."""

    game: GameName = setting("avalon", help="the game the lobby starts", choices=GAMES)
    auto_start: bool = setting(True, help="start a game by itself once enough bots are registered")
    min_players: int = setting(5, help="fewest registered bots for an automatic start", ge=1)
    max_players: int = setting(10, help="most players seated in one game", ge=1)
    countdown: float = setting(
        30.0,
        help="seconds without a new bot waiting before a table that is not full opens (a full one opens at once)",
        ge=0,
    )
    max_wait: float = setting(
        120.0,
        help="seconds at most from when the longest-waiting bot began waiting to an automatic start, "
        "however many registrations restart the countdown",
        ge=0,
    )
    join_timeout: float = setting(30.0, help="seconds seated bots have to join the game channel", ge=0)
    topic_interval: float = setting(
        30.0,
        help="seconds between two updates of the lobby topic's status (who waits, what runs), set only when it "
        "changed; 0 = the topic names the referee only",
        ge=0,
    )
    operators: tuple[Nick, ...] = setting(
        (), help="nicks allowed to send !start and !stop (!help and !status answer anyone)", form="a list of IRC nicks"
    )

    @model_validator(mode="after")
    def _players(self) -> LobbyConfig:
        if self.max_players < self.min_players:
            raise ValueError(f"max_players must be at least min_players ({self.min_players}), got {self.max_players}")
        return self


@dataclass(frozen=True, config=SECTION)
class NarratorConfig(Section):
    """The spectators' channel: ``arena serve`` runs the narrator, on a connection of its own,
    when ``channel`` is set."""

    channel: str | None = setting(
        None,
        help="the channel games are narrated in; null = no narrator",
        pattern=_CHANNEL,
        form='null, or a channel name in quotes such as "#arena-live"',
    )
    per_game: bool = setting(
        False,
        help="narrate each game in a channel of its own, CHANNEL-GID (e.g. "
        "#arena-live-g7); the channel itself then tells the tables and the ends",
    )
    nick: str | None = setting(
        None,
        help="the narrator's nick; null = the referee's nick followed by -tv",
        pattern=_NICK,
        form="null, or an IRC nick of 1 to 30 characters",
    )
    lines_per_second: float = setting(1.0, help="the narrator's outgoing line rate; 0 = unlimited", ge=0)
    burst: int = setting(5, help="lines that may go out at once before the rate applies", ge=1)
    backlog: int = setting(
        20,
        help="lines the narration may fall behind before it skips the play of the games it "
        "has yet to tell, saying how much (never a game's setup or its end)",
        ge=1,
    )
    in_full: int = setting(
        3,
        help="games told in full at once; a game that starts while that many are told is told by its "
        "result alone, folded with others into one Results line, and the channel says so",
        ge=1,
    )

    def nick_for(self, referee: str) -> str:
        return self.nick or f"{referee}-tv"


TRANSPORTS = ("local", "irc")
_BOT = r"[A-Za-z\[\]\\^_`{|}][A-Za-z0-9\-\[\]\\^_`{|}]{0,15}(=\S+)?"


@dataclass(frozen=True, config=SECTION)
class TournamentConfig(Section):
    """A series between chosen bots (``arena tournament``); every key can be overridden by a flag."""

    id: str = setting(
        "t1",
        help="the tournament's id; run again with the same id to resume it",
        pattern=r"[A-Za-z][A-Za-z0-9_]{0,11}",
        form="1 to 12 letters, digits or _, starting with a letter",
    )
    game: GameName = setting("avalon", help="the game played", choices=GAMES)
    games: int = setting(100, help="games in the tournament", ge=1)
    players: int | None = setting(None, help="seats per game; null = every bot plays every game", ge=1)
    bots: tuple[Annotated[str, StringConstraints(strict=True, pattern=whole(_BOT))], ...] = setting(
        ("rule1=avalon_rule", "rule2=avalon_rule", "rule3=avalon_rule", "random1=random", "random2=random"),
        help=f"the players: NAME=BOT in local mode (BOT: {', '.join(('random', *kits.bots()))}, module:Class or "
        "file.py:Class); over IRC the names of bots that connect and register",
        form="a non-empty list of NICK=BOT entries (NICK: 1 to 16 nick characters)",
        min_length=1,
    )
    transport: str = setting(
        "local", help="local: bots run in this process; irc: bots connect to the server", choices=TRANSPORTS
    )


@dataclass(frozen=True, config=SECTION)
class Config:
    """The whole configuration; ``load_config`` is the way to get one from a file."""

    server: ServerConfig = section(ServerConfig, help="the IRC connection")
    flood: FloodConfig = section(FloodConfig, help="what one sender can make the referee say")
    timeouts: TimeoutConfig = section(TimeoutConfig, help="deadlines for bots")
    seating: SeatingConfig = section(SeatingConfig, help="seat order across a series")
    identity: IdentityConfig = section(IdentityConfig, help="how bots prove who they are")
    lobby: LobbyConfig = section(LobbyConfig, help="automatic and manual game starts")
    narrator: NarratorConfig = section(NarratorConfig, help="the spectators' narrated channel")
    store: StoreConfig = section(StoreConfig, help="where results are kept")
    ratings: RatingsConfig = section(RatingsConfig, help="the rating systems' parameters")
    tournament: TournamentConfig = section(TournamentConfig, help="arena tournament's defaults")
    games: Annotated[Mapping[str, GameDefaults], PlainValidator(read_games)] = field(
        default_factory=default_games, metadata={"description": "per game defaults"}
    )

    @model_validator(mode="after")
    def _shared_store(self) -> Config:
        if self.server.network is not None and not self.store.url:
            raise ValueError(
                "server.network is set (a lobby several referees share) but store.url is empty: the referees "
                "of a shared lobby need one PostgreSQL database (store.url, or ARENA_STORE_URL)"
            )
        return self

    def to_dict(self) -> dict[str, Any]:
        """Plain data as a YAML file with these values would hold it (for ``arena config``)."""
        data: dict[str, Any] = _plain(self)
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, Options):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value
