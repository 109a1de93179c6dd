"""Build Werewolf games with a chosen deal and drive them with scripted answers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from arena.core.decisions import Decision
from arena.core.events import Event
from arena.core.game import Game
from arena.games.werewolf.choice import Cover
from arena.games.werewolf.engine import WerewolfGame
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import REGISTRY

ALL_ROLES = ",".join(REGISTRY)


class Rigged(WerewolfGame):
    """A game whose seat ``i`` gets ``deal[i]``, and whose extra cards (a thief's) are
    ``extra`` (the rest of the engine is untouched)."""

    def __init__(self, deal: list[str], options: WerewolfOptions, seed: int, extra: list[str] | None = None) -> None:
        self.rigged = deal + (extra or [])
        super().__init__(len(deal), options, seed)

    def _seat(self, roles: list[str]) -> list[str]:
        assert Counter(roles) == Counter(self.rigged)
        return list(self.rigged)


def game(deal: str | list[str], seed: int = 0, extra: str = "", **options: Any) -> WerewolfGame:
    """``deal`` like "werewolf werewolf seer villager ..." (seat order); ``extra`` the extra
    cards, with a thief dealt."""
    roles = deal.split() if isinstance(deal, str) else list(deal)
    counts = Counter(r for r in roles + extra.split() if r != "villager")
    options.setdefault("enabledRoles", ALL_ROLES)
    options.setdefault("roleCounts", ",".join(f"{r}:{n}" for r, n in counts.items()))
    return Rigged(roles, WerewolfOptions(**options), seed, extra.split())


Plan = dict[Any, Any]


def step(g: WerewolfGame, plan: Plan, stop: Callable[[WerewolfGame], bool] | None = None, limit: int = 500) -> None:
    """Answer pending decisions until ``stop`` (or the end, or a decision the plan does not cover
    when the plan has ``strict``).

    ``plan`` keys: ``(kind, seat)`` or ``kind``; values: an answer, a list of answers used in
    turn, or a callable of the decision. Unplanned decisions get the engine's default, and
    so do covers (a request with nothing to decide: the plan says what would be chosen if
    there were).
    """
    for _ in range(limit):
        if g.result is not None or (stop is not None and stop(g)):
            return
        d = g.pending()[0]
        value = None if covered(g, d) else plan.get((d.kind, d.seat), plan.get(d.kind, None))
        if isinstance(value, list):
            value = value.pop(0) if value else None
        if callable(value):
            value = value(d)
        if value is None:
            value = g.default_answer(d)
        g.apply(d.seat, d.kind, value)
    raise AssertionError("the game did not reach the stop condition")


def private_to(e: Event, seat: int) -> bool:
    """Whether the private event ``e`` is told to ``seat``."""
    assert e.audience is not None, f"{e.kind} is public"
    return seat in e.audience


def werewolf(game: Game) -> WerewolfGame:
    """A match's engine, as the Werewolf game it plays."""
    assert isinstance(game, WerewolfGame)
    return game


def decision_of(g: WerewolfGame, seat: int) -> Decision:
    """What ``seat`` is asked now (it must be asked something)."""
    d = g.decision_for(seat)
    assert d is not None, f"seat {seat} is asked nothing"
    return d


def covered(g: WerewolfGame, d: Any) -> bool:
    """Whether ``d`` is a cover: a night request of an actor with nothing to decide."""
    return isinstance(d, Cover)


def until_kind(kind: str, seat: int | None = None) -> Callable[[WerewolfGame], bool]:
    def stop(g: WerewolfGame) -> bool:
        return any(d.kind == kind and (seat is None or d.seat == seat) for d in g.pending())

    return stop


def until_event(kind: str) -> Callable[[WerewolfGame], bool]:
    start: list[int] = []

    def stop(g: WerewolfGame) -> bool:
        if not start:
            start.append(len(g.events))
        return any(e.kind == kind for e in g.events[start[0] :])

    return stop


def events(g: WerewolfGame, kind: str) -> list[Event]:
    return [e for e in g.events if e.kind == kind]


def last(g: WerewolfGame, kind: str) -> dict[str, Any]:
    found = events(g, kind)
    assert found, f"no {kind} event"
    return found[-1].data


def night(g: WerewolfGame, plan: Plan) -> None:
    """Play the rest of the current night with ``plan``, up to dawn."""
    step(g, plan, stop=lambda x: x.phase != "night")


def dead(g: WerewolfGame) -> set[int]:
    return {s for s in range(g.players) if not g.alive[s]}
