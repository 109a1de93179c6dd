"""What the store's tests share: a new database on either engine."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new database on each engine: what a test says of one holds of the other."""
    if request.param == "sqlite":
        return str(tmp_path / "arena.db")
    return str(request.getfixturevalue("postgres").new_database())
