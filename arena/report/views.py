"""What a game page shows, computed from the export document alone (``arena.store.export``):
who was who, the Avalon vote grid and quest track, Tuvalon's map round by round, the
Werewolf day/night timeline.

Reading only the document, never the store, is what keeps the report file, the web page
and a live game's page in agreement: a live document has no roles and no private events,
so nothing here can show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Mapping
from typing import Any

from ..games.tuvalon import board
from .prose import Names as Names, describe as describe, word as word

GOOD_SIDES = frozenset({"good", "village"})
EVIL_SIDES = frozenset({"evil", "werewolf", "wolves"})


def side_class(side: str | None) -> str:
    """The CSS class of a side: its colour on every page."""
    if side in GOOD_SIDES:
        return "good"
    if side in EVIL_SIDES:
        return "evil"
    return "neutral" if side else "unknown"


@dataclass(frozen=True)
class Player:
    seat: int
    nick: str
    bot: str
    role: str | None
    side: str | None
    result: str | None
    elo: tuple[float, float] | None
    """Elo before and after the game."""
    trueskill: tuple[float, float, float, float] | None
    """TrueSkill mu and sigma, before and after."""

    @property
    def side_class(self) -> str:
        return side_class(self.side)


def players(doc: Mapping[str, Any]) -> list[Player]:
    """Who was who (roles only once the document has them), with their rating changes."""
    changes: dict[str, dict[str, Any]] = {}
    for system, items in doc["ratings"].items():
        for c in items:
            if c["kind"] == "bot":
                changes.setdefault(system, {})[c["entity"]] = c
    out = []
    for p in doc["players"]:
        elo = changes.get("elo", {}).get(p["bot"])
        ts = changes.get("trueskill", {}).get(p["bot"])
        out.append(
            Player(
                p["seat"],
                p["nick"],
                p["bot"],
                p["role"],
                p["side"],
                p["result"],
                None if elo is None else (elo["before"]["mu"], elo["after"]["mu"]),
                None
                if ts is None
                else (ts["before"]["mu"], ts["before"]["sigma"], ts["after"]["mu"], ts["after"]["sigma"]),
            )
        )
    return out


@dataclass
class Proposal:
    """One row of the Avalon vote grid."""

    quest: int
    attempt: int
    leader: int
    team: list[int] = field(default_factory=list)
    votes: dict[int, str] = field(default_factory=dict)
    """Seat -> ``approve`` or ``reject`` (empty until the votes are revealed)."""
    passed: bool | None = None
    result: str | None = None
    """The quest's ``success`` or ``fail``, on the row of the team that went."""
    fails: int | None = None


@dataclass
class Quest:
    """One circle of the Avalon quest track."""

    number: int
    size: int
    fails_needed: int
    result: str | None = None
    fails: int | None = None
    team: list[int] = field(default_factory=list)


@dataclass
class AvalonView:
    quests: list[Quest]
    proposals: list[Proposal]
    assassination: dict[str, Any] | None
    secrets: list[tuple[str, str]]
    """What only some seats were told (roles, sight, Lancelot's cards): (to whom, what);
    present only once the game is over."""


def avalon(doc: Mapping[str, Any], names: Names) -> AvalonView:
    """The quest track and the proposals × players grid, from the events."""
    quests: list[Quest] = []
    proposals: list[Proposal] = []
    assassination = None
    secrets = []
    for e in doc["events"]:
        kind, data = e["kind"], e["data"]
        if e["audience"] is not None:
            secrets.append((names.list(e["audience"]), describe(kind, data, names)))
        elif kind == "setup":
            quests = [
                Quest(i + 1, size, fails)
                for i, (size, fails) in enumerate(zip(data.get("quest_sizes", []), data.get("fails_needed", [])))
            ]
        elif kind == "leader":
            proposals.append(Proposal(data["quest"], data["attempt"], data["leader"]))
        elif kind == "team" and proposals:
            proposals[-1].team = list(data["team"])
        elif kind == "votes" and proposals:
            row = proposals[-1]
            row.votes = {**{s: "approve" for s in data["approve"]}, **{s: "reject" for s in data["reject"]}}
            row.passed = bool(data["passed"])
        elif kind == "quest":
            number = data["quest"]
            if proposals:
                proposals[-1].result, proposals[-1].fails = data["result"], data["fails"]
            if 0 < number <= len(quests):
                q = quests[number - 1]
                q.result, q.fails, q.team = data["result"], data["fails"], list(data["team"])
        elif kind == "assassination":
            assassination = dict(data)
    return AvalonView(quests, proposals, assassination, secrets)


