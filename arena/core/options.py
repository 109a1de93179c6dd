"""Typed game options that read the same from the command line and from config.yaml.

A game declares its options as a frozen dataclass of ``Options`` with ``option(...)``
fields; parsing, the error messages and the help text then come from one place.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Iterable, Mapping, TypeVar

T = TypeVar("T", bound="Options")

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


class OptionError(ValueError):
    """An option name or value is wrong; the message names it and the expected form."""


def option(default: Any, *, choices: Iterable[Any] | None = None, help: str = "") -> Any:
    return dataclasses.field(
        default=default, metadata={"choices": None if choices is None else tuple(choices), "help": help}
    )


def _coerce(name: str, kind: type, value: Any, choices: tuple[Any, ...] | None) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise OptionError(f"option {name} must be true or false, got {value!r}")
    if kind is int:
        if isinstance(value, bool):
            raise OptionError(f"option {name} must be a whole number, got {value!r}")
        try:
            number = int(str(value).strip())
        except ValueError:
            raise OptionError(f"option {name} must be a whole number, got {value!r}") from None
        if choices is not None and number not in choices:
            raise OptionError(f"option {name} must be one of {', '.join(map(str, choices))}, got {value!r}")
        return number
    text = str(value)
    if choices is not None and text not in choices:
        raise OptionError(f"option {name} must be one of {', '.join(choices)}, got {value!r}")
    return text


class Options:
    """Mixin for a frozen dataclass of options."""

    @classmethod
    def fields(cls) -> tuple[dataclasses.Field, ...]:
        return dataclasses.fields(cls)  # type: ignore[arg-type]

    @classmethod
    def from_mapping(cls: type[T], values: Mapping[str, Any], game: str = "") -> T:
        hints = typing.get_type_hints(cls)
        known = {f.name: f for f in cls.fields()}
        parsed: dict[str, Any] = {}
        for name, value in values.items():
            if name not in known:
                where = f" for {game}" if game else ""
                raise OptionError(f"unknown option {name!r}{where} (known: {', '.join(known)})")
            parsed[name] = _coerce(name, hints[name], value, known[name].metadata["choices"])
        return cls(**parsed)

    @classmethod
    def from_pairs(cls: type[T], pairs: Iterable[str], base: Mapping[str, Any] | None = None, game: str = "") -> T:
        """Options from ``NAME=VALUE`` strings laid over ``base``."""
        values = dict(base or {})
        for pair in pairs:
            name, sep, value = pair.partition("=")
            if not sep or not name.strip():
                raise OptionError(f"options are written NAME=VALUE, got {pair!r}")
            values[name.strip()] = value.strip()
        return cls.from_mapping(values, game)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in self.fields()}

    def in_effect(self) -> dict[str, Any]:
        """The options that shape a game, for people to read: ``to_dict`` less those another
        option makes moot (a summary listing them would misstate the game)."""
        return self.to_dict()

    @classmethod
    def describe(cls) -> list[str]:
        """One line per option for help texts: name, allowed values, default, meaning."""
        hints = typing.get_type_hints(cls)
        lines = []
        for f in cls.fields():
            choices = f.metadata["choices"]
            allowed = "true|false" if hints[f.name] is bool else "|".join(map(str, choices or ()))
            lines.append(f"{f.name}={allowed} (default {str(f.default).lower()}): {f.metadata['help']}")
        return lines
