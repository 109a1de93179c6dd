"""How values go into the store's JSON columns and come back."""

from __future__ import annotations

import json
from typing import Any

encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""Compact JSON; one stateless encoder, not ``json.dumps`` per value (a third of the write time)."""


def tuples(value: Any) -> Any:
    """JSON arrays back to tuples: answers such as a team are tuples in the engines."""
    if isinstance(value, list):
        return tuple(tuples(v) for v in value)
    return value


def lists(value: Any) -> Any:
    """The reverse of ``tuples``: an answer as a JSON document holds it."""
    if isinstance(value, tuple):
        return [lists(v) for v in value]
    return value
