"""Tuvalon for a model: Avalon's text (``AvalonText``) with the map, the two discussions and
the abnormal end, and what the player knows of where everyone stands and who hears it."""

from __future__ import annotations

import json
from typing import Any

from ...games.tuvalon import messages as m
from ...games.tuvalon.messages import MESSAGES
from ...games.wire import Team
from ...protocol import Message
from .. import Ask, GameView
from .avalon import AvalonText, said
from .avalon import TASKS as AVALON_TASKS
from .render import Fields, join

RULES = """\
Tuvalon is seven-player Avalon played on a public 9x9 map. Good: Merlin (sees every evil \
player, Oberon included), Percival (sees Merlin and Morgana without telling them apart), two \
Knights (see nobody, are seen by nobody). Evil: Morgana and the Assassin (see each other), \
Oberon (sees nobody; only Merlin sees him).

Cells are written a1 to i9: column a-i from west to east, row 1-9 from south to north. \
Everyone's position is public.

Each round: the leader proposes a team (2, 3, 3, 4, 4 players on quests 1-5; the first seat \
leads first, then the lead passes in seat order). Then everyone speaks in turn from the leader \
(the first discussion: everyone hears it). Then everyone moves up to 3 steps, each step to an \
orthogonally adjacent free cell. Then everyone speaks again (the second discussion): a speaker \
is heard ONLY by the players whose hearing range holds the speaker: the 3x3 square around the \
listener, or 5x5 for Knights and Oberon. Then everyone votes in public: 4 approvals of 7 send \
the team. After three rejections in a row the fourth leader's team goes without a vote.

On a quest good players play success; evil players may play fail. Quests 1, 2 and 5 fail on \
one fail card, quests 3 and 4 only on two. Three failed quests: evil wins. Three successes: \
the Assassin names a player; naming Merlin wins for evil.

Standing near someone lets you hear them and be heard by them; Merlin should keep away from \
the evil players when hinting, and everyone can use the second discussion to say what they \
would not say to all. {budget}"""

TASKS = {
    **AVALON_TASKS,
    "vote": "{leader} proposes the team {team} for quest {quest}. Vote approve or reject "
    "({rejections} proposals in a row were rejected; after a third, the next leader's team goes without a "
    "vote).",
    "speak": "Quest {quest}, the first discussion: your turn. Everyone hears you. Speak briefly, or say nothing.",
    "move": "Quest {quest}: move. You stand at {at}; choose the cell to move to (staying is {at}). {positions}",
    "speak_near": "Quest {quest}, the second discussion: your turn. {hearers} Speak briefly, or say nothing.",
}


class TuvalonText(AvalonText):
    title = "Tuvalon"
    tasks = TASKS

    def rules(self, game: GameView[Any]) -> str:
        budget = game.speech_budget
        return RULES.format(
            budget="This game sets no limit on how much a player says."
            if budget is None
            else f"Each player may say at most {budget} bytes in the whole game: going over loses the "
            "game, so keep speeches short."
        )

    messages = MESSAGES

    def line(self, msg: Message, game: GameView[Any]) -> str | None:
        if msg.verb == "ASK" and len(msg.args) > 2 and msg.args[2] in ("speak", "move", "speak_near"):
            return None
        if msg.verb == "ASK" and len(msg.args) > 2 and msg.args[2] == "vote":
            return f"Everyone votes on {join(msg.list('team'))}."
        return super().line(msg, game)

    def facts(self, game: GameView[Any]) -> list[str]:
        facts = super().facts(game)
        state = game.state
        cells = getattr(state, "cells", {})
        if cells:
            facts.append("Positions now: " + ", ".join(f"{n} {c}" for n, c in cells.items()) + ".")
        hearing = getattr(state, "hearing", 1)
        facts.append(
            f"You hear the players at most {hearing} cell{'s' if hearing > 1 else ''} away (a "
            f"{2 * hearing + 1}x{2 * hearing + 1} square)."
        )
        left = game.speech_left()
        if left is not None:
            facts.append(f"You may say {left} more bytes in this game (lines past that are left out).")
        return facts

    def fill(self, fields: Fields, game: GameView[Any], ask: Ask) -> None:
        super().fill(fields, game, ask)
        if ask.kind == "move":
            fields["positions"] = (
                "Others stand at "
                + ", ".join(f"{n} {c}" for n, c in getattr(game.state, "cells", {}).items() if n != game.me)
                + "."
            )
        if ask.kind == "speak_near":
            state = game.state
            cells = getattr(state, "cells", {})
            fields["hearers"] = hearers_sentence(state, game.me, [n for n in cells if n != game.me])


def hearers_sentence(state: object, me: str, others: list[str]) -> str:
    """Who hears ``me`` in the second discussion, in words: the players 1 cell away hear
    for sure; those 2 away only if they are Knights or Oberon (their roles are secret, so
    they may); nobody farther."""
    distance = getattr(state, "distance")
    near = [n for n in others if distance(n, me) <= 1]
    far = [n for n in others if distance(n, me) == 2]
    if not near and not far:
        return "Nobody stands within 2 cells of you: nobody can hear you."
    sure = f"{join(near)} hear{'s' if len(near) == 1 else ''} you (1 cell away)" if near else "Nobody is 1 cell away"
    if not far:
        return f"Only {sure}."
    return (
        f"{sure}; {join(far)} (2 cells away) can hear you only if they hear 5x5 (Knights and Oberon). "
        "Nobody else can hear you."
    )


# Tuvalon's own lines in words, beside Avalon's (``said``: AvalonText tells them all).


@said.register
def _(news: m.Map) -> str:
    return "Starting positions: " + ", ".join(f"{n} {c}" for n, c in news.cells.items()) + "."


@said.register
def _(news: m.TeamProposed) -> str:
    forced = " It goes without a vote." if news.forced else ""
    return f"{news.leader} proposes the team {join(news.team)} for quest {news.quest}.{forced}"


@said.register
def _(news: m.Move) -> str:
    return f"{news.player} moves {news.from_} -> {news.to}."


@said.register
def _(news: m.Speech) -> str | None:
    if news.purpose == "near":
        return f"{news.player} spoke in the second discussion, heard by {join(news.heard_by or ())}."
    return None


@said.register
def _(news: Team) -> str:
    return f"(heard nearby) {news.from_} says: {json.dumps(news.text, ensure_ascii=False)}"


@said.register
def _(news: m.Forced) -> str:
    return f"Quest {news.quest} goes without a vote: {join(news.team)}."
