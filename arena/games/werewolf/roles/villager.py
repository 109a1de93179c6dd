"""Villager (P0, village): no night action; finds the wolves by talking and voting."""

from __future__ import annotations

from .base import Role, Team
from .registry import register


@register
class Villager(Role):
    id = "villager"
    team = Team.VILLAGE
    priority = "P0"
