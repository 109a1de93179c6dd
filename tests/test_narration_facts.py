"""The narrator says only what the public lines say, and says what a spectator needs.

Random games of every game are played through the referee in memory; the narrator hears
the game channel's lines (what any spectator sees) and its sentences' facts are compared
with facts derived here, independently, from the engine's public events (audience
everyone): every fact it states is public, no role is stated before END unless a public
event had revealed it, and every vote, result, death and the winners are stated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from arena.config import TimeoutConfig
from arena.core.events import Event
from arena.core.options import Options
from arena.core.seeds import derive_seed
from arena.games.avalon.options import AvalonOptions
from arena.games.tuvalon.options import TuvalonOptions
from arena.games.werewolf.options import WerewolfOptions
from arena.narrate.narrator import Narrator
from arena.narrate.sentence import Fact, Sentence
from arena.referee.local import LocalHub
from arena.sdk.bot import Bot

EVERY_ROLE = "villager,werewolf,seer,doctor,hunter,witch,bodyguard,cupid,idiot,jester,piper,vigilante"
SETS: list[tuple[str, int, Options, int]] = [
    ("avalon", 5, AvalonOptions(), 60),
    ("avalon", 7, AvalonOptions(percival=True, morgana=True, oberon=True), 40),
    ("avalon", 8, AvalonOptions(merlin=False), 20),
    ("avalon", 10, AvalonOptions(percival=True, mordred=True, lancelot=2), 30),
    ("werewolf", 8, WerewolfOptions(), 40),
    ("werewolf", 9, WerewolfOptions(roleCounts="werewolf:2,witch:1,doctor:1,hunter:1", revealRolesOnDeath=False), 40),
    (
        "werewolf",
        12,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            leaderEnabled=False,
            roleCounts=("werewolf:2,cupid:1,piper:1,jester:1,idiot:1,bodyguard:1,hunter:1"),
            lastWordsMode="all",
        ),
        30,
    ),
    (
        "werewolf",
        12,
        WerewolfOptions(
            enabledRoles=EVERY_ROLE,
            revealRolesOnDeath=False,
            roleCounts=("werewolf:3,seer:1,hunter:1,vigilante:1,cupid:1,idiot:1"),
            vigilanteShots=2,
            maxDays=3,
        ),
        30,
    ),
    ("werewolf", 12, WerewolfOptions(preset="chaos"), 40),
    ("werewolf", 16, WerewolfOptions(preset="chaos", revealRolesOnDeath=False), 40),
    ("tuvalon", 7, TuvalonOptions(), 20),
]
"""Option sets (roles revealed and hidden at death, every role dealt somewhere: the chaos
decks draw from all of them, neutral factions included), and how many games of each: 380
of Avalon and Werewolf, and 20 of Tuvalon."""

KEY_KINDS = {
    "vote",
    "votes",
    "quest",
    "score",
    "team",
    "leader",
    "assassination",
    "dead",
    "executed",
    "ballot",
    "vote_result",
    "shot",
    "winner",
    "reason",
    "winners",
    "seats",
    "cell",
    "move",
    "heard",
}
"""Facts a spectator must be told whenever the events hold them."""


def _nick(value: Any, nicks: Sequence[str]) -> str:
    return nicks[value] if type(value) is int else str(value)


def avalon_facts(event: Event, nicks: Sequence[str], state: dict[str, Any]) -> Iterable[Fact]:
    d = event.data
    if event.kind == "setup":
        yield ("seats", *nicks)
    elif event.kind == "leader":
        state["at"] = (str(d["quest"]), str(d["attempt"]))
        yield ("leader", *state["at"], nicks[d["leader"]])
    elif event.kind == "team":
        yield ("team", *state["at"], nicks[d["leader"]], *sorted(nicks[s] for s in d["team"]))
    elif event.kind == "votes":
        yield ("votes", *state["at"], "approved" if d["passed"] else "rejected")
        for seat in d["approve"]:
            yield ("vote", *state["at"], nicks[seat], "approve")
        for seat in d["reject"]:
            yield ("vote", *state["at"], nicks[seat], "reject")
        if not d["passed"]:
            yield ("rejections", str(d["rejections"]))
    elif event.kind == "quest":
        yield ("quest", str(d["quest"]), d["result"], str(d["fails"]))
        yield ("score", str(d["successes"]), str(d["failures"]))
    elif event.kind == "assassination_phase":
        yield ("role", nicks[d["assassin"]], "assassin")
    elif event.kind == "assassination":
        yield ("assassination", nicks[d["assassin"]], nicks[d["target"]], str(d["hit"]).lower())
        if d["hit"]:
            yield ("role", nicks[d["target"]], "merlin")


def tuvalon_facts(event: Event, nicks: Sequence[str], state: dict[str, Any]) -> Iterable[Fact]:
    """Avalon's, and the map: where each stands, each move, who heard each second turn."""
    d = event.data
    if event.kind == "positions":
        for nick, cell in zip(nicks, d["cells"]):
            yield ("cell", nick, cell)
    elif event.kind == "move":
        yield ("move", nicks[d["player"]], d["from"], d["to"])
    elif event.kind == "speech" and "heard_by" in d:
        yield ("heard", nicks[d["player"]], *(nicks[s] for s in d["heard_by"]))
    else:
        yield from avalon_facts(event, nicks, state)


