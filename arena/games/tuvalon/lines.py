"""How Tuvalon's events and requests read on the wire (see protocol.md, "Tuvalon").

Avalon's lines (``ROLE``, ``VOTES``, ``QUEST``, ``ASSASSINATION``, ``END``) read as in
Avalon; Tuvalon adds the map (``MAP``), the proposed team (``TEAM_PROPOSED``: the
discussions and moves come between the proposal and the vote), the turns (``SPEECH``),
the moves (``MOVE``) and the team that goes without a vote (``FORCED``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.decisions import Decision
from ...core.events import Event
from ...core.game import FORFEIT
from ..avalon.lines import AvalonLines, seat_nicks
from ..wire import WireMessage
from . import messages as m
from . import board
from .engine import FORCED_AFTER, TuvalonGame


class TuvalonLines(AvalonLines):
    game = TuvalonGame  # type: ignore[assignment]
    private_talk = "no one hears you in private now: TEAM is for your turn in the second discussion (speak_near)"
    private_lines: int | None = 10

    def event_news(self, event: Event, gid: str, nicks: Sequence[str]) -> WireMessage | None:
        d = event.data
        kind = event.kind
        if kind == "setup":
            return m.Start(
                gid=gid,
                game="tuvalon",
                seats=tuple(nicks),
                options={k: str(v) for k, v in d["options"].items()},
                good=d["good"],
                evil=d["evil"],
                quests=tuple(d["quest_sizes"]),
                fails=tuple(d["fails_needed"]),
                map=f"{d['map']}x{d['map']}",
            )
        if kind == "role":
            return m.Role(
                gid=gid, role=d["role"], side=d["side"], sees=seat_nicks(d["sees"], nicks), hearing=d["hearing"]
            )
        if kind == "positions":
            return m.Map(gid=gid, cells=dict(zip(nicks, d["cells"])))
        if kind == "team":
            return m.TeamProposed(
                gid=gid,
                quest=d["quest"],
                leader=nicks[d["leader"]],
                team=seat_nicks(d["team"], nicks),
                forced=d["forced"],
            )
        if kind == "speech":
            heard = seat_nicks(d["heard_by"], nicks) if "heard_by" in d else None
            return m.Speech(
                gid=gid, player=nicks[d["player"]], purpose=d["purpose"], passed=d["passed"], heard_by=heard
            )
        if kind == "move":
            return m.Move(gid=gid, player=nicks[d["player"]], from_=d["from"], to=d["to"])
        if kind == "forced":
            return m.Forced(gid=gid, quest=d["quest"], leader=nicks[d["leader"]], team=seat_nicks(d["team"], nicks))
        if kind == "end":
            # A forfeit's cause is a token (``timeout``, ``speech_budget``); an abort's
            # free-text cause ("stopped by op1") is the operator's and stays in the store.
            return m.End(**self.end_fields(d, gid, nicks), why=d["why"] if d["reason"] == FORFEIT else None)
        return super().event_news(event, gid, nicks)

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
