"""LLM bots over a real IRC server on 127.0.0.1, seated among rule bots, their model the
scripted chat-completions server (also on 127.0.0.1): whole games of Avalon and Werewolf
where every request is answered through the model in time, the speeches and pack talk
reach the referee's record, and each game leaves a summary in the bot's log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.irc.servers import LocalServer
from arena.sdk.llm import LlmBot, LlmSettings

from ..llm_server import FakeChat
from .conftest import until
from .test_games import FAST, ROOT, Arena


def llm_bot(chat: FakeChat, log: Path, seed: int) -> LlmBot:
    return LlmBot(seed=seed, settings=LlmSettings(base_url=chat.url, model="scripted", log=str(log)))


def games_logged(log: Path) -> int:
    """How many game summaries the LLM seats have logged so far: each logs its game as it
    reads its END, which may come after the referee has ended the game."""
    count = 0
    for line in log.read_text().splitlines() if log.exists() else ():
        try:
            count += json.loads(line).get("event") == "game"
        except json.JSONDecodeError:  # (a line being written)
            pass
    return count


def clean_log(log: Path, seats: int) -> list[dict[str, Any]]:
    """Every act legal through the model (or forced), one summary per LLM seat; the acts."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    acts = [r for r in records if r["event"] != "game"]
    assert acts and [r for r in acts if r["outcome"] not in ("legal", "forced")] == []
    summaries = [r for r in records if r["event"] == "game"]
    assert len(summaries) == seats and all(s["fallbacks"] == 0 and s["errors"] == 0 for s in summaries)
    return acts


def test_avalon_over_irc_with_llm_bots_one_run_by_its_launcher(irc_server: LocalServer, tmp_path: Path) -> None:
    """p0 is bots/llm_bot.py in a process of its own, set up by the environment alone."""
    log = tmp_path / "llm.jsonl"
    arena = Arena(irc_server, 5, FAST)
    with FakeChat() as chat:
        arena.add_bot("p1", llm_bot(chat, log, 1))
        for i in range(2, 5):
            arena.add_bot(f"p{i}", RuleBot(seed=i))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "OPENAI_"))}
        env.update(
            ARENA_LLM_BASE_URL=chat.url,
            ARENA_LLM_MODEL="scripted",
            ARENA_LLM_LOG=str(log),
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        )
        with arena:
            launched = subprocess.Popen(
                [
                    sys.executable,
                    str(ROOT / "bots" / "llm_bot.py"),
                    "--server",
                    f"{irc_server.host}:{irc_server.port}",
                    "--nick",
                    "p0",
                    "--games",
                    "1",
                    "--rate",
                    "0",
                ],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            try:
                (match,) = arena.wait()
                out, _ = launched.communicate(timeout=10)
                until(lambda: games_logged(log) == 2)
            finally:
                if launched.poll() is None:
                    launched.kill()
    assert launched.returncode == 0, out
    result = match.game.result
    assert result is not None and result.forfeited is None
    assert not [line for to, line in match.transcript if to in ("p0", "p1") and line.startswith(("ERROR", "WARN"))]
    acts = clean_log(log, 2)
    assert {r["bot"] for r in acts} == {"p0", "p1"}
    assert sum(r["calls"] for r in acts) == len(chat.requests) > 0


def test_werewolf_over_irc_with_llm_bots_speaking_and_talking_to_the_pack(
    irc_server: LocalServer, tmp_path: Path
) -> None:
    log = tmp_path / "llm.jsonl"
    arena = Arena(irc_server, 8, FAST, game="werewolf")
    with FakeChat(seed=1) as chat:
        for i in range(8):
            arena.add_bot(f"w{i}", llm_bot(chat, log, i) if i < 4 else WerewolfRuleBot(seed=i))
        with arena:
            (match,) = arena.wait(timeout=60)
            until(lambda: games_logged(log) == 4)
    result = match.game.result
    assert result is not None and result.forfeited is None
    llm = {f"w{i}" for i in range(4)}
    assert not [line for to, line in match.transcript if to in llm and line.startswith(("ERROR", "WARN"))]
    acts = clean_log(log, 4)
    spoken = sum(int(r.get("lines", 0)) for r in acts if r["event"] == "speech")
    assert spoken and sum(1 for t in match.talk if t.nick in llm) == spoken, "every line said reached the record"
    talked = [r for r in acts if r["event"] == "team_talk" and r["lines"]]
    relayed = [
        line for _, line in match.transcript if line.startswith("TEAM") and any(f"from={n} " in line for n in llm)
    ]
    assert len(relayed) >= len(talked)
