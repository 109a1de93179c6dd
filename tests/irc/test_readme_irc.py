"""The bot authors' guide's "Over IRC on your machine" (docs/bot-authors.md), as written: the
embedded server, `arena tournament
--transport irc` set up by the environment alone, the sample bots' launchers, and the
guide's minimal bot run by its own `run_bot` launcher, each a process of its own; then
`arena stats` reads the games back."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ..test_readme_bot import GUIDE, minimal_bot
from .conftest import embedded_server
from .test_games import ROOT

GAMES = 2


def recipe() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("**Over IRC on your machine.**")
    return text[start : text.index("```\n", text.index("```sh", start) + 5)]


def test_the_guide_s_irc_recipe_plays_and_reads_back(tmp_path: Path) -> None:
    steps = recipe()
    assert "python -m miniircd --listen 127.0.0.1 --ports 6667" in steps
    assert "export ARENA_IDENTITY_REQUIRE_KEY=false" in steps
    assert "arena tournament --id irc --transport irc" in steps
    code, name = minimal_bot()
    (tmp_path / "mybot.py").write_text(code)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "OPENAI_"))}
    env.update(
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        ARENA_IDENTITY_REQUIRE_KEY="false",
        ARENA_SERVER_LINES_PER_SECOND="0",
    )
    with embedded_server() as address:
        env["ARENA_SERVER_PORT"] = str(address.port)
        server = f"{address.host}:{address.port}"

        def start(*args: str) -> subprocess.Popen[str]:
            return subprocess.Popen(
                [sys.executable, *args],
                cwd=tmp_path,
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )

        tournament = start(
            "-m",
            "arena",
            "tournament",
            "--id",
            "irc",
            "--transport",
            "irc",
            "--games",
            str(GAMES),
            "--bot",
            "me",
            "--bot",
            "r1",
            "--bot",
            "r2",
            "--bot",
            "x1",
            "--bot",
            "x2",
        )
        bots = [
            start(
                str(ROOT / "bots" / launcher), "--server", server, "--nick", nick, "--games", str(GAMES), "--rate", "0"
            )
            for launcher, nick in (
                ("avalon_rules_bot.py", "r1"),
                ("avalon_rules_bot.py", "r2"),
                ("random_bot.py", "x1"),
                ("random_bot.py", "x2"),
            )
        ]
        mine = start("mybot.py", "--server", server, "--nick", "me", "--games", str(GAMES), "--rate", "0")
        processes = [tournament, *bots, mine]
        try:
            outputs = [p.communicate(timeout=90)[0] for p in processes]
        finally:
            for p in processes:
                if p.poll() is None:
                    p.kill()
    assert [p.returncode for p in processes] == [0] * len(processes), "\n".join(outputs)
    stats = subprocess.run(
        [sys.executable, "-m", "arena", "stats", "me"],
        cwd=tmp_path,
        env=env,
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert stats.returncode == 0, stats.stdout + stats.stderr
    assert stats.stdout.startswith(f"me (avalon): {GAMES} games,"), stats.stdout
    assert "lines refused: 0; late: 0 warned, 0 answered by default, 0 forfeited" in stats.stdout
    assert "fallbacks: 0 (error 0, late 0)" in stats.stdout
    assert name in code and "never called" not in outputs[-1], outputs[-1]
