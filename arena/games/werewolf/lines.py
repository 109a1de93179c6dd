"""How Werewolf's events and requests read on the wire (see protocol.md, "Werewolf").

Seats are shown by the nicks announced in START; words (``none``, ``abstain``) as they are.
Each event goes to its audience only (the match sends private events by direct message),
so nothing here decides who learns what: the engine's audiences do. Night causes of death
never appear before END.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...core.decisions import Decision
from ...core.events import Event
from ...protocol import END, ROLE, START, Message
from .engine import WerewolfGame

UNSHOWN = frozenset({"roleCounts", "preset", "enabledRoles", "nightActionTime", "discussionTime", "voteTime", "lastWordsTime"})
"""Options not in RULES: the deal is in START's ``roles``, timings in each ASK's deadline."""
ROLE_OPTIONS = {"littleGirlCaughtPercent": "little_girl", "scapegoatPunishment": "scapegoat"}
"""Options of a role that came after the classic set: in RULES only when the role is dealt,
so that the classic game's RULES still fits one line."""
NOBODY = "none"
"""A seat field with no seat (no wolf target, no leader)."""


def _nick(seat: int | None, nicks: Sequence[str]) -> str:
    return NOBODY if seat is None else nicks[seat]


def _choice(value: Any, nicks: Sequence[str]) -> str:
    """A vote or a target: a seat as its nick, a word as it is."""
    return nicks[value] if type(value) is int else str(value)


def _counts(pairs: Sequence[Sequence[int]], nicks: Sequence[str]) -> list[str]:
    return [f"{nicks[s]}:{n}" for s, n in pairs]


def _seats(seats: Sequence[int], nicks: Sequence[str]) -> list[str]:
    return [nicks[s] for s in seats]


