"""The bot authors' guide (docs/bot-authors.md) works as written: its minimal bot, copied out
of the guide into a folder of its own, type-checks against the SDK's hints, plays the local
tournament the guide shows, and `arena stats` reads it back as the guide describes."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "bot-authors.md"


def section(title: str) -> str:
    """The guide's section ``title``, up to the next section."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    return text[start : text.index("\n## ", start + 1)]


def minimal_bot() -> tuple[str, str]:
    """The minimal bot's code, and its class name."""
    (code,) = re.findall(r"```python\n(.*?)```", section("A minimal bot"), flags=re.S)
    (name,) = re.findall(r"^class (\w+)\(", code, flags=re.M)
    return code, name


def test_the_minimal_bot_type_checks_and_a_wrong_return_type_does_not(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy comes with the test extras: pip install -e '.[test]'")
    code, name = minimal_bot()
    (tmp_path / "mybot.py").write_text(code)
    wrong = (
        code.replace("-> str:", "-> int:")
        .replace('return "approve"', "return 1")
        .replace('return "reject" if failed & set(ask.team) else "approve"', "return 0")
    )
    assert wrong != code
    (tmp_path / "wrong.py").write_text(wrong)

    def mypy(path: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--strict",
                "--follow-imports=silent",
                "--cache-dir",
                str(tmp_path / "cache"),
                path,
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
            env={"MYPYPATH": str(ROOT), "PATH": ""},
        )

    good = mypy("mybot.py")
    assert good.returncode == 0, good.stdout + good.stderr
    bad = mypy("wrong.py")
    assert bad.returncode == 1 and 'incompatible with return type "str" in supertype' in bad.stdout, bad.stdout


def test_the_minimal_bot_plays_the_guide_s_tournament_on_both_clocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, name = minimal_bot()
    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text("store: {path: results.db}\n")
    Path("mybot.py").write_text(code)
    runner = CliRunner()
    for clock in ("virtual", "wall"):
        result = runner.invoke(
            main,
            [
                "tournament",
                "--id",
                f"mine_{clock}",
                "--bot",
                f"me=mybot.py:{name}",
                "--bot",
                "r1=avalon_rule",
                "--bot",
                "r2=avalon_rule",
                "--bot",
                "x1=random",
                "--bot",
                "x2=random",
                "--games",
                "20",
                "--clock",
                clock,
            ],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
    stats = runner.invoke(main, ["stats", "me"], catch_exceptions=False)
    assert stats.exit_code == 0, stats.output
    assert stats.output.startswith("me (avalon): 40 games,"), stats.output
    assert "lines refused: 0; late: 0 warned, 0 answered by default, 0 forfeited" in stats.output
    assert "fallbacks: 0 (error 0, late 0)" in stats.output
