"""The operator's configuration: one YAML file read into frozen, typed pydantic dataclasses.

Each setting is declared once, with its limits (``arena.core.settings.setting``); pydantic
checks every section from those declarations, and one formatter words its errors, so the
checks and the wording of the messages cannot drift apart between keys. A bad file must
never give the operator a traceback: every problem becomes a ConfigError naming the file,
the dotted key and the form that was expected.
"""

from __future__ import annotations

import dataclasses
import os
import types
import typing
from dataclasses import field
from functools import cache
from pathlib import Path
from collections.abc import Mapping
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, PlainValidator, StringConstraints, TypeAdapter, ValidationError, model_validator
from pydantic.dataclasses import dataclass
from pydantic_core import ErrorDetails, PydanticCustomError

from .core import kit as kits
from .core.errors import SetupError
from .core.options import TYPE_ERRORS, UNKNOWN, OptionError, Options, first_error
from .core.settings import SECTION, Section, setting, whole
from .games import GAMES
from .ratings.settings import RatingsConfig

DEFAULT_FILE = "config.yaml"


class ConfigError(Exception):
    """The configuration cannot be used; the message says where and what form was expected."""


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
class GameDefaults:
    """What a game is played with unless a command says otherwise."""

    players: int = field(metadata={"description": "number of players", "ge": 1, "strict": True})
    options: Options = field(metadata={"description": "the game's Options, checked by the game"})


def _default_games() -> Mapping[str, GameDefaults]:
    return types.MappingProxyType(
        {name: GameDefaults(game.default_players, game.Options()) for name, game in GAMES.items()}
    )


def _read_games(value: Any) -> Mapping[str, GameDefaults]:
    """Games are keyed by name and their options belong to each game, so they are read here
    (their errors are whole ConfigErrors, which pydantic passes through)."""
    if isinstance(value, Mapping) and value and all(isinstance(v, GameDefaults) for v in value.values()):
        return types.MappingProxyType(dict(value))  # already read (a replace(), or built in code)
    games = dict(_default_games())
    for name, raw in _mapping(value, "games").items():
        if name not in GAMES:
            raise ConfigError(f"games: unknown game {name!r} (known: {', '.join(GAMES)})")
        at = f"games.{name}"
        body = _mapping(raw, at)
        options = _read_options(GAMES[name].Options, name, body.get("options"), f"{at}.options")
        defaults = _build(GameDefaults, {"players": games[name].players, **body, "options": options}, at)
        try:
            GAMES[name].check_setup(defaults.players, options)
        except SetupError as exc:
            raise ConfigError(f"{at}: cannot start with players: {defaults.players} and these options: {exc}") from None
        games[name] = defaults
    return types.MappingProxyType(games)


def _read_options(cls: type[Options], game: str, value: Any, where: str) -> Options:
    """Options.from_mapping also reads command-line text ("yes", "2"); a config file has real
    types, so options are read strictly here and a quoted "false" is refused."""
    try:
        return cls.model_validate(_mapping(value, where), strict=True)
    except ValidationError as exc:
        error = first_error(exc)
        if error["type"] in TYPE_ERRORS:
            raise ConfigError(
                f"{where}.{error['loc'][0]} must be {TYPE_ERRORS[error['type']]}, got {_show(error['input'])}"
            ) from None
        raise ConfigError(f"{where}: {cls.explain(error, game)}") from None
    except OptionError as exc:  # the game's own checks
        raise ConfigError(f"{where}: {exc}") from None


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
    games: Annotated[Mapping[str, GameDefaults], PlainValidator(_read_games)] = field(
        default_factory=_default_games, metadata={"description": "per game defaults"}
    )

    def to_dict(self) -> dict[str, Any]:
        """Plain data as a YAML file with these values would hold it (for ``arena config``)."""
        data: dict[str, Any] = _plain(self)
        return data


# -- pydantic's errors, as the operator reads them ----------------------------------------


def _show(value: Any) -> str:
    """A value as the operator wrote it in YAML, not as Python prints it."""
    if value is None:
        return "null (nothing)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return f"a list {value!r}" if len(repr(value)) <= 60 else "a list"
    return repr(value)


