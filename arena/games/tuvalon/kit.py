"""Tuvalon's kit: Avalon's on a map, with its own lines, narration and report section."""

from __future__ import annotations

from ...core.kit import Kit, Ref
from ..avalon.kit import ASSASSINATION_FIGURES
from .engine import TuvalonGame
from .lines import TuvalonLines
from .narration import TuvalonStory

KIT = Kit(
    name=TuvalonGame.name,
    engine=TuvalonGame,
    lines=TuvalonLines(),
    verbs={verb: (1, 1) for verb in ("MAP", "TEAM_PROPOSED", "SPEECH", "MOVE", "FORCED")},
    story=TuvalonStory,
    figures=ASSASSINATION_FIGURES,
    page=Ref("arena.report.sections:tuvalon"),
    templates=("avalon.html", "tuvalon.html"),
    sdk=Ref("arena.sdk.tuvalon:TUVALON"),
    llm=Ref("arena.sdk.llm.tuvalon:TuvalonText"),
    bots={"tuvalon_rule": "arena.bots.tuvalon_rules_bot:TuvalonRuleBot"},
    demo=("arena.bots.tuvalon_rules_bot", "arena.bots.random_bot"),
)