class WerewolfLines:
    """Turns Werewolf engine events into protocol messages, one line per event."""

    game = WerewolfGame
    private_talk = "no one can hear you in private now: TEAM goes to your living fellow wolves, at night"
    private_lines: int | None = None

    def event_message(self, event: Event, gid: str, nicks: Sequence[str]) -> Message | list[Message] | None:
        handler = getattr(self, "_" + event.kind, None)
        return None if handler is None else handler(event.data, gid, nicks)

    def ask_context(self, game: WerewolfGame, decision: Decision, nicks: Sequence[str]) -> dict[str, Any]:
        """The day (or night) number, and for a turn at the floor what it is for."""
        fields: dict[str, Any] = {"day": game.day}
        if decision.kind == "speak":
            fields["purpose"] = game.purpose
        if decision.kind == "vote":
            fields["round"] = game.vote_round
        return fields

    # -- one method per event kind ------------------------------------------------------

    def _setup(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> list[Message]:
        """START, then the rules on a line of their own (together they would not fit in one
        IRC line); timings are left out: every request carries its own deadline."""
        roles = [f"{r}:{n}" for r, n in d["roles"].items()]
        rules = [
            f"{k}:{str(v).lower()}" for k, v in d["options"].items()
            if k not in UNSHOWN and (k not in ROLE_OPTIONS or ROLE_OPTIONS[k] in d["roles"])
        ]
        return [Message.make(START, gid, game="werewolf", seats=nicks, roles=roles), Message.make("RULES", gid, options=rules)]

    def _role(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make(ROLE, gid, role=d["role"], side=d["team"])

    def _wolves(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("WOLVES", gid, wolves=_seats(d["wolves"], nicks))

    def _night(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("NIGHT", gid, night=d["night"])

    def _seer_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("SEER", gid, night=d["night"], target=nicks[d["target"]], side=d["team"])

    def _wolf_votes(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        votes = [f"{nicks[w]}:{_choice(t, nicks)}" for w, t in d["votes"]]
        return Message.make("WOLF_VOTES", gid, night=d["night"], votes=votes, target=_nick(d["target"], nicks))

    def _masons(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("MASONS", gid, masons=_seats(d["masons"], nicks))

    def _detective_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("DETECTIVE", gid, night=d["night"], players=_seats(d["players"], nicks), same=d["same"])

    def _tracked(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("TRACKED", gid, night=d["night"], target=nicks[d["target"]], visited=_seats(d["visited"], nicks))

    def _watched(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("WATCHED", gid, night=d["night"], target=nicks[d["target"]], visitors=_seats(d["visitors"], nicks))

    def _oracle_reveal(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("ORACLE", gid, target=nicks[d["target"]], role=d["role"])

    def _caught(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("CAUGHT", gid, night=d["night"], player=nicks[d["player"]])

    def _thief_cards(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("CARDS", gid, cards=d["cards"])

    def _silenced(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("SILENCED", gid, day=d["day"], players=_seats(d["players"], nicks))

    def _cleansed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("CLEANSED", gid, night=d["night"], statuses=d["statuses"])

    def _punished(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("PUNISHED", gid, day=d["day"], player=nicks[d["seat"]], punishment=d["punishment"])

    def _blocked(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("BLOCKED", gid, night=d["night"])

    def _wolf_target(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("WOLF_TARGET", gid, night=d["night"], target=_nick(d["target"], nicks))

    def _lovers(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("LOVERS", gid, lovers=_seats(d["lovers"], nicks), cupid=nicks[d["cupid"]])

    def _charmed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("CHARMED", gid, night=d["night"], charmed=_seats(d["charmed"], nicks), new=_choice(d["new"], nicks))

    def _dawn(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        fields: dict[str, Any] = {"day": d["day"], "dead": _seats(d["dead"], nicks)}
        if "roles" in d:
            fields["roles"] = [f"{nicks[s]}:{r}" for s, r in zip(d["dead"], d["roles"])]
        return Message.make("DAWN", gid, **fields)

    def _day(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("DAY", gid, day=d["day"], alive=_seats(d["alive"], nicks), leader=_nick(d["leader"], nicks))

    def _candidacy(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("CANDIDACY", gid, player=nicks[d["seat"]], stand=d["stand"])

    def _leader_vote(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("LEADER_VOTE", gid, player=nicks[d["seat"]], vote=_choice(d["vote"], nicks))

    def _leader(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make(
            "LEADER", gid, leader=_nick(d["leader"], nicks), candidates=_seats(d["candidates"], nicks),
            counts=_counts(d["counts"], nicks), abstentions=d["abstentions"], tie=d["tie"],
        )

    def _order(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make(
            "ORDER", gid, start=nicks[d["start"]], direction=d["direction"], speakers=_seats(d["speakers"], nicks),
            leader=_nick(d["leader"], nicks),
        )

    def _speech(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("SPEECH", gid, player=nicks[d["seat"]], purpose=d["purpose"], passed=d["passed"])

    def _vote(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("BALLOT", gid, player=nicks[d["seat"]], vote=_choice(d["vote"], nicks), round=d["round"])

    def _vote_result(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make(
            "VOTE_RESULT", gid, round=d["round"], counts=_counts(d["counts"], nicks), abstentions=d["abstentions"],
            outcome=d["outcome"], target=_nick(d["target"], nicks), candidates=_seats(d["candidates"], nicks),
        )

    def _execution(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        fields: dict[str, Any] = {"day": d["day"], "player": nicks[d["seat"]], "spared": d["spared"]}
        if "role" in d:
            fields["role"] = d["role"]
        return Message.make("EXECUTION", gid, **fields)

    def _idiot_revealed(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        return Message.make("IDIOT", gid, player=nicks[d["seat"]], role=d["role"])

    def _death(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        fields: dict[str, Any] = {"day": d["day"], "player": nicks[d["seat"]]}
        if "role" in d:
            fields["role"] = d["role"]
        return Message.make("DEATH", gid, **fields)

    def _hunter_shot(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        """With roles hidden the line names only the shot player (roles/hunter.py)."""
        if "hunter" not in d:
            return Message.make("SHOT", gid, target=nicks[d["target"]])
        return Message.make("SHOT", gid, hunter=nicks[d["hunter"]], target=_nick(d["target"], nicks))

    def _end(self, d: dict[str, Any], gid: str, nicks: Sequence[str]) -> Message:
        fields: dict[str, Any] = {"winner": d["winner"] or NOBODY, "reason": d["reason"]}
        if d.get("forfeit") is not None:
            fields["forfeit"] = nicks[d["forfeit"]]
        # Each player with its role, as Avalon's END; no winners= nor sides=: both follow from
        # the roles (and lovers). Long tables continue the line (protocol.md, section 2).
        fields["roles"] = [f"{n}:{r}" for n, r in zip(nicks, d["roles"])]
        if d.get("lovers"):
            fields["lovers"] = _seats(d["lovers"], nicks)
        if d.get("extra"):
            fields["extra"] = d["extra"]
        if d.get("charmed"):
            fields["charmed"] = _seats(d["charmed"], nicks)
        return Message.make(END, gid, **fields)
