"""Each game's defaults (``games:``): keyed by the games registered, with options that
belong to each game, so they are read and checked by the game rather than by one section."""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import field
from typing import Any

from pydantic import ValidationError
from pydantic.dataclasses import dataclass

from ..core.errors import SetupError
from ..core.options import TYPE_ERRORS, OptionError, Options, first_error
from ..core.settings import SECTION
from ..games import GAMES
from .errors import ConfigError, as_mapping, build, show


@dataclass(frozen=True, config=SECTION)
class GameDefaults:
    """What a game is played with unless a command says otherwise."""

    players: int = field(metadata={"description": "number of players", "ge": 1, "strict": True})
    options: Options = field(metadata={"description": "the game's Options, checked by the game"})


def default_games() -> Mapping[str, GameDefaults]:
    return types.MappingProxyType(
        {name: GameDefaults(game.default_players, game.Options()) for name, game in GAMES.items()}
    )


def read_games(value: Any) -> Mapping[str, GameDefaults]:
    """Games are keyed by name and their options belong to each game, so they are read here
    (their errors are whole ConfigErrors, which pydantic passes through)."""
    if isinstance(value, Mapping) and value and all(isinstance(v, GameDefaults) for v in value.values()):
        return types.MappingProxyType(dict(value))  # already read (a replace(), or built in code)
    games = dict(default_games())
    for name, raw in as_mapping(value, "games").items():
        if name not in GAMES:
            raise ConfigError(f"games: unknown game {name!r} (known: {', '.join(GAMES)})")
        at = f"games.{name}"
        body = as_mapping(raw, at)
        options = _read_options(GAMES[name].Options, name, body.get("options"), f"{at}.options")
        defaults = build(GameDefaults, {"players": games[name].players, **body, "options": options}, at)
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
        return cls.model_validate(as_mapping(value, where), strict=True)
    except ValidationError as exc:
        error = first_error(exc)
        if error["type"] in TYPE_ERRORS:
            raise ConfigError(
                f"{where}.{error['loc'][0]} must be {TYPE_ERRORS[error['type']]}, got {show(error['input'])}"
            ) from None
        raise ConfigError(f"{where}: {cls.explain(error, game)}") from None
    except OptionError as exc:  # the game's own checks
        raise ConfigError(f"{where}: {exc}") from None
