"""Every engine event of every game as a sentence for the report (``PROSE``, by event kind),
computed from the event's data in the export document: seats shown as nicks, roles and
reasons as words. The report reads the engine's events, not the wire's lines: they carry
what the lines leave out for players (whose a role is, how each one died) and the events
no line tells (a leader's turn, the assassin's call)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from typing import Any

SEAT_KEYS = frozenset(
    {
        "seat",
        "target",
        "leader",
        "assassin",
        "start",
        "player",
        "shooter",
        "victim",
        "vote",
        "by",
        "saved",
        "poisoned",
        "protected",
        "checked",
        "new",
        "hunter",
        "cupid",
    }
)
"""Event fields holding one seat (shown as the player's nick)."""
SEAT_LISTS = frozenset(
    {
        "team",
        "approve",
        "reject",
        "dead",
        "alive",
        "speakers",
        "candidates",
        "winners",
        "wolves",
        "lovers",
        "charmed",
        "sees",
        "targets",
        "votes",
        "players",
        "members",
        "masons",
        "visited",
        "visitors",
    }
)
"""Event fields holding a list of seats."""


def word(value: str) -> str:
    """A role, reason or other name of the game's as people read it: ``bus driver``."""
    return value.replace("_", " ")


def plain(value: Any) -> str:
    """A field's value that is no seat, for people: ``yes``, ``detective, villager``,
    ``merlin: yes, lancelot: 0``."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return word(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(plain(v) for v in value) if value else "none"
    if isinstance(value, Mapping):
        return ", ".join(f"{word(str(k))}: {plain(v)}" for k, v in value.items())
    return "none" if value is None else str(value)


@dataclass(frozen=True)
class Names:
    """Seat numbers to the nicks of a game's players."""

    nicks: tuple[str, ...]

    def of(self, seat: Any) -> str:
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.nicks):
            return self.nicks[seat]
        return "nobody" if seat is None else str(seat)

    def list(self, seats: Any) -> str:
        if not seats:
            return "nobody"
        return ", ".join(self.of(s) if not isinstance(s, list) else " → ".join(map(self.of, s)) for s in seats)


def _and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; ``nobody`` for none."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 1 else items) or "nobody"


def _seats(value: Any, names: Names) -> str:
    return _and([names.of(s) for s in value or []])


def _wolf_votes(data: Mapping[str, Any], names: Names) -> str:
    votes = ", ".join(
        f"{names.of(wolf)} for {names.of(target)}" if isinstance(target, int) else f"{names.of(wolf)} abstains"
        for wolf, target in data.get("votes") or []
    )
    return f"the wolves vote ({votes or 'no votes'}): they attack {names.of(data.get('target'))}"


def _dealt(data: Mapping[str, Any], names: Names) -> str:
    seen = f": {names.of(data['player'])} is seen as {plain(data.get('side'))}" if "player" in data else ""
    return f"the dealer deals the {plain(data.get('card'))} card{seen}"


Prose = Callable[[Mapping[str, Any], Names], str]
"""An event's data as a sentence, its seats shown as nicks."""

NIGHT: Mapping[str, Prose] = {
    "seer_result": lambda d, ns: f"the seer sees {ns.of(d.get('target'))} as {plain(d.get('team'))}",
    "wolf_votes": _wolf_votes,
    "wolf_target": lambda d, ns: f"the wolves attack {ns.of(d.get('target'))}",
    "lovers": lambda d, ns: f"{ns.of(d.get('cupid'))}, Cupid, makes {_seats(d.get('lovers'), ns)} lovers",
    "charmed": lambda d, ns: f"the piper charms {ns.of(d.get('new'))}; charmed now: {_seats(d.get('charmed'), ns)}",
    "blocked": lambda d, ns: "blocked: their night action does nothing",
    "masons": lambda d, ns: f"the masons are {_seats(d.get('masons'), ns)}",
    "detective_result": lambda d, ns: (
        f"the detective finds {_seats(d.get('players'), ns)} on "
        + ("the same side" if d.get("same") else "different sides")
    ),
    "tracked": lambda d, ns: f"the tracker follows {ns.of(d.get('target'))}, who visits {_seats(d.get('visited'), ns)}",
    "watched": lambda d, ns: (
        f"the watcher watches {ns.of(d.get('target'))}, visited by {_seats(d.get('visitors'), ns)}"
    ),
    "dealt": _dealt,
    "cult": lambda d, ns: (
        f"{ns.of(d.get('leader'))}, the cult leader, recruits {ns.of(d.get('new'))}; the cult is "
        f"{_seats(d.get('members'), ns)}"
    ),
    "thief_cards": lambda d, ns: f"the cards left over are {_and([word(str(c)) for c in d.get('cards') or []])}",
    "caught": lambda d, ns: f"the wolves catch {ns.of(d.get('player'))} peeking",
    "cleansed": lambda d, ns: f"the priest's blessing lifts {_and([word(str(c)) for c in d.get('statuses') or []])}",
    "silenced": lambda d, ns: f"silenced today: {_seats(d.get('players'), ns)}",
    "punished": lambda d, ns: f"the scapegoat punishes {ns.of(d.get('seat'))}: {plain(d.get('punishment'))}",
}
"""Werewolf's night news (and the other news told by role) as sentences: a night is read
as a story, not as a list of fields."""


