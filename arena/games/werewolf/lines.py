"""How Werewolf's events and requests read on the wire (see protocol.md, "Werewolf").

Seats are shown by the nicks announced in START; words (``none``, ``abstain``) as they are.
Each event goes to its audience only (the match sends private events by direct message),
so nothing here decides who learns what: the engine's audiences do. Night causes of death
never appear before END.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.decisions import Decision
from ...core.events import Event
from ...protocol import Message
from ..wire import NOBODY, WireMessage
from . import messages as m
from .engine import WerewolfGame

UNSHOWN = frozenset(
    {"roleCounts", "preset", "enabledRoles", "nightActionTime", "discussionTime", "voteTime", "lastWordsTime"}
)
"""Options not in RULES: the deal is in START's ``roles``, timings in each ASK's deadline."""
ROLE_OPTIONS = {
    "littleGirlCaughtPercent": "little_girl",
    "scapegoatPunishment": "scapegoat",
    "protectAgainstFire": "arsonist",
}
"""Options of a role that came after the classic set: in RULES only when the role is dealt,
so that the classic game's RULES still fits one line."""


def _nick(seat: int | None, nicks: Sequence[str]) -> str | None:
    return None if seat is None else nicks[seat]


def _choice(value: Any, nicks: Sequence[str]) -> str:
    """A vote or a target: a seat as its nick, a word as it is."""
    return nicks[value] if type(value) is int else str(value)


def _counts(pairs: Sequence[Sequence[int]], nicks: Sequence[str]) -> dict[str, int]:
    return {nicks[s]: n for s, n in pairs}


def _seats(seats: Sequence[int], nicks: Sequence[str]) -> tuple[str, ...]:
    return tuple([nicks[s] for s in seats])


