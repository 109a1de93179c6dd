"""What the roles tell at the deal (the masons, the thief's cards) comes in one order,
whatever was loaded before the engine: the roles in play were a set of classes, which
iterates in the order of their addresses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEAL = """
import sys
loaded_first = [type(f"Unrelated{i}", (), {}) for i in range(int(sys.argv[1]))]
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import REGISTRY
options = WerewolfOptions(enabledRoles=",".join(REGISTRY), roleCounts="werewolf:2,mason:2,thief:1,seer:1")
print([event.kind for event in WerewolfGame(9, options, 7).events])
"""


def test_the_deal_is_told_in_one_order_whatever_was_loaded_first() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    told = {subprocess.run([sys.executable, "-c", DEAL, str(n)], capture_output=True, text=True, check=True,
                           cwd=ROOT, env=env, timeout=120).stdout for n in range(0, 36, 5)}
    assert len(told) == 1, told
    assert "'masons'" in told.pop()
