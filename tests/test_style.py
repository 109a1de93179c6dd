"""The code keeps its lint clean and its layout uniform: ``ruff check`` finds nothing and
``ruff format`` would change nothing in the package, the tests, the example bots and the
benches (the rules are in pyproject.toml's ``[tool.ruff]``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff comes with the test extras: pip install -e '.[test]'")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "arena", "tests", "bench", "bots"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_changes_nothing() -> None:
    pytest.importorskip("ruff", reason="ruff comes with the test extras: pip install -e '.[test]'")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "arena", "tests", "bench", "bots"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
