"""The rule-based Tuvalon bot uses the map: Merlin keeps away from the evil players he
knows, and the others gather near the proposed team (to hear it in the second discussion)."""

from __future__ import annotations

from arena.bots.tuvalon_rules_bot import TuvalonRuleBot
from arena.config import TimeoutConfig
from arena.games.tuvalon import board
from arena.games.tuvalon.options import TuvalonOptions
from arena.referee.local import LocalHub

NICKS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"]
EVIL = ("morgana", "assassin", "oberon")


def test_merlin_keeps_his_distance_and_the_others_stand_by_the_team() -> None:
    within: dict[str, list[bool]] = {}
    to_team: dict[str, list[float]] = {}
    for seed in range(12):
        hub = LocalHub(TimeoutConfig())
        for i, nick in enumerate(NICKS):
            hub.connect(nick, TuvalonRuleBot(seed=seed * 7 + i))
        game = hub.play("tuvalon", NICKS, TuvalonOptions(), seed).game
        assert game.result is not None and game.result.forfeited is None
        roles = [e.data["role"] for e in game.events if e.kind == "role"]
        evil = [s for s, r in enumerate(roles) if r in EVIL]
        cells: list[board.Cell] = []
        team: list[int] = []
        for e in game.events:
            if e.kind == "positions":
                cells = [board.parse(c) for c in e.data["cells"]]  # type: ignore[misc]
            elif e.kind == "team":
                team = e.data["team"]
            elif e.kind == "move":
                seat = e.data["player"]
                cell = board.parse(e.data["to"])
                assert cell is not None
                cells[seat] = cell
                role = roles[seat]
                within.setdefault(role, []).append(any(board.distance(cells[seat], cells[v]) <= 2 for v in evil))
                others = [t for t in team if t != seat]
                if others:
                    distance = sum(board.distance(cells[seat], cells[t]) for t in others) / len(others)
                    to_team.setdefault(role, []).append(distance)

    def share(role: str) -> float:
        return sum(within[role]) / len(within[role])

    def mean(role: str) -> float:
        return sum(to_team[role]) / len(to_team[role])

    # Merlin ends a move within two cells of a known evil player far less often than anyone
    assert share("merlin") < 0.35 and min(share(r) for r in within if r != "merlin") > 0.8
    # and the others, walking towards the team, stand closer to it than Merlin does
    assert max(mean(r) for r in ("knight", "percival")) < mean("merlin") - 0.5
    assert max(mean(r) for r in ("knight", "percival")) < 2.5
