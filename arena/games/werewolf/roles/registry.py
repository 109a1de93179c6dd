"""The role registry: role id to role class, decision kind to action.

A new role is a module that defines a ``Role`` subclass decorated with ``@register`` and is
imported in ``roles/__init__.py``; nothing else in the engine changes.
"""

from __future__ import annotations

from .base import Action, Role

REGISTRY: dict[str, type[Role]] = {}
ACTIONS: dict[str, type[Action]] = {}


def register(role: type[Role]) -> type[Role]:
    if role.id in REGISTRY:
        raise ValueError(f"role {role.id!r} is registered twice")
    for action in role.actions:
        known = ACTIONS.setdefault(action.kind, action)
        if known is not action:
            raise ValueError(f"decision kind {action.kind!r} belongs to two actions")
    REGISTRY[role.id] = role
    return role