@dataclass
class MapRound:
    """One round (proposal) of Tuvalon on its map: where everyone stood once the round's
    moves were made (so far, in a round being played) and the moves themselves."""

    label: str
    """``1.2``: quest 1, second team, as the vote grid numbers its rows."""
    leader: int | None
    team: list[int] = field(default_factory=list)
    forced: bool = False
    cells: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Seat -> (column, row), both from 0: ``a1`` is (0, 0)."""
    moves: list[tuple[int, tuple[int, int], tuple[int, int]]] = field(default_factory=list)
    """(seat, from, to) of each move that changed cells, in the order they were made."""


def cell_of(name: Any) -> tuple[int, int] | None:
    """``e5`` as (column, row) from 0, or None for what names no cell of the map."""
    cell = board.parse(name)
    return cell if cell is not None and board.on_map(cell) else None


def tuvalon_map(doc: Mapping[str, Any]) -> list[MapRound]:
    """Tuvalon's rounds on the map, from the public events alone (``positions``, ``leader``,
    ``team``, ``move``): positions and moves are public, so a live page shows them too."""
    where: dict[int, tuple[int, int]] = {}
    rounds: list[MapRound] = []
    for e in doc["events"]:
        kind, data = e["kind"], e["data"]
        if e["audience"] is not None:
            continue
        if kind == "positions":
            where = {seat: cell for seat, cell in enumerate(map(cell_of, data.get("cells") or [])) if cell is not None}
        elif kind == "leader":
            rounds.append(MapRound(f"{data.get('quest')}.{data.get('attempt')}", data.get("leader"), cells=dict(where)))
        elif kind == "team" and rounds:
            rounds[-1].team, rounds[-1].forced = list(data.get("team") or []), bool(data.get("forced"))
        elif kind == "move" and rounds:
            seat, before, after = data.get("player"), cell_of(data.get("from")), cell_of(data.get("to"))
            if isinstance(seat, int) and after is not None:
                if before is not None and before != after:
                    rounds[-1].moves.append((seat, before, after))
                where[seat] = rounds[-1].cells[seat] = after
    return rounds


def talk_by_proposal(doc: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Avalon's and Tuvalon's talk, each line with the proposal it was said in (``1.2``:
    quest 1, second team), as the vote grid numbers its rows: the last team request of the
    channel sent before it (``before quest 1`` for none). Tuvalon's second discussion is
    among them once the game is over (its lines were relayed in private), each with
    ``heard``: the nicks it was relayed to."""
    requests: list[tuple[int, str]] = []
    for i, line in enumerate(doc["lines"]):
        parts = line["line"].split(" ", 4)
        if line["to"] is None and parts[0] == "ASK" and len(parts) > 3 and parts[3] == "team":
            fields = dict(f.partition("=")[::2] for f in line["line"].split() if "=" in f)
            requests.append((i, f"{fields.get('quest', '?')}.{fields.get('attempt', '?')}"))
    said = sorted([*doc["talk"], *heard_in_private(doc)], key=lambda t: t["after"])
    out = []
    for t in said:
        label = next((label for i, label in reversed(requests) if i < t["after"]), "before quest 1")
        out.append((label, t))
    return out