def _dawn(d: Mapping[str, Any], ns: Names) -> str:
    dead, roles = d.get("dead") or [], d.get("roles") or []
    if not dead:
        return f"Day {d.get('day')} dawns: nobody died in the night"
    who = ", ".join(
        f"{ns.of(s)} ({word(roles[i])})" if i < len(roles) and roles[i] else ns.of(s) for i, s in enumerate(dead)
    )
    return f"Day {d.get('day')} dawns: {who} died in the night"


def _role(d: Mapping[str, Any], ns: Names) -> str:
    if "role" not in d:
        return fields("role", d, ns)
    side = d.get("side") or d.get("team")
    sees = f"; sees {ns.list(d['sees'])}" if d.get("sees") else ""
    return f"{ns.of(d.get('seat'))} is {word(d['role'])}" + (f" ({side})" if side else "") + sees


def _setup(d: Mapping[str, Any], ns: Names) -> str:
    """Werewolf's deal; Avalon's and Tuvalon's sides and quest track."""
    players = d.get("players", len(ns.nicks))
    if "roles" in d:
        deal = ", ".join(f"{n} {word(str(r))}" for r, n in d["roles"].items())
        return f"{players} players; dealt {deal}"
    sizes = "-".join(str(n) for n in d.get("quest_sizes") or [])
    where = f" on a {d['map']}x{d['map']} map" if "map" in d else ""
    return f"{players} players{where}, {d.get('good')} good against {d.get('evil')} evil; quest teams of {sizes}"


def _day(d: Mapping[str, Any], ns: Names) -> str:
    leader = f"; {ns.of(d['leader'])} leads" if d.get("leader") is not None else ""
    return f"Day {d.get('day')}: {_seats(d.get('alive'), ns)} alive{leader}"


def _leader(d: Mapping[str, Any], ns: Names) -> str:
    """Werewolf's election, or an Avalon leader's turn to propose."""
    if "candidates" in d:
        if not d["candidates"]:
            return "nobody stood for leader: the day has no leader"
        return f"{ns.of(d.get('leader'))} is elected leader"
    return f"{ns.of(d.get('leader'))} leads quest {d.get('quest')} (proposal {d.get('attempt')})"


def _order(d: Mapping[str, Any], ns: Names) -> str:
    speakers, leader = list(d.get("speakers") or []), d.get("leader")
    if len(speakers) > 1 and leader is not None and speakers[-1] == leader and leader in speakers[:-1]:
        return f"speaking order: {ns.list(speakers[:-1])}, then {ns.of(leader)} again, as leader"
    return f"speaking order: {ns.list(speakers)}"


def _speech(d: Mapping[str, Any], ns: Names, said: bool | None = None) -> str:
    """A turn at the floor; ``said``: whether it said anything, when known."""
    what = {"last_words": " (last words)", "runoff": " (runoff)", "near": " (second discussion)"}.get(
        str(d.get("purpose")), ""
    )
    verb = "passes" if d.get("passed") else "says nothing" if said is False else "speaks"
    return f"{ns.of(d.get('seat', d.get('player')))} {verb}{what}"


def _vote(d: Mapping[str, Any], ns: Names) -> str:
    target = d.get("vote")
    return f"{ns.of(d.get('seat'))} votes " + (
        f"to execute {ns.of(target)}" if isinstance(target, int) else "to abstain"
    )


def _vote_result(d: Mapping[str, Any], ns: Names) -> str:
    counts = ", ".join(f"{ns.of(s)} {c}" for s, c in d.get("counts") or [])
    outcome = d.get("outcome")
    if outcome == "execution":
        end = f"{ns.of(d.get('target'))} is to be executed"
    elif outcome == "runoff":
        end = f"runoff between {ns.list(d.get('candidates'))}"
    else:
        end = "nobody is executed"
    return f"votes: {counts or 'none'} ({d.get('abstentions', 0)} abstained): {end}"


def _role_of(d: Mapping[str, Any]) -> str:
    return f" ({word(d['role'])})" if d.get("role") else ""


def _team(d: Mapping[str, Any], ns: Names) -> str:
    forced = ": it goes without a vote" if d.get("forced") else ""
    return f"{ns.of(d.get('leader'))} proposes {_seats(d.get('team'), ns)} for quest {d.get('quest')}{forced}"


