"""protocol.md documents everything that travels on the wire, and every error it lists happens.

A bot author reads only protocol.md, so a word the referee sends that the document never
names (a verb, a field, a request kind, an option word, an end reason, an error code) is a
word nobody can program against. The first test plays games of every game type under every
option set through the referee and the SDK bots, collects those words from what was said,
and fails on any the document lacks: new roles and games cannot ship undocumented.

The second part is a checklist, one scripted situation per error code of section 6: "this
mistake gets this code". A code that no situation produces is a promise the referee does
not keep, and fails too.

``python -m tests.test_doc_coverage --games N`` plays N games of each option set (the
default suite plays eight, some 360 games in all) and prints what it found.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable, Sequence

import pytest

from arena.bots.avalon_rules_bot import RuleBot
from arena.bots.werewolf_rules_bot import WerewolfRuleBot
from arena.config import TimeoutConfig
from arena.core.errors import ErrorCode
from arena.games import GAMES
from arena.games.avalon.options import AvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.protocol import ASK, END, ERROR, Message, parse
from arena.referee.identity import Identities
from arena.referee.local import LocalHub
from arena.referee.match import Match
from arena.referee.recorder import Recorder
from arena.referee.referee import Referee
from arena.sdk import Bot
from arena.store import Store

from .transcript import record

DOC = Path(__file__).resolve().parents[1] / "protocol.md"
NICKS = [
    "alice",
    "bob",
    "carol",
    "dave",
    "erin",
    "frank",
    "grace",
    "heidi",
    "ivan",
    "judy",
    "ken",
    "liam",
    "mia",
    "nick",
    "olga",
    "pete",
    "quin",
    "rosa",
    "sam",
    "tina",
]
SLEEPER = "sleepy"
"""A registered player that never answers: its seat shows WARN, TIMEOUT and forfeits."""

AVALON_SETS: list[tuple[int, AvalonOptions]] = [
    (5, AvalonOptions(merlin=False)),
    (5, AvalonOptions()),
    (6, AvalonOptions(percival=True, morgana=True)),
    (7, AvalonOptions(percival=True, oberon=True)),
    (8, AvalonOptions(percival=True, morgana=True, mordred=True)),
    (8, AvalonOptions(lancelot=1)),
    (10, AvalonOptions(percival=True, morgana=True, mordred=True, lancelot=1)),
    (10, AvalonOptions(percival=True, oberon=True, lancelot=2)),
    (8, AvalonOptions(mordred=True, lancelot=3)),
    (9, AvalonOptions(percival=True, morgana=True, mordred=True, evil_at_nine=4)),
    (9, AvalonOptions(oberon=True, evil_at_nine=3)),
]

EVERY_ROLE = (
    "villager,werewolf,seer,doctor,hunter,witch,bodyguard,cupid,idiot,jester,piper,vigilante,"
    "guardian_angel,roleblocker,serial_killer,jailer,detective,tracker,watcher,mason,oracle,bomb,little_girl,thief,miller,godfather,alpha_werewolf,wolf_seer,silencer,priest"
    ",werewolf_leader,wolf_witch,wolf_guard,warder,decoy,avenger,scapegoat"
    ",bus_driver,trickster,shadow,arsonist,exile,dealer,cult_leader"
)
ALL_POWERS = "werewolf:3,seer:1,doctor:1,hunter:1,witch:1,bodyguard:1,cupid:1,idiot:1,jester:1,piper:1,vigilante:1"
WEREWOLF_SETS: list[tuple[int, WerewolfOptions]] = [
    (8, WerewolfOptions()),
    (6, WerewolfOptions(roleCounts="werewolf:1,seer:1,witch:1", leaderEnabled=False, lastWordsMode="none")),
    (16, WerewolfOptions(enabledRoles=EVERY_ROLE, roleCounts=ALL_POWERS)),
    (
        16,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts=ALL_POWERS,
            revealRolesOnDeath=False,
            leaderEnabled=False,
            lastWordsMode="all",
            lastWordsScope="day_and_night",
            lastWordsOrder="death_resolution",
            vigilanteShots=2,
            hunterShootOnPoison=True,
        ),
    ),
    (
        12,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf:2,cupid:1,piper:1,jester:1,idiot:1,bodyguard:1,hunter:1",
            dayVoteMajority=False,
            allowRepeatedProtect=True,
            protectAgainstPoison=True,
            protectAgainstVigilante=False,
        ),
    ),
    (
        9,
        WerewolfOptions(
            roleCounts="werewolf:2,witch:1,doctor:1,hunter:1",
            witchCanSaveSelf=False,
            witchSaveFirstNightOnly=True,
            allowDoctorSelfProtect=False,
            revealRolesOnDeath=False,
        ),
    ),
    (10, WerewolfOptions(enabledRoles=EVERY_ROLE, roleCounts="werewolf:2,cupid:1,piper:1,seer:1", maxDays=2)),
    (
        12,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf:2,seer:1,witch:1,guardian_angel:1,roleblocker:1,serial_killer:1,bomb:1,thief:1",
        ),
    ),
    (
        16,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf:3,jailer:1,detective:1,tracker:1,watcher:1,mason:2,"
            "doctor:1,piper:1,cupid:1,oracle:1,little_girl:1",
        ),
    ),
    (
        10,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="godfather:1,wolf_seer:1,alpha_werewolf:1,miller:1,seer:1,"
            "detective:1,silencer:1,priest:1,piper:1",
        ),
    ),
    (
        12,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf_leader:1,wolf_witch:1,wolf_guard:1,warder:1,decoy:1,"
            "avenger:1,scapegoat:2,seer:1,doctor:1,priest:1",
        ),
    ),
    (
        10,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf_leader:1,wolf_witch:1,scapegoat:2,hunter:1,warder:1",
            revealRolesOnDeath=False,
            scapegoatPunishment="death",
            protectAgainstPoison=True,
        ),
    ),
    (
        9,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            roleCounts="werewolf:2,seer:1,priest:1,arsonist:1,exile:1,dealer:1,cult_leader:1",
            revealRolesOnDeath=False,
        ),
    ),
]


# -- what the wire says ------------------------------------------------------------------


@dataclass
class Vocabulary:
    """Every word of the protocol seen on the wire, each with the first line that used it."""

    verbs: dict[str, str] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    words: dict[str, str] = field(default_factory=dict)
    """Options of requests that are not players (``none``, ``abstain``, ``approve``...)."""
    reasons: dict[str, str] = field(default_factory=dict)
    codes: dict[str, str] = field(default_factory=dict)

    def read(self, text: str, players: Iterable[str]) -> None:
        msg = parse(text)
        self.verbs.setdefault(msg.verb, text)
        for key in msg.fields:
            self.fields.setdefault(key, text)
        if msg.verb == ASK:
            self.kinds.setdefault(msg.args[2], text)
            seated = {p.lower() for p in players}
            for option in msg.list("options"):
                if option.lower() not in seated:
                    self.words.setdefault(option, text)
        elif msg.verb == END:
            self.reasons.setdefault(msg.fields["reason"], text)
        elif msg.verb == ERROR:
            self.codes.setdefault(msg.args[0], text)


def bots_for(game: str, seats: int) -> list[Bot]:
    """Rule bots and random bots, alternating: rule bots talk (TEAM, speeches), random ones
    reach the odd corners of the rules."""
    rules = RuleBot if game == "avalon" else WerewolfRuleBot
    return [rules(seed=i) if i % 2 else Bot(seed=i) for i in range(seats)]


def play_everything(games: int, scratch: Path) -> Vocabulary:
    """Play ``games`` games of every option set of both games, plus one with a player that
    never answers (warnings, defaults, a forfeit) and one stopped by an operator, and read
    every line the referee sent and received (results kept in ``scratch``); add the end
    reasons and option words the engines declare."""
    vocabulary = Vocabulary()
    for n, timeouts in enumerate((TimeoutConfig(), TimeoutConfig(escalation=("default",)))):
        hub = LocalHub(timeouts)
        lines = record(hub)
        with Store(scratch / f"{n}.db") as db:
            Recorder(db).attach(hub.referee)
            for nick, bot in zip(NICKS, bots_for("werewolf", len(NICKS))):
                hub.connect(nick, bot)
            hub.referee.on_message(SLEEPER, hub.referee.nick, f"REGISTER 1 name={SLEEPER}", hub.now)
            for game, sets in (("avalon", AVALON_SETS), ("werewolf", WEREWOLF_SETS)):
                for seats, options in sets:
                    for seed in range(games):
                        hub.play(game, NICKS[:seats], options, seed)
                    hub.play(game, [SLEEPER, *NICKS[1:seats]], options, games)
                    stopped = hub.referee.start_game(
                        game, [SLEEPER, *NICKS[1:seats]], options, games + 1, hub.channel, hub.now
                    )
                    hub.run()
                    stopped.abort("stopped by the test", hub.now)
                    hub.run()
                    del hub.referee.matches[stopped.gid]
        for line in lines:
            sender, target, text = re.match(r"(\S+)\s+→\s+(\S+)\s+(.*)", line).groups()  # type: ignore[union-attr]
            if sender == hub.referee.nick or target == hub.referee.nick:  # not the players' chat
                vocabulary.read(text, [*NICKS, SLEEPER])
    for engine in GAMES.values():  # what random play may miss (the lovers' win is rare)
        for reason in engine.end_reasons:
            vocabulary.reasons.setdefault(reason, f"{engine.name}'s end reasons")
        for word in engine.reserved_words:
            vocabulary.words.setdefault(word, f"{engine.name}'s reserved words")
    return vocabulary


# -- what the document says --------------------------------------------------------------


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def code_spans(text: str) -> list[str]:
    """Everything protocol.md writes as code (between backticks, or in a fenced block)."""
    fenced = re.findall(r"```[^\n]*\n(.*?)```", text, flags=re.S)
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return inline + fenced


def section(text: str, number: int) -> str:
    start = text.index(f"\n## {number}.")
    return text[start : text.index("\n## ", start + 1)]


def documented_codes(text: str) -> dict[str, str]:
    """Section 6's table: each code and its meaning."""
    return dict(re.findall(r"^\| `([A-Z_]+)` \| (.*) \|$", section(text, 6), flags=re.M))


