"""Reading the configuration: a YAML file (a key written twice is an error), then the
``ARENA_*`` environment over it; every problem a ConfigError naming the file and the key."""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from .errors import ConfigError, build, show
from .sections import Config, StoreConfig

DEFAULT_FILE = "config.yaml"


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
            f"got {show(data)}"
        )
    config: Config = build(Config, data, "")
    store = Path(os.path.expanduser(config.store.path))  # unlike Path.expanduser, never raises
    if not store.is_absolute():
        store = Path(base_dir if base_dir is not None else Path.cwd()).absolute() / store
    return dataclasses.replace(config, store=StoreConfig(str(store), config.store.url))


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