def _votes(d: Mapping[str, Any], ns: Names) -> str:
    verdict = "approved" if d.get("passed") else f"rejected ({d.get('rejections')} in a row)"
    return f"the team is {verdict}: {_seats(d.get('approve'), ns)} for, {_seats(d.get('reject'), ns)} against"


def _quest(d: Mapping[str, Any], ns: Names) -> str:
    fails = d.get("fails", 0)
    result = {"success": "succeeds", "fail": "fails"}.get(str(d.get("result")), plain(d.get("result")))
    return (
        f"quest {d.get('quest')} with {_seats(d.get('team'), ns)} {result} "
        f"({fails} fail card{'s' if fails != 1 else ''}): good {d.get('successes')}, evil {d.get('failures')}"
    )


def _move(d: Mapping[str, Any], ns: Names) -> str:
    before, after = d.get("from"), d.get("to")
    return f"{ns.of(d.get('player'))} " + (f"stays at {after}" if before == after else f"moves {before} → {after}")


PROSE: Mapping[str, Prose] = {
    **NIGHT,
    # every game
    "setup": _setup,
    "role": _role,
    "end": lambda d, ns: f"{plain(d.get('winner'))} wins ({plain(d.get('reason'))})",
    # Werewolf
    "night": lambda d, ns: f"Night {d.get('night')} falls",
    "dawn": _dawn,
    "day": _day,
    "wolves": lambda d, ns: f"the wolves are {ns.list(d.get('wolves'))}",
    "candidacy": lambda d, ns: f"{ns.of(d.get('seat'))} {'stands' if d.get('stand') else 'does not stand'} for leader",
    "leader_vote": lambda d, ns: (
        f"{ns.of(d.get('seat'))} "
        + (f"votes for {ns.of(d['vote'])} as leader" if isinstance(d.get("vote"), int) else "abstains")
    ),
    "leader": _leader,
    "order": _order,
    "speech": _speech,
    "vote": _vote,
    "vote_result": _vote_result,
    "execution": lambda d, ns: (
        f"{ns.of(d.get('seat'))}{_role_of(d)} " + ("is spared" if d.get("spared") else "is executed")
    ),
    "death": lambda d, ns: (
        f"{ns.of(d.get('seat'))}{_role_of(d)} dies" + (f": {word(str(d['cause']))}" if d.get("cause") else "")
    ),
    "hunter_shot": lambda d, ns: (
        (f"{ns.of(d['hunter'])}, the hunter," if "hunter" in d else "a hunter") + f" shoots {ns.of(d.get('target'))}"
    ),
    "idiot_revealed": lambda d, ns: f"{ns.of(d.get('seat'))} is the idiot: spared, but votes no more",
    "oracle_reveal": lambda d, ns: f"an oracle died: {ns.of(d.get('target'))} is {word(str(d.get('role')))}",
    # Avalon, and Tuvalon on its map
    "team": _team,
    "votes": _votes,
    "quest": _quest,
    "loyalty_deck": lambda d, ns: f"the loyalty cards for quests 1-5: {plain(d.get('cards'))}",
    "loyalty": lambda d, ns: f"the loyalty card for quest {d.get('quest')}: {plain(d.get('card'))}",
    "assassination_phase": lambda d, ns: (
        f"good has won three quests: {ns.of(d.get('assassin'))}, the assassin, may name Merlin"
    ),
    "assassination": lambda d, ns: (
        f"{ns.of(d.get('assassin'))} names {ns.of(d.get('target'))} as Merlin: "
        + ("a hit" if d.get("hit") else "a miss")
    ),
    "positions": lambda d, ns: (
        "they stand at " + ", ".join(f"{ns.of(seat)} {cell}" for seat, cell in enumerate(d.get("cells") or []))
    ),
    "move": _move,
    "forced": lambda d, ns: f"quest {d.get('quest')} goes without a vote: {_seats(d.get('team'), ns)}",
}
"""Every kind of event of every game, as a sentence (a test holds every kind of each game's
engine to having one here)."""


def describe(kind: str, data: Mapping[str, Any], names: Names, said: bool | None = None) -> str:
    """An event as a sentence. ``said``: whether a turn at the floor (``speech``) said
    anything, when known; a turn that ended without a word reads as such, not as a speech.
    A kind without prose (a game's new event) reads as its fields: it is never lost."""
    if kind == "speech":
        return _speech(data, names, said)
    prose = PROSE.get(kind)
    return fields(kind, data, names) if prose is None else prose(data, names)


def fields(kind: str, data: Mapping[str, Any], names: Names) -> str:
    """An event as its kind and fields, seats shown as nicks."""
    out = []
    for key, value in data.items():
        if key in SEAT_KEYS:
            value = names.of(value)
        elif key in SEAT_LISTS and isinstance(value, list):
            value = names.list(value)
        else:
            value = plain(value)
        out.append(f"{word(key)} {value}")
    return kind.replace("_", " ") + (": " + "; ".join(out) if out else "")