def heard_in_private(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The lines of talk the referee relayed in private (``TEAM gid from=NICK :text``, one
    direct message to each hearer in turn), each once, with the nicks that heard it: as
    talk (``nick``, ``text``, ``after``: its first message's index in ``lines``) plus
    ``heard``. A live document has no direct message, so none."""
    out: list[dict[str, Any]] = []
    last: dict[str, Any] | None = None
    previous = -2
    for i, line in enumerate(doc["lines"]):
        to, text = line["to"], line["line"]
        if to is None or not text.startswith("TEAM "):
            continue
        head, colon, said = text.partition(" :")
        nick = next((f[5:] for f in head.split() if f.startswith("from=")), None)
        if not colon or nick is None:
            continue
        if last is not None and previous == i - 1 and last["line"] == text and to not in last["to"]:
            last["to"].append(to)
        else:
            last = {"line": text, "to": [to], "nick": nick, "text": said, "after": i}
            out.append(last)
        previous = i
    seats = {p["nick"]: p["seat"] for p in doc.get("players") or []}
    return [
        {
            "seat": seats.get(t["nick"]),
            "nick": t["nick"],
            "text": t["text"],
            "after": t["after"],
            "heard": ", ".join(t["to"]),
        }
        for t in out
    ]


@dataclass
class Item:
    """One line of a Werewolf phase."""

    text: str
    kind: str
    audience: str | None = None
    """Whom a private event was told (nicks); None: everyone."""
    talk: list[str] = field(default_factory=list)
    """What the player said at the floor, for a speech or a candidacy."""


FLOOR_LINES = {"speech": "SPEECH", "candidacy": "CANDIDACY"}
"""The events that end a turn at the floor, and the channel line each one is sent as."""


def talk_by_event(doc: Mapping[str, Any]) -> tuple[dict[int, list[Mapping[str, Any]]], list[Mapping[str, Any]]]:
    """Each line of talk placed on the event that ended its turn at the floor (by index in
    ``events``), and the talk of turns not ended yet (a live game's current speaker).

    A turn's talk comes before the channel line of the event ending it (``SPEECH``,
    ``CANDIDACY``): a line of talk belongs to its speaker's first such event whose line was
    sent after it. The k-th event of a kind is the k-th channel line of its verb."""
    sent: dict[str, list[int]] = {verb: [] for verb in FLOOR_LINES.values()}
    for i, line in enumerate(doc["lines"]):
        verb = line["line"].split(" ", 1)[0]
        if line["to"] is None and verb in sent:
            sent[verb].append(i)
    ends: list[tuple[int, int, int]] = []
    """(index of its line, index of the event, the speaker's seat), in line order."""
    seen: dict[str, int] = {}
    for index, e in enumerate(doc["events"]):
        verb = FLOOR_LINES.get(e["kind"])
        if verb is not None and e["audience"] is None:
            k = seen[verb] = seen.get(verb, -1) + 1
            if k < len(sent[verb]):
                ends.append((sent[verb][k], index, e["data"].get("seat")))
    ends.sort()
    placed: dict[int, list[Mapping[str, Any]]] = {}
    open_turns = []
    for t in doc["talk"]:
        event = next((i for line, i, seat in ends if line >= t["after"] and seat == t["seat"]), None)
        if event is None:
            open_turns.append(t)
        else:
            placed.setdefault(event, []).append(t)
    return placed, open_turns


@dataclass
class Phase:
    title: str
    night: bool
    items: list[Item] = field(default_factory=list)


WEREWOLF_QUIET = frozenset({"night", "day", "setup"})
"""Events that open a phase instead of being a line of one."""


def werewolf(doc: Mapping[str, Any], names: Names) -> list[Phase]:
    """Nights and days in order, each with what happened in it: talk, votes, deaths; the
    night's private events (marked with whom they were told) once the game is over."""
    phases = [Phase("Before the first night", False)]
    talk, speaking = talk_by_event(doc)
    for index, e in enumerate(doc["events"]):
        kind, data = e["kind"], e["data"]
        if kind == "night":
            phases.append(Phase(f"Night {data.get('night')}", True))
        elif kind == "dawn":
            phases.append(Phase(f"Day {data.get('day')}", False))
        elif kind == "end":
            phases.append(Phase("End", False))
        if kind in WEREWOLF_QUIET:
            continue
        audience = None if e["audience"] is None else names.list(e["audience"])
        said = [t["text"] for t in talk.get(index, [])]
        phases[-1].items.append(Item(describe(kind, data, names, bool(said)), kind, audience, said))
    for t in speaking:
        phases[-1].items.append(Item(f"{t['nick']} is speaking", "speaking", None, [t["text"]]))
    return [p for p in phases if p.items]


def event_lines(doc: Mapping[str, Any], names: Names) -> list[Item]:
    """Every event as a sentence, for the full log under each game page."""
    talk, _ = talk_by_event(doc)
    return [
        Item(
            describe(e["kind"], e["data"], names, bool(talk.get(i))),
            e["kind"],
            None if e["audience"] is None else names.list(e["audience"]),
        )
        for i, e in enumerate(doc["events"])
    ]
