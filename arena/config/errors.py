"""Pydantic's errors as the operator reads them: one line naming the dotted key, the form
that was expected and the value found, worded from the settings' own declarations
(``arena.core.settings``) so that the checks and the messages cannot drift apart."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from ..core.options import UNKNOWN, first_error


class ConfigError(Exception):
    """The configuration cannot be used; the message says where and what form was expected."""


def show(value: Any) -> str:
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


def as_mapping(value: Any, where: str) -> Mapping[Any, Any]:
    """A part left empty (``options:`` with every key commented out) means defaults."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping of keys to values, got {show(value)}")
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
        return f"{where} must be a mapping of keys to values, got {show(value)}"
    item = isinstance(loc[-1], int)
    key = loc[-2] if item else loc[-1]
    owner = _section_of(cls, loc[:-2] if item else loc[:-1])
    meta = next(f.metadata for f in dataclasses.fields(owner) if f.name == key)
    form = _form(typing.get_type_hints(owner)[str(key)], meta)
    if item and kind == "string_type":
        return f"{where} must be a string, got {show(value)}"
    if item and kind == "literal_error":
        return f"{where} must be one of {', '.join(meta['choices'])}, got {value!r}"
    if item:
        return f"{where} is not valid, got {value!r}; expected {form}"
    quote = (
        "; put it in quotes if it is meant as text" if kind == "string_type" and isinstance(value, (int, float)) else ""
    )
    return f"{where} must be {form}, got {show(value)}{quote}"


@cache
def _adapter(cls: type) -> TypeAdapter[Any]:
    return TypeAdapter(cls)


def build(cls: type, value: Any, where: str) -> Any:
    """A section from a mapping, checked by pydantic; missing keys keep defaults."""
    try:
        return _adapter(cls).validate_python(as_mapping(value, where or "the top level"))
    except ValidationError as exc:
        raise ConfigError(_explain(cls, first_error(exc), where)) from None
