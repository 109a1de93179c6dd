"""How odd one out reads on the wire: ``START``, ``ROLE``, one ``TALLY`` per round, ``END``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.core.decisions import Decision
from arena.core.events import Event
from arena.protocol import END, ROLE, START, Message

from .engine import OddOneGame

TALLY = "TALLY"
"""The game's one verb of its own: who accused whom in a round, and who is out."""


class OddOneLines:
    private_talk = "odd one out has no private talk"
    private_lines: int | None = None

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | None:
        d = event.data
        if event.kind == "setup":
            options = ",".join(f"{k}:{v}" for k, v in d["options"].items())
            return Message.make(START, gid, game=OddOneGame.name, seats=nicks, options=options)
        if event.kind == "role":
            return Message.make(ROLE, gid, role=d["role"], side=d["side"])
        if event.kind == "tally":
            votes = [f"{nicks[voter]}:{nicks[target]}" for voter, target in enumerate(d["votes"]) if target is not None]
            return Message.make(
                TALLY, gid, round=d["round"], votes=votes, out="none" if d["out"] is None else nicks[d["out"]]
            )
        if event.kind == "end":
            return Message.make(
                END, gid, winner=d["winner"], reason=d["reason"], roles=[f"{n}:{r}" for n, r in zip(nicks, d["roles"])]
            )
        return None

    def ask_context(self, game: OddOneGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:
        return {"round": game.tallies + 1}
