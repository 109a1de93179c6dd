"""The type hints hold: ``mypy --strict`` finds nothing in the package, the example bots, the
benches and the tests themselves (the files and settings are in setup.cfg's ``[mypy]``; the
tests' one exception is in ``[mypy-tests.*]``)."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_strict() -> None:
    """The check below is ``--strict``: settings that loosen it would let untyped code in."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    assert config.getboolean("mypy", "strict", fallback=False)
    assert {"arena", "bots", "bench", "tests"} <= {part.strip() for part in config["mypy"]["files"].split(",")}
    # The tests' own section turns off strict equality (set literals compared with frozensets), nothing else.
    assert set(config["mypy-tests.*"]) <= {"strict_equality"} | set(config.defaults())


def test_mypy_finds_nothing() -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extras: pip install -e '.[test]'")
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
