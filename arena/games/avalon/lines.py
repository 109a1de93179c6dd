"""How Avalon's events and requests read on the wire (see protocol.md, "Avalon")."""

from __future__ import annotations

from typing import Any, Sequence

from ...core.decisions import Decision
from ...core.events import Event
from ...protocol import ASSASSINATION, DECK, END, LOYALTY, QUEST, ROLE, START, VOTES, Message
from .engine import AvalonGame
from .roles import LANCELOTS


_LANCELOT_NAMES = frozenset(role.value for role in LANCELOTS)


def _nicks(seats: Sequence[int], nicks: Sequence[str]) -> str:
    """The seats' nicks as a comma list, as the wire reads it (text already: it needs no
    rendering)."""
    return ",".join([nicks[s] for s in seats])


class AvalonLines:
    """Turns engine events into protocol messages; ``leader``, ``team`` and
    ``assassination_phase`` need no line of their own because the request that follows
    carries them (fewer lines per game)."""

    game = AvalonGame
    private_talk = "Avalon has no private talk: TEAM is never relayed"
    private_lines: int | None = None

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | None:
        d = event.data
        kind = event.kind
        if kind == "setup":
            opts = ",".join(f"{k}:{str(v).lower()}" for k, v in d["options"].items())
            return Message.make(
                START, gid, game="avalon", seats=nicks, options=opts, good=d["good"], evil=d["evil"],
                quests=d["quest_sizes"], fails=d["fails_needed"],
            )
        if kind == "role":
            return Message.make(ROLE, gid, role=d["role"], side=d["side"], sees=_nicks(d["sees"], nicks))
        if kind == "votes":
            return Message.make(
                VOTES, gid, approve=_nicks(d["approve"], nicks), reject=_nicks(d["reject"], nicks),
                result="approved" if d["passed"] else "rejected", rejections=d["rejections"],
            )
        if kind == "quest":
            return Message.make(
                QUEST, gid, quest=d["quest"], team=_nicks(d["team"], nicks), result=d["result"], fails=d["fails"],
                successes=d["successes"], failures=d["failures"],
            )
        if kind == "loyalty_deck":
            return Message.make(DECK, gid, cards=d["cards"])
        if kind == "loyalty":
            return Message.make(LOYALTY, gid, quest=d["quest"], card=d["card"])
        if kind == "assassination":
            return Message.make(ASSASSINATION, gid, assassin=nicks[d["assassin"]], target=nicks[d["target"]], hit=d["hit"])
        if kind == "end":
            fields: dict[str, Any] = {"winner": d["winner"] or "none", "reason": d["reason"]}
            if d.get("forfeit") is not None:
                fields["forfeit"] = nicks[d["forfeit"]]
            fields["roles"] = [f"{n}:{r}" for n, r in zip(nicks, d["roles"])]
            lancelots = [f"{n}:{s}" for n, r, s in zip(nicks, d["roles"], d["sides"]) if r in _LANCELOT_NAMES]
            if lancelots:
                fields["lancelots"] = lancelots
            return Message.make(END, gid, **fields)
        return None

    def ask_context(self, game: AvalonGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:
        """Fields a request carries besides its options: what a bot needs to decide."""
        if decision.kind == "team":
            return {"quest": game.quest + 1, "attempt": game.attempt + 1, "rejections": game.rejections}
        if decision.kind == "vote":
            return {"quest": game.quest + 1, "leader": nicks[game.leader], "team": _nicks(game.team, nicks),
                    "rejections": game.rejections}
        if decision.kind == "quest":
            return {"quest": game.quest + 1, "team": _nicks(game.team, nicks)}
        return {}
