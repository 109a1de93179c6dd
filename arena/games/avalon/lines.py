"""How Avalon's events and requests read on the wire (see protocol.md, "Avalon")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.decisions import Decision
from ...core.events import Event
from ...protocol import Message
from ..wire import WireMessage
from . import messages as m
from .engine import AvalonGame
from .roles import LANCELOTS


_LANCELOT_NAMES = frozenset(role.value for role in LANCELOTS)


def _nicks(seats: Sequence[int], nicks: Sequence[str]) -> str:
    """The seats' nicks as a comma list, as the wire reads it (text already: it needs no
    rendering)."""
    return ",".join([nicks[s] for s in seats])


def seat_nicks(seats: Sequence[int], nicks: Sequence[str]) -> tuple[str, ...]:
    """The seats' nicks, in order: a list field of a message."""
    return tuple([nicks[s] for s in seats])


class AvalonLines:
    """Turns engine events into protocol messages; ``leader``, ``team`` and
    ``assassination_phase`` need no line of their own because the request that follows
    carries them (fewer lines per game)."""

    game = AvalonGame
    private_talk = "Avalon has no private talk: TEAM is never relayed"
    private_lines: int | None = None

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | None:
        news = self.event_news(event, gid, nicks)
        return None if news is None else news.message()

    def event_news(self, event: Event, gid: str, nicks: Sequence[str]) -> WireMessage | None:
        """The typed message of ``event``, or None for an event told by the request after it."""
        d = event.data
        kind = event.kind
        if kind == "setup":
            return m.Start(
                gid=gid,
                game="avalon",
                seats=tuple(nicks),
                options={k: str(v).lower() for k, v in d["options"].items()},
                good=d["good"],
                evil=d["evil"],
                quests=tuple(d["quest_sizes"]),
                fails=tuple(d["fails_needed"]),
            )
        if kind == "role":
            return m.Role(gid=gid, role=d["role"], side=d["side"], sees=seat_nicks(d["sees"], nicks))
        if kind == "votes":
            return m.Votes(
                gid=gid,
                approve=seat_nicks(d["approve"], nicks),
                reject=seat_nicks(d["reject"], nicks),
                result="approved" if d["passed"] else "rejected",
                rejections=d["rejections"],
            )
        if kind == "quest":
            return m.Quest(
                gid=gid,
                quest=d["quest"],
                team=seat_nicks(d["team"], nicks),
                result=d["result"],
                fails=d["fails"],
                successes=d["successes"],
                failures=d["failures"],
            )
        if kind == "loyalty_deck":
            return m.Deck(gid=gid, cards=tuple(d["cards"]))
        if kind == "loyalty":
            return m.Loyalty(gid=gid, quest=d["quest"], card=d["card"])
        if kind == "assassination":
            return m.Assassination(gid=gid, assassin=nicks[d["assassin"]], target=nicks[d["target"]], hit=d["hit"])
        if kind == "end":
            return m.End(**self.end_fields(d, gid, nicks))
        return None

    def end_fields(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> dict[str, Any]:
        """``END``'s fields: each player's role, and the Lancelots' final sides."""
        lancelots = {n: s for n, r, s in zip(nicks, d["roles"], d["sides"]) if r in _LANCELOT_NAMES}
        return {
            "gid": gid,
            "winner": d["winner"] or "none",
            "reason": d["reason"],
            "forfeit": None if d.get("forfeit") is None else nicks[d["forfeit"]],
            "roles": dict(zip(nicks, d["roles"])),
            "lancelots": lancelots or None,
        }

    def ask_context(self, game: AvalonGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:
        """Fields a request carries besides its options: what a bot needs to decide."""
        if decision.kind == "team":
            return {"quest": game.quest + 1, "attempt": game.attempt + 1, "rejections": game.rejections}
        if decision.kind == "vote":
            return {
                "quest": game.quest + 1,
                "leader": nicks[game.leader],
                "team": _nicks(game.team, nicks),
                "rejections": game.rejections,
            }
        if decision.kind == "quest":
            return {"quest": game.quest + 1, "team": _nicks(game.team, nicks)}
        return {}