class WerewolfLines:
    """Turns Werewolf engine events into protocol messages, one line per event."""

    game = WerewolfGame
    private_talk = "no one can hear you in private now: TEAM goes to your living fellow wolves, at night"
    private_lines: int | None = None

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | list[Message] | None:
        found = self.event_news(event, gid, nicks)
        if found is None:
            return None
        return found.message() if isinstance(found, WireMessage) else [news.message() for news in found]

    def event_news(self, event: Event, gid: str, nicks: Sequence[str]) -> WireMessage | list[WireMessage] | None:
        """The typed message (or messages) of ``event``: one method per event kind."""
        handler = getattr(self, "_" + event.kind, None)
        return None if handler is None else handler(event.data, gid, nicks)

    def ask_context(self, game: WerewolfGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:
        """The day (or night) number, and for a turn at the floor what it is for."""
        fields: dict[str, Any] = {"day": game.day}
        if decision.kind == "speak":
            fields["purpose"] = game.assembly.purpose
        if decision.kind == "vote":
            fields["round"] = game.assembly.vote_round
        return fields

    # -- one method per event kind ------------------------------------------------------

    def _setup(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> list[WireMessage]:
        """START, then the rules on a line of their own (together they would not fit in one
        IRC line); timings are left out: every request carries its own deadline."""
        rules = {
            k: str(v).lower()
            for k, v in d["options"].items()
            if k not in UNSHOWN and (k not in ROLE_OPTIONS or ROLE_OPTIONS[k] in d["roles"])
        }
        return [
            m.Start(gid=gid, game="werewolf", seats=tuple(nicks), roles=dict(d["roles"])),
            m.Rules(gid=gid, options=rules),
        ]

    def _role(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Role(gid=gid, role=d["role"], side=d["team"])

    def _wolves(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Wolves(gid=gid, wolves=_seats(d["wolves"], nicks))

    def _night(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Night(gid=gid, night=d["night"])

    def _seer_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Seer(gid=gid, night=d["night"], target=nicks[d["target"]], side=d["team"])

    def _wolf_votes(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        votes = {nicks[w]: _choice(t, nicks) for w, t in d["votes"]}
        return m.WolfVotes(gid=gid, night=d["night"], votes=votes, target=_nick(d["target"], nicks))

    def _masons(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Masons(gid=gid, masons=_seats(d["masons"], nicks))

    def _detective_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Detective(gid=gid, night=d["night"], players=_seats(d["players"], nicks), same=d["same"])

    def _tracked(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Tracked(gid=gid, night=d["night"], target=nicks[d["target"]], visited=_seats(d["visited"], nicks))

    def _watched(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Watched(gid=gid, night=d["night"], target=nicks[d["target"]], visitors=_seats(d["visitors"], nicks))

    def _oracle_reveal(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Oracle(gid=gid, target=nicks[d["target"]], role=d["role"])

    def _caught(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Caught(gid=gid, night=d["night"], player=nicks[d["player"]])

    def _thief_cards(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Cards(gid=gid, cards=tuple(d["cards"]))

    def _silenced(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Silenced(gid=gid, day=d["day"], players=_seats(d["players"], nicks))

    def _cleansed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Cleansed(gid=gid, night=d["night"], statuses=tuple(d["statuses"]))

    def _punished(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Punished(gid=gid, day=d["day"], player=nicks[d["seat"]], punishment=d["punishment"])

    def _dealt(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        if "player" in d:
            return m.Dealt(gid=gid, night=d["night"], card=d["card"], player=nicks[d["player"]], side=d["side"])
        return m.Dealt(gid=gid, night=d["night"], card=d["card"])

    def _cult(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Cult(
            gid=gid,
            night=d["night"],
            leader=nicks[d["leader"]],
            members=_seats(d["members"], nicks),
            new=nicks[d["new"]],
        )

    def _blocked(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Blocked(gid=gid, night=d["night"])

    def _wolf_target(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.WolfTarget(gid=gid, night=d["night"], target=_nick(d["target"], nicks))

    def _lovers(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Lovers(gid=gid, lovers=_seats(d["lovers"], nicks), cupid=nicks[d["cupid"]])

    def _charmed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Charmed(gid=gid, night=d["night"], charmed=_seats(d["charmed"], nicks), new=_choice(d["new"], nicks))

    def _dawn(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        roles = {nicks[s]: r for s, r in zip(d["dead"], d["roles"])} if "roles" in d else None
        return m.Dawn(gid=gid, day=d["day"], dead=_seats(d["dead"], nicks), roles=roles)

    def _day(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Day(gid=gid, day=d["day"], alive=_seats(d["alive"], nicks), leader=_nick(d["leader"], nicks))

    def _candidacy(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Candidacy(gid=gid, player=nicks[d["seat"]], stand=d["stand"])

    def _leader_vote(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.LeaderVote(gid=gid, player=nicks[d["seat"]], vote=_choice(d["vote"], nicks))

    def _leader(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Leader(
            gid=gid,
            leader=_nick(d["leader"], nicks),
            candidates=_seats(d["candidates"], nicks),
            counts=_counts(d["counts"], nicks),
            abstentions=d["abstentions"],
            tie=d["tie"],
        )

    def _order(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Order(
            gid=gid,
            start=nicks[d["start"]],
            direction=d["direction"],
            speakers=_seats(d["speakers"], nicks),
            leader=_nick(d["leader"], nicks),
        )

    def _speech(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Speech(gid=gid, player=nicks[d["seat"]], purpose=d["purpose"], passed=d["passed"])

    def _vote(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Ballot(gid=gid, player=nicks[d["seat"]], vote=_choice(d["vote"], nicks), round=d["round"])

    def _vote_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.VoteResult(
            gid=gid,
            round=d["round"],
            counts=_counts(d["counts"], nicks),
            abstentions=d["abstentions"],
            outcome=d["outcome"],
            target=_nick(d["target"], nicks),
            candidates=_seats(d["candidates"], nicks),
        )

    def _execution(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Execution(gid=gid, day=d["day"], player=nicks[d["seat"]], spared=d["spared"], role=d.get("role"))

    def _idiot_revealed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Idiot(gid=gid, player=nicks[d["seat"]], role=d["role"])

    def _death(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        return m.Death(gid=gid, day=d["day"], player=nicks[d["seat"]], role=d.get("role"))

    def _hunter_shot(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        """With roles hidden the line names only the shot player (roles/hunter.py)."""
        if "hunter" not in d:
            return m.Shot(gid=gid, target=nicks[d["target"]])
        return m.Shot(gid=gid, hunter=nicks[d["hunter"]], target=_nick(d["target"], nicks))

    def _end(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> WireMessage:
        """Each player with its role, as Avalon's END; no winners= nor sides=: both follow
        from the roles (and lovers). Long tables continue the line (protocol.md, section 2)."""
        return m.End(
            gid=gid,
            winner=d["winner"] or NOBODY,
            reason=d["reason"],
            forfeit=None if d.get("forfeit") is None else nicks[d["forfeit"]],
            roles=dict(zip(nicks, d["roles"])),
            lovers=_seats(d["lovers"], nicks) if d.get("lovers") else None,
            extra=tuple(d["extra"]) if d.get("extra") else None,
            charmed=_seats(d["charmed"], nicks) if d.get("charmed") else None,
            cult=_seats(d["cult"], nicks) if d.get("cult") else None,
        )
