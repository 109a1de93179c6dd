"""Typed game options that read the same from the command line and from config.yaml.

A game declares its options as a pydantic model subclassing ``Options``, one ``option(...)``
field each. Pydantic parses them (command-line text such as ``yes`` or ``2`` included); this
module turns its errors into one line that names the option and the form expected, and
lists the options for help texts.
"""

from __future__ import annotations

from functools import cache
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

T = TypeVar("T", bound="Options")

TYPE_ERRORS = {
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "string_type": "a string",
}
"""Pydantic's error types for a value of the wrong kind, and the form to ask for instead."""


UNKNOWN = ("extra_forbidden", "unexpected_keyword_argument", "invalid_key")
"""Pydantic's error types for an unknown name (in a model, in a dataclass; one not a string)."""


class OptionError(Exception):
    """An option name or value is wrong; the message names it and the expected form.

    Not a ValueError, so that pydantic lets one raised by a game's own check pass through
    as it is, when options are built in code as much as when they are read."""


def option(default: Any, *, choices: Iterable[Any] | None = None, help: str = "") -> Any:
    """A field with its help text; ``choices`` (kept as the field's JSON-schema ``enum``)
    limits its values."""
    extra: dict[str, JsonValue] | None = None if choices is None else {"enum": list(choices)}
    return Field(default, description=help, json_schema_extra=extra)


def first_error(exc: ValidationError) -> ErrorDetails:
    """The error to report of several: an unknown name first (the others may follow from
    the misspelling), else the first pydantic found."""
    errors = exc.errors()
    return next((e for e in errors if e["type"] in UNKNOWN), errors[0])


class Options(BaseModel):
    """Base of a game's options: frozen, no unknown names. Its checks raise OptionError;
    pydantic's own (a value of the wrong type) a ValidationError, which ``from_mapping``
    words as an OptionError."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="wrap")
    @classmethod
    def _one_of(cls, data: Any, handler: ModelWrapValidatorHandler[Options]) -> Options:
        """Choices are checked on the parsed value, and the error quotes the value as given."""
        options = handler(data)
        for name, allowed in _choices(cls).items():
            value = getattr(options, name)
            if value not in allowed:
                given = data.get(name, value) if isinstance(data, Mapping) else value
                raise OptionError(f"option {name} must be one of {', '.join(map(str, allowed))}, got {given!r}")
        return options

    @classmethod
    def explain(cls, error: ErrorDetails, game: str = "") -> str:
        """One pydantic error as one line for the operator."""
        name = ".".join(map(str, error["loc"]))
        if error["type"] in UNKNOWN:
            where = f" for {game}" if game else ""
            return f"unknown option {name!r}{where} (known: {', '.join(cls.model_fields)})"
        if error["type"] in TYPE_ERRORS:
            return f"option {name} must be {TYPE_ERRORS[error['type']]}, got {error['input']!r}"
        return f"option {name}: {error['msg']}, got {error['input']!r}"

    @classmethod
    def from_mapping(cls: type[T], values: Mapping[str, Any], game: str = "") -> T:
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            raise OptionError(cls.explain(first_error(exc), game)) from None

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
        return self.model_dump()

    def in_effect(self) -> dict[str, Any]:
        """The options that shape a game, for people to read: ``to_dict`` less those another
        option makes moot (a summary listing them would misstate the game)."""
        return self.to_dict()

    @classmethod
    def describe(cls) -> list[str]:
        """One line per option for help texts: name, allowed values, default, meaning."""
        lines = []
        for name, info in cls.model_fields.items():
            allowed = "true|false" if info.annotation is bool else "|".join(map(str, _choices(cls).get(name, ())))
            lines.append(f"{name}={allowed} (default {str(info.default).lower()}): {info.description}")
        return lines


@cache
def _choices(cls: type[Options]) -> dict[str, tuple[Any, ...]]:
    """The fields of ``cls`` limited to some values, and those values."""
    found = {}
    for name, info in cls.model_fields.items():
        extra = info.json_schema_extra
        values = extra.get("enum") if isinstance(extra, dict) else None
        if isinstance(values, list):
            found[name] = tuple(values)
    return found
