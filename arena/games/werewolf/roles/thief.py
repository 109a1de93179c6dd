"""Thief (P2, neutral): on the first night (step 2) may take one of two extra cards and
play that role from then on (rules/werewolf.md §2, as in Miller's Hollow).

With a thief dealt the deck has two more cards than players (``Role.extra_cards``;
``roleCounts`` counts the whole deck, villagers fill it): the two left over after the deal
are the thief's to choose from, and the thief's own card is never one of them (the engine's
``_seat``). The thief learns them with the role (``thief_cards``), then answers ``card1``,
``card2`` or ``none``; with two werewolf cards there is no ``none``, so the wolves are never
short of a card (Miller's Hollow). Taking a card makes the thief that
role, team and win included, at once: a new wolf joins the pack's vote that very night, a
new seer checks that night, and so on for every action of a later step. A thief who takes
nothing becomes a villager (Miller's Hollow): no thief is left after night 1, so the role
needs no win of its own. The thief's card takes the place of the card taken; ``END`` shows
the two cards left (``extra``). The steal ``controls`` later steps: nothing after it
settles before the thief has chosen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..choice import CARDS, NONE, Choice
from .base import Action, Role, Team
from .registry import REGISTRY, register

if TYPE_CHECKING:
    from ..engine import WerewolfGame

FILLER = "villager"
"""What a thief who takes no card becomes."""


class ThiefSteal(Action):
    kind = "thief_steal"
    step = 2
    first_night_only = True
    controls = True
    visits = False

    @classmethod
    def decision(cls, game: WerewolfGame, seat: int) -> Choice:
        forced = all(REGISTRY[card].team is Team.WEREWOLF for card in game.extra)
        return Choice(seat, cls.kind, CARDS if forced else (*CARDS, NONE))

    @classmethod
    def apply(cls, game: WerewolfGame, seat: int, value: Any) -> None:
        assert cls.step is not None
        if value == NONE:
            game.become(seat, FILLER, cls.step)
            return
        i = CARDS.index(value)
        taken, game.extra[i] = game.extra[i], Thief.id
        game.become(seat, taken, cls.step)


@register
class Thief(Role):
    id = "thief"
    team = Team.NEUTRAL
    priority = "P2"
    max_count = 1
    extra_cards = len(CARDS)
    actions = (ThiefSteal,)

    @classmethod
    def on_deal(cls, game: WerewolfGame, seats: list[int]) -> None:
        game.tell("thief_cards", {"cards": list(game.extra)}, seats)
