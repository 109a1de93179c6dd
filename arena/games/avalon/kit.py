"""Avalon's kit: the engine, its lines and narration, and where the SDK, the language-model
bot, the report and the sample bots keep their Avalon parts."""

from __future__ import annotations

from ...core.kit import Figure, Kit, Ref
from ...protocol import ASSASSINATION, DECK, LOYALTY, QUEST, VOTES
from .engine import ASSASSINATED_MERLIN, MERLIN_SURVIVED, AvalonGame
from .lines import AvalonLines
from .narration import AvalonStory

ASSASSINATION_FIGURES = (
    Figure(
        "merlin_survival",
        "merlin",
        "as Merlin, survived the assassination (games that reached it)",
        frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}),
        frozenset({MERLIN_SURVIVED}),
    ),
    Figure(
        "assassin_hit",
        "assassin",
        "as assassin, named Merlin (games that reached the assassination)",
        frozenset({MERLIN_SURVIVED, ASSASSINATED_MERLIN}),
        frozenset({ASSASSINATED_MERLIN}),
    ),
)
"""Avalon's figures, which Tuvalon (Avalon's quests and assassination) shares."""

KIT = Kit(
    name=AvalonGame.name,
    engine=AvalonGame,
    lines=AvalonLines(),
    verbs={verb: (1, 1) for verb in (VOTES, QUEST, DECK, LOYALTY, ASSASSINATION)},
    story=AvalonStory,
    figures=ASSASSINATION_FIGURES,
    page=Ref("arena.report.sections:avalon"),
    templates=("avalon.html",),
    sdk=Ref("arena.sdk.avalon:AVALON"),
    llm=Ref("arena.sdk.llm.avalon:AvalonText"),
    bots={"avalon_rule": "arena.bots.avalon_rules_bot:RuleBot"},
    demo=("arena.bots.avalon_rules_bot", "arena.bots.random_bot"),
)