def _mapping(value: Any, where: str) -> Mapping[Any, Any]:
    """A part left empty (``options:`` with every key commented out) means defaults."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {_show(value)}")
    return value


def _optional(hint: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True); anything else -> (hint, False)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(hint)) == 2:
            return args[0], True
    return hint, False


def _form(hint: Any, meta: Mapping[str, Any]) -> str:
    """The expected form in words, from the type and the declared limits."""
    hint, optional = _optional(hint)
    text = meta.get("form")
    if text is None:
        if hint is bool:
            text = "true or false"
        elif hint in (int, float):
            text = "a whole number" if hint is int else "a number"
            lo, hi, above = meta.get("ge"), meta.get("le"), meta.get("gt")
            if lo is not None and hi is not None:
                text += f" from {lo} to {hi}"
            elif above is not None:
                text += f" greater than {above}"
            elif lo is not None:
                text += f" of at least {lo}"
            elif hi is not None:
                text += f" of at most {hi}"
        elif typing.get_origin(hint) is tuple:
            items = ", ".join(meta["choices"]) if meta.get("choices") else "strings"
            text = f"{'a non-empty' if meta.get('min_length') else 'a'} list of {items}"
        elif meta.get("choices"):
            text = f"one of {', '.join(meta['choices'])}"
        else:
            text = "a string"
    return f"{text}, or null" if optional else text


def _section_of(cls: type, path: tuple[str | int, ...]) -> type:
    """The section class an error's location (less its key) leads to from ``cls``."""
    for part in path:
        cls = _optional(typing.get_type_hints(cls)[str(part)])[0]
    return cls


def _where(loc: tuple[str | int, ...]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc).lstrip(".")


def _explain(cls: type, error: ErrorDetails, prefix: str) -> str:
    """One error of reading ``cls`` (at ``prefix``) as one line: the key and the form expected."""
    loc, kind, value = error["loc"], error["type"], error.get("input")
    where = _where((prefix, *loc) if prefix else loc)
    if kind in UNKNOWN:
        known = ", ".join(f.name for f in dataclasses.fields(_section_of(cls, loc[:-1])))
        return f"unknown key {'.'.join(map(str, (prefix, *loc) if prefix else loc))!r} (known: {known})"
    if kind == "value_error":  # a section's check across its keys, worded from the key it names
        return f"{where}.{error['ctx']['error']}" if where else str(error["ctx"]["error"])
    if kind == "dataclass_type":
        return f"{where} must be a mapping of keys to values, got {_show(value)}"
    item = isinstance(loc[-1], int)
    key = loc[-2] if item else loc[-1]
    owner = _section_of(cls, loc[:-2] if item else loc[:-1])
    meta = next(f.metadata for f in dataclasses.fields(owner) if f.name == key)
    form = _form(typing.get_type_hints(owner)[str(key)], meta)
    if item and kind == "string_type":
        return f"{where} must be a string, got {_show(value)}"
    if item and kind == "literal_error":
        return f"{where} must be one of {', '.join(meta['choices'])}, got {value!r}"
    if item:
        return f"{where} is not valid, got {value!r}; expected {form}"
    quote = (
        "; put it in quotes if it is meant as text" if kind == "string_type" and isinstance(value, (int, float)) else ""
    )
    return f"{where} must be {form}, got {_show(value)}{quote}"


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def _build(cls: type, value: Any, where: str) -> Any:
    """A section from a mapping, checked by pydantic; missing keys keep defaults."""
    try:
        return _adapter(cls).validate_python(_mapping(value, where or "the top level"))
    except ValidationError as exc:
        raise ConfigError(_explain(cls, first_error(exc), where)) from None


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


# -- loading ------------------------------------------------------------------------------


