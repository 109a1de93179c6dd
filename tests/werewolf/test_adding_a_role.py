"""The Werewolf "add a role" checklist (docs/adding-a-role.md), where it concerns what bots,
models, spectators and readers see: every role has a rules entry, an SDK method and a
model's task for each of its decisions, words for the model, and for each event it tells a
line (a message class of ``messages.py``) and prose in the report."""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.games.werewolf.lines import WerewolfLines
from arena.games.werewolf.messages import MESSAGES
from arena.games.werewolf.roles import REGISTRY
from arena.games.werewolf.roles.base import Action, Role, Team
from arena.games.wire import WireMessage
from arena.report.prose import PROSE
from arena.sdk.bot import GameBot
from arena.sdk.llm.werewolf import ROLES, TASKS
from arena.sdk.werewolf import WEREWOLF, WerewolfBot

from ..seeded import nicks, werewolf_games

RULES = (Path(__file__).resolve().parents[2] / "rules" / "werewolf.md").read_text()
TELLS = re.compile(r"\btell(?:_when_free)?\(\s*\"([a-z_]+)\"")


def told(role: type[Role]) -> list[str]:
    """The kinds of event the role's module tells (``game.tell`` with the kind first)."""
    return TELLS.findall(inspect.getsource(sys.modules[role.__module__]))


def missing(role: type[Role], samples: dict[str, WireMessage | list[WireMessage] | None]) -> list[str]:
    """What the checklist still lacks for ``role``; ``samples``: the message each event kind
    made in seeded games, where one was seen."""
    out = []
    if f"| `{role.id}` |" not in RULES:
        out.append(f"{role.id}: no row in the roles table of rules/werewolf.md")
    if role.id not in ROLES:
        out.append(f"{role.id}: no words for the model (ROLES in arena/sdk/llm/werewolf.py)")
    for action in role.actions:
        method = getattr(WerewolfBot, action.kind, None)
        if not callable(method) or hasattr(GameBot, action.kind):
            out.append(f"{role.id}: no WerewolfBot.{action.kind} (arena/sdk/werewolf.py)")
        if action.kind not in WEREWOLF.asks:
            out.append(f"{role.id}: {action.kind} has no request class in the SDK's spec (arena/sdk/werewolf.py)")
        if action.kind not in TASKS:
            out.append(f"{role.id}: {action.kind} has no task for the model (TASKS in arena/sdk/llm/werewolf.py)")
    for kind in told(role):
        if not hasattr(WerewolfLines, f"_{kind}"):
            out.append(f"{role.id}: event {kind} has no line (WerewolfLines._{kind} in lines.py)")
        news = samples.get(kind)
        for one in [] if news is None else [news] if isinstance(news, WireMessage) else news:
            if MESSAGES.get(one.VERB) is not type(one):
                out.append(f"{role.id}: {one.VERB} has no message class in MESSAGES (messages.py)")
        if kind not in PROSE:
            out.append(f"{role.id}: event {kind} has no prose in the report (PROSE in arena/report/prose.py)")
    return out


@pytest.fixture(scope="module")
def samples() -> dict[str, WireMessage | list[WireMessage] | None]:
    lines, found = WerewolfLines(), {}
    for game in werewolf_games(seeds=2):
        for event in game.events:
            if event.kind not in found:
                found[event.kind] = lines.event_news(event, "g1", nicks(game.players))
    return found


@pytest.mark.parametrize("role", sorted(REGISTRY))
def test_every_role_is_complete(role: str, samples: dict[str, WireMessage | list[WireMessage] | None]) -> None:
    assert missing(REGISTRY[role], samples) == []


class Gazing(Action):
    kind = "stargazer_gaze"
    step = 12


@dataclass(frozen=True, kw_only=True)
class Gazed(WireMessage):
    VERB = "GAZED"


class Stargazer(Role):
    """A role added to the engine alone: the checklist names everything it lacks."""

    id = "stargazer"
    team = Team.VILLAGE
    priority = "P3"
    actions = (Gazing,)

    @classmethod
    def on_death(cls, game: object, seat: int, causes: list[str]) -> None:
        game.tell("stargazed", {})  # type: ignore[attr-defined]


def test_a_role_added_to_the_engine_alone_fails_the_checklist() -> None:
    lacks = missing(Stargazer, {"stargazed": Gazed(gid="g1")})
    assert [item.split(": ", 1)[1].split(" (")[0] for item in lacks] == [
        "no row in the roles table of rules/werewolf.md",
        "no words for the model",
        "no WerewolfBot.stargazer_gaze",
        "stargazer_gaze has no request class in the SDK's spec",
        "stargazer_gaze has no task for the model",
        "event stargazed has no line",
        "GAZED has no message class in MESSAGES",
        "event stargazed has no prose in the report",
    ]