def undocumented(vocabulary: Vocabulary, text: str) -> list[str]:
    """What the wire used that protocol.md never shows as code (with the line that used it).

    Sensible matches: a verb starts a code span (``VOTES GID ...``) or is one; a field is
    written ``key=`` in one; a kind, an option word or an end reason is a word of one; an
    error code is a row of section 6."""
    spans = code_spans(text)
    words = {w for span in spans for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", span)}
    verbs = {m.group(1) for span in spans for m in re.finditer(r"(?:^|\n|→ \S+\s+)([A-Z_]+)\b", span)}
    keys = {k for span in spans for k in re.findall(r"(?<![A-Za-z0-9_])([a-z][a-z0-9_]*)=", span)}
    codes = documented_codes(text)
    missing = []
    for what, seen, known in (
        ("verb", vocabulary.verbs, verbs),
        ("field", vocabulary.fields, keys),
        ("request kind", vocabulary.kinds, words),
        ("option word", vocabulary.words, words),
        ("end reason", vocabulary.reasons, words),
        ("error code", vocabulary.codes, codes),
    ):
        missing += [f"{what} {token!r}, e.g. {line}" for token, line in sorted(seen.items()) if token not in known]
    return missing


def test_every_word_on_the_wire_is_documented(tmp_path: Path) -> None:
    vocabulary = play_everything(8, tmp_path)
    # The games reached what they are meant to: every game's kinds and ends, and the timeouts.
    assert {"team", "assassinate", "order_start", "cupid_link", "hunter_shoot", "piper_charm"} <= set(vocabulary.kinds)
    assert {"forfeit", "aborted", "day_limit", "jester_executed"} <= set(vocabulary.reasons)
    assert {"WARN", "TIMEOUT", "RATINGS", "TEAM", "DECK", "LOYALTY"} <= set(vocabulary.verbs)
    missing = undocumented(vocabulary, doc_text())
    assert not missing, "protocol.md does not document:\n" + "\n".join(missing)
    assert not reserved_codes(doc_text()) & set(vocabulary.codes), "a code section 6 says is never sent was sent"


# -- the checklist of errors --------------------------------------------------------------


class Table:
    """A referee whose players are typed by the test, line by line. The clock moves only
    when nothing is asked (to a night's paced step), so no player's deadline ever passes.
    Ended games are forgotten as ``arena serve`` forgets them."""

    def __init__(self, identities: Identities | None = None) -> None:
        self.sent: list[tuple[str, str]] = []
        self.referee = Referee(
            "arena", TimeoutConfig(), lambda target, text: self._said(target, text), identities=identities
        )
        self.referee.on_game_end.append(self._forget)
        self.asked: dict[str, Message] = {}
        """Each player's open request (the latest ASK addressed to them)."""
        self.roles: dict[str, str] = {}
        self.nicks: list[str] = []
        self.match: Match | None = None
        self.now = 0.0

    def _forget(self, match: Match) -> None:
        del self.referee.matches[match.gid]

    def _said(self, target: str, text: str) -> None:
        self.sent.append((target, text))
        msg = parse(text)
        if msg.verb == ASK:
            to = msg.fields["to"]
            for nick in self.nicks if to == "all" else to.split(","):
                self.asked[nick] = msg
        elif msg.verb == "ROLE":
            self.roles[target] = msg.fields["role"]

    def send(self, nick: str, text: str, target: str = "arena") -> list[Message]:
        """``nick`` sends ``text`` (by DM to the referee, or to a channel); what the referee
        told ``nick`` in reply."""
        start = len(self.sent)
        self.referee.on_message(nick, target, text, self.now)
        return [parse(t) for to, t in self.sent[start:] if to == nick]

    def error(self, nick: str, text: str, target: str = "arena") -> Message:
        replies = [m for m in self.send(nick, text, target) if m.verb == ERROR]
        assert len(replies) == 1, f"{text!r} from {nick} got {replies}"
        return replies[0]

    def start(self, game: str, seats: int, options: object, *, watchers: Sequence[str] = ()) -> Table:
        self.nicks = NICKS[:seats]
        for nick in (*self.nicks, *watchers):
            self.send(nick, f"REGISTER 1 name={nick}")
        self.match = self.referee.start_game(game, list(self.nicks), options, 1, "#arena", 0.0, gid="g1")
        return self

    def answer(self, nick: str, choice: str) -> list[Message]:
        msg = self.asked.pop(nick)
        return self.send(nick, f"ANSWER g1 {msg.args[1]} {choice}")

    def play(self, until: Callable[[], bool], policy: Callable[[str, Message], str | None] = lambda n, m: None) -> None:
        """Answer the open requests in the order they came (``policy``'s choice, or the
        first legal one) until ``until()`` holds."""
        for _ in range(2000):
            if until():
                return
            if not self.asked:
                deadline = self.referee.next_deadline()
                assert deadline is not None, "nothing is asked and the situation never came"
                self.now = deadline
                self.referee.poll(self.now)
                continue
            nick, msg = next(iter(self.asked.items()))
            options = msg.list("options")
            choice = policy(nick, msg) or ",".join(options[: int(msg.fields.get("pick", "1"))])
            errors = [m for m in self.answer(nick, choice) if m.verb == ERROR]
            assert not errors, errors
        raise AssertionError("the situation never came")

    def holders(self, role: str) -> list[str]:
        return [n for n in self.nicks if self.roles.get(n) == role]


def avalon() -> Table:
    return Table().start("avalon", 5, AvalonOptions(), watchers=["zed"])


def first_ask(table: Table, kind: str) -> tuple[str, Message]:
    return next((n, m) for n, m in table.asked.items() if m.args[2] == kind)


def asking(table: Table, kind: str) -> Callable[[], bool]:
    return lambda: any(m.args[2] == kind for m in table.asked.values())


WOLVES = WerewolfOptions(roleCounts="werewolf:2,seer:1,doctor:1,witch:1", leaderEnabled=False, lastWordsMode="none")


def werewolf_day(kill: bool) -> tuple[Table, str | None]:
    """A 7-player Werewolf game on its first day, at the first speaking turn: the wolves
    killed a plain villager in the night (``kill``) or no one; no one healed."""
    table = Table().start("werewolf", 7, WOLVES)
    victim = table.holders("villager")[0] if kill else None

    def night(nick: str, msg: Message) -> str | None:
        if msg.args[2] == "wolf_vote":
            return victim or "abstain"
        return "none" if "none" in msg.list("options") else None

    table.play(asking(table, "speak"), night)
    return table, victim


def case_malformed() -> Message:
    return avalon().error("alice", "ANSWER g1 one approve")


def case_unknown_command() -> Message:
    return avalon().error("alice", "VOTES g1 approve=alice")


def case_unsupported_version() -> Message:
    return Table().error("zed", "REGISTER 3 name=zed")


def case_name_invalid() -> Message:
    return Table().error("all", "REGISTER 1")


def case_auth_failed() -> Message:
    return Table(Identities(require_key=True)).error("zed", "REGISTER 1 name=zed")


def case_name_taken() -> Message:
    table = Table()
    table.send("zed", "REGISTER 1 name=zed")
    return table.error("zed2", "REGISTER 1 name=zed")


def case_not_registered() -> Message:
    return avalon().error("mallory", "ANSWER g1 1 approve")


def case_unknown_game() -> Message:
    return avalon().error("alice", "ANSWER g9 1 approve")


def case_not_a_player() -> Message:
    return avalon().error("zed", "ANSWER g1 1 approve")


def case_stale_request() -> Message:
    """Answering another's request and answering one that was never asked read the same."""
    table = avalon()
    leader, team = first_ask(table, "team")
    other = next(n for n in table.nicks if n != leader)
    theirs = table.error(other, f"ANSWER g1 {team.args[1]} alice,bob")
    never = table.error(other, "ANSWER g1 999 alice,bob")
    assert (theirs.args[0], (theirs.text or "").replace(team.args[1], "999")) == (never.args[0], never.text)
    return theirs


def case_game_over() -> Message:
    table = avalon()
    table.play(lambda: table.match is not None and table.match.over)
    return table.error("alice", "ANSWER g1 1 approve")


def case_invalid_phase() -> Message:
    return avalon().error("alice", "TEAM g1 :let us talk")


def case_not_your_turn() -> Message:
    table, _ = werewolf_day(kill=False)
    speaker, _ = first_ask(table, "speak")
    other = next(n for n in table.nicks if n != speaker)
    return table.error(other, "may I speak?", target="#arena")


def case_already_acted() -> Message:
    table = avalon()
    table.play(asking(table, "vote"))
    _, vote = first_ask(table, "vote")
    table.answer("alice", "approve")
    return table.error("alice", f"ANSWER g1 {vote.args[1]} reject")


def case_action_not_allowed() -> Message:
    table = avalon()
    table.play(asking(table, "vote"))
    return table.error("alice", f"ANSWER g1 {table.asked['alice'].args[1]} maybe")


def case_target_invalid() -> Message:
    table = avalon()
    leader, team = first_ask(table, "team")
    return table.error(leader, f"ANSWER g1 {team.args[1]} {leader},zed")


def case_wrong_count_players() -> Message:
    table = avalon()
    leader, team = first_ask(table, "team")
    return table.error(leader, f"ANSWER g1 {team.args[1]} alice,bob,carol")


def case_wrong_count_words() -> Message:
    table = avalon()
    table.play(asking(table, "vote"))
    return table.error("alice", f"ANSWER g1 {table.asked['alice'].args[1]} approve,reject")


def day_vote(kill: bool) -> tuple[Table, str, Message, str | None]:
    """The first vote of day 1 (after everyone passed the floor): the voter, the request,
    and last night's victim."""
    table, victim = werewolf_day(kill)
    table.play(asking(table, "vote"))
    voter, vote = first_ask(table, "vote")
    return table, voter, vote, victim


def case_cannot_self_target() -> Message:
    table, voter, vote, _ = day_vote(kill=False)
    return table.error(voter, f"ANSWER g1 {vote.args[1]} {voter}")


def case_target_already_dead() -> Message:
    table, voter, vote, victim = day_vote(kill=True)
    return table.error(voter, f"ANSWER g1 {vote.args[1]} {victim}")


def case_dead_talks() -> Message:
    table, victim = werewolf_day(kill=True)
    assert victim is not None
    return table.error(victim, "I am not dead yet", target="#arena")


def case_dead_answers() -> Message:
    table, _, vote, victim = day_vote(kill=True)
    assert victim is not None
    return table.error(victim, f"ANSWER g1 {vote.args[1]} abstain")


def nights(table: Table, doctor_protects: str) -> None:
    """Quiet nights and days (wolves and voters abstain), the doctor protecting the same
    player every night, until the doctor is asked on night 2."""
    doctor = table.holders("doctor")[0]
    protections = [0]

    def policy(nick: str, msg: Message) -> str | None:
        kind = msg.args[2]
        if kind == "doctor_protect":
            protections[0] += 1
            return doctor_protects
        if kind in ("wolf_vote", "vote"):
            return "abstain"
        return "none" if "none" in msg.list("options") else None

    table.play(
        lambda: (
            protections[0] == 1
            and doctor in table.asked
            and table.asked[doctor].args[2] == "doctor_protect"
            and table.asked[doctor].fields["day"] == "2"
        ),
        policy,
    )


def case_repeated_protect() -> Message:
    table = Table().start("werewolf", 7, WOLVES)
    protected = table.holders("villager")[0]
    nights(table, protected)
    doctor = table.holders("doctor")[0]
    return table.error(doctor, f"ANSWER g1 {table.asked[doctor].args[1]} {protected}")


def case_spent_power() -> Message:
    """The witch healed on night 1; on night 2 she asks to heal again. A power that is used
    up is still asked for, with ``none`` alone (a night without her request would be
    shorter): ``save`` is refused as used up."""
    table = Table().start("werewolf", 7, WOLVES)
    witch, victim = table.holders("witch")[0], table.holders("villager")[0]
    healed = [False]

    def policy(nick: str, msg: Message) -> str | None:
        kind = msg.args[2]
        if kind == "wolf_vote":
            return victim
        if kind == "witch_save" and not healed[0]:
            healed[0] = True
            return "save"
        if kind == "vote":
            return "abstain"
        return "none" if "none" in msg.list("options") else None

    table.play(lambda: healed[0] and witch in table.asked and table.asked[witch].fields.get("day") == "2", policy)
    return table.error(witch, f"ANSWER g1 {table.asked[witch].args[1]} save")


CHECKLIST = [
    pytest.param("MALFORMED", case_malformed, id="a non-numeric request id"),
    pytest.param("UNKNOWN_COMMAND", case_unknown_command, id="a verb only the referee sends"),
    pytest.param("UNSUPPORTED_VERSION", case_unsupported_version, id="REGISTER 3"),
    pytest.param("NAME_INVALID", case_name_invalid, id="the nick all"),
    pytest.param("AUTH_FAILED", case_auth_failed, id="no key where keys are required"),
    pytest.param("NAME_TAKEN", case_name_taken, id="a name another connection plays"),
    pytest.param("NOT_REGISTERED", case_not_registered, id="answering unregistered"),
    pytest.param("UNKNOWN_GAME", case_unknown_game, id="answering a game that never ran"),
    pytest.param("NOT_A_PLAYER", case_not_a_player, id="answering a game one is not seated in"),
    pytest.param("STALE_REQUEST", case_stale_request, id="another's request, or one never asked"),
    pytest.param("GAME_OVER", case_game_over, id="answering after END"),
    pytest.param("INVALID_PHASE", case_invalid_phase, id="TEAM in Avalon"),
    pytest.param("NOT_YOUR_TURN", case_not_your_turn, id="talking in the channel without the floor"),
    pytest.param("ALREADY_ACTED", case_already_acted, id="answering a vote twice"),
    pytest.param("ACTION_NOT_ALLOWED", case_action_not_allowed, id="a word not among the options"),
    pytest.param("TARGET_INVALID", case_target_invalid, id="a team with a non-player"),
    pytest.param("CANNOT_SELF_TARGET", case_cannot_self_target, id="a day vote for oneself"),
    pytest.param("WRONG_COUNT", case_wrong_count_players, id="three players where pick=2"),
    pytest.param("WRONG_COUNT", case_wrong_count_words, id="two words where one is asked"),
    pytest.param("PLAYER_DEAD", case_dead_talks, id="the dead talking in the channel"),
    pytest.param("PLAYER_DEAD", case_dead_answers, id="the dead answering the day's vote"),
    pytest.param("TARGET_ALREADY_DEAD", case_target_already_dead, id="a day vote for the dead"),
    pytest.param("RESOURCE_EXHAUSTED", case_spent_power, id="the witch healing twice: a spent power offers none alone"),
    pytest.param("REPEATED_PROTECT", case_repeated_protect, id="the doctor protecting the same player twice"),
]


@pytest.mark.parametrize(("code", "situation"), CHECKLIST)
def test_this_situation_gets_this_code(code: str, situation: Callable[[], Message]) -> None:
    assert situation().args[0] == code


def reserved_codes(text: str) -> set[str]:
    """The codes section 6 marks as never sent."""
    return {code for code, meaning in documented_codes(text).items() if meaning.startswith("reserved")}


def test_every_documented_code_has_a_situation() -> None:
    """Section 6 promises no code that the checklist does not provoke (a code marked
    reserved is never sent), and the checklist uses no code section 6 lacks."""
    text = doc_text()
    promised = set(documented_codes(text)) - reserved_codes(text)
    provoked = {p.values[0] for p in CHECKLIST}
    assert promised == provoked


def test_every_code_the_referee_has_is_a_row_of_section_6_and_so_is_every_code_an_error_line_shows() -> None:
    """An ERROR carries an ``ErrorCode`` (the only vocabulary the referee sends), so section 6
    lists them all, those never sent marked reserved; and every ``ERROR CODE ...`` the
    document shows has its row."""
    text = doc_text()
    rows = set(documented_codes(text))
    assert rows == {code.value for code in ErrorCode}
    shown = {m.group(1) for span in code_spans(text) for m in re.finditer(r"\bERROR ([A-Z][A-Z_]*)", span)}
    assert shown - {"CODE"} <= rows - reserved_codes(text), sorted(shown - rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Play every option set and list the words of the wire.")
    parser.add_argument("--games", type=int, default=100, help="games per option set (default 100)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        found = play_everything(args.games, Path(scratch))
    for name in ("verbs", "fields", "kinds", "words", "reasons", "codes"):
        print(f"{name}: {' '.join(sorted(getattr(found, name)))}")
    gaps = undocumented(found, doc_text())
    print("\n".join(gaps) or "protocol.md documents all of them")
    raise SystemExit(1 if gaps else 0)
