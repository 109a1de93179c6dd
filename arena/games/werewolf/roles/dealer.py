"""Dealer (P3, neutral): each night (step 4.6, after the roleblocker and the bus driver,
whose swaps move where the card lands, and before the shadow) deals another living player
a card drawn at random from a deck of four, two boons and two banes (rules/werewolf.md §2;
the specification: "夜晚向目标提供随机能力或负面效果"), each an existing mechanic:

- ``shield``: a protection of the doctor's kind for that night (§3.10: it stops one
  ordinary kill; not poison unless ``protectAgainstPoison``, never fire);
- ``vision``: the side of another living player drawn at random, as a seer would see it
  (``Role.seen_as``);
- ``silence``: no turn at the floor the next day, as the silencer's (``SILENCED``, which a
  priest's cleansing lifts);
- ``block``: the player's night actions fail after this step, as a roleblock (they are
  told ``BLOCKED`` too).

Each card is equally likely, drawn from the game's seeded generator when the step settles
(the step ``controls`` later ones, so the draw never depends on the order answers came in).
The player, and only they, is told the card (``dealt``; a vision with the player seen and
their side) when the step settles: the dealer learns nothing of what it dealt. A blocked or
banished dealer deals nothing, and a card for a banished player is never drawn.

Side: the specification gives the dealer no win of its own; like the roleblocker it wins
with whichever side wins if it is alive at the end (the Mafia "survivor"). At most one
dealer: two dealing each other a block would have no order to settle in.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..choice import NONE
from ..mechanics import statuses
from ..mechanics.blocks import block
from ..resolution import BLOCK, Protection
from .base import Action, Role, Team
from .registry import register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

SHIELD, VISION, SILENCE, BLOCK_CARD = "shield", "vision", "silence", "block"
DECK = (SHIELD, VISION, SILENCE, BLOCK_CARD)


class DealerDeal(Action):
    kind = "dealer_deal"
    step = 4.6
    controls = True
    """A block card changes what later steps do."""

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        if value == NONE:
            return
        assert cls.step is not None
        card = DECK[game.rng.randrange(len(DECK))]
        data: dict[str, Any] = {"night": game.day, "card": card}
        if card == SHIELD:
            game.plan.protections.append(Protection(seat, value, BLOCK))
        elif card == VISION:
            others = [s for s in game.living() if s != value]
            seen = others[game.rng.randrange(len(others))]
            data.update(player=seen, side=game.role_of(seen).seen_as())
        elif card == SILENCE:
            statuses.add(game, statuses.SILENCED, value, until=game.day)
        game.tell("dealt", data, (value,))
        if card == BLOCK_CARD:
            # From just after the deal: a dealer swapped onto its own card has dealt it.
            block(game, value, math.nextafter(cls.step, math.inf))


@register
class Dealer(Role):
    id = "dealer"
    team = Team.NEUTRAL
    priority = "P3"
    max_count = 1
    actions = (DealerDeal,)
    survivor = True
