"""How a section of config.yaml is declared: a frozen pydantic dataclass of ``setting(...)`` fields.

Pydantic does the checking; each field's metadata carries its help text and the limits
pydantic enforces (``ge``, ``gt``, ``le``, ``pattern``, ``min_length``), plus what only the
error messages need (``choices``, ``form``). Here rather than in ``arena.config`` so that
a package below it (``arena.ratings``) can declare its own section.
"""

from __future__ import annotations

import re
from dataclasses import field
from collections.abc import Collection
from typing import Any

from pydantic import ConfigDict, model_validator
from pydantic.dataclasses import dataclass

SECTION = ConfigDict(extra="forbid", allow_inf_nan=False)
"""Every section refuses unknown keys, and numbers that are not finite."""


def whole(pattern: str) -> str:
    """``pattern`` anchored at both ends: pydantic's patterns match anywhere in the text."""
    return f"^(?:{pattern})$"


def setting(
    default: Any, *, help: str, choices: Collection[str] | None = None, form: str | None = None, **limits: Any
) -> Any:
    """A field with a default, its help text and pydantic's ``limits`` (``pattern`` must
    match the whole text). A scalar takes YAML's own type only (a quoted "false" is not
    false, 5.0 is not a whole number); a tuple reads a YAML list, its items' type says
    what each may be. ``choices`` limits a text to those values (a tuple: fixed here; a
    live collection, such as the games registered, is checked by the field's own type, as
    it is when the value is read, and named in its errors); ``form`` words the
    expected value when the limits alone would not tell the operator what to write.
    Defaults are immutable, so configs never share state."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("mutable defaults must be tuples")
    if isinstance(choices, tuple) and not isinstance(default, tuple):
        limits["pattern"] = "|".join(map(re.escape, choices))
    if "pattern" in limits:
        limits["pattern"] = whole(limits["pattern"])
    if not isinstance(default, tuple):
        limits["strict"] = True
    return field(default=default, metadata={"description": help, "choices": choices, "form": form, **limits})


@dataclass(frozen=True, config=SECTION)
class Section:
    """Base of a section: one left empty (``server:`` with every key commented out) means its defaults."""

    @model_validator(mode="before")
    @classmethod
    def _empty_is_default(cls, data: Any) -> Any:
        return {} if data is None else data