class _Loader(yaml.SafeLoader):
    """safe_load's loader, but a key written twice is an error instead of the last one winning."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # "<<:" may legitimately be overridden
                continue
            key = self.construct_object(key_node, deep=deep)
            if isinstance(key, typing.Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key {key!r} appears twice in one mapping", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def parse_config(data: Any, *, base_dir: str | os.PathLike[str] | None = None) -> Config:
    """A Config from already-parsed YAML data; relative store paths start at ``base_dir`` (default: cwd).

    Error messages carry no file name; ``load_config`` adds it.
    """
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(
            f"the top level must be a mapping of sections ({', '.join(f.name for f in dataclasses.fields(Config))}), "
            f"got {_show(data)}"
        )
    config: Config = _build(Config, data, "")
    store = Path(os.path.expanduser(config.store.path))  # unlike Path.expanduser, never raises
    if not store.is_absolute():
        store = Path(base_dir if base_dir is not None else Path.cwd()).absolute() / store
    return dataclasses.replace(config, store=StoreConfig(str(store)))


ENV_PREFIX = "ARENA_"
"""``ARENA_<SECTION>_<KEY>`` overrides ``<section>.<key>`` of the file; ``..._FILE`` reads the
value from a file: secrets then need not sit in config.yaml nor in a process listing."""
SECRETS = frozenset({("server", "password"), ("server", "sasl_password")})
"""Settings ``arena config`` never prints; from the environment they are taken verbatim."""


def config_source(path: str | os.PathLike[str] | None = None) -> str:
    """Where ``load_config(path)`` reads its settings: a file, or the built-in defaults."""
    if path is None and not Path(DEFAULT_FILE).is_file():
        return "built-in defaults"
    return os.fspath(path if path is not None else DEFAULT_FILE)


def env_overrides(environ: Mapping[str, str] | None = None) -> dict[tuple[str, str], str]:
    """The settings the environment overrides: (section, key) to the text given."""
    environ = os.environ if environ is None else environ
    found: dict[tuple[str, str], str] = {}
    for section in dataclasses.fields(Config):
        cls = section.default_factory  # a section's class (``section``); the games' mapping has none
        if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
            continue
        for key in dataclasses.fields(cls):
            name = f"{ENV_PREFIX}{section.name}_{key.name}".upper()
            if name in environ:
                found[(section.name, key.name)] = environ[name]
            elif f"{name}_FILE" in environ:
                file = environ[f"{name}_FILE"]
                try:
                    found[(section.name, key.name)] = Path(file).read_text(encoding="utf-8").rstrip("\r\n")
                except OSError as exc:
                    raise ConfigError(f"{name}_FILE: cannot read {file}: {exc}") from None
    return found


def _apply_env(data: Any, environ: Mapping[str, str] | None) -> Any:
    """``data`` with the environment's overrides in it (a secret verbatim, anything else
    read as YAML, so ``ARENA_SERVER_PORT=6697`` is a number)."""
    overrides = env_overrides(environ)
    if not overrides or not isinstance(data, Mapping):
        return data
    merged = {k: dict(v) if isinstance(v, Mapping) else v for k, v in data.items()}
    for (section, key), text in overrides.items():
        value = text if (section, key) in SECRETS else yaml.safe_load(text)
        target = merged.setdefault(section, {})
        if isinstance(target, dict):
            target[key] = value
    return merged


def load_config(path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """The configuration from ``path``; without one, ./config.yaml if present, else the
    defaults; ``ARENA_<SECTION>_<KEY>`` variables of ``environ`` (default: the process's)
    override the file."""
    if path is None:
        if not Path(DEFAULT_FILE).is_file():
            try:
                return parse_config(_apply_env({}, environ))
            except ConfigError as exc:
                raise ConfigError(f"environment: {exc}") from None
        path = DEFAULT_FILE
    name = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{name}: no such configuration file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{name}: cannot read the configuration file: {exc}") from None
    try:
        data = yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{name}: YAML syntax error{at}: {problem}") from None
    try:
        return parse_config(_apply_env({} if data is None else data, environ), base_dir=Path(path).parent)
    except ConfigError as exc:
        raise ConfigError(
            f"{name} (with the ARENA_* environment): {exc}" if env_overrides(environ) else f"{name}: {exc}"
        ) from None
