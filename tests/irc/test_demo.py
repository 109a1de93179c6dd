"""``arena demo`` plays each game between sample bots as separate processes on a real
server, told as the narrated channel tells them (``raw``: the lines the bots read)."""

from __future__ import annotations

from arena.config import Config
from arena.irc.servers import ngircd_available
from arena.referee.demo import run_demo

SERVER = "ngircd" if ngircd_available() else "embedded"


def test_demo_tells_a_werewolf_game_between_sample_bots() -> None:
    shown: list[str] = []
    (match,) = run_demo(Config(), 1, 8, SERVER, shown.append, timeout=600, game="werewolf")
    result = match.game.result
    assert match.game.name == "werewolf" and result is not None and result.forfeited is None
    assert shown[0].startswith("New werewolf game g1 in #arena-g1: ")
    assert any(line.startswith("Game over after ") for line in shown)
    roles = next(line for line in shown if line.startswith("Roles: "))
    assert all(f"{nick} (" in roles for nick in match.names)
    assert not any(line.startswith("#") or "ASK g1" in line for line in shown), "sentences, not machine lines"


def test_demo_raw_shows_the_lines_bots_read() -> None:
    shown: list[str] = []
    (match,) = run_demo(Config(), 1, 5, SERVER, shown.append, timeout=600, raw=True)
    assert match.game.result is not None
    assert any(line.startswith("#arena ") and "TABLE g1 game=avalon" in line for line in shown)
    assert any("END g1 winner=" in line for line in shown)


def test_demo_tells_a_tuvalon_game_with_the_map() -> None:
    shown: list[str] = []
    (match,) = run_demo(Config(), 1, 7, SERVER, shown.append, timeout=600, game="tuvalon")
    result = match.game.result
    assert match.game.name == "tuvalon" and result is not None and result.forfeited is None
    assert shown[0].startswith("New tuvalon game g1 in #arena-g1: ")
    assert any(line.startswith("Tuvalon, 7 players on a 9x9 map: ") for line in shown)
    stand = next(line for line in shown if line.startswith("They stand at "))
    assert all(f"{nick} " in stand for nick in match.names), "every starting cell told"
    assert sum(" moves " in line or " stays at " in line for line in shown) >= 7
    assert any(
        "within earshot of" in line or "out of everyone's hearing" in line or "keeps quiet" in line for line in shown
    )
    assert any(line.startswith("Game over after ") for line in shown)
    roles = next(line for line in shown if line.startswith("Roles: "))
    assert all(f"{nick} (" in roles for nick in match.names)
    assert not any(line.startswith("#") or "ASK g1" in line or "TEAM g1" in line for line in shown), (
        "sentences, not machine lines"
    )
