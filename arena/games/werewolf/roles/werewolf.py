"""Werewolf (P0, werewolf): the wolves vote together on a night kill (rules/werewolf.md §3.8).

Every living wolf votes at once (step 8) for a living player or abstains. One target with
the most votes is the kill; a tie, or no vote at all, means no wolf kill tonight. The wolves
see the votes and the result as soon as they have all voted; the roles that
``learns_wolf_target`` (doctor, witch) learn the final target or that there is none, each
once it has made its own choice of the night (the doctor protects first, as in §3.2). Wolves
may choose any living player, a wolf too.

The kill is carried out by the first wolf by seat among those who voted for the victim
(the kill's ``actor``: whom a bomb takes along); every wolf who voted for the victim visits
them (mechanics/visits.py). A werewolf leader's choice of the night (roles/werewolf_leader.py,
``ORDER``) replaces the vote's outcome, and the leader carries out the kill. A bus driver's
swap moves the kill, not the vote (mechanics/redirects.py): the pack, the doctor and the
witch are told the player voted for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..choice import ABSTAIN, Choice
from ..mechanics.redirects import land
from ..mechanics.visits import visit
from ..resolution import Kill
from .base import Action, Role, Team, target_choice
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

VOTES = "wolf_votes"
ORDER = "wolf_order"
"""The night's note of a werewolf leader's choice: (leader, target), settled with the votes."""


class WolfVote(Action):
    kind = "wolf_vote"
    step = 8
    visits = False
    """A vote visits nobody; the kill visits its target from each wolf who voted for it."""

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        return target_choice(game, seat, cls.kind, self_ok=True, skip=ABSTAIN)

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        game.plan.notes.setdefault(VOTES, {})[seat] = value

    @classmethod
    def finish(cls, game: WerewolfGame) -> None:
        votes: dict[int, Any] = game.plan.notes.get(VOTES, {})
        counts: dict[int, int] = {}
        for target in votes.values():
            if target != ABSTAIN:
                counts[target] = counts.get(target, 0) + 1
        top = max(counts.values(), default=0)
        leaders = [s for s, c in counts.items() if c == top]
        target = leaders[0] if top and len(leaders) == 1 else None
        order: tuple[int, int] | None = game.plan.notes.get(ORDER)
        if order is not None:
            target = order[1]
        voters = [wolf for wolf in sorted(votes) if votes[wolf] == target]
        if order is not None:  # the leader carries out the kill it ordered
            voters = [order[0], *(wolf for wolf in voters if wolf != order[0])]
        game.plan.wolf_target = target
        if target is not None:
            victim = land(game, cls.step, target)
            game.plan.kills.append(Kill(victim, "wolves", voters[0], cls.step))
            for wolf in voters:
                visit(game, wolf, victim, cls.kind, cls.step)
        game.tell(
            "wolf_votes",
            {"night": game.day, "votes": [[s, votes[s]] for s in sorted(votes)], "target": target},
            game.living_wolves(),
        )
        informed = [s for s in game.living() if game.role_of(s).learns_wolf_target]
        if informed:
            game.night.tell_when_free(game, "wolf_target", {"night": game.day, "target": target}, informed)


@register
class Werewolf(Role):
    id = "werewolf"
    team = Team.WEREWOLF
    priority = "P0"
    actions: ClassVar[tuple[type[Action], ...]] = (WolfVote,)
