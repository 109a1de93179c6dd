"""Werewolf's kit: the engine, its lines and narration, each neutral role's figure, and
where the SDK, the language-model bot, the report and the sample bots keep their parts."""

from __future__ import annotations

from ...core.game import ABORTED, FORFEIT
from ...core.kit import Figure, Kit, Ref
from .engine import WerewolfGame
from .lines import WerewolfLines
from .narration import WerewolfStory
from .roles import REGISTRY

VERBS = (
    "RULES",
    "WOLVES",
    "NIGHT",
    "SEER",
    "WOLF_VOTES",
    "WOLF_TARGET",
    "LOVERS",
    "CHARMED",
    "BLOCKED",
    "MASONS",
    "DETECTIVE",
    "TRACKED",
    "WATCHED",
    "ORACLE",
    "CAUGHT",
    "CARDS",
    "SILENCED",
    "CLEANSED",
    "DAWN",
    "DAY",
    "PUNISHED",
    "DEALT",
    "CULT",
    "CANDIDACY",
    "LEADER_VOTE",
    "LEADER",
    "ORDER",
    "SPEECH",
    "BALLOT",
    "VOTE_RESULT",
    "EXECUTION",
    "IDIOT",
    "DEATH",
    "SHOT",
)
"""Werewolf's event verbs (protocol.md, "Werewolf")."""

_RULED_ENDS = frozenset(WerewolfGame.end_reasons) - {FORFEIT, ABORTED}
"""Games that ended by the rules (a neutral role's own win is one of these reasons)."""

KIT = Kit(
    name=WerewolfGame.name,
    engine=WerewolfGame,
    lines=WerewolfLines(),
    verbs={verb: (1, 1) for verb in VERBS},
    story=WerewolfStory,
    # Each neutral role's own win (the jester executed, the piper charming everyone, ...).
    figures=tuple(
        Figure(
            f"{name}_own_win",
            name,
            f"as {name}, won by its own condition ({role.win_reason})",
            _RULED_ENDS,
            frozenset({role.win_reason}),
        )
        for name, role in REGISTRY.items()
        if role.win_reason
    ),
    page=Ref("arena.report.sections:werewolf"),
    templates=("werewolf.html",),
    sdk=Ref("arena.sdk.werewolf:WEREWOLF"),
    llm=Ref("arena.sdk.llm.werewolf:WerewolfText"),
    bots={"werewolf_rule": "arena.bots.werewolf_rules_bot:WerewolfRuleBot"},
    demo=("arena.bots.werewolf_rules_bot", "arena.bots.random_bot"),
)
