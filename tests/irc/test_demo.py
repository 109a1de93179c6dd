"""``arena demo`` plays Werewolf too: sample bots as separate processes on a real server."""

from __future__ import annotations

from arena.config import Config
from arena.irc.servers import ngircd_available
from arena.referee.demo import run_demo


def test_demo_plays_a_werewolf_game_between_sample_bots() -> None:
    shown: list[str] = []
    server = "ngircd" if ngircd_available() else "embedded"
    (match,) = run_demo(Config(), 1, 8, server, shown.append, timeout=120, game="werewolf")
    result = match.game.result
    assert match.game.name == "werewolf" and result is not None and result.forfeited is None
    assert any("START g1 game=werewolf" in line for line in shown)
    assert any("END g1 winner=" in line for line in shown)
