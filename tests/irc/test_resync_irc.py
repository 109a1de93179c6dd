"""A bot whose connection dies mid-game comes back as a fresh process (same name, nothing
remembered) over a real IRC server: the referee resyncs it and it finishes the game, knowing
its role, with no refusal of its answers and no forfeit."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from arena.config import TimeoutConfig
from arena.irc.servers import LocalServer
from arena.sdk import Ask, GameView

from .conftest import until
from .test_games import ROOT, Arena, DMRecorder


class Slow(DMRecorder):
    """A rule bot that thinks a while, so that a game lasts long enough to kill a player in."""

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        time.sleep(0.1)
        return super().decide(game, ask)


class Counting(DMRecorder):
    """A rule bot that counts its decisions, so the test knows the game is under way."""

    decisions = 0

    def decide(self, game: GameView[Any], ask: Ask) -> str | list[str]:
        self.decisions += 1
        return super().decide(game, ask)


def test_a_bot_killed_mid_game_comes_back_and_plays_on(irc_server: LocalServer) -> None:
    # A single missed deadline forfeits: the game can end well only if the bot came back in time
    # (20 s: ample on a loaded machine; the bots answer at once, so it costs nothing).
    arena = Arena(irc_server, 5, TimeoutConfig(decision=20.0, escalation=("forfeit",)))
    victim = Counting(seed=0)
    runners = {f"p{i}": arena.add_bot(f"p{i}", victim if i == 0 else Slow(seed=i)) for i in range(5)}
    with arena:
        end = time.monotonic() + 10
        while victim.decisions < 2:
            assert time.monotonic() < end, "the game did not start"
            time.sleep(0.01)
        runners["p0"].link.close()  # the process is gone: its connection with it
        until(lambda: arena.service.referee.bot_named("p0") is None)  # and the referee saw it go
        fresh = Counting(seed=9)
        arena.add_bot("p0", fresh, name="p0").start()  # under whatever nick the server gives it
        (match,) = arena.wait()
    result = match.game.result
    assert result is not None and result.forfeited is None and result.reason != "aborted"
    assert fresh.roles == victim.roles and fresh.roles[0][1] is not None  # it was told its role again
    assert fresh.decisions >= 1  # and answered what was left to it
    refused = [line for to, line in match.transcript if line.startswith("ERROR")]
    assert refused == []


@pytest.mark.parametrize("irc_server", ["ngircd"], indirect=True)
def test_plain_bot_killed_with_sigkill_and_restarted_finishes_its_game(irc_server: LocalServer) -> None:
    """The socket bot of protocol.md alone: ``kill -9`` mid-game, restarted under the same
    nick, it rejoins the game's channel from RESYNC, answers only the live request and
    leaves after the game's END, which it can read only in that channel."""
    arena = Arena(irc_server, 5, TimeoutConfig(decision=20.0, escalation=("forfeit",)))
    for i in range(4):
        arena.add_bot(f"p{i}", Slow(seed=i))
    command = [
        sys.executable,
        str(ROOT / "bots" / "plain_bot.py"),
        "--server",
        f"{irc_server.host}:{irc_server.port}",
        "--nick",
        "plain",
        "--games",
        "1",
    ]
    with arena:
        plain = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        referee = arena.service.referee
        until(
            lambda: any(
                line.startswith("VOTES") for m in list(referee.matches.values()) for _, line in list(m.transcript)
            ),
            10,
        )
        plain.send_signal(signal.SIGKILL)
        plain.wait()
        until(lambda: referee.bot_named("plain") is None)
        again = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            (match,) = arena.wait()
            out, _ = again.communicate(timeout=30)
        finally:
            if again.poll() is None:
                again.kill()
    assert match.game.result is not None and match.game.result.forfeited is None
    assert [line for _, line in match.transcript if line.startswith("ERROR")] == []
    assert again.returncode == 0, out
