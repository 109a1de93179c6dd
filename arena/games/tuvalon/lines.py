"""How Tuvalon's events and requests read on the wire (see protocol.md, "Tuvalon").

Avalon's lines (``ROLE``, ``VOTES``, ``QUEST``, ``ASSASSINATION``, ``END``) read as in
Avalon; Tuvalon adds the map (``MAP``), the proposed team (``TEAM_PROPOSED``: the
discussions and moves come between the proposal and the vote), the turns (``SPEECH``),
the moves (``MOVE``) and the team that goes without a vote (``FORCED``)."""

from __future__ import annotations

from typing import Any, Sequence

from ...core.decisions import Decision
from ...core.events import Event
from ...core.game import FORFEIT
from ...protocol import END, ROLE, START, Message
from ..avalon.lines import AvalonLines
from . import board
from .engine import FORCED_AFTER, TuvalonGame


class TuvalonLines(AvalonLines):
    game = TuvalonGame  # type: ignore[assignment]
    private_talk = "no one hears you in private now: TEAM is for your turn in the second discussion (speak_near)"
    private_lines: int | None = 10

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | None:
        d = event.data
        kind = event.kind
        if kind == "setup":
            opts = ",".join(f"{k}:{v}" for k, v in d["options"].items())
            return Message.make(START, gid, game="tuvalon", seats=nicks, options=opts, good=d["good"], evil=d["evil"],
                                quests=d["quest_sizes"], fails=d["fails_needed"], map=f"{d['map']}x{d['map']}")
        if kind == "role":
            return Message.make(ROLE, gid, role=d["role"], side=d["side"], sees=[nicks[s] for s in d["sees"]],
                                hearing=d["hearing"])
        if kind == "positions":
            return Message.make("MAP", gid, cells=[f"{n}:{c}" for n, c in zip(nicks, d["cells"])])
        if kind == "team":
            return Message.make("TEAM_PROPOSED", gid, quest=d["quest"], leader=nicks[d["leader"]],
                                team=[nicks[s] for s in d["team"]], forced=d["forced"])
        if kind == "speech":
            fields: dict[str, Any] = {"player": nicks[d["player"]], "purpose": d["purpose"], "passed": d["passed"]}
            if "heard_by" in d:
                fields["heard_by"] = [nicks[s] for s in d["heard_by"]]
            return Message.make("SPEECH", gid, **fields)
        if kind == "move":
            return Message.make("MOVE", gid, player=nicks[d["player"]], **{"from": d["from"], "to": d["to"]})
        if kind == "forced":
            return Message.make("FORCED", gid, quest=d["quest"], leader=nicks[d["leader"]],
                                team=[nicks[s] for s in d["team"]])
        if kind == "end":
            msg = super().event_message(event, gid, nicks)
            assert msg is not None and msg.verb == END
            if d["reason"] == FORFEIT:
                # A forfeit's cause is a token (``timeout``, ``speech_budget``); an abort's
                # free-text cause ("stopped by op1") is the operator's and stays in the store.
                msg.fields["why"] = d["why"]
            return msg
        return super().event_message(event, gid, nicks)

    def ask_context(self, game: TuvalonGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:  # type: ignore[override]
        """A turn (``speak``, ``move``, ``speak_near``) tells its quest and its place in the
        order (``turn``, from 1 at the leader); a move tells where the player stands (``at``);
        a ``team`` request says whether the team will go without a vote (``forced``)."""
        kind = decision.kind
        if kind in ("speak", "speak_near", "move"):
            context: dict[str, Any] = {"quest": game.quest + 1, "turn": game.turn + 1}
            if kind == "move":
                context["at"] = board.name(game.cells[decision.seat])
            return context
        context = super().ask_context(game, decision, nicks)
        if kind == "team":
            context["forced"] = game.rejections >= FORCED_AFTER
        return context
