"""What a game page shows, computed from the export document alone (``arena.store.export``):
who was who, the Avalon vote grid and quest track, Tuvalon's map round by round, the
Werewolf day/night timeline.

Reading only the document, never the store, is what keeps the report file, the web page
and a live game's page in agreement: a live document has no roles and no private events,
so nothing here can show them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..games.tuvalon import board

GOOD_SIDES = frozenset({"good", "village"})
EVIL_SIDES = frozenset({"evil", "werewolf", "wolves"})

SEAT_KEYS = frozenset({"seat", "target", "leader", "assassin", "start", "player", "shooter", "victim", "vote",
                       "by", "saved", "poisoned", "protected", "checked", "new", "hunter", "cupid"})
"""Event fields holding one seat (shown as the player's nick)."""
SEAT_LISTS = frozenset({"team", "approve", "reject", "dead", "alive", "speakers", "candidates", "winners", "wolves",
                        "lovers", "charmed", "sees", "targets", "votes", "players", "members", "masons", "visited",
                        "visitors"})
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


def side_class(side: str | None) -> str:
    """The CSS class of a side: its colour on every page."""
    if side in GOOD_SIDES:
        return "good"
    if side in EVIL_SIDES:
        return "evil"
    return "neutral" if side else "unknown"


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
    votes = ", ".join(f"{names.of(wolf)} for {names.of(target)}" if isinstance(target, int)
                      else f"{names.of(wolf)} abstains" for wolf, target in data.get("votes") or [])
    return f"the wolves vote ({votes or 'no votes'}): they attack {names.of(data.get('target'))}"


def _dealt(data: Mapping[str, Any], names: Names) -> str:
    seen = f": {names.of(data['player'])} is seen as {plain(data.get('side'))}" if "player" in data else ""
    return f"the dealer deals the {plain(data.get('card'))} card{seen}"


NIGHT: Mapping[str, Callable[[Mapping[str, Any], Names], str]] = {
    "seer_result": lambda d, ns: f"the seer sees {ns.of(d.get('target'))} as {plain(d.get('team'))}",
    "wolf_votes": _wolf_votes,
    "wolf_target": lambda d, ns: f"the wolves attack {ns.of(d.get('target'))}",
    "lovers": lambda d, ns: f"{ns.of(d.get('cupid'))}, Cupid, makes {_seats(d.get('lovers'), ns)} lovers",
    "charmed": lambda d, ns: f"the piper charms {ns.of(d.get('new'))}; charmed now: {_seats(d.get('charmed'), ns)}",
    "blocked": lambda d, ns: "blocked: their night action does nothing",
    "masons": lambda d, ns: f"the masons are {_seats(d.get('masons'), ns)}",
    "detective_result": lambda d, ns: f"the detective finds {_seats(d.get('players'), ns)} on "
                                      + ("the same side" if d.get("same") else "different sides"),
    "tracked": lambda d, ns: f"the tracker follows {ns.of(d.get('target'))}, who visits {_seats(d.get('visited'), ns)}",
    "watched": lambda d, ns: f"the watcher watches {ns.of(d.get('target'))}, visited by "
                             f"{_seats(d.get('visitors'), ns)}",
    "dealt": _dealt,
    "cult": lambda d, ns: f"{ns.of(d.get('leader'))}, the cult leader, recruits {ns.of(d.get('new'))}; the cult is "
                          f"{_seats(d.get('members'), ns)}",
    "thief_cards": lambda d, ns: f"the cards left over are {_and([word(str(c)) for c in d.get('cards') or []])}",
    "caught": lambda d, ns: f"the wolves catch {ns.of(d.get('player'))} peeking",
    "cleansed": lambda d, ns: f"the priest's blessing lifts {_and([word(str(c)) for c in d.get('statuses') or []])}",
    "silenced": lambda d, ns: f"silenced today: {_seats(d.get('players'), ns)}",
    "punished": lambda d, ns: f"the scapegoat punishes {ns.of(d.get('seat'))}: {plain(d.get('punishment'))}",
}
"""Werewolf's night news (and the other news told by role) as sentences: a night is read
as a story, not as a list of fields."""


def describe(kind: str, data: Mapping[str, Any], names: Names, said: bool | None = None) -> str:
    """An event as a sentence. The kinds a page has its own view of read as prose; any
    other reads as its fields, seats shown as nicks, so a new event kind is never lost.
    ``said``: whether a turn at the floor (``speech``) said anything, when known; a turn
    that ended without a word reads as such, not as a speech."""
    n = names.of
    if kind in NIGHT:
        return NIGHT[kind](data, names)
    if kind == "dawn":
        dead = data.get("dead") or []
        roles = data.get("roles") or []
        if not dead:
            return f"Day {data.get('day')} dawns: nobody died in the night"
        who = ", ".join(f"{n(s)} ({word(roles[i])})" if i < len(roles) and roles[i] else n(s)
                        for i, s in enumerate(dead))
        return f"Day {data.get('day')} dawns: {who} died in the night"
    if kind == "role" and "role" in data:
        side = data.get("side") or data.get("team")
        sees = f"; sees {names.list(data['sees'])}" if data.get("sees") else ""
        return f"{n(data.get('seat'))} is {word(data['role'])}" + (f" ({side})" if side else "") + sees
    if kind == "wolves":
        return f"the wolves are {names.list(data.get('wolves'))}"
    if kind == "candidacy":
        return f"{n(data.get('seat'))} {'stands' if data.get('stand') else 'does not stand'} for leader"
    if kind == "leader_vote":
        vote = data.get("vote")
        return f"{n(data.get('seat'))} " + (f"votes for {n(vote)} as leader" if isinstance(vote, int) else "abstains")
    if kind == "leader" and "candidates" in data:
        if not data["candidates"]:
            return "nobody stood for leader: the day has no leader"
        return f"{n(data.get('leader'))} is elected leader"
    if kind == "order":
        speakers, leader = list(data.get("speakers") or []), data.get("leader")
        if len(speakers) > 1 and leader is not None and speakers[-1] == leader and leader in speakers[:-1]:
            return f"speaking order: {names.list(speakers[:-1])}, then {n(leader)} again, as leader"
        return f"speaking order: {names.list(speakers)}"
    if kind == "speech":
        what = {"last_words": " (last words)", "runoff": " (runoff)"}.get(str(data.get("purpose")), "")
        verb = "passes" if data.get("passed") else "says nothing" if said is False else "speaks"
        return f"{n(data.get('seat'))} {verb}{what}"
    if kind == "vote" and "round" in data:
        target = data.get("vote")
        return f"{n(data.get('seat'))} votes " + (f"to execute {n(target)}" if isinstance(target, int) else "to abstain")
    if kind == "vote_result":
        counts = ", ".join(f"{n(s)} {c}" for s, c in data.get("counts") or [])
        outcome = data.get("outcome")
        if outcome == "execution":
            end = f"{n(data.get('target'))} is to be executed"
        elif outcome == "runoff":
            end = f"runoff between {names.list(data.get('candidates'))}"
        else:
            end = "nobody is executed"
        return f"votes: {counts or 'none'} ({data.get('abstentions', 0)} abstained): {end}"
    if kind == "execution":
        role = f" ({word(data['role'])})" if data.get("role") else ""
        return f"{n(data.get('seat'))}{role} " + ("is spared" if data.get("spared") else "is executed")
    if kind == "death":
        role = f" ({word(data['role'])})" if data.get("role") else ""
        cause = f": {word(str(data['cause']))}" if data.get("cause") else ""
        return f"{n(data.get('seat'))}{role} dies{cause}"
    if kind == "hunter_shot":
        shooter = f"{n(data['hunter'])}, the hunter," if "hunter" in data else "a hunter"
        return f"{shooter} shoots {n(data.get('target'))}"
    if kind == "idiot_revealed":
        return f"{n(data.get('seat'))} is the idiot: spared, but votes no more"
    if kind == "oracle_reveal":
        return f"an oracle died: {n(data.get('target'))} is {word(str(data.get('role')))}"
    if kind == "end":
        return f"{plain(data.get('winner'))} wins ({plain(data.get('reason'))})"
    fields = []
    for key, value in data.items():
        if key in SEAT_KEYS:
            value = n(value)
        elif key in SEAT_LISTS and isinstance(value, list):
            value = names.list(value)
        else:
            value = plain(value)
        fields.append(f"{word(key)} {value}")
    return kind.replace("_", " ") + (": " + "; ".join(fields) if fields else "")


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
        out.append(Player(
            p["seat"], p["nick"], p["bot"], p["role"], p["side"], p["result"],
            None if elo is None else (elo["before"]["mu"], elo["after"]["mu"]),
            None if ts is None else (ts["before"]["mu"], ts["before"]["sigma"], ts["after"]["mu"], ts["after"]["sigma"])))
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
            quests = [Quest(i + 1, size, fails) for i, (size, fails) in
                      enumerate(zip(data.get("quest_sizes", []), data.get("fails_needed", [])))]
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
    return [{"seat": seats.get(t["nick"]), "nick": t["nick"], "text": t["text"], "after": t["after"],
             "heard": ", ".join(t["to"])} for t in out]


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
    return [Item(describe(e["kind"], e["data"], names, bool(talk.get(i))), e["kind"],
                 None if e["audience"] is None else names.list(e["audience"])) for i, e in enumerate(doc["events"])]