def werewolf_facts(event: Event, nicks: Sequence[str], state: dict[str, Any]) -> Iterable[Fact]:
    d = event.data
    kind = event.kind
    if kind == "setup":
        yield ("seats", *nicks)
        yield ("reveal", str(d["options"]["revealRolesOnDeath"]).lower())
        for role, count in d["roles"].items():
            yield ("deal", role, str(count))
    elif kind == "night":
        yield ("night", str(d["night"]))
    elif kind == "dawn":
        for i, seat in enumerate(d["dead"]):
            yield ("dead", nicks[seat])
            if "roles" in d:
                yield ("role", nicks[seat], d["roles"][i])
    elif kind == "day":
        state["day"] = str(d["day"])
        yield ("day", state["day"])
        yield ("alive", *sorted(nicks[s] for s in d["alive"]))
        if d["leader"] is not None:
            yield ("leader", nicks[d["leader"]])
    elif kind == "candidacy" and d["stand"]:
        yield ("candidate", nicks[d["seat"]])
    elif kind == "leader_vote":
        yield ("leader_vote", nicks[d["seat"]], _nick(d["vote"], nicks))
    elif kind == "leader" and d["leader"] is not None:
        yield ("leader", nicks[d["leader"]])
    elif kind == "order":
        yield ("order", *(nicks[s] for s in d["speakers"]))
    elif kind == "vote":
        yield ("ballot", state["day"], str(d["round"]), nicks[d["seat"]], _nick(d["vote"], nicks))
    elif kind == "vote_result":
        target = "none" if d["target"] is None else nicks[d["target"]]
        yield ("vote_result", state["day"], str(d["round"]), d["outcome"], target)
    elif kind == "execution":
        if d["spared"]:
            yield ("spared", nicks[d["seat"]])
        else:
            yield ("executed", nicks[d["seat"]])
            yield ("dead", nicks[d["seat"]])
            if "role" in d:
                yield ("role", nicks[d["seat"]], d["role"])
    elif kind == "punished" and d["punishment"] != "death":
        yield ("voteless", nicks[d["seat"]])
    elif kind == "oracle_reveal":
        yield ("role", nicks[d["target"]], d["role"])
    elif kind == "idiot_revealed":
        yield ("role", nicks[d["seat"]], "idiot")
    elif kind == "death":
        yield ("dead", nicks[d["seat"]])
        if "role" in d:
            yield ("role", nicks[d["seat"]], d["role"])
    elif kind == "hunter_shot":
        if "hunter" in d:
            yield ("role", nicks[d["hunter"]], "hunter")
        if d["target"] is not None:
            yield ("shot", nicks[d["target"]])
            yield ("dead", nicks[d["target"]])


def end_facts(event: Event, nicks: Sequence[str], winners: Iterable[int]) -> Iterable[Fact]:
    d = event.data
    yield ("winner", d["winner"] or "none")
    yield ("reason", d["reason"])
    yield ("winners", *sorted(nicks[s] for s in winners))
    for nick, role in zip(nicks, d["roles"]):
        yield ("role", nick, role)


DERIVE = {"avalon": avalon_facts, "werewolf": werewolf_facts, "tuvalon": tuvalon_facts}


def public_facts(
    game: str, events: Sequence[Event], nicks: Sequence[str], winners: Iterable[int]
) -> tuple[set[Fact], set[Fact]]:
    """Facts of the public events before END, and of END."""
    before: set[Fact] = set()
    state: dict[str, Any] = {}
    end: set[Fact] = set()
    for event in events:
        if not event.public:
            continue
        if event.kind == "end":
            end = set(end_facts(event, nicks, winners))
        else:
            before.update(DERIVE[game](event, nicks, state))
    return before, end


def narrate(channel_lines: Sequence[str], referee: str = "arena") -> tuple[list[Sentence], list[Sentence]]:
    """The narrator's sentences before END and from END on."""
    narrator = Narrator("#lobby", referee)
    before: list[Sentence] = []
    after: list[Sentence] = []
    for line in channel_lines:
        said = narrator.hear(referee, "#arena", line)
        (after if after or line.startswith("END ") else before).extend(said)
    return before, after


def facts(sentences: Iterable[Sentence]) -> set[Fact]:
    return {fact for s in sentences for fact in s.facts}


@pytest.mark.parametrize("game,players,options,count", SETS, ids=lambda v: str(v) if isinstance(v, (str, int)) else "")
def test_narration_states_public_facts_only(game: str, players: int, options: Options, count: int) -> None:
    hub = LocalHub(TimeoutConfig())
    nicks = [f"p{i}" for i in range(players)]
    for i, nick in enumerate(nicks):
        hub.connect(nick, Bot(seed=derive_seed(7, game, players, i)))
    told_roles_early = 0
    for g in range(count):
        match = hub.play(game, nicks, options, derive_seed(11, game, players, g))
        result = match.game.result
        assert result is not None
        lines = [line for target, line in match.transcript if target is None]
        before, after = narrate(lines)
        public_before, public_end = public_facts(game, match.game.events, nicks, result.winners)
        said_before, said_after = facts(before), facts(after)
        assert said_before <= public_before, f"game {g}: {sorted(said_before - public_before)}"
        assert said_after <= public_before | public_end, f"game {g}: {sorted(said_after - public_before - public_end)}"
        told_roles_early += sum(1 for f in said_before if f[0] == "role")
        key = {f for f in public_before | public_end if f[0] in KEY_KINDS}
        assert key <= said_before | said_after, f"game {g}: not told {sorted(key - said_before - said_after)}"
        assert all(s.plain() and "\n" not in s.plain() for s in before + after)
    if game == "werewolf" and options.to_dict()["revealRolesOnDeath"]:
        assert told_roles_early, "roles revealed at death are told as they are revealed"
