"""The operator's configuration: one YAML file read into frozen, typed pydantic dataclasses.

Each setting is declared once, with its limits (``arena.core.settings.setting``); pydantic
checks every section from those declarations, and one formatter words its errors, so the
checks and the wording of the messages cannot drift apart between keys. A bad file must
never give the operator a traceback: every problem becomes a ConfigError naming the file,
the dotted key and the form that was expected.

``sections`` declares the sections and ``Config``, ``games`` the games' defaults,
``errors`` words pydantic's errors, ``loading`` reads a file and the environment.
"""

from __future__ import annotations

from .errors import ConfigError
from .games import GameDefaults
from .loading import DEFAULT_FILE, ENV_PREFIX, SECRETS, config_source, env_overrides, load_config, parse_config
from .sections import (
    ESCALATION_STEPS,
    TRANSPORTS,
    Config,
    FloodConfig,
    GameName,
    IdentityConfig,
    LobbyConfig,
    NarratorConfig,
    Nick,
    SeatingConfig,
    ServerConfig,
    Step,
    StoreConfig,
    TimeoutConfig,
    TournamentConfig,
)

__all__ = [
    "DEFAULT_FILE",
    "ENV_PREFIX",
    "ESCALATION_STEPS",
    "SECRETS",
    "TRANSPORTS",
    "Config",
    "ConfigError",
    "FloodConfig",
    "GameDefaults",
    "GameName",
    "IdentityConfig",
    "LobbyConfig",
    "NarratorConfig",
    "Nick",
    "SeatingConfig",
    "ServerConfig",
    "Step",
    "StoreConfig",
    "TimeoutConfig",
    "TournamentConfig",
    "config_source",
    "env_overrides",
    "load_config",
    "parse_config",
]
